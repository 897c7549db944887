"""Wire-level MCP: JSON-RPC framing, error codes, protocol eras."""
