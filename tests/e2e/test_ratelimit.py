"""Rate limits and budgets of `manifold serve`, keyed by identity: a burst over a tenant's limit
gets the documented error with a retry hint, a new session does not reset it, other tenants
are unaffected; concurrency caps and daily budgets; and a flood of `initialize` calls that are
never closed keeps memory bounded (http.max_sessions) while a well-behaved client is served.
"""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_auth import client, initialize, raw
from tests.support import MANIFOLD, free_port, http_server, stdio_upstream, write_config

KEYS = {t: f"{t}-key-0123456789abcdef" for t in ("red", "blue", "teal", "green")}
MIB = 1024 * 1024
MAX_SESSIONS = 300


@pytest.fixture(scope="module")
def gw(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    tmp = tmp_path_factory.mktemp("limits")
    cfg = write_config(
        tmp / "gw.yaml",
        {"alpha": stdio_upstream("basic_server.py", "--name", "alpha")},
        auth={
            "keys": [
                {"sha256": hashlib.sha256(k.encode()).hexdigest(), "tenant": t}
                for t, k in KEYS.items()
            ]
        },
        ratelimits={
            "default": {"calls_per_minute": 5},
            "tenants": {
                "teal": {"tools": {"*__sleep": {"concurrent": 1}}},
                "green": {"daily_calls": 3},
            },
        },
        http={"max_sessions": MAX_SESSIONS},
    )
    port = free_port()
    cmd = [MANIFOLD, "serve", "--config", str(cfg), "--port", str(port), "--log-level", "info"]
    log = tmp / "gw.log"
    with http_server(cmd, f"http://127.0.0.1:{port}/health", log) as proc:
        yield f"http://127.0.0.1:{port}/mcp", proc, log


class Session:
    """A legacy session over raw HTTP with one tenant's key."""

    def __init__(self, url: str, tenant: str) -> None:
        self.url = url
        self.key = KEYS[tenant]
        status, headers, _ = initialize(url, self.key)
        assert status == 200
        self.sid = headers["mcp-session-id"]

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        msg = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": tool, "arguments": args},
        }
        h = {"Authorization": f"Bearer {self.key}", "Mcp-Session-Id": self.sid}
        status, _, body = raw(self.url, body=msg, headers=h)
        assert status == 200, body
        frame: dict[str, Any] = json.loads(body)
        return frame


def _limited(frame: dict[str, Any], reason: str, limit: str) -> None:
    assert "result" not in frame, frame
    err = frame["error"]
    assert err["code"] == -32000
    assert err["data"]["reason"] == reason
    assert err["data"]["limit"] == limit
    assert err["data"]["retry_after"] > 0
    assert "retry after" in err["message"]


def test_a_burst_is_refused_a_new_session_does_not_reset_it_others_go_on(
    gw: tuple[str, subprocess.Popen[bytes], Path],
) -> None:
    url, _, log = gw
    red = Session(url, "red")
    for i in range(5):
        assert (
            red.call("alpha__echo", {"text": str(i)})["result"]["content"][0]["text"]
            == f"alpha:{i}"
        )
    _limited(red.call("alpha__echo", {"text": "x"}), "rate_limited", "tenant calls_per_minute 5")
    again = Session(url, "red")  # reconnecting: the limit is the tenant's, not the session's
    _limited(again.call("alpha__echo", {"text": "x"}), "rate_limited", "tenant calls_per_minute 5")
    blue = Session(url, "blue")
    for i in range(5):
        assert "result" in blue.call("alpha__echo", {"text": str(i)})
    # Keyed by the key (its hash prefix, as no name is configured), not by the session.
    key_id = hashlib.sha256(KEYS["red"].encode()).hexdigest()[:12]
    assert f"refused a call of red/{key_id}: tenant calls_per_minute 5" in log.read_text()


async def test_the_official_client_sees_the_error(
    gw: tuple[str, subprocess.Popen[bytes], Path],
) -> None:
    from mcp.shared.exceptions import MCPError

    url, _, _ = gw
    async with asyncio.timeout(30), client(url, KEYS["red"], "2026-07-28") as c:
        with pytest.raises(MCPError, match="rate limit exceeded: tenant calls_per_minute 5"):
            await c.call_tool("alpha__echo", {"text": "x"})


def test_concurrent_calls_of_a_tool_are_capped(
    gw: tuple[str, subprocess.Popen[bytes], Path],
) -> None:
    url, _, _ = gw
    teal = Session(url, "teal")
    slow: list[dict[str, Any]] = []
    t = threading.Thread(target=lambda: slow.append(teal.call("alpha__sleep", {"seconds": 3})))
    t.start()
    try:
        threading.Event().wait(0.5)  # the slow call is in flight by then (it lasts 3 s)
        _limited(
            teal.call("alpha__sleep", {"seconds": 0}), "rate_limited", "tool *__sleep concurrent 1"
        )
        assert "result" in teal.call("alpha__echo", {"text": "x"}), "other tools are not capped"
    finally:
        t.join(timeout=30)
    assert slow and slow[0]["result"]["content"][0]["text"] == "slept 3.0"
    assert "result" in teal.call("alpha__sleep", {"seconds": 0}), "released after the call"


def test_a_daily_budget_runs_out(gw: tuple[str, subprocess.Popen[bytes], Path]) -> None:
    url, _, _ = gw
    green = Session(url, "green")
    for _ in range(3):
        assert "result" in green.call("alpha__add", {"a": 1, "b": 2})
    _limited(green.call("alpha__add", {"a": 1, "b": 2}), "budget_exhausted", "tenant daily_calls 3")


def _rss(proc: subprocess.Popen[bytes]) -> int:
    for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _flood(url: str, n: int) -> list[str]:
    """`n` initialize calls on one keep-alive connection, none ever closed; their session ids."""
    port = int(url.split(":")[2].split("/")[0])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "f"},
            },
        }
    )
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {KEYS['blue']}",
    }
    sids = []
    for _ in range(n):
        conn.request("POST", "/mcp", body=body, headers=headers)
        r = conn.getresponse()
        r.read()
        assert r.status == 200
        sids.append(r.getheader("mcp-session-id") or "")
    conn.close()
    return sids


async def test_an_initialize_flood_stays_bounded(
    gw: tuple[str, subprocess.Popen[bytes], Path],
) -> None:
    url, proc, log = gw
    _flood(url, MAX_SESSIONS)  # warm: the table is full from here on
    before = _rss(proc)
    sids = _flood(url, 5000)
    grown = _rss(proc) - before
    assert grown < 24 * MIB, f"RSS grew by {grown / MIB:.1f} MiB over 5,000 initialize calls"
    ping = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
    auth = {"Authorization": f"Bearer {KEYS['blue']}"}
    # The oldest were evicted (the cap), the newest are there.
    assert raw(url, body=ping, headers={**auth, "Mcp-Session-Id": sids[0]})[0] == 404
    assert raw(url, body=ping, headers={**auth, "Mcp-Session-Id": sids[-1]})[0] == 200
    assert f"{MAX_SESSIONS} legacy sessions (http.max_sessions)" in log.read_text()
    # A well-behaved client is served as before.
    async with asyncio.timeout(30), client(url, KEYS["teal"], "legacy") as c:
        assert any(t.name == "alpha__echo" for t in (await c.list_tools()).tools)
        res = await c.call_tool("alpha__echo", {"text": "still here"})
        assert res.content[0].text == "alpha:still here"  # type: ignore[union-attr]


def test_stdio_is_the_local_principal_limited_per_connection(tmp_path: Path) -> None:
    from tests.e2e.test_supervision import StdioGateway

    cfg = write_config(
        tmp_path / "gw.yaml",
        {
            "alpha": stdio_upstream("basic_server.py", "--name", "alpha"),
            "beta": stdio_upstream("basic_server.py", "--name", "beta"),
        },
        tenants={"profiles": {"local": {"upstreams": ["alpha"]}}},
        ratelimits={"default": {"per_client": {"calls_per_minute": 2}}},
    )

    def call(gw: StdioGateway, tool: str) -> dict[str, Any]:
        return gw.wait_answer(gw.send("tools/call", {"name": tool, "arguments": {"text": "x"}}))

    with (
        StdioGateway(cfg, tmp_path / "one.log") as one,
        StdioGateway(cfg, tmp_path / "two.log") as two,
    ):
        for gw in (one, two):
            init = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t"},
            }
            gw.wait_answer(gw.send("initialize", init))
            gw.notify("notifications/initialized")
        listed = one.wait_answer(one.send("tools/list"))["result"]["tools"]
        assert {t["name"] for t in listed} >= {"alpha__echo"}
        assert not [t for t in listed if t["name"].startswith("beta__")]
        assert "Unknown tool: beta__echo" in call(one, "beta__echo")["error"]["message"]
        # The refused call above was not counted (tenants run before the limiter): two pass.
        assert "result" in call(one, "alpha__echo")
        assert "result" in call(one, "alpha__echo")
        _limited(call(one, "alpha__echo"), "rate_limited", "client calls_per_minute 2")
        assert "result" in call(two, "alpha__echo"), "another connection is another client"
