"""`upstream/session.py`: one live session with a real upstream process over the real stdio
transport. The gateway mints its own request ids and maps answers back to each caller, rewrites
progress tokens so they are unique across callers and maps them back, tells the upstream of a
cancellation with the upstream's id, ignores answers to ids it never asked, and fails every call
in flight when the transport closes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import Era
from manifold.upstream import errors
from manifold.upstream.session import UpstreamError, UpstreamSession
from manifold.upstream.stdio import StdioTransport
from tests.support import MARK, PY, SERVERS

WAIT = 15.0  # bound on every wait here: generous, never a performance claim


class Events:
    """SessionEvents that records what reached it."""

    def __init__(self) -> None:
        self.closed: list[str] = []
        self.closed_event = asyncio.Event()
        self.logs: list[dict[str, Any]] = []

    def on_list_changed(self, upstream: str, kind: str) -> None:
        pass

    def on_resource_updated(self, upstream: str, params: dict[str, Any]) -> None:
        pass

    def on_log(self, upstream: str, params: dict[str, Any]) -> None:
        self.logs.append(params)

    def on_closed(self, upstream: str, why: str) -> None:
        self.closed.append(why)
        self.closed_event.set()


class Sink:
    """A CallSink (the downstream request a call belongs to) that records what reaches it."""

    log_level: str | None = None

    def __init__(self) -> None:
        self.progressed: list[dict[str, Any]] = []
        self.logged: list[dict[str, Any]] = []

    def progress(self, params: dict[str, Any]) -> None:
        self.progressed.append(params)

    def log(self, params: dict[str, Any]) -> None:
        self.logged.append(params)

    async def server_request(
        self, method: str, params: dict[str, Any], key: str | None = None
    ) -> dict[str, Any]:
        raise rpc.RpcError(rpc.METHOD_NOT_FOUND, "not in this test")


@pytest.fixture
async def wire() -> AsyncIterator[tuple[UpstreamSession, Events]]:
    transport = StdioTransport(
        "wire", PY, [str(SERVERS / "wire_server.py")], {"MANIFOLD_TEST_MARK": MARK}, None
    )
    events = Events()
    session = UpstreamSession("wire", transport, events, {"name": "manifold-test"})
    try:
        await session.open(WAIT)
        yield session, events
    finally:
        await session.close()


async def call(
    session: UpstreamSession,
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    sink: Sink | None = None,
    token: Any = None,
    timeout: float = WAIT,
) -> Any:
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    msg = await session.request("tools/call", params, sink=sink, timeout=timeout)
    return rpc.load_raw(msg.result)["content"][0]["text"]


async def in_flight(session: UpstreamSession, n: int) -> None:
    """Let the calls just started reach the point where they wait for their answer."""
    for _ in range(10):  # a few loop turns, no wall-clock time
        if session.in_flight == n:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{session.in_flight} calls in flight, not {n}")


async def wire_log(session: UpstreamSession) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = json.loads(await call(session, "seen"))
    return frames


async def test_each_caller_gets_its_own_answer_under_the_gateways_own_ids(
    wire: tuple[UpstreamSession, Events],
) -> None:
    session, _ = wire
    texts = [f"caller {i}" for i in range(6)]
    # The server holds all six and answers them newest first: out of order.
    got = await asyncio.gather(
        *(call(session, "echo", {"text": t, "together": len(texts)}) for t in texts)
    )
    assert got == texts
    assert session.in_flight == 0
    calls = [f for f in await wire_log(session) if f.get("method") == "tools/call"]
    ids = [f["id"] for f in calls]
    assert all(isinstance(i, int) for i in ids)
    assert len(set(ids)) == len(ids)  # unique, including the handshake's and `seen`'s ids
    handshake = [f["id"] for f in await wire_log(session) if f.get("method") == "initialize"]
    assert not set(handshake) & set(ids)


async def test_progress_tokens_are_rewritten_per_call_and_mapped_back(
    wire: tuple[UpstreamSession, Events],
) -> None:
    session, _ = wire
    a, b = Sink(), Sink()
    # Two clients sharing the upstream happen to pick the same token.
    ra, rb = await asyncio.gather(
        call(session, "progress", {"steps": 3, "together": 2}, sink=a, token="tok"),
        call(session, "progress", {"steps": 2, "together": 2}, sink=b, token="tok"),
    )
    up_a, up_b = json.loads(ra), json.loads(rb)
    # On the wire the tokens differ (so the upstream's notes cannot be confused)...
    assert up_a["token"] != up_b["token"]
    assert up_a["token"] != "tok" and up_b["token"] != "tok"
    # ...and each caller sees only its own notes, under its own token, in order; the notes on
    # tokens no call gave (424242, "stray") reach nobody.
    assert [p["progressToken"] for p in a.progressed] == ["tok"] * 3
    assert [p["progress"] for p in a.progressed] == [1, 2, 3]
    assert [p["progressToken"] for p in b.progressed] == ["tok"] * 2
    assert [p["progress"] for p in b.progressed] == [1, 2]


async def test_the_token_of_a_finished_call_is_forgotten(
    wire: tuple[UpstreamSession, Events],
) -> None:
    session, _ = wire
    first = Sink()
    res = json.loads(await call(session, "progress", {"steps": 1}, sink=first, token=7))
    assert [p["progressToken"] for p in first.progressed] == [7]
    # A later call gets a fresh token; a late note on the old one reaches no one.
    second = Sink()
    args = {"steps": 1, "old_tokens": [res["token"]]}
    res2 = json.loads(await call(session, "progress", args, sink=second, token=7))
    assert res2["token"] != res["token"]
    assert len(first.progressed) == 1 and len(second.progressed) == 1


async def test_a_timed_out_call_is_cancelled_upstream_under_the_upstreams_id(
    wire: tuple[UpstreamSession, Events],
) -> None:
    session, _ = wire
    with pytest.raises(TimeoutError):
        await call(session, "hold", timeout=0.3)
    task = asyncio.ensure_future(call(session, "hold"))
    await in_flight(session, 1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert session.in_flight == 0
    frames = await wire_log(session)
    holds = [f["id"] for f in frames if f.get("params", {}).get("name") == "hold"]
    cancels = [
        f["params"]["requestId"] for f in frames if f.get("method") == "notifications/cancelled"
    ]
    assert len(holds) == 2
    assert cancels == holds


async def test_answers_to_ids_never_asked_are_ignored(
    wire: tuple[UpstreamSession, Events],
) -> None:
    session, events = wire
    hold = asyncio.ensure_future(call(session, "hold"))
    assert await call(session, "stray", {"text": "mine"}) == "mine"
    assert not hold.done()  # a stray answer resolved no other call
    assert await call(session, "echo", {"text": "still serving"}) == "still serving"
    assert session.alive and not events.closed
    hold.cancel()
    with pytest.raises(asyncio.CancelledError):
        await hold


async def test_an_upstream_error_answer_is_relayed_with_its_code(
    wire: tuple[UpstreamSession, Events],
) -> None:
    session, _ = wire
    with pytest.raises(UpstreamError) as e:
        await call(session, "no-such-tool")
    assert e.value.code == rpc.INVALID_PARAMS and "no no-such-tool" in e.value.message


async def test_a_closed_transport_fails_every_call_in_flight(
    wire: tuple[UpstreamSession, Events],
) -> None:
    session, events = wire
    holds = [asyncio.ensure_future(call(session, "hold")) for _ in range(3)]
    await in_flight(session, 3)
    exiting = asyncio.ensure_future(call(session, "exit", {"code": 3}))
    results = await asyncio.wait_for(asyncio.gather(*holds, exiting, return_exceptions=True), WAIT)
    for r in results:
        assert isinstance(r, rpc.RpcError), r
        assert r.code == rpc.UPSTREAM_UNAVAILABLE
        assert errors.reason_of(r) == errors.UNAVAILABLE
        assert "exited with code 3" in r.message
    await asyncio.wait_for(events.closed_event.wait(), WAIT)
    assert "exited with code 3" in events.closed[0]
    assert "wire server exiting on request" in events.closed[0]  # its last stderr words
    assert not session.alive and session.in_flight == 0
    with pytest.raises(rpc.RpcError) as late:
        await call(session, "echo", {"text": "too late"})
    assert errors.reason_of(late.value) == errors.UNAVAILABLE


async def test_a_probe_that_timed_out_on_a_slow_start_still_finds_the_modern_era() -> None:
    """The probe gives up before a slow server reads it; the server then answers it and locks
    the connection modern, so it refuses the `initialize` sent next (-32022 naming its
    versions). The session probes once more and serves the modern era, not an error."""
    transport = StdioTransport(
        "slow",
        PY,
        [str(SERVERS / "basic_server.py"), "--slow-start", "1.5"],
        {"MANIFOLD_TEST_MARK": MARK},
        None,
    )
    info = {"name": "manifold-test", "version": "1.0"}
    session = UpstreamSession("slow", transport, Events(), info)
    try:
        desc = await session.open(WAIT, probe_timeout=0.5)
        assert desc.era is Era.MODERN
        assert await call(session, "echo", {"text": "up"}) == "basic:up"
    finally:
        await session.close()
