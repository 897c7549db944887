"""A real MCP server (official SDK) that floods a call's stream, for back-pressure tests.

`flood(count, size)` reports progress `count` times, each with a `size`-character message, as
fast as it can, then answers "flooded". With a progress token the gateway streams every report
to the caller (SSE), so a caller that never reads shows what the gateway buffers for it.
"""

from __future__ import annotations

import asyncio

from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer(name="flood", version="1.0.0")


@mcp.tool()
async def flood(count: int, size: int, ctx: Context) -> str:
    """Report progress `count` times with `size`-character messages."""
    text = "f" * size
    for i in range(count):
        await ctx.report_progress(progress=i + 1, total=count, message=text)
        if i % 64 == 63:
            await asyncio.sleep(0)
    return "flooded"


if __name__ == "__main__":
    mcp.run()
