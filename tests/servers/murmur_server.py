"""A raw legacy-era stdio MCP server that talks when nobody asked: `--name N` names it; its
`echo` tool answers at once, and 0.3 s later the server sends a log message that belongs to no
call (a server-wide `notifications/message`, `"<name> murmurs <text>"`)."""

from __future__ import annotations

import argparse
import json
import sys
import threading

from raw import answer_basics, send

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="murmur")
args = parser.parse_args()
TOOLS = [{"name": "echo", "inputSchema": {"type": "object"}}]
lock = threading.Lock()


def murmur(text: str) -> None:
    with lock:
        params = {"level": "warning", "data": f"{args.name} murmurs {text}"}
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": params})


for line in sys.stdin:
    msg = json.loads(line)
    rid, method = msg.get("id"), msg.get("method")
    if rid is None:
        continue
    with lock:
        if method == "initialize":  # with the logging capability, so clients set a level
            caps = {"tools": {}, "logging": {}}
            info = {"name": args.name, "version": "1"}
            result = {"protocolVersion": "2025-11-25", "capabilities": caps, "serverInfo": info}
            send({"jsonrpc": "2.0", "id": rid, "result": result})
            continue
        if method == "logging/setLevel":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
            continue
        if answer_basics(msg, args.name, TOOLS):
            continue
        if method == "tools/call" and msg["params"]["name"] == "echo":
            text = str((msg["params"].get("arguments") or {}).get("text", ""))
            content = [{"type": "text", "text": f"{args.name}:{text}"}]
            send({"jsonrpc": "2.0", "id": rid, "result": {"content": content}})
            threading.Timer(0.3, murmur, (text,)).start()
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})
