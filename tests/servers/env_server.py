"""A stdio MCP server (official SDK) that tells what it was started with: `env(name)` returns
the value of an environment variable ("" when unset), `pid()` its process id; `sleep(s)`
answers after s seconds."""

from __future__ import annotations

import asyncio
import os

from mcp.server.mcpserver import MCPServer

mcp = MCPServer(name="env", version="1.0.0")


@mcp.tool()
def env(name: str) -> str:
    """The value of environment variable `name` in this server's process."""
    return os.environ.get(name, "")


@mcp.tool()
def pid() -> int:
    """This server's process id."""
    return os.getpid()


@mcp.tool()
async def sleep(seconds: float) -> str:
    """Answer after `seconds` (a call that outlives its timeout)."""
    await asyncio.sleep(seconds)
    return "slept"


if __name__ == "__main__":
    mcp.run()
