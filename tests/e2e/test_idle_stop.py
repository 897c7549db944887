"""The stdio lifecycle through the real `manifold run`: idle children stopped and started again on
demand, and the cap on stdio processes (`max_processes`).

What a user must see: a child that served no call for `idle_timeout` seconds is gone (its
process ended, a log line says why) while its tools stay listed; the next call starts it and
succeeds. The same for a `per_client` child. Past `max_processes`, a call that would start one
more process gets a clear error (-32001, `data.reason` "process_limit", naming the setting),
and once a child has stopped for idleness there is room again.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from tests.support import MANIFOLD, stdio_upstream, test_env, write_config

pytestmark = pytest.mark.timeout(120)


def _text(res: Any) -> str:
    return "\n".join(c.text for c in res.content if isinstance(c, types.TextContent))


def _alive(pid: int) -> bool:
    try:
        return ") Z" not in Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False


async def _gone(pid: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        assert time.monotonic() < deadline, f"process {pid} still running after {timeout:g} s"
        await asyncio.sleep(0.1)


def _client(cfg: Path, errlog: Any) -> Client:
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(cfg), "--log-level", "info"], env=test_env()
    )
    return Client(stdio_client(params, errlog=errlog))


async def _pid(c: Client, tool: str) -> int:
    return int(json.loads(_text(await c.call_tool(tool, {})))["pid"])


async def test_idle_children_stop_and_start_on_demand(tmp_path: Path) -> None:
    ups = {
        "a": stdio_upstream("recorder_server.py", "--name", "a", idle_timeout=0.5),
        "c": stdio_upstream(
            "recorder_server.py", "--name", "c", isolation="per_client", idle_timeout=0.5
        ),
    }
    cfg = write_config(tmp_path / "gw.yaml", ups)
    log = tmp_path / "gw.log"
    with log.open("w") as errlog:
        async with asyncio.timeout(90), _client(cfg, errlog) as c:
            first = await _pid(c, "a__stats")
            own = await _pid(c, "c__stats")  # this client's own child of `c`
            await _gone(first)
            await _gone(own)
            # Stopped, not forgotten: the tools are still listed.
            names = {t.name for t in (await c.list_tools()).tools}
            assert {"a__echo", "c__echo"} <= names
            assert _text(await c.call_tool("a__echo", {"text": "back"})) == "a:back"
            assert _text(await c.call_tool("c__echo", {"text": "back"})) == "c:back"
            second = await _pid(c, "a__stats")
            assert second != first and _alive(second)
            assert await _pid(c, "c__stats") not in (own, first)
    text = log.read_text()
    assert "upstream a: no call for 0.5 s: stopping it (the next call starts it)" in text
    assert "upstream c: client" in text and "idle for 0.5 s: stopped" in text
    assert "went away" not in text  # stopped on purpose: no crash, no restart loop


async def test_process_cap_refuses_clearly(tmp_path: Path) -> None:
    ups = {
        # Idle long enough that `b`'s first call surely comes while `a` still runs.
        "a": stdio_upstream("recorder_server.py", "--name", "a", idle_timeout=1.5),
        "b": stdio_upstream("recorder_server.py", "--name", "b", lazy=True),
    }
    cfg = write_config(tmp_path / "gw.yaml", ups, max_processes=1)
    log = tmp_path / "gw.log"
    with log.open("w") as errlog:
        async with asyncio.timeout(90), _client(cfg, errlog) as c:
            a_pid = await _pid(c, "a__stats")
            with pytest.raises(MCPError) as refused:
                await c.call_tool("b__echo", {"text": "x"})
            err = refused.value.error
            assert err.code == -32001
            assert err.data == {"reason": "process_limit", "upstream": "b", "limit": 1}
            assert "1 stdio processes already run (max_processes)" in err.message
            await _gone(a_pid)  # `a` idles out: room for one
            assert _text(await c.call_tool("b__echo", {"text": "x"})) == "b:x"
            with pytest.raises(MCPError) as again:
                await c.call_tool("a__echo", {"text": "x"})  # now `b` holds the one slot
            assert again.value.error.data["reason"] == "process_limit"
            assert _text(await c.call_tool("b__echo", {"text": "y"})) == "b:y"
    assert "upstream b not started: 1 stdio processes run" in log.read_text()
