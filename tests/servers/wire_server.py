"""A raw legacy-era stdio MCP server (no SDK, so it starts fast) that shows the gateway's wire
traffic: it records every frame it reads, for tests of the upstream session's id and
progress-token mapping.

Tools:
  * `seen()`: JSON text of every frame read so far (in order).
  * `progress(steps, together)`: held until `together` progress calls are waiting, then, for
    each (newest first), `steps` notifications/progress on the call's own progressToken, one on
    a token no call gave (424242), one on "stray" and one on each of `old_tokens`, then the
    answer: JSON text {"id": <request id>, "token": <progressToken>}.
  * `echo(text)`: answers with the text; `together` as for progress, answered newest first.
  * `stray(text)`: first answers ids nobody asked (987654, "nope", null), then the text.
  * `hold()`: never answers; a notifications/cancelled for it is recorded (see `seen`).
  * `exit(code)`: writes a line to stderr and exits at once with `code`, answering nothing.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from raw import answer_basics, send

TOOLS = [
    {"name": n, "inputSchema": {"type": "object"}}
    for n in ("seen", "progress", "echo", "stray", "hold", "exit")
]
seen: list[dict[str, Any]] = []
waiting: dict[str, list[dict[str, Any]]] = {"progress": [], "echo": []}


def text(rid: Any, value: str) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": value}]}})


def answer(name: str, msg: dict[str, Any]) -> None:
    rid, params = msg["id"], msg["params"]
    args = params.get("arguments") or {}
    if name == "echo":
        text(rid, str(args.get("text", "")))
        return
    token = (params.get("_meta") or {}).get("progressToken")
    for i in range(int(args.get("steps", 1))):
        note = {"progressToken": token, "progress": i + 1, "total": args.get("steps", 1)}
        send({"jsonrpc": "2.0", "method": "notifications/progress", "params": note})
    for foreign in (424242, "stray", *args.get("old_tokens", [])):
        note = {"progressToken": foreign, "progress": 1}
        send({"jsonrpc": "2.0", "method": "notifications/progress", "params": note})
    text(rid, json.dumps({"id": rid, "token": token}))


def on_call(msg: dict[str, Any]) -> None:
    rid, params = msg["id"], msg["params"]
    name = params.get("name")
    args = params.get("arguments") or {}
    if name == "seen":
        text(rid, json.dumps(seen))
    elif name in waiting:
        queue = waiting[name]
        queue.append(msg)
        if len(queue) >= int(args.get("together", 1)):
            for held in reversed(queue):
                answer(name, held)
            queue.clear()
    elif name == "stray":
        for other in (987654, "nope", None):
            send({"jsonrpc": "2.0", "id": other, "result": {"content": []}})
        text(rid, str(args.get("text", "")))
    elif name == "hold":
        pass
    elif name == "exit":
        sys.stderr.write("wire server exiting on request\n")
        sys.stderr.flush()
        os._exit(int(args.get("code", 3)))
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": f"no {name}"}})


for line in sys.stdin:
    msg = json.loads(line)
    seen.append(msg)
    rid, method = msg.get("id"), msg.get("method")
    if rid is None:
        continue
    if method in ("initialize", "tools/list") and answer_basics(msg, "wire", TOOLS):
        continue
    if method == "tools/call":
        on_call(msg)
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})
