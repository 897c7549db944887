"""`state.py`: the gateway's state comes from one place, behind Protocols; the embedded backend
is bounded and keeps its keys per purpose."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp

from manifold.config import parse_config
from manifold.downstream.cursor import Cursors
from manifold.downstream.mrtr import ParkingLot
from manifold.downstream.replay import MemoryReplays, MemorySessions
from manifold.economy.dedup import Dedup
from manifold.economy.results import ResultStore
from manifold.gateway import Gateway
from manifold.state import ProcessSecrets, open_state


def test_keys_are_per_purpose_and_follow_the_master() -> None:
    a, b = ProcessSecrets(b"m" * 32), ProcessSecrets(b"m" * 32)
    assert a.key("cursor") == b.key("cursor")  # two processes with one master agree
    assert a.key("cursor") != a.key("mrtr")
    assert ProcessSecrets().key("cursor") != a.key("cursor")
    # A cursor made by one gateway process reads in another that shares the master key.
    assert Cursors(b.key("cursor")).read("tools", Cursors(a.key("cursor")).make("tools", 7)) == 7


def test_the_embedded_backend_and_its_bounds() -> None:
    cfg = parse_config(
        {
            "state": {"path": ""},
            "mrtr": {"ttl": 5, "max_parked": 3},
            "response": {"max_tokens": 500},
        },
        env={},
    )
    st = open_state(cfg)
    assert isinstance(st.results, ResultStore) and st.results.page_chars == 2000
    assert isinstance(st.dedup, Dedup)
    assert isinstance(st.parking, ParkingLot)
    assert (st.parking.ttl, st.parking.max_parked) == (5, 3)
    assert st.counters is None  # state.path "" keeps counters in memory


def test_the_gateway_takes_its_state_from_the_backend() -> None:
    gw = Gateway(parse_config({"state": {"path": ""}}, env={}))
    assert gw.parking is gw.state.parking
    assert gw.results is gw.state.results


def test_the_http_stores_come_from_the_backend_with_their_bounds() -> None:
    cfg = parse_config(
        {
            "state": {"path": ""},
            "http": {
                "max_sessions": 7,
                "session_idle_ttl": 30,
                "replay_max_bytes": 4096,
                "replay_max_age": 9,
            },
        },
        env={},
    )
    st = open_state(cfg)
    assert isinstance(st.sessions, MemorySessions)
    assert (st.sessions.max_sessions, st.sessions.idle_ttl) == (7, 30)
    assert isinstance(st.replays, MemoryReplays)
    assert (st.replays.max_bytes, st.replays.max_age) == (4096, 9)


class _RecordingSessions(MemorySessions[Any]):
    """Another session store: the embedded one, with each call the front makes written down."""

    def __init__(self, max_sessions: int, idle_ttl: float) -> None:
        super().__init__(max_sessions, idle_ttl)
        self.calls: list[str] = []

    def create(self, session: Any, now: float) -> Any:
        self.calls.append("create")
        return super().create(session, now)

    def touch(self, session: Any, now: float) -> None:
        self.calls.append("touch")
        super().touch(session, now)

    def delete(self, sid: str) -> Any:
        self.calls.append("delete")
        return super().delete(sid)


async def test_the_http_front_keeps_its_sessions_in_the_states_store() -> None:
    """The front uses whatever table the state backend hands it (so another backend needs no
    change to the front): a session lives and ends in that table."""
    from manifold.downstream.http import HttpFront

    gw = Gateway(parse_config({"state": {"path": ""}, "http": {"port": 0}}, env={}))
    table = _RecordingSessions(10, 3600.0)
    gw.state.sessions = table
    front = HttpFront(gw)
    await front.start()
    try:
        headers = {"Accept": "application/json, text/event-stream"}
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        async with asyncio.timeout(20), aiohttp.ClientSession() as http:
            async with http.post(front.url, json=init, headers=headers) as r:
                assert r.status == 200, await r.text()
                sid = r.headers["Mcp-Session-Id"]
            assert [s.id for s in table] == [sid]
            session = {**headers, "Mcp-Session-Id": sid}
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            async with http.post(front.url, json=ping, headers=session) as r:
                assert r.status == 200 and (await r.json())["result"] == {}
            async with http.delete(front.url, headers=session) as r:
                assert r.status == 200
            assert len(table) == 0
            async with http.post(front.url, json=ping, headers=session) as r:
                assert r.status == 404  # ended in the store: gone for the front
        assert table.calls[0] == "create" and "touch" in table.calls and "delete" in table.calls
    finally:
        await front.stop()
