"""A legacy-only (2025-11-25) MCP server over stdio, written without the SDK so it behaves the
way an old server does on the wire: no `server/discover` (method not found), the `initialize`
handshake only, and a missing resource answered with the legacy code -32002.

It offers one tool (`hello`), one resource (`old://present`) and nothing else.
"""

from __future__ import annotations

import json
import sys
from typing import Any

VERSION = "2025-11-25"
RESOURCES = {"old://present": "still here"}


def answer(rid: Any, result: Any = None, error: dict[str, Any] | None = None) -> None:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid}
    if error is not None:
        msg["error"] = error
    else:
        msg["result"] = result
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def handle(msg: dict[str, Any]) -> None:
    if "id" not in msg or "method" not in msg:
        return  # notifications and responses need no answer
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
        tool = {"name": "hello", "inputSchema": {"type": "object", "properties": {}}}
        answer(rid, {"tools": [tool]})
    elif method == "tools/call" and params.get("name") == "hello":
        answer(rid, {"content": [{"type": "text", "text": "hello from a legacy server"}]})
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


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict):
                handle(msg)


if __name__ == "__main__":
    main()
