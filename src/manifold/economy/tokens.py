"""Token estimates: one estimator used everywhere (chars/4, as the anchors measure), so every
figure in a report is comparable. Exact counts (a tokenizer, if one is installed) may be added
beside it, never instead of it."""

from __future__ import annotations


def estimate(text: str | bytes) -> int:
    """Tokens for `text` (characters / 4, rounded up); bytes are counted as characters."""
    return (len(text) + 3) // 4
