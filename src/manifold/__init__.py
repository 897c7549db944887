"""Manifold: an MCP gateway in front of many MCP servers."""

__version__ = "0.1.0"
