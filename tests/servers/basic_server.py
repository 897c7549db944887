"""A small real MCP server for tests (official SDK): tools, a prompt, resources, progress,
sampling, elicitation, logging and a crash switch. `--http --port N` serves Streamable HTTP;
default stdio. `--name` sets the server name and the tag in answers."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="basic")
parser.add_argument("--http", action="store_true")
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--slow-start", type=float, default=0.0, help="seconds before serving")
args = parser.parse_args()
NAME = args.name

mcp = MCPServer(name=NAME, version="1.0.0", instructions=f"{NAME} test server")


@mcp.tool()
def echo(text: str) -> str:
    """Echo the text back, tagged with the server name."""
    return f"{NAME}:{text}"


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def sleep(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@mcp.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Report progress `steps` times."""
    for i in range(steps):
        await ctx.report_progress(progress=i + 1, total=steps, message=f"step {i + 1}")
        await asyncio.sleep(0.01)
    return "done"


@mcp.tool()
async def ask(question: str, ctx: Context) -> str:
    """Ask the client's model (sampling) and return its answer."""
    from mcp import types

    res = await ctx.session.create_message(
        messages=[
            types.SamplingMessage(
                role="user", content=types.TextContent(type="text", text=question)
            )
        ],
        max_tokens=50,
    )
    content = res.content
    text = content.text if isinstance(content, types.TextContent) else str(content)
    return f"{NAME} got: {text}"


class Confirm(BaseModel):
    ok: bool


@mcp.tool()
async def confirm(message: str, ctx: Context) -> str:
    """Ask the user to confirm (elicitation)."""
    res = await ctx.elicit(message, schema=Confirm)
    return f"{NAME} {res.action}:{getattr(res, 'data', None)}"


@mcp.tool()
async def chatty(ctx: Context) -> str:
    """Log three messages."""
    for lvl in ("info", "warning", "error"):
        await ctx.log(lvl, f"{NAME} says {lvl}")
    return "logged"


@mcp.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@mcp.tool()
def crash() -> str:
    """Exit the process at once (a crash mid-call)."""
    os._exit(3)


@mcp.resource(f"{NAME}://greeting", mime_type="text/plain")
def greeting() -> str:
    return f"hello from {NAME}"


@mcp.resource(f"{NAME}://item/{{item_id}}")
def item(item_id: str) -> str:
    return f"{NAME} item {item_id}"


@mcp.prompt()
def review(code: str) -> str:
    """Review some code."""
    return f"[{NAME}] Please review:\n{code}"


if __name__ == "__main__":
    if args.http:
        mcp.run(transport="streamable-http", port=args.port)
    else:
        print(f"{NAME} starting", file=sys.stderr)
        time.sleep(args.slow_start)  # a slow start: stdin is not read until then
        mcp.run()
