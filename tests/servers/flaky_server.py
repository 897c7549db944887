"""A raw legacy-era stdio MCP server whose faults a resilience test steers, and which counts
every call it receives (so a test sees upstream-side how often a call really arrived).

Options:
  --log FILE          append "<tool> <key>" to FILE for every tools/call received; the call's
                      number n is the line count, kept across restarts of the server
  --fault KIND        what a faulty call does: error (answers -32603), hang (never answers),
                      crash (the process exits with code 1 without answering)
  --fail-every K      call n is faulty when (n - 1) % K == 0 (2: every other call, 1: all);
                      0 (the default): none
  --fault-file FILE   faults only while FILE exists (a test removes it to heal the server)
  --delay S           answer (healthy calls) after S seconds, concurrently
  --list-fails N      the first N `tools/list` requests get -32603 (a list that fails once)
  --cancel-log FILE   append the requestId of every notifications/cancelled received

Tools (each takes `key`, a string): `read` (readOnlyHint), `idem` (idempotentHint), `write`
(no annotation), `whoami` (readOnlyHint; its answer is marked `cacheScope: "private"` with
`ttlMs: 60000`, as a server marks an answer that belongs to the user who asked). A healthy
answer is the text "<tool>:<key>:#<n>"; `pid` (readOnlyHint) answers "<key>:<process id>",
so a test sees which of several replicas served a call.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from typing import Any

from raw import answer_basics

parser = argparse.ArgumentParser()
parser.add_argument("--log", required=True)
parser.add_argument("--fault", choices=["error", "hang", "crash"], default="error")
parser.add_argument("--fail-every", type=int, default=0)
parser.add_argument("--fault-file", default="")
parser.add_argument("--delay", type=float, default=0.0)
parser.add_argument("--list-fails", type=int, default=0)
parser.add_argument("--cancel-log", default="")
args = parser.parse_args()

_KEY = {"type": "object", "properties": {"key": {"type": "string"}}}
TOOLS = [
    {"name": "read", "inputSchema": _KEY, "annotations": {"readOnlyHint": True}},
    {
        "name": "idem",
        "inputSchema": _KEY,
        "annotations": {"readOnlyHint": False, "idempotentHint": True},
    },
    {"name": "write", "inputSchema": _KEY},
    {"name": "whoami", "inputSchema": _KEY, "annotations": {"readOnlyHint": True}},
    {"name": "pid", "inputSchema": _KEY, "annotations": {"readOnlyHint": True}},
]
NAMES = {t["name"] for t in TOOLS}
lock = threading.Lock()


def send(msg: dict[str, Any]) -> None:
    data = json.dumps(msg) + "\n"
    with lock:
        sys.stdout.write(data)
        sys.stdout.flush()


def record(tool: str, key: str) -> int:
    with open(args.log, "a") as f:
        f.write(f"{tool} {key}\n")
    with open(args.log) as f:
        return sum(1 for _ in f)


def faulty(n: int) -> bool:
    if not args.fail_every or (n - 1) % args.fail_every:
        return False
    return not args.fault_file or os.path.exists(args.fault_file)


for line in sys.stdin:
    msg = json.loads(line)
    rid, method = msg.get("id"), msg.get("method")
    if method == "notifications/cancelled" and args.cancel_log:
        with open(args.cancel_log, "a") as f:
            f.write(f"{(msg.get('params') or {}).get('requestId')}\n")
        continue
    if method == "tools/list" and args.list_fails > 0:
        args.list_fails -= 1
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "not yet"}})
        continue
    if rid is None or answer_basics(msg, "flaky", TOOLS):
        continue
    params = msg.get("params") or {}
    tool = params.get("name")
    if method != "tools/call" or tool not in NAMES:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})
        continue
    key = str((params.get("arguments") or {}).get("key", ""))
    n = record(tool, key)
    if faulty(n):
        if args.fault == "crash":
            sys.stderr.write(f"crashing on call {n}\n")
            sys.stderr.flush()
            os._exit(1)
        if args.fault == "error":
            err = {"code": -32603, "message": f"internal failure on call {n}"}
            send({"jsonrpc": "2.0", "id": rid, "error": err})
        continue  # hang: never answered
    text = f"{tool}:{key}:#{n}" if tool != "pid" else f"{key}:{os.getpid()}"
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if tool == "whoami":
        result.update(ttlMs=60000, cacheScope="private")
    answer = {"jsonrpc": "2.0", "id": rid, "result": result}
    if args.delay:
        threading.Timer(args.delay, send, (answer,)).start()
    else:
        send(answer)
