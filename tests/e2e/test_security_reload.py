"""Hot reload of the policy and the guard through the real `manifold serve`: an operator runs
in audit mode, then rewrites the config to enforce, while a client keeps calling.

What a user must see: in audit mode the call the policy would deny and the injected page both
go through; after the file is rewritten (no restart) the same call is refused by the policy and
the page withheld by the guard, and every call of the loop running meanwhile is answered; then a
broken file (a lookahead RE2 cannot run) is refused naming the key, and the enforcing config
keeps running.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from tests.support import gateway_http, stdio_upstream, write_config

pytestmark = pytest.mark.timeout(120)


def _write(path: Path, mode: str, regex: str = "^secret") -> Path:
    rules = [
        {
            "name": "no-secrets",
            "match": {"tool": "echo", "args": [{"path": "text", "regex": regex}]},
            "action": "deny",
        }
    ]
    return write_config(
        path,
        {
            "basic": stdio_upstream("basic_server.py"),
            "injecting": stdio_upstream("injecting_server.py"),
        },
        security={"policy": {"mode": mode, "rules": rules}, "guard": {"mode": mode}},
        reload={"watch": True, "debounce": 0.1, "poll_interval": 0.1},
    )


def _text(res: types.CallToolResult) -> str:
    first = res.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


async def _denied(c: Client) -> bool:
    try:
        await c.call_tool("basic__echo", {"text": "secret plans"})
    except MCPError as e:
        assert "no-secrets" in e.error.message, e.error.message
        return True
    return False


async def test_policy_and_guard_switch_to_enforce_without_a_restart(tmp_path: Path) -> None:
    cfg = _write(tmp_path / "gw.yaml", "audit")
    log = tmp_path / "gw.log"
    with gateway_http(cfg, log) as url:
        async with Client(url, mode="legacy") as c, Client(url, mode="legacy") as other:
            assert not await _denied(c)
            page = await c.call_tool("injecting__page", {"which": "attack"})
            assert not page.is_error and "maps-free" in _text(page)

            answered: list[str] = []
            stop = asyncio.Event()

            async def loop() -> None:
                i = 0
                while not stop.is_set():
                    res = await other.call_tool("basic__echo", {"text": f"n{i}"})
                    answered.append(_text(res))
                    i += 1

            task = asyncio.create_task(loop())
            _write(cfg, "enforce")
            deadline = time.monotonic() + 20
            while not await _denied(c):
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                await asyncio.sleep(0.1)
            page = await c.call_tool("injecting__page", {"which": "attack"})
            assert page.is_error and _text(page).startswith("guard: "), page
            assert "maps-free" not in _text(page)

            _write(cfg, "audit", regex="(?=secret)")  # refused: the enforcing config stays
            deadline = time.monotonic() + 20
            while "reload (file changed) refused" not in log.read_text():
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                await asyncio.sleep(0.1)
            assert await _denied(c)
            stop.set()
            await asyncio.wait_for(task, 15)
        assert len(answered) >= 1 and answered == [f"basic:n{i}" for i in range(len(answered))]
    text = log.read_text()
    assert "security.policy applied live" in text and "security.guard applied live" in text
    assert "security.policy.rules.0.match.args.0" in text  # the refused key, named
    assert "it applies after a restart" not in text
