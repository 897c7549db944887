"""A raw legacy-era stdio MCP server that can hang: after the `freeze` tool it stops reading
and answering anything (a wedged server that is still running), for health-check tests."""

from __future__ import annotations

import json
import os
import sys
import time

from raw import answer_basics, send

TOOLS = [
    {"name": "pid", "inputSchema": {"type": "object"}},
    {"name": "freeze", "inputSchema": {"type": "object"}},
]

for line in sys.stdin:
    msg = json.loads(line)
    rid, method = msg.get("id"), msg.get("method")
    if rid is None:
        continue
    if answer_basics(msg, "hang", TOOLS):
        continue
    if method == "tools/call" and msg["params"]["name"] == "pid":
        content = [{"type": "text", "text": str(os.getpid())}]
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": content}})
    elif method == "tools/call" and msg["params"]["name"] == "freeze":
        while True:
            time.sleep(60)
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})
