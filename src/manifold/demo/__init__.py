"""Small demo MCP servers shipped with Manifold, for `make run` and first experiments."""
