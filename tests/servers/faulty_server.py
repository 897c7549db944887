"""A raw legacy-era stdio MCP server that misbehaves on purpose, at exact protocol points (so it
speaks JSON-RPC itself rather than through the SDK, like `hang_server.py`).

Options:
  --starts FILE        append the start time to FILE at each start (the count is its lines)
  --fail-starts N      the first N starts (counted in FILE) write to stderr and exit with code 2
  --die-after S[,S...] exit with code 1, S seconds after answering `initialize`; a list gives
                       the delay per start (counted in FILE), its last value for later starts
  --silent             read requests, never answer (a program that is not an MCP server)
  --list-delay S       answer `tools/list` S seconds late (from a timer: calls are answered
                       meanwhile), as a server slow to list its tools
Tools: `pid` (its process id), `echo`, and `stderr` {bytes, newlines}: write that many bytes
to stderr (100-byte lines, or with `newlines: false` one line without end), then "stderr done".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

from raw import answer_basics, send

parser = argparse.ArgumentParser()
parser.add_argument("--starts", default="")
parser.add_argument("--fail-starts", type=int, default=0)
parser.add_argument("--die-after", default="")
parser.add_argument("--silent", action="store_true")
parser.add_argument("--list-delay", type=float, default=0.0)
args = parser.parse_args()

count = 1
if args.starts:
    with open(args.starts, "a") as f:
        f.write(f"{time.time()}\n")
    with open(args.starts) as f:
        count = sum(1 for _ in f)
    if count <= args.fail_starts:
        sys.stderr.write("starting faulty server\n")
        sys.stderr.write(f"fatal: start {count} of {args.fail_starts} planned failures\n")
        sys.stderr.flush()
        sys.exit(2)
delays = [float(d) for d in args.die_after.split(",") if d]
die_after = delays[min(count, len(delays)) - 1] if delays else 0.0


def flood(size: int, newlines: bool) -> None:
    err = sys.stderr.buffer
    if newlines:
        line = b"noise " + b"n" * 93 + b"\n"  # 100 bytes
        for _ in range(size // len(line)):
            err.write(line)
    else:
        chunk = b"x" * 65536
        while size > 0:
            err.write(chunk[: min(size, len(chunk))])
            size -= len(chunk)
    err.write(b"\nstderr done\n")
    err.flush()


TOOLS = [
    {"name": "pid", "inputSchema": {"type": "object"}},
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "stderr", "inputSchema": {"type": "object"}},
]

for raw in sys.stdin:
    msg = json.loads(raw)
    rid, method = msg.get("id"), msg.get("method")
    if rid is None or args.silent:
        continue
    if method == "tools/list" and args.list_delay:
        late = {"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}}
        threading.Timer(args.list_delay, send, (late,)).start()
        continue
    if answer_basics(msg, "faulty", TOOLS):
        if method == "initialize" and die_after:
            threading.Timer(die_after, os._exit, (1,)).start()
        continue
    if method == "tools/call" and msg["params"]["name"] == "pid":
        content = [{"type": "text", "text": str(os.getpid())}]
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": content}})
    elif method == "tools/call" and msg["params"]["name"] == "echo":
        text = msg["params"].get("arguments", {}).get("text", "")
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
    elif method == "tools/call" and msg["params"]["name"] == "stderr":
        a = msg["params"].get("arguments", {})
        flood(int(a.get("bytes", 0)), bool(a.get("newlines", True)))
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "ok"}]}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})
