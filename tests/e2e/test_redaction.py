"""Secret redaction through the real `manifold run` with a real upstream that leaks
(`tests/servers/leaky_server.py`) and the official client, with the default configuration (no
`security` section at all): fake credentials planted in results (text, structuredContent, an
embedded resource, a URL-encoded header), in a tool's description, parameter description and
inputSchema default, in a prompt's description, in a resource, in a log message and in a
sampling request sent mid-call, and sent by the client in tool and prompt arguments and in its
sampling answer, never reach the other side; the sampling request is still answered. With
`security.redaction.enabled: false` the same exchange shows every one of them, so the test
cannot pass vacuously.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types

from manifold.security.honeytokens import new_token
from tests import support
from tests.servers.leaky_server import planted
from tests.support import MANIFOLD, stdio_upstream, write_config

MODERN = "2026-07-28"
pytestmark = pytest.mark.timeout(120)

# Sent by the client, in arguments and in its sampling answer: must not reach the upstream.
CLIENT_SECRETS = {
    "anthropic": "sk-ant-api03-" + "Zr8Kq2Lm5Np9Tx4Vw7Yb1Cd3Fg6Hj0Ks",
    "aws": "ASIA" + "X4N8Q2ZK7M3PLR5T",
    "stripe": "rk_live_" + "8Hq2Wz5Nc3Lp9Tv6Xb4Mk7R",
}


async def _exchange(tmp_path: Path, mode: str, redaction: dict[str, Any] | None) -> tuple[str, str]:
    """What the client saw (all of it, as one JSON text) and what reached the upstream.
    `redaction` None: no `security` section in the config at all (the defaults)."""
    received = tmp_path / "received.jsonl"
    received.touch()
    top: dict[str, Any] = {} if redaction is None else {"security": {"redaction": redaction}}
    config = write_config(
        tmp_path / "gw.yaml",
        {"leaky": stdio_upstream("leaky_server.py", "--received", str(received))},
        **top,
    )
    seen: list[Any] = []
    logged = asyncio.Event()
    sampled: list[Any] = []

    async def sampling(
        context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        sampled.append(params.model_dump(mode="json"))
        answer = f"the key is {CLIENT_SECRETS['stripe']}"
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=answer), model="m"
        )

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        seen.append(params.data)
        logged.set()

    server = StdioServerParameters(
        command=MANIFOLD,
        args=["run", "--config", str(config)],
        env=support.test_env(),
        cwd=str(support.REPO),
    )
    async with Client(
        server,
        mode=mode,
        cache=None,
        logging_callback=on_log,
        log_level="debug",
        sampling_callback=sampling,
    ) as c:
        tools = (await c.list_tools()).tools
        assert {t.name for t in tools} >= {"leaky__leak", "leaky__configure", "leaky__connect"}
        seen.append([t.model_dump(mode="json") for t in tools])
        seen.append([p.model_dump(mode="json") for p in (await c.list_prompts()).prompts])
        res = await c.call_tool("leaky__leak", {})
        assert not res.is_error, res
        assert isinstance(res.structured_content, dict)
        # structuredContent kept its shape: the same keys, strings in place
        assert set(res.structured_content) == {"note", "aws_key", "password", "nested"}
        assert len(res.structured_content["nested"]) == 2
        assert "3f786850e387550fdab836ed7e6dc881de23001b" in res.structured_content["nested"][1]
        seen.append(res.model_dump(mode="json"))
        read = await c.read_resource("leaky://env")
        seen.append(read.model_dump(mode="json"))
        store = await c.call_tool(
            "leaky__store", {"text": f"remember {CLIENT_SECRETS['anthropic']} for later"}
        )
        assert not store.is_error, store
        prompt = await c.get_prompt("leaky__deploy", {"target": f"prod {CLIENT_SECRETS['aws']}"})
        seen.append(prompt.model_dump(mode="json"))
        report = await c.call_tool("leaky__report", {})
        assert not report.is_error, report
        assert len(report.content) == 2 and report.content[1].type == "resource"
        seen.append(report.model_dump(mode="json"))
        # A server-to-client request mid-call is still answered.
        asked = await c.call_tool("leaky__ask", {"question": "what is"})
        assert not asked.is_error, asked
        assert len(sampled) == 1
        seen.append(sampled)
        await c.call_tool("leaky__chatty", {})
        async with asyncio.timeout(10):
            await logged.wait()
    return json.dumps(seen), received.read_text()


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_planted_secrets_never_reach_the_other_side(tmp_path: Path, mode: str) -> None:
    seen, received = await _exchange(tmp_path, mode, None)
    leaked = {name for name, value in planted().items() if value in seen}
    assert not leaked, f"reached the client: {sorted(leaked)}"
    assert "-----BEGIN RSA PRIVATE KEY-----" not in seen
    # Each kind was replaced by its typed marker (so the text was there and was redacted).
    for rule in (
        "aws-access-key",
        "github-token",
        "private-key",
        "stripe-secret-key",
        "secret-field",
        "slack-token",
        "jwt",
        "url-password",
        "openai-key",
        "gitlab-token",
        "auth-header",
        "huggingface-token",
    ):
        assert f"[REDACTED:{rule}]" in seen, rule
    # What the client sent in arguments did not reach the upstream; the rest of it did.
    sent = [json.loads(line) for line in received.splitlines()]
    assert [e.get("tool") or e.get("prompt") for e in sent] == ["store", "deploy", "ask"]
    for value in CLIENT_SECRETS.values():
        assert value not in received
    assert sent[0]["text"] == "remember [REDACTED:anthropic-key] for later"
    assert sent[1]["target"] == "prod [REDACTED:aws-access-key]"
    assert sent[2]["answer"] == "the key is [REDACTED:stripe-secret-key]"


async def test_with_redaction_off_the_same_secrets_pass(tmp_path: Path) -> None:
    seen, received = await _exchange(tmp_path, "legacy", {"enabled": False})
    missing = {name for name, value in planted().items() if value not in seen}
    assert not missing, f"not even sent: {sorted(missing)}"
    for value in CLIENT_SECRETS.values():
        assert value in received
    assert "[REDACTED:" not in seen + received


async def test_secrets_written_with_json_escapes_are_redacted(tmp_path: Path) -> None:
    """A result's JSON may spell a secret with escapes (`\\u0041KIA...`, `\\/`): the client
    decodes them to the secret itself, so they are redacted as if written plainly."""
    aws, github = new_token("aws"), new_token("github")
    dsn = "postgres://app:" + "s3cr3tPa55w0rd" + "@db.internal/prod"
    config = write_config(
        tmp_path / "gw.yaml", {"esc": stdio_upstream("escaping_server.py", aws, github, dsn)}
    )
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(config)], env=support.test_env()
    )
    async with asyncio.timeout(60), Client(params, mode="legacy") as c:
        for form in (3, 0, 1, 2):  # plainly first: the rules do catch these values
            res = await c.call_tool("esc__leak", {"form": form})
            text = "\n".join(b.text for b in res.content if isinstance(b, types.TextContent))
            assert text.count("[REDACTED:") == 3, (form, text)
            for secret in (aws, github, "s3cr3tPa55w0rd"):
                assert secret not in text, (form, text)
