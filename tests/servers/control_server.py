"""A small real MCP server (official SDK) whose behaviour tests can steer and observe.

- `grow(tool)` adds a tool named `tool` at run time and announces it (tools list_changed, on
  both eras), so a test can watch the change reach clients through a gateway.
- `slow(seconds, tag)` sleeps; when its call is cancelled (a client's `notifications/cancelled`,
  or a closed modern HTTP stream) it records `tag` before giving up.
- `started(tag)` / `cancelled(tag)` answer "yes" or "no", so a test can see, through the
  gateway, which server a call and its cancellation reached (short answers: a gateway may
  abbreviate repeated long ones).
- `ask(question)` (sampling) and `confirm(message)` (elicitation) work on both eras: on the
  2026-07-28 wire they answer `input_required` (MRTR) and finish on the retry; on the legacy
  wire they send a real request to the client on the call's own stream.

`--http --port N` serves Streamable HTTP; default stdio. `--name` tags answers.
"""

from __future__ import annotations

import argparse
import asyncio

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.message import ServerMessageMetadata
from mcp.types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequest,
    InputRequiredResult,
    InputResponse,
    SamplingMessage,
    TextContent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="control")
parser.add_argument("--http", action="store_true")
parser.add_argument("--port", type=int, default=0)
args = parser.parse_args()
NAME = args.name

mcp = MCPServer(name=NAME, version="1.0.0")
CANCELLED: list[str] = []
STARTED: list[str] = []


@mcp.tool()
async def slow(seconds: float, tag: str) -> str:
    """Sleep `seconds`, recording `tag` if the call is cancelled first."""
    STARTED.append(tag)
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        CANCELLED.append(tag)
        raise
    return f"{NAME} finished {tag}"


@mcp.tool()
def started(tag: str) -> str:
    """Whether a `slow` call with this tag reached this server: "yes" or "no"."""
    return "yes" if tag in STARTED else "no"


@mcp.tool()
def cancelled(tag: str) -> str:
    """Whether a `slow` call with this tag was cancelled here: "yes" or "no"."""
    return "yes" if tag in CANCELLED else "no"


@mcp.tool()
async def grow(tool: str, ctx: Context) -> str:
    """Add a tool named `tool` and announce the change."""

    def grown() -> str:
        return f"{NAME} grew {tool}"

    mcp.add_tool(grown, name=tool, description=f"Added at run time by grow({tool!r})")
    await ctx.notify_tools_changed()  # subscriptions/listen (2026-07-28)
    if not str(ctx.protocol_version or "").startswith("2026"):
        await ctx.session.send_tool_list_changed()  # legacy sessions
    return f"{NAME} added {tool}"


async def get_input(
    ctx: Context, key: str, request: InputRequest, result: type[InputResponse]
) -> InputResponse | InputRequiredResult:
    """The client's answer to `request`: MRTR on the modern wire, a real request on legacy."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        answer = (ctx.input_responses or {}).get(key)
        if isinstance(answer, result):
            return answer
        return InputRequiredResult(input_requests={key: request})
    related = ServerMessageMetadata(related_request_id=ctx.request_context.request_id)
    return await ctx.session.send_request(request, result, metadata=related)


@mcp.tool(structured_output=False)
async def ask(question: str, ctx: Context) -> str | InputRequiredResult:
    """Ask the client's model (sampling) and return its answer."""
    message = SamplingMessage(role="user", content=TextContent(type="text", text=question))
    request = CreateMessageRequest(
        params=CreateMessageRequestParams(messages=[message], max_tokens=50)
    )
    answer = await get_input(ctx, "llm", request, CreateMessageResult)
    if isinstance(answer, InputRequiredResult):
        return answer
    assert isinstance(answer, CreateMessageResult)
    text = answer.content.text if isinstance(answer.content, TextContent) else "?"
    return f"{NAME} got: {text}"


@mcp.tool(structured_output=False)
async def confirm(message: str, ctx: Context) -> str | InputRequiredResult:
    """Ask the user to confirm (elicitation)."""
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    request = ElicitRequest(
        params=ElicitRequestFormParams(message=message, requested_schema=schema)
    )
    answer = await get_input(ctx, "confirm", request, ElicitResult)
    if isinstance(answer, InputRequiredResult):
        return answer
    assert isinstance(answer, ElicitResult)
    return f"{NAME} {answer.action}:{answer.content}"


if __name__ == "__main__":
    if args.http:
        mcp.run(transport="streamable-http", port=args.port)
    else:
        mcp.run()
