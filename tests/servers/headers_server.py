"""A Streamable HTTP MCP server (official SDK) whose tool `seen_headers` answers with the HTTP
headers of the request that carried the call, so a test can see what reached the upstream;
`region_headers` does the same for a call whose `region` argument is marked `x-mcp-header`.
`--port N` sets the port."""

from __future__ import annotations

import argparse
import json
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
args = parser.parse_args()

mcp = MCPServer(name="headers", version="1.0.0")


@mcp.tool()
def seen_headers(ctx: Context) -> str:
    """The HTTP headers this server received with this call, as JSON."""
    return json.dumps({k.lower(): v for k, v in (ctx.headers or {}).items()})


@mcp.tool()
def region_headers(
    ctx: Context,
    region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})] = "unset",
) -> str:
    """The HTTP headers of this call, as JSON; `region` is mirrored in Mcp-Param-Region."""
    return json.dumps({k.lower(): v for k, v in (ctx.headers or {}).items()})


@mcp.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return f"headers:{text}"


if __name__ == "__main__":
    mcp.run(transport="streamable-http", port=args.port)
