"""A raw legacy-era (2025-11-25) stdio MCP server whose `ask` tool asks the client's model
(a real server-to-client `sampling/createMessage` request) before it answers: the round the
gateway must hold open for a modern client (a parked call), since the upstream waits on it."""

from __future__ import annotations

import itertools
import json
import sys
from typing import Any

from raw import answer_basics, send

TOOLS = [
    {
        "name": "ask",
        "description": "Ask the client's model a question.",
        "inputSchema": {"type": "object", "properties": {"question": {"type": "string"}}},
    }
]
ids = itertools.count(1)
waiting: dict[str, Any] = {}  # our request id -> the tools/call id it answers

for line in sys.stdin:
    msg = json.loads(line)
    rid, method = msg.get("id"), msg.get("method")
    if method is None and rid in waiting:  # the client's answer to our sampling request
        call_id = waiting.pop(rid)
        res = msg.get("result") or {}
        text = (res.get("content") or {}).get("text", "?")
        send({"jsonrpc": "2.0", "id": call_id, "result": {"content": [
            {"type": "text", "text": f"asking got: {text}"}]}})  # fmt: skip
        continue
    if rid is None:
        continue
    if answer_basics(msg, "asking", TOOLS):
        continue
    if method == "tools/call" and msg["params"]["name"] == "ask":
        question = (msg["params"].get("arguments") or {}).get("question", "")
        sid = f"s{next(ids)}"
        waiting[sid] = rid
        send({"jsonrpc": "2.0", "id": sid, "method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": question}}],
            "maxTokens": 20}})  # fmt: skip
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})
