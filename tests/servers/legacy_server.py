"""A legacy-only (2025-11-25) MCP server over stdio, written without the SDK so it behaves the
way an old server does on the wire: no `server/discover` (method not found), the `initialize`
handshake only, and a missing resource answered with the legacy code -32002.

It offers a resource (`old://present`) and two tools: `hello`, and `ask_later(question,
delay)`, which waits `delay` seconds, then asks the client's model (a `sampling/createMessage`
request) and answers with the reply. Like every legacy stdio server, its request carries
nothing that names the call it belongs to.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from typing import Any

VERSION = "2025-11-25"
RESOURCES = {"old://present": "still here"}
TOOLS = [
    {"name": "hello", "inputSchema": {"type": "object", "properties": {}}},
    {
        "name": "ask_later",
        "description": "Wait `delay` seconds, then ask the client's model `question`.",
        "inputSchema": {
            "type": "object",
            "properties": {"question": {"type": "string"}, "delay": {"type": "number"}},
            "required": ["question"],
        },
    },
]
_ids = itertools.count(1)
_waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
_tasks: set[asyncio.Task[None]] = set()


def write(msg: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **msg}) + "\n")
    sys.stdout.flush()


def answer(rid: Any, result: Any = None, error: dict[str, Any] | None = None) -> None:
    write({"id": rid, "error": error} if error is not None else {"id": rid, "result": result})


def text(value: str, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": error}


async def ask_later(rid: Any, args: dict[str, Any]) -> None:
    await asyncio.sleep(float(args.get("delay") or 0))
    sid = f"srv-{next(_ids)}"
    fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    _waiting[sid] = fut
    message = {"role": "user", "content": {"type": "text", "text": str(args.get("question"))}}
    write(
        {
            "id": sid,
            "method": "sampling/createMessage",
            "params": {"messages": [message], "maxTokens": 50},
        }
    )
    reply = await fut
    if "error" in reply:
        answer(rid, text(f"sampling failed: {reply['error'].get('message')}", error=True))
    else:
        content = (reply.get("result") or {}).get("content") or {}
        answer(rid, text(f"old got: {content.get('text')}"))


def handle(msg: dict[str, Any]) -> None:
    if "method" not in msg:  # the client's answer to one of our requests
        fut = _waiting.pop(str(msg.get("id")), None)
        if fut is not None and not fut.done():
            fut.set_result(msg)
        return
    if "id" not in msg:
        return  # notifications need no answer
    rid, method, params = msg["id"], msg["method"], msg.get("params") or {}
    if method == "initialize":
        answer(
            rid,
            {
                "protocolVersion": VERSION,
                "capabilities": {"tools": {}, "resources": {}},
                "serverInfo": {"name": "old", "version": "0.1.0"},
            },
        )
    elif method == "ping":
        answer(rid, {})
    elif method == "tools/list":
        answer(rid, {"tools": TOOLS})
    elif method == "tools/call" and params.get("name") == "hello":
        answer(rid, text("hello from a legacy server"))
    elif method == "tools/call" and params.get("name") == "ask_later":
        task = asyncio.ensure_future(ask_later(rid, params.get("arguments") or {}))
        _tasks.add(task)
        task.add_done_callback(_tasks.discard)
    elif method == "resources/list":
        answer(rid, {"resources": [{"uri": uri, "name": uri} for uri in RESOURCES]})
    elif method == "resources/templates/list":
        answer(rid, {"resourceTemplates": []})
    elif method == "resources/read":
        uri = params.get("uri")
        if uri in RESOURCES:
            answer(
                rid, {"contents": [{"uri": uri, "mimeType": "text/plain", "text": RESOURCES[uri]}]}
            )
        else:
            answer(
                rid, error={"code": -32002, "message": "Resource not found", "data": {"uri": uri}}
            )
    else:
        answer(rid, error={"code": -32601, "message": f"Method not found: {method}"})


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 22)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        if line.strip():
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict):
                handle(msg)


if __name__ == "__main__":
    asyncio.run(main())
