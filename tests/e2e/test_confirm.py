"""Confirmations end to end: a policy `confirm` rule makes the real `manifold` process ask the
user before it forwards the call, on both eras, with the official client.

- Legacy client: a real `elicitation/create` request reaches the SDK's elicitation callback,
  showing the tool and its arguments; accept forwards the call, decline refuses it, and a client
  without the callback (no `elicitation` capability) gets a clear refusal, not a silent allow.
- Modern client: MRTR `input_required` with the gateway's own input request; the retry with
  the signed `requestState` and an accepting answer is forwarded; the same state with other
  arguments, a second use of it, and an expired one are refused. The SDK's own MRTR loop with
  its callback works too, and a modern upstream's own round after the approval continues
  without asking again.

The upstream records every call it receives, so "refused" is checked on its side too.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.context import ClientRequestContext
from mcp.shared.exceptions import MCPError

from tests import support
from tests.support import MANIFOLD, gateway_http, stdio_upstream, write_config

pytestmark = pytest.mark.timeout(120)
MODERN = "2026-07-28"

ASK = {
    "name": "ask-destructive",
    "match": {"annotations": {"destructiveHint": True}},
    "action": "confirm",
    "reason": "it changes things",
}


def _config(tmp_path: Path, upstreams: dict[str, Any] | None = None, **confirm: Any) -> Path:
    policy: dict[str, Any] = {"rules": [ASK]}
    if confirm:
        policy["confirm"] = confirm
    ups = upstreams or {"rec": stdio_upstream("recorder_server.py", "--annotated")}
    return write_config(tmp_path / "gw.yaml", ups, security={"policy": policy})


def _params(config: Path) -> StdioServerParameters:
    return support.run_params(config)  # type: ignore[no-any-return]


def _text(res: types.CallToolResult) -> str:
    first = res.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


async def _seen(c: Client) -> list[dict[str, Any]]:
    res = await c.call_tool("rec__stats", {})  # read-only: never asked
    return [call for call in json.loads(_text(res))["calls"] if call["name"] != "stats"]


def _answering(asked: list[str], action: str) -> Any:
    async def callback(
        _ctx: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=action)  # type: ignore[arg-type]

    return callback


# ------------------------------------------------------------------------------------------
# legacy clients: a real elicitation request


async def test_legacy_accept_forwards_the_call(tmp_path: Path) -> None:
    asked: list[str] = []
    cb = _answering(asked, "accept")
    async with Client(_params(_config(tmp_path)), mode="legacy", elicitation_callback=cb) as c:
        res = await c.call_tool("rec__remove", {"path": "/tmp/a"})
        assert _text(res) == "removed /tmp/a"
        assert len(asked) == 1
        assert "rec__remove" in asked[0] and '{"path":"/tmp/a"}' in asked[0], asked
        assert "ask-destructive" in asked[0] and "it changes things" in asked[0]
        # A read-only tool is not asked about.
        assert _text(await c.call_tool("rec__echo", {"text": "x"})) == "rec:x"
        assert len(asked) == 1
        assert await _seen(c) == [
            {"name": "remove", "arguments": {"path": "/tmp/a"}},
            {"name": "echo", "arguments": {"text": "x"}},
        ]


async def test_legacy_decline_refuses_the_call(tmp_path: Path) -> None:
    asked: list[str] = []
    cb = _answering(asked, "decline")
    async with Client(_params(_config(tmp_path)), mode="legacy", elicitation_callback=cb) as c:
        with pytest.raises(MCPError) as err:
            await c.call_tool("rec__remove", {"path": "/tmp/a"})
        assert err.value.code == types.INVALID_PARAMS
        msg = str(err.value)
        assert "policy" in msg and "needs confirmation" in msg and "'decline'" in msg, msg
        assert len(asked) == 1
        assert await _seen(c) == []


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_a_client_that_cannot_be_asked_is_refused(tmp_path: Path, mode: str) -> None:
    async with Client(_params(_config(tmp_path)), mode=mode) as c:  # no elicitation callback
        with pytest.raises(MCPError) as err:
            await c.call_tool("rec__remove", {"path": "/tmp/a"})
        assert err.value.code == types.INVALID_PARAMS
        msg = str(err.value)
        assert "policy" in msg and "cannot be asked" in msg and "elicitation" in msg, msg
        assert await _seen(c) == []


async def test_legacy_no_answer_in_time_refuses_the_call(tmp_path: Path) -> None:
    async def slow(_ctx: ClientRequestContext, _params: types.ElicitRequestParams) -> Any:
        await asyncio.sleep(5)
        return types.ElicitResult(action="accept")

    config = _config(tmp_path, timeout=0.5)
    async with Client(_params(config), mode="legacy", elicitation_callback=slow) as c:
        with pytest.raises(MCPError) as err:
            await c.call_tool("rec__remove", {"path": "/tmp/a"})
        assert "no answer within 0.5 s" in str(err.value), err.value
        assert await _seen(c) == []


# ------------------------------------------------------------------------------------------
# modern clients: MRTR with a signed state


async def _ask_round(c: Client, args: dict[str, Any]) -> types.InputRequiredResult:
    first = await c.session.call_tool("rec__remove", args, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult), first
    assert first.request_state and first.input_requests
    ((key, ask),) = first.input_requests.items()
    assert key == "manifold.confirm"
    assert isinstance(ask, types.ElicitRequest)
    assert "rec__remove" in ask.params.message
    assert json.dumps(args, separators=(",", ":"), sort_keys=True) in ask.params.message
    return first


async def _retry(
    c: Client, args: dict[str, Any], first: types.InputRequiredResult, action: str = "accept"
) -> Any:
    return await c.session.call_tool(
        "rec__remove",
        args,
        input_responses={"manifold.confirm": types.ElicitResult(action=action)},  # type: ignore[arg-type]
        request_state=first.request_state,
        allow_input_required=True,
    )


async def test_modern_round_approves_exactly_the_arguments_asked_about(tmp_path: Path) -> None:
    cb = _answering([], "accept")  # declares the capability; the low-level calls answer
    async with Client(_params(_config(tmp_path)), mode=MODERN, elicitation_callback=cb) as c:
        a, b = {"path": "/tmp/a"}, {"path": "/etc/passwd"}
        first = await _ask_round(c, a)
        assert await _seen(c) == []  # asking forwards nothing
        # The approval of `a` replayed for other arguments: refused, nothing forwarded.
        with pytest.raises(MCPError) as err:
            await _retry(c, b, first)
        assert "other arguments" in str(err.value) and "policy" in str(err.value), err.value
        assert await _seen(c) == []
        # The same state with the arguments it was made for: forwarded, once.
        done = await _retry(c, a, first)
        assert isinstance(done, types.CallToolResult) and _text(done) == "removed /tmp/a"
        with pytest.raises(MCPError) as err:
            await _retry(c, a, first)
        assert "already used" in str(err.value), err.value
        # A decline refuses.
        second = await _ask_round(c, a)
        with pytest.raises(MCPError) as err:
            await _retry(c, a, second, "decline")
        assert "'decline'" in str(err.value), err.value
        assert await _seen(c) == [{"name": "remove", "arguments": {"path": "/tmp/a"}}]


async def test_modern_approval_expires(tmp_path: Path) -> None:
    cb = _answering([], "accept")
    config = _config(tmp_path, expiry=1.0)
    async with Client(_params(config), mode=MODERN, elicitation_callback=cb) as c:
        first = await _ask_round(c, {"path": "/tmp/a"})
        await asyncio.sleep(1.5)
        with pytest.raises(MCPError) as err:
            await _retry(c, {"path": "/tmp/a"}, first)
        assert "expired" in str(err.value), err.value
        assert await _seen(c) == []


async def test_modern_sdk_loop_with_the_callback(tmp_path: Path) -> None:
    asked: list[str] = []
    cb = _answering(asked, "accept")
    async with Client(_params(_config(tmp_path)), mode=MODERN, elicitation_callback=cb) as c:
        res = await c.call_tool("rec__remove", {"path": "/tmp/b"})
        assert _text(res) == "removed /tmp/b"
        assert len(asked) == 1 and "/tmp/b" in asked[0]
        assert await _seen(c) == [{"name": "remove", "arguments": {"path": "/tmp/b"}}]


async def test_an_upstream_round_after_the_approval_is_not_asked_again(tmp_path: Path) -> None:
    ups = {"conf": stdio_upstream("conformance_fixture.py")}
    asked: list[str] = []

    async def cb(_ctx: ClientRequestContext, params: types.ElicitRequestParams) -> Any:
        asked.append(params.message)
        if params.message.startswith("Allow the tool call"):
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content={"username": "ada", "email": "a@b.c"})

    async with Client(_params(_config(tmp_path, ups)), mode=MODERN, elicitation_callback=cb) as c:
        res = await c.call_tool("conf__test_elicitation", {"message": "Who are you?"})
        assert "User response: action=accept" in _text(res) and "ada" in _text(res), _text(res)
        assert len(asked) == 2
        assert asked[0].startswith("Allow the tool call conf__test_elicitation")
        assert asked[1] == "Who are you?"


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_invoke_tool_inner_calls_are_confirmed_too(tmp_path: Path, mode: str) -> None:
    # The inner call of the router's invoke_tool cannot be relayed as a round: a modern client
    # is asked through a parked call, which resumes with the arguments it was asked about.
    asked: list[str] = []
    params = _params(_config(tmp_path))
    params.args.extend(["--exposure", "router"])
    cb = _answering(asked, "accept")
    async with Client(params, mode=mode, elicitation_callback=cb) as c:
        await c.list_tools()  # invoke_tool looks a tool up without waiting for the upstreams
        call = {"server": "rec", "tool": "remove", "arguments": {"path": "/tmp/c"}}
        res = await c.call_tool("invoke_tool", call)
        assert _text(res) == "removed /tmp/c"
        assert len(asked) == 1 and "/tmp/c" in asked[0] and "rec remove" in asked[0], asked
    asked.clear()
    cb = _answering(asked, "decline")
    async with Client(params, mode=mode, elicitation_callback=cb) as c:
        await c.list_tools()
        with pytest.raises(MCPError) as err:
            await c.call_tool("invoke_tool", call)
        assert "policy" in str(err.value) and "'decline'" in str(err.value), err.value
        stats = await c.call_tool("invoke_tool", {"server": "rec", "tool": "stats"})
        assert json.loads(_text(stats))["calls"] == [{"name": "stats", "arguments": {}}]


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_over_http_both_eras_ask_and_forward(tmp_path: Path, mode: str) -> None:
    # Legacy: the question travels on the POST's SSE stream; modern: a stateless round whose
    # retry is a new POST.
    asked: list[str] = []
    with gateway_http(_config(tmp_path), tmp_path / "gw.log") as url:
        cb = _answering(asked, "accept")
        async with Client(url, mode=mode, elicitation_callback=cb, cache=None) as c:
            assert _text(await c.call_tool("rec__remove", {"path": "/tmp/h"})) == "removed /tmp/h"
            assert len(asked) == 1 and "/tmp/h" in asked[0]
            if mode == MODERN:
                first = await _ask_round(c, {"path": "/tmp/i"})
                with pytest.raises(MCPError) as err:
                    await _retry(c, {"path": "/tmp/j"}, first)
                assert "other arguments" in str(err.value), err.value
            assert await _seen(c) == [{"name": "remove", "arguments": {"path": "/tmp/h"}}]


# ------------------------------------------------------------------------------------------
# the CLI, as a user runs it


def test_policy_test_prints_the_decision_and_the_rule(tmp_path: Path) -> None:
    rules = [
        {
            "name": "no-etc",
            "match": {"args": [{"path": "path", "glob": "/etc/*"}]},
            "action": "deny",
        },
        ASK,
    ]
    config = write_config(
        tmp_path / "gw.yaml",
        {"files": {"command": "true"}},
        security={"policy": {"rules": rules, "default": "allow"}},
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [MANIFOLD, "policy", "test", "--config", str(config), *args]
        return subprocess.run(
            cmd, capture_output=True, text=True, timeout=60, env=support.test_env()
        )

    out = run("--tool", "files__remove", "--args", '{"path": "/etc/passwd"}')
    assert out.returncode == 0, out.stderr
    assert "decision: deny" in out.stdout and "rule: no-etc (security.policy.rules.0)" in out.stdout
    out = run("--tool", "files__remove", "--args", '{"path": "/tmp/x"}')
    assert "decision: confirm" in out.stdout and "rule: ask-destructive" in out.stdout
    assert "reason: it changes things" in out.stdout
    out = run(
        "--tool",
        "files__read",
        "--args",
        '{"path": "/tmp/x"}',
        "--annotations",
        '{"readOnlyHint": true}',
    )
    assert "decision: allow" in out.stdout and "none matched" in out.stdout, out.stdout
    out = run("--tool", "nope__read")
    assert out.returncode == 2 and "--tool 'nope__read'" in out.stderr, out.stderr
    # A bad rule is refused when the config is read, naming its key.
    rules[0]["match"]["args"][0] = {"path": "path", "regex": "(?<=lookbehind)x"}
    write_config(config, {"files": {"command": "true"}}, security={"policy": {"rules": rules}})
    out = run("--tool", "files__remove")
    assert out.returncode == 2, out
    assert "security.policy.rules.0.match.args.0" in out.stderr and "RE2" in out.stderr
