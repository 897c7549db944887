"""A real MCP server (official SDK) that leaks fake credentials everywhere, for the redaction
tests (`tests/e2e/test_redaction.py`):

- `leak()`: a structured result (so text *and* structuredContent) carrying an AWS key, a
  GitHub token, a private key block, a Stripe key and a `password` field;
- `configure(note)`: its description and its parameter's description carry a Slack token;
- `store(text)`: writes the arguments it received to the file given by `--received`, so a
  test can see what reached the server (and not only what came back);
- `chatty()`: a log message carrying a JWT;
- resource `leaky://env`: a `.env` file with a database URL with a password;
- prompt `deploy(target)`: its description carries an OpenAI key; it echoes its argument;
- `connect(dsn)`: its inputSchema default is a connection string with a password;
- `report()`: an embedded resource carrying a GitLab token, and a text block with a
  URL-encoded `Authorization` header;
- `ask(question)`: asks the client's model (sampling) with a prompt carrying a Hugging Face
  token, and records the answer it got (to `--received`).

The fake values are built here (`planted()`), so a test can look for each of them.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import urllib.parse
import zlib
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.message import ServerMessageMetadata
from mcp.types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    EmbeddedResource,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
    TextResourceContents,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field
from typing_extensions import TypedDict

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _b62(n: int) -> str:
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = _B62[r] + out
    return out.rjust(6, "0")


def _github(random30: str) -> str:
    return "ghp_" + random30 + _b62(zlib.crc32(random30.encode()))


def _jwt() -> str:
    def part(obj: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': 'leaky-1'})}.Q2x4Tm9rZ3RzM0pq9xK"


def planted() -> dict[str, str]:
    """The fake secrets this server sends (name -> value)."""
    return {
        "aws": "AKIA" + "Q7ZL4MBX2RTN6WPE",
        "github": _github("Xq7vN2kLp9RtY4wZs8Bc3Md6Fh1Jg5"),
        "key_body": "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
        "stripe": "sk_live_" + "51HcQ2kLmN8pRsT4vWx7yZa9",
        "field": "Tr0ub4dor&3-horse",
        "slack": "xoxb-" + "2048317765-9931177340-QeXk2Lm9Rz4Tv",
        "jwt": _jwt(),
        "db": "p4ssW0rd-9x7",
        "openai": "sk-proj-" + "Vb83kLq2Xz9TmN4rWp7sYc1D",
        "dsn": "Zq4-mW8tRx2vKp",
        "gitlab": "glpat-" + "Rk3vQ9mZ2xWp7Ls4Tn8Y",
        "encoded": "Yt7Kp2Wq9Lm4Xz8Vb3Nc6Rd1",
        "sampling": "hf_" + "QxWmTzRkVbNpLsYdHgFjCkZaEwUoIrMtBq",
    }


P = planted()
PRIVATE_KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{P['key_body']}\n-----END RSA PRIVATE KEY-----"


class Leak(TypedDict):
    note: str
    aws_key: str
    password: str
    nested: list[str]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--received", required=True)
    args = parser.parse_args()
    mcp = MCPServer(name="leaky", version="1.0.0")

    def record(entry: dict[str, str]) -> None:
        with open(args.received, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    @mcp.tool()
    def leak() -> Leak:
        """Return a result full of credentials."""
        return {
            "note": f"token {P['github']} and key\n{PRIVATE_KEY}",
            "aws_key": P["aws"],
            "password": P["field"],
            "nested": [
                f"stripe: {P['stripe']}",
                "a commit 3f786850e387550fdab836ed7e6dc881de23001b",
            ],
        }

    @mcp.tool(description=f"Configure the service. Use bot token {P['slack']} to post.")
    def configure(
        note: Annotated[str, Field(description=f"A note; default Slack token is {P['slack']}")],
    ) -> str:
        return "configured"

    @mcp.tool()
    def store(text: str) -> str:
        """Store the text (records what arrived)."""
        with open(args.received, "a", encoding="utf-8") as f:
            f.write(json.dumps({"tool": "store", "text": text}) + "\n")
        return "stored"

    @mcp.tool()
    async def chatty(ctx: Context) -> str:
        """Log a message carrying a session token."""
        await ctx.log("info", f"session token: {P['jwt']}")
        return "logged"

    @mcp.resource("leaky://env", mime_type="text/plain")
    def env_file() -> str:
        return f"DATABASE_URL=postgres://app:{P['db']}@db.internal:5432/app\nDEBUG=true\n"

    @mcp.prompt(description=f"Deploy a target (key {P['openai']}).")
    def deploy(target: str) -> str:
        with open(args.received, "a", encoding="utf-8") as f:
            f.write(json.dumps({"prompt": "deploy", "target": target}) + "\n")
        return f"Deploy {target}"

    @mcp.tool()
    def connect(dsn: str = f"postgres://svc:{P['dsn']}@db.internal/app") -> str:
        """Connect to a database."""
        return "connected"

    @mcp.tool(structured_output=False)
    def report() -> list[TextContent | EmbeddedResource]:
        """A report with an attachment."""
        header = urllib.parse.quote(f"Authorization: Bearer {P['encoded']}", safe="")
        return [
            TextContent(type="text", text=f"callback: https://example.com/cb?h={header}&x=1"),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(
                    uri="leaky://ci.yml",
                    mime_type="text/yaml",
                    text=f"deploy:\n  script: git push https://ci:{P['gitlab']}@gitlab.com/x\n",
                ),
            ),
        ]

    @mcp.tool(structured_output=False)
    async def ask(question: str, ctx: Context) -> str | InputRequiredResult:
        """Ask the client's model (sampling) about a credential, and record its answer: MRTR
        on the modern wire, a real request mid-call on legacy."""
        text = f"{question} {P['sampling']}"
        message = SamplingMessage(role="user", content=TextContent(type="text", text=text))
        request = CreateMessageRequest(
            params=CreateMessageRequestParams(messages=[message], max_tokens=50)
        )
        answer: Any
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            answer = (ctx.input_responses or {}).get("llm")
            if not isinstance(answer, CreateMessageResult):
                return InputRequiredResult(input_requests={"llm": request})
        else:
            related = ServerMessageMetadata(related_request_id=ctx.request_context.request_id)
            answer = await ctx.session.send_request(request, CreateMessageResult, metadata=related)
        content = answer.content
        record({"tool": "ask", "answer": content.text if isinstance(content, TextContent) else "?"})
        return "asked"

    _ = (leak, configure, store, chatty, env_file, deploy, connect, report, ask)
    print("leaky starting", file=sys.stderr)
    mcp.run()


if __name__ == "__main__":
    main()
