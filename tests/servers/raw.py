"""What the raw JSON-RPC test servers share (they use no SDK, so they start fast and fail at
exact protocol points): writing one message, and answering the legacy handshake, ping and the
tool list. Imported by those scripts as a sibling module (`import raw`)."""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

_out = threading.Lock()  # a server may answer from a timer thread too


def send(msg: dict[str, Any]) -> None:
    line = json.dumps(msg) + "\n"
    with _out:
        sys.stdout.write(line)
        sys.stdout.flush()


def answer_basics(msg: dict[str, Any], name: str, tools: list[dict[str, Any]]) -> bool:
    """Answer `initialize` (2025-11-25), `ping` and `tools/list`; False for anything else."""
    rid, method = msg.get("id"), msg.get("method")
    if method == "initialize":
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": name, "version": "1"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": tools}
    else:
        return False
    send({"jsonrpc": "2.0", "id": rid, "result": result})
    return True
