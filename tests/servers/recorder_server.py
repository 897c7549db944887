"""A tiny raw-stdio MCP server (no SDK, so it starts fast) that records what it is sent.

Legacy era only: `server/discover` gets -32601, then the `initialize` handshake. Tools:
  * `hold(seconds)`: answers after `seconds`; counts how many holds run at once. A
    `notifications/cancelled` for a hold stops it without an answer and is recorded.
  * `stats()`: JSON text (and structuredContent) with pid, the peak and current number of holds,
    the upstream request ids of cancelled holds, the count of notifications/cancelled seen, and
    the tool calls received (name and arguments, in order).
  * `echo(text)`: answers with the text.
  * `noisy(lines)`: writes that many lines to its stderr (and a line of plain text that is not
    JSON-RPC to its stdout), then answers.
Options: `--odd-schema` adds a tool `odd` (answers like `echo`) whose inputSchema no validator
can compile (an unknown type); `--annotated` marks `echo` and `stats` read-only and adds a
destructive tool `remove(path, force)` (answers "removed <path>"); `--issue-tool` adds
`create_issue(owner*, repo*, title*, body, labels)` (answers "issue owner/repo: title");
`--stubborn` ignores SIGTERM and stdin EOF, and starts a grandchild `sleep` in its own process
group (so only SIGKILL of the group ends it all);
`--stderr-chatter` writes to stderr on every request.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
from typing import Any

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="rec")
parser.add_argument("--stubborn", action="store_true")
parser.add_argument("--stderr-chatter", action="store_true")
parser.add_argument("--odd-schema", action="store_true")
parser.add_argument("--annotated", action="store_true")
parser.add_argument("--issue-tool", action="store_true")
parser.add_argument("--linger-tool", action="store_true", help="a second tool that holds")
args = parser.parse_args()

TOOLS = [
    {
        "name": "hold",
        "description": "Answer after some seconds.",
        "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}},
    },
    {
        "name": "stats",
        "description": "What this server has seen.",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "echo",
        "description": "Echo text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
    {
        "name": "noisy",
        "description": "Write lines to stderr and junk to stdout.",
        "inputSchema": {"type": "object", "properties": {"lines": {"type": "integer"}}},
    },
]
if args.annotated:
    for t in TOOLS:
        if t["name"] in ("echo", "stats"):
            t["annotations"] = {"readOnlyHint": True}
    remove = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "force": {"type": "boolean"}},
    }
    TOOLS.append(
        {
            "name": "remove",
            "description": "Remove a file.",
            "inputSchema": remove,
            "annotations": {"destructiveHint": True, "readOnlyHint": False},
        }
    )
if args.odd_schema:
    odd = {"type": "object", "properties": {"text": {"type": "no-such-type"}}}
    TOOLS.append({"name": "odd", "description": "Echo text.", "inputSchema": odd})
if args.linger_tool:
    TOOLS.append({**TOOLS[0], "name": "linger", "description": "Answer after some seconds, too."})
if args.issue_tool:
    props = {
        "owner": {"type": "string"},
        "repo": {"type": "string"},
        "title": {"type": "string"},
        "body": {"type": "string"},
        "labels": {"type": "array", "items": {"type": "string"}},
    }
    TOOLS.append(
        {
            "name": "create_issue",
            "description": "Create an issue in a repository.",
            "inputSchema": {
                "type": "object",
                "properties": props,
                "required": ["owner", "repo", "title"],
            },
            "annotations": {"readOnlyHint": False, "openWorldHint": True},
        }
    )

state: dict[str, Any] = {"current": 0, "peak": 0, "cancelled": [], "cancel_notes": 0, "calls": []}
holds: dict[Any, asyncio.Task[None]] = {}
out = sys.stdout.buffer


def send(obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()


def text_result(rid: Any, text: str, structured: Any = None) -> None:
    res: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if structured is not None:
        res["structuredContent"] = structured
    send({"jsonrpc": "2.0", "id": rid, "result": res})


async def hold(rid: Any, seconds: float) -> None:
    state["current"] += 1
    state["peak"] = max(state["peak"], state["current"])
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        state["cancelled"].append(rid)
        return
    finally:
        state["current"] -= 1
        holds.pop(rid, None)
    text_result(rid, f"{args.name} held {seconds}")


def on_call(rid: Any, params: dict[str, Any]) -> None:
    name = params.get("name")
    a = params.get("arguments") or {}
    state["calls"].append({"name": name, "arguments": params.get("arguments")})
    if name == "hold" or (name == "linger" and args.linger_tool):
        holds[rid] = asyncio.ensure_future(hold(rid, float(a.get("seconds", 1))))
    elif name == "stats":
        st = {**state, "pid": os.getpid()}
        text_result(rid, json.dumps(st), st)
    elif name == "remove":
        text_result(rid, f"removed {a.get('path', '')}")
    elif name == "create_issue":
        text_result(rid, f"issue {a.get('owner')}/{a.get('repo')}: {a.get('title')}")
    elif name in ("echo", "odd"):
        text_result(rid, f"{args.name}:{a.get('text', '')}")
    elif name == "noisy":
        for i in range(int(a.get("lines", 10))):
            print(f"{args.name} noise {i} {{not json", file=sys.stderr, flush=True)
        out.write(b"this line is not JSON-RPC\n")
        out.flush()
        text_result(rid, "noisy done")
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": f"no {name}"}})


def on_message(msg: dict[str, Any]) -> None:
    method = msg.get("method")
    rid = msg.get("id")
    params = msg.get("params") or {}
    if args.stderr_chatter:
        print(f"{args.name} got {method}", file=sys.stderr, flush=True)
    if method is None:
        return
    if "id" not in msg:
        if method == "notifications/cancelled":
            state["cancel_notes"] += 1
            task = holds.get(params.get("requestId"))
            if task is not None:
                task.cancel()
        return
    if method == "initialize":
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": args.name, "version": "1.0.0"},
        }
        send({"jsonrpc": "2.0", "id": rid, "result": result})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        on_call(rid, params)
    else:
        err = {"code": -32601, "message": f"Method not found: {method}"}
        send({"jsonrpc": "2.0", "id": rid, "error": err})


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line:
            break
        if line.strip():
            on_message(json.loads(line))
    if args.stubborn:
        await asyncio.sleep(3600)  # ignore EOF: only a signal ends this


if __name__ == "__main__":
    if args.stubborn:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        # A grandchild in the same process group, to check the whole group is reaped.
        subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL)
    print(f"{args.name} starting", file=sys.stderr, flush=True)
    asyncio.run(main())
