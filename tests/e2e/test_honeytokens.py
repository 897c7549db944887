"""Honeytokens end to end: canaries made with `manifold honeytoken new`, configured (one by
value, one from the environment), and a real upstream that records every call it receives
(`tests/servers/recorder_server.py`). A call carrying a canary anywhere in its arguments is
refused with an error naming the mechanism (never the value) and never reaches the upstream;
the alert is in the gateway's log and in the audit file; clean calls pass.
"""

from __future__ import annotations

import base64
import json
import subprocess
import textwrap
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from tests import support
from tests.support import MANIFOLD, gateway_http, stdio_upstream, write_config

pytestmark = pytest.mark.timeout(120)


def _new(kind: str) -> str:
    out = subprocess.run(
        [MANIFOLD, "honeytoken", "new", "--kind", kind, "--name", f"{kind}-canary"],
        capture_output=True,
        text=True,
        timeout=60,
        env=support.test_env(),
    )
    assert out.returncode == 0, out.stderr
    assert f"{{name: {kind}-canary, value: " in out.stderr  # the snippet to add
    return out.stdout.strip()


def _text(res: types.CallToolResult) -> str:
    first = res.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


async def _received(c: Client) -> list[dict[str, Any]]:
    calls = json.loads(_text(await c.call_tool("rec__stats", {})))["calls"]
    return [call for call in calls if call["name"] != "stats"]


def _logged(log: Path, needle: str, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while needle not in (text := log.read_text(errors="replace")):
        assert time.monotonic() < deadline, f"{needle!r} not logged:\n{text[-3000:]}"
        time.sleep(0.1)
    return text


async def test_a_call_carrying_a_canary_never_reaches_the_upstream_and_raises_an_alert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    github, aws = _new("github"), _new("aws")
    monkeypatch.setenv("MANIFOLD_TEST_AWS_CANARY", aws)  # the gateway inherits it
    audit = tmp_path / "audit.jsonl"
    config = write_config(
        tmp_path / "gw.yaml",
        {"rec": stdio_upstream("recorder_server.py")},
        security={
            "honeytokens": {
                "values": [
                    {"name": "github-canary", "value": github},
                    "${MANIFOLD_TEST_AWS_CANARY}",
                ]
            },
            "audit": {"path": str(audit)},
        },
    )
    log = tmp_path / "gw.log"
    with gateway_http(config, log) as url:
        async with Client(url, mode="legacy", cache=None) as c:
            assert _text(await c.call_tool("rec__echo", {"text": "hello"})) == "rec:hello"
            for args in (
                {"text": github},
                {"text": "x", "extra": {"deep": [1, f"token={github};"]}},
                {"text": f"aws key {aws} in a sentence"},
            ):
                with pytest.raises(MCPError) as err:
                    await c.call_tool("rec__echo", args)
                assert err.value.code == types.INVALID_REQUEST
                message = str(err.value)
                assert "honeytoken" in message and github not in message and aws not in message
            assert [call["arguments"] for call in await _received(c)] == [{"text": "hello"}]
            assert _text(await c.call_tool("rec__echo", {"text": "after"})) == "rec:after"
    text = _logged(log, "ALERT honeytoken")
    alerts = [line for line in text.splitlines() if "ALERT honeytoken" in line]
    assert len(alerts) == 3 and all(" ERROR " in line for line in alerts), alerts
    assert sum("'github-canary'" in line for line in alerts) == 2, alerts
    assert github not in text and aws not in text
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [e["target"] for e in entries if e.get("event") == "alert"] == ["rec__echo"] * 3
    refused = [e for e in entries if e.get("event") == "call" and e.get("mechanism")]
    assert [(e["mechanism"], e["code"]) for e in refused] == [("honeytoken", -32600)] * 3
    assert github not in audit.read_text() and aws not in audit.read_text()


async def test_encoded_and_split_canaries_are_refused_and_look_alikes_pass(
    tmp_path: Path,
) -> None:
    """A model asked to smuggle a canary out encodes or splits it: base64 (both alphabets, any
    alignment, wrapped), hex, URL-encoding (also double), JSON escapes as text, whitespace, a list
    of strings, a 1 MB argument. Every such call is refused with the alert and the audit entry;
    ordinary encoded data passes."""
    github = _new("github")
    audit = tmp_path / "audit.jsonl"
    config = write_config(
        tmp_path / "gw.yaml",
        {"rec": stdio_upstream("recorder_server.py")},
        security={
            "honeytokens": {"values": [{"name": "github-canary", "value": github}]},
            "audit": {"path": str(audit)},
        },
    )
    raw = github.encode()
    smuggled: list[dict[str, Any]] = [
        {"text": base64.b64encode(b"x" + raw).decode()},
        {"text": base64.urlsafe_b64encode(b"ab" + raw + b"!").decode()},
        {"text": "\n".join(textwrap.wrap(base64.b64encode(b"token: " + raw).decode(), 8))},
        {"text": raw.hex()},
        {"text": urllib.parse.quote(urllib.parse.quote(f"https://x.test/?t={github}", safe=""))},
        {"text": "".join(f"\\u{ord(ch):04x}" for ch in github)},
        {"text": " ".join(github[i : i + 5] for i in range(0, len(github), 5))},
        {"text": "x", "parts": [github[:10], github[10:]]},
        {"text": "a" * 1_000_000 + base64.b64encode(raw).decode()},
    ]
    benign: list[dict[str, Any]] = [
        {"text": base64.b64encode(bytes(range(256)) * 8).decode()},
        {"text": "https://example.test/search?q=caf%C3%A9%20menu&page=2"},
        {"text": "ghp_ is the prefix of a classic GitHub token, 40 characters long"},
    ]
    log = tmp_path / "gw.log"
    with gateway_http(config, log) as url:
        async with Client(url, mode="legacy", cache=None) as c:
            for i, args in enumerate(smuggled):
                with pytest.raises(MCPError) as err:
                    await c.call_tool("rec__echo", args)
                assert err.value.code == types.INVALID_REQUEST, i
                assert "honeytoken" in str(err.value), i
            for args in benign:
                assert _text(await c.call_tool("rec__echo", args)) == f"rec:{args['text']}"
            received = [call["arguments"] for call in await _received(c)]
            assert received == benign
    text = _logged(log, "ALERT honeytoken")
    alerts = [line for line in text.splitlines() if "ALERT honeytoken 'github-canary'" in line]
    assert len(alerts) == len(smuggled), alerts
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    assert len([e for e in entries if e.get("event") == "alert"]) == len(smuggled)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_canary_in_a_sampling_answer_never_reaches_the_upstream(
    tmp_path: Path, mode: str
) -> None:
    """A server asks the client's model (sampling) mid-call; the model answers with a canary.
    Legacy: the upstream's request gets an error instead of the answer. Modern (the round is
    relayed, the answer comes back in the retry's `inputResponses`): the retry is refused. In
    both the upstream never records the answer and the alert is logged."""
    canary = _new("generic")
    received = tmp_path / "received.jsonl"
    received.touch()
    config = write_config(
        tmp_path / "gw.yaml",
        {"leaky": stdio_upstream("leaky_server.py", "--received", str(received))},
        security={"honeytokens": {"values": [{"name": "generic-canary", "value": canary}]}},
    )

    async def sampling(context: Any, params: Any) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"the value is {canary}"),
            model="m",
        )

    log = tmp_path / "gw.log"
    with gateway_http(config, log) as url:
        async with Client(url, mode=mode, cache=None, sampling_callback=sampling) as c:
            try:
                res = await c.call_tool("leaky__ask", {"question": "what is"})
                assert res.is_error, res
            except MCPError as err:
                assert "honeytoken" in str(err)
            # the session goes on
            assert not (await c.call_tool("leaky__store", {"text": "after"})).is_error
    text = _logged(log, "ALERT honeytoken 'generic-canary'")
    assert canary not in text
    sent = [json.loads(line) for line in received.read_text().splitlines()]
    assert [e.get("tool") for e in sent] == ["store"], sent
    assert canary not in received.read_text()
