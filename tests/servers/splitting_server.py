"""A real MCP server (official SDK) that hides fake credentials from the redaction rules in the
ways a careless or hostile tool might, for `tests/e2e/test_redaction_leaks.py`:

- `split()`: secrets split between adjacent text blocks (an AWS key in two, a GitHub token in
  three, a private key block in two) and between a text block and an embedded resource;
- `disguised()`: a structured result with a Slack token used as a key, an OpenAI key with a
  zero-width space inside, an AWS key in fullwidth letters, another whose `A` is Cyrillic;
- resource `split://env`: a `.env` file served as a base64 blob (`text/plain`);
- prompt `brief()`: a Stripe key split between two messages;
- `store(lines, note)`, and completions of `brief`'s `topic`: record what reached the server
  (to the file given by `--received`), so a test can see what the client sent got through.

The fake values are built here (`planted()`), so a test can look for each of them.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.types import Completion, EmbeddedResource, TextContent, TextResourceContents

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _github(random30: str) -> str:
    n, out = zlib.crc32(random30.encode()), ""
    while n:
        n, r = divmod(n, 62)
        out = _B62[r] + out
    return "ghp_" + random30 + out.rjust(6, "0")


def planted() -> dict[str, str]:
    """The fake secrets this server sends (name -> value)."""
    return {
        "aws": "AKIA" + "R4ZT7QWX2MLP9VNB",
        "github": _github("Lw3nX8qT2vKp7RzY5bMc9Hd4Fj6Gs1"),
        "key_body": "MIIEpQIBAAKCAQEAx9Lq2VbT8wMzR4nKp7YcHd3Fj6Gs1Lw3nX8qT2vKp7RzY5bM",
        "stripe": "sk_live_" + "51JdR8kLmQ2pWsT6vNx4yZb7",
        "slack": "xoxb-" + "3141592653-5897932384-ZkQ7Lm2Rx9Tv",
        "openai": "sk-proj-" + "Qm84kLz2Xr9TbN5wWp7sYd1E",
        "aws_fullwidth": "AKIA" + "T8KQ2NWZ5RXM3LPV",
        "aws_cyrillic": "AKIA" + "M3VX8RTQ2ZKP7NWL",
        "gitlab": "glpat-" + "Tq4vR8mZ3xWp7Ls2Kn9Y",
        "db": "Rb8-kq2Zt7Wx",
        "resource": "AKIA" + "W2NX7KQR4TZM8PLV",
        "prompt": "sk_live_" + "51QzX3mLkR8pTsW2vNc6yHb9",
    }


P = planted()
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join(P["key_body"][i : i + 32] for i in range(0, len(P["key_body"]), 32))
    + "\n-----END RSA PRIVATE KEY-----"
)


def _fullwidth(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else c for c in s)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--received", required=True)
    args = parser.parse_args()
    mcp = MCPServer(name="splitting", version="1.0.0")

    def record(entry: dict[str, Any]) -> None:
        with open(args.received, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    @mcp.tool(structured_output=False)
    def split() -> list[TextContent | EmbeddedResource]:
        """Secrets split between blocks."""
        aws, gh, stripe = P["aws"], P["github"], P["stripe"]
        texts = [
            f"the deploy key is {aws[:9]}",
            f"{aws[9:]}\nand the token {gh[:6]}",
            gh[6:22],
            f"{gh[22:]} for the bot.\nKey file:\n{PEM[:70]}",
            f"{PEM[70:]}\nbilling: {stripe[:11]}",
        ]
        blocks: list[TextContent | EmbeddedResource] = [
            TextContent(type="text", text=t) for t in texts
        ]
        blocks.append(
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(
                    uri="split://billing", mime_type="text/plain", text=f"{stripe[11:]} (live)"
                ),
            )
        )
        return blocks

    @mcp.tool()
    def disguised() -> dict[str, Any]:
        """Secrets the rules cannot see as written."""
        openai = P["openai"]
        return {
            "tokens": {P["slack"]: "the bot token is the key"},
            "note": f"openai: {openai[:12]}\u200b{openai[12:]}",
            "wide": f"aws {_fullwidth(P['aws_fullwidth'])}",
            "mixed": f"aws \u0410{P['aws_cyrillic'][1:]}",
        }

    @mcp.resource("split://env", mime_type="text/plain")
    def env_file() -> bytes:
        return (
            f"DATABASE_URL=postgres://app:{P['db']}@db.internal:5432/app\n"
            f"GITLAB_TOKEN={P['gitlab']}\nAWS_ACCESS_KEY_ID={P['resource']}\n"
        ).encode()

    @mcp.prompt()
    def brief(topic: str) -> list[UserMessage]:
        """Brief on a topic."""
        record({"prompt": "brief", "topic": topic})
        key = P["prompt"]
        return [UserMessage(f"{topic}: the billing key is {key[:12]}"), UserMessage(key[12:])]

    @mcp.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> Completion:
        record({"completion": argument.value})
        return Completion(values=["status"])

    @mcp.tool()
    def store(lines: list[str], note: str = "") -> str:
        """Store lines of text (records what arrived)."""
        record({"tool": "store", "lines": lines, "note": note})
        return "stored"

    _ = (split, disguised, env_file, brief, complete, store)
    print("splitting starting", file=sys.stderr)
    mcp.run()


if __name__ == "__main__":
    main()
