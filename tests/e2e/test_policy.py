"""The policy engine end to end: the real `manifold` process in front of a real upstream that
records every call it receives (`tests/servers/recorder_server.py --annotated`), driven by the
official client on both eras. A denied call gets -32602 naming the mechanism and the rule, never
reaches the upstream (counted there) and is audited with its mechanism; a tool denied outright
is missing from that client's list (and still refused when called); a `redact` rule replaces
the matched value before the upstream sees it; in audit mode every call goes through and the
log says what enforce would have done; the router's `invoke_tool` is decided the same way.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.shared.exceptions import MCPError
from mcp.types import Implementation

from tests import support
from tests.support import MANIFOLD, gateway_http, stdio_upstream, write_config

pytestmark = pytest.mark.timeout(120)
MODES = ["legacy", "2026-07-28"]

RULES: list[dict[str, Any]] = [
    {
        "name": "no-etc",
        "match": {"server": "rec", "tool": "remove", "args": [{"path": "path", "glob": "/etc/*"}]},
        "action": "deny",
        "reason": "system files are off limits",
    },
    {
        "name": "no-force",
        "match": {
            "annotations": {"destructiveHint": True},
            "args": [{"path": "force", "equals": True}],
        },
        "action": "deny",
    },
    {
        "name": "cards",
        "match": {"tool": "echo", "args": [{"path": "text", "regex": "[0-9]{4}-[0-9]{4}"}]},
        "action": "redact",
    },
    {"name": "quiet", "match": {"tool": "noisy"}, "action": "deny"},
    {"name": "bots-wait", "match": {"client": "bot-*", "tool": "hold"}, "action": "deny"},
    {
        "name": "short-holds",
        "match": {"tool": "hold", "args": [{"path": "seconds", "min": 5}]},
        "action": "deny",
    },
]


def _config(tmp_path: Path, mode: str = "enforce", **security: Any) -> Path:
    sec: dict[str, Any] = {"policy": {"mode": mode, "rules": RULES}, **security}
    up = stdio_upstream("recorder_server.py", "--annotated")
    return write_config(tmp_path / "gw.yaml", {"rec": up}, security=sec)


def _params(config: Path, *extra: str) -> StdioServerParameters:
    return support.run_params(config, *extra)  # type: ignore[no-any-return]


def _text(res: types.CallToolResult) -> str:
    first = res.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


async def _seen(c: Client, router: bool = False) -> list[dict[str, Any]]:
    """The calls the upstream received, less the stats calls themselves."""
    res = await (
        c.call_tool("invoke_tool", {"server": "rec", "tool": "stats"})
        if router
        else c.call_tool("rec__stats", {})
    )
    return [call for call in json.loads(_text(res))["calls"] if call["name"] != "stats"]


async def _refused(c: Client, tool: str, args: dict[str, Any]) -> str:
    with pytest.raises(MCPError) as err:
        await c.call_tool(tool, args)
    assert err.value.code == types.INVALID_PARAMS, err.value
    return str(err.value)


def _logged(log: Path, needle: str, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while needle not in (text := log.read_text(errors="replace")):
        assert time.monotonic() < deadline, f"{needle!r} not logged:\n{text[-3000:]}"
        time.sleep(0.1)
    return text


@pytest.mark.parametrize("mode", MODES)
async def test_denied_calls_never_reach_the_upstream_and_are_audited(
    tmp_path: Path, mode: str
) -> None:
    audit = tmp_path / "audit.jsonl"
    config = _config(tmp_path, audit={"path": str(audit)})
    async with Client(_params(config), mode=mode, cache=None) as c:
        msg = await _refused(c, "rec__remove", {"path": "/etc/passwd"})
        assert "policy" in msg and "'no-etc'" in msg and "system files are off limits" in msg
        # The destructive tool with force: true, by its annotations.
        msg = await _refused(c, "rec__remove", {"path": "/tmp/x", "force": True})
        assert "policy" in msg and "'no-force'" in msg, msg
        msg = await _refused(c, "rec__hold", {"seconds": 30})
        assert "'short-holds'" in msg, msg
        # A tool hidden by the policy, and a name that routes nowhere, are audited too.
        assert "'quiet'" in await _refused(c, "rec__noisy", {"lines": 1})
        assert "Unknown tool" in await _refused(c, "rec__nope", {})
        assert await _seen(c) == []
        # What no rule denies goes through, untouched.
        assert _text(await c.call_tool("rec__remove", {"path": "/tmp/x"})) == "removed /tmp/x"
        assert _text(await c.call_tool("rec__hold", {"seconds": 0})) == "rec held 0.0"
        assert await _seen(c) == [
            {"name": "remove", "arguments": {"path": "/tmp/x"}},
            {"name": "hold", "arguments": {"seconds": 0}},
        ]
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    refused = [e for e in entries if e.get("outcome") == "error"]
    assert [(e["target"], e["mechanism"]) for e in refused] == [
        ("rec__remove", "policy"),
        ("rec__remove", "policy"),
        ("rec__hold", "policy"),
        ("rec__noisy", "policy"),
        ("rec__nope", "routing"),
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_a_redact_rule_replaces_the_value_before_the_upstream_sees_it(
    tmp_path: Path, mode: str
) -> None:
    async with Client(_params(_config(tmp_path)), mode=mode, cache=None) as c:
        res = await c.call_tool("rec__echo", {"text": "card 1234-5678 please"})
        assert _text(res) == "rec:[REDACTED:policy:cards]"
        assert _text(await c.call_tool("rec__echo", {"text": "no card"})) == "rec:no card"
        assert await _seen(c) == [
            {"name": "echo", "arguments": {"text": "[REDACTED:policy:cards]"}},
            {"name": "echo", "arguments": {"text": "no card"}},
        ]


@pytest.mark.parametrize("mode", MODES)
async def test_a_tool_always_denied_to_a_client_is_not_listed(tmp_path: Path, mode: str) -> None:
    config = _config(tmp_path)
    async with Client(_params(config), mode=mode, cache=None) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        # `noisy` is always denied; `remove` and `hold` only for some arguments.
        assert "rec__noisy" not in names
        assert {"rec__remove", "rec__hold", "rec__echo", "rec__stats"} <= names
        assert "'quiet'" in await _refused(c, "rec__noisy", {"lines": 1})
        assert await _seen(c) == []
    bot = Implementation(name="bot-7", version="1")
    async with Client(_params(config), mode=mode, cache=None, client_info=bot) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert "rec__hold" not in names and "rec__noisy" not in names
        assert "rec__echo" in names
        assert "'bots-wait'" in await _refused(c, "rec__hold", {"seconds": 0})
        assert await _seen(c) == []


async def test_invoke_tool_inner_calls_are_decided_and_search_hides_denied_tools(
    tmp_path: Path,
) -> None:
    async with Client(_params(_config(tmp_path), "--exposure", "router"), cache=None) as c:
        bad = {"server": "rec", "tool": "remove", "arguments": {"path": "/etc/hosts"}}
        with pytest.raises(MCPError) as err:
            await c.call_tool("invoke_tool", bad)
        assert "policy" in str(err.value) and "'no-etc'" in str(err.value), err.value
        listed = _text(await c.call_tool("list_tools", {"server": "rec"}))
        assert "remove" in listed and "noisy" not in listed, listed
        assert await _seen(c, router=True) == []
        ok = {"server": "rec", "tool": "remove", "arguments": {"path": "/tmp/y"}}
        assert _text(await c.call_tool("invoke_tool", ok)) == "removed /tmp/y"


@pytest.mark.parametrize("mode", MODES)
async def test_audit_mode_forwards_every_call_and_logs_what_enforce_would_do(
    tmp_path: Path, mode: str
) -> None:
    log = tmp_path / "gw.log"
    with gateway_http(_config(tmp_path, mode="audit"), log) as url:
        async with Client(url, mode=mode, cache=None) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert "rec__noisy" in names  # nothing is hidden in audit mode
            res = await c.call_tool("rec__remove", {"path": "/etc/passwd"})
            assert _text(res) == "removed /etc/passwd"
            res = await c.call_tool("rec__echo", {"text": "card 1234-5678"})
            assert _text(res) == "rec:card 1234-5678"
            assert await _seen(c) == [
                {"name": "remove", "arguments": {"path": "/etc/passwd"}},
                {"name": "echo", "arguments": {"text": "card 1234-5678"}},
            ]
        text = _logged(log, "enforce would allow by the default action; redacted text")
        assert "rec__remove (rec/remove)" in text
        assert "enforce would deny by rule 'no-etc' (system files are off limits)" in text
        assert "1234-5678" not in text  # the log names the rule and path, never the value


def _renamed_config(tmp_path: Path) -> Path:
    up = stdio_upstream("recorder_server.py", "--annotated")
    up["overrides"] = {"remove": {"rename": "tidy"}, "noisy": {"rename": "chatty"}}
    return write_config(tmp_path / "gw.yaml", {"rec": up}, security={"policy": {"rules": RULES}})


@pytest.mark.parametrize("mode", MODES)
async def test_a_tool_renamed_by_an_override_is_decided_by_its_own_name(
    tmp_path: Path, mode: str
) -> None:
    # `match.tool` is the upstream's own name: renaming a tool for clients (overrides) must not
    # take it out of the rules written for it, nor out of the listing's hiding.
    config = _renamed_config(tmp_path)
    async with Client(_params(config), mode=mode, cache=None) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert "rec__tidy" in names and "rec__remove" not in names
        assert "rec__chatty" not in names  # `quiet` denies `noisy` whatever the arguments
        msg = await _refused(c, "rec__tidy", {"path": "/etc/passwd"})
        assert "'no-etc'" in msg, msg
        msg = await _refused(c, "rec__tidy", {"path": "/tmp/x", "force": True})
        assert "'no-force'" in msg, msg  # its annotations are those of `remove`
        assert "'quiet'" in await _refused(c, "rec__chatty", {"lines": 1})
        assert await _seen(c) == []
        assert _text(await c.call_tool("rec__tidy", {"path": "/tmp/x"})) == "removed /tmp/x"
        assert await _seen(c) == [{"name": "remove", "arguments": {"path": "/tmp/x"}}]


def test_policy_test_takes_a_renamed_tool_by_its_own_name(tmp_path: Path) -> None:
    args = ["--tool", "rec__tidy", "--args", '{"path": "/etc/passwd"}']
    tried = subprocess.run(
        [MANIFOLD, "policy", "test", "-c", str(_renamed_config(tmp_path)), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=support.test_env(),
    )
    assert tried.returncode == 0, tried.stderr
    assert "decision: deny" in tried.stdout and "rule: no-etc" in tried.stdout, tried.stdout


def test_policy_test_resolves_dot_segments_before_deciding(tmp_path: Path) -> None:
    """`manifold policy test`: a path that reaches /etc through `..` is denied by the rule
    that denies /etc, and does not count as under /tmp for the rule that allows /tmp."""
    rules = [
        {
            "name": "tmp-ok",
            "match": {"args": [{"path": "path", "glob": "/tmp/*"}]},
            "action": "allow",
        },
        {
            "name": "no-system-files",
            "match": {"args": [{"path": "path", "regex": "^/(etc|boot|root)/"}]},
            "action": "deny",
        },
    ]
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"files": stdio_upstream("basic_server.py")},
        security={"policy": {"rules": rules}},
    )

    def decision(path: str) -> str:
        return _policy_test(cfg, "files__write_file", {"path": path})[0]

    assert decision("/tmp/notes.txt") == "decision: allow"
    assert decision("/tmp/../etc/hosts") == "decision: deny"
    assert decision("/srv//etc/../../etc/hosts") == "decision: deny"


def test_policy_test_in_audit_mode_says_what_would_be_logged(tmp_path: Path) -> None:
    """In audit mode only a call the policy would not simply allow is logged: `policy test`
    said "this decision would be logged" for an allowed call too."""
    deny = {"path": "path", "glob": "/etc/*"}
    rules = [{"name": "no-etc", "match": {"args": [deny]}, "action": "deny"}]
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"files": stdio_upstream("basic_server.py")},
        security={"policy": {"mode": "audit", "rules": rules}},
    )

    def last_line(path: str) -> str:
        return _policy_test(cfg, "files__read", {"path": path})[-1]

    assert last_line("/etc/hosts").endswith("this decision would be logged)")
    assert last_line("/tmp/x").endswith("nothing would be logged)")


def _policy_test(cfg: Path, tool: str, args: dict[str, object]) -> list[str]:
    """`manifold policy test` run as a user runs it: the lines it prints (exit code 0)."""
    out = subprocess.run(
        [MANIFOLD, "policy", "test", "-c", str(cfg), "--tool", tool, "--args", json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=60,
        env=support.test_env(),
        cwd=str(support.REPO),
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()
