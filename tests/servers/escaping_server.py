"""A raw legacy-era stdio MCP server whose JSON encoder escapes characters inside strings, as
some do (PHP's `\\/`, Go's `\\u003c`) and as a hostile server may (`\\u0041KIA...`): its one
tool `leak(form)` answers a text block carrying each secret given on the command line written
one way: form 0 every character as a `\\u` escape, 1 only the first one, 2 each `/` as `\\/`,
3 plainly. The JSON is valid: a client decodes each to the secret itself. For the
redaction tests. With `--meta` first, each result also carries the `_meta` key a modern-era
server puts on every result (`io.modelcontextprotocol/serverInfo`)."""

from __future__ import annotations

import json
import sys

from raw import answer_basics

META = sys.argv[1:2] == ["--meta"]
SECRETS = sys.argv[2:] if META else sys.argv[1:]
TOOLS = [{"name": "leak", "inputSchema": {"type": "object"}}]


def escaped(s: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in s)


def forms(s: str) -> list[str]:
    return [escaped(s), escaped(s[0]) + s[1:], s.replace("/", "\\/"), s]


for line in sys.stdin:
    msg = json.loads(line)
    if answer_basics(msg, "escaping", TOOLS) or "id" not in msg:
        continue
    form = msg.get("params", {}).get("arguments", {}).get("form", 3)
    text = " | ".join(forms(s)[form] for s in SECRETS)
    meta = ',"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"escaping"}}' if META else ""
    body = '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]%s}}'
    sys.stdout.write(body % (json.dumps(msg["id"]), text, meta) + "\n")
    sys.stdout.flush()
