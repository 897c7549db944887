"""A Streamable HTTP MCP server (official SDK) whose tool `seen_headers` answers with the HTTP
headers of the request that carried the call, so a test can see what reached the upstream.
`--port N` sets the port."""

from __future__ import annotations

import argparse
import json

from mcp.server.mcpserver import Context, MCPServer

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
args = parser.parse_args()

mcp = MCPServer(name="headers", version="1.0.0")


@mcp.tool()
def seen_headers(ctx: Context) -> str:
    """The HTTP headers this server received with this call, as JSON."""
    return json.dumps({k.lower(): v for k, v in (ctx.headers or {}).items()})


@mcp.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return f"headers:{text}"


if __name__ == "__main__":
    mcp.run(transport="streamable-http", port=args.port)
