"""Token economy: tool search and related helpers."""
