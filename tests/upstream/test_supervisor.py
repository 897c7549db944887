"""`upstream/supervisor.py`: one configured upstream, supervised, with real child processes.
Lazy start on first request (one process however many callers), the states a user sees
(stopped, starting, ready, down, backoff, failed), restart after a crash with a backoff that
doubles to its ceiling and resets only after the upstream stayed up, per-client sessions and
their release, and stop() ending every child."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from manifold.config import UpstreamConfig
from manifold.protocol import jsonrpc as rpc
from manifold.upstream import errors
from manifold.upstream.supervisor import ProcessBudget, Upstream
from tests.support import stdio_upstream

WAIT = 15.0  # bound on every wait here: generous, never a performance claim


class Events:
    """SessionEvents, plus the readiness callback, recording what reached them."""

    def __init__(self) -> None:
        self.ready: list[str] = []
        self.closed: list[str] = []
        self.changed = asyncio.Event()

    def on_ready(self, name: str) -> None:
        self.ready.append(name)
        self.changed.set()

    def on_list_changed(self, upstream: str, kind: str) -> None:
        pass

    def on_resource_updated(self, upstream: str, params: dict[str, Any]) -> None:
        pass

    def on_log(self, upstream: str, params: dict[str, Any]) -> None:
        pass

    def on_closed(self, upstream: str, why: str) -> None:
        self.closed.append(why)
        self.changed.set()

    async def until(self, cond: Callable[[], bool]) -> None:
        async with asyncio.timeout(WAIT):
            while not cond():
                self.changed.clear()
                await self.changed.wait()


def faulty(*opts: str, **extra: Any) -> UpstreamConfig:
    extra.setdefault("health_interval", 0)
    return UpstreamConfig(**stdio_upstream("faulty_server.py", *opts, **extra))


@pytest.fixture
async def make() -> AsyncIterator[Callable[[UpstreamConfig], tuple[Upstream, Events]]]:
    made: list[Upstream] = []

    def build(cfg: UpstreamConfig) -> tuple[Upstream, Events]:
        events = Events()
        up = Upstream("f", cfg, events, events.on_ready, {"name": "manifold-test"})
        made.append(up)
        return up, events

    yield build
    for up in made:
        await up.stop()


async def pid_of(up: Upstream, client_key: str = "") -> int:
    msg = await up.request(
        "tools/call", {"name": "pid", "arguments": {}}, timeout=WAIT, client_key=client_key
    )
    return int(rpc.load_raw(msg.result)["content"][0]["text"])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_lazy_upstream_starts_once_on_its_first_requests(make: Any) -> None:
    up, events = make(faulty())
    assert up.state == "stopped" and up.session is None
    calls = [asyncio.ensure_future(pid_of(up)) for _ in range(5)]
    for _ in range(10):  # a few loop turns, no wall-clock time
        if up.state != "stopped":
            break
        await asyncio.sleep(0)
    assert up.state == "starting"
    pids = await asyncio.wait_for(asyncio.gather(*calls), WAIT)
    assert len(set(pids)) == 1  # five callers at once, one process
    assert up.state == "ready" and events.ready == ["f"]
    assert up.session is not None and up.session.transport.pid == pids[0]
    assert await pid_of(up) == pids[0]  # kept for the next call


async def test_a_crash_fails_calls_then_restarts_after_a_backoff(make: Any) -> None:
    up, events = make(faulty(restart_backoff_initial=0.3, restart_backoff_max=1.0))
    first = await pid_of(up)
    os.kill(first, 9)
    await events.until(lambda: bool(events.closed))
    assert "killed by SIGKILL" in events.closed[0]
    assert up.state == "down"
    await asyncio.sleep(0)  # the restart loop's first step
    # While it waits out the backoff: a call fails at once and says when the next attempt is.
    assert up.state == "backoff"
    with pytest.raises(rpc.RpcError) as e:
        await up.request("tools/call", {"name": "pid", "arguments": {}}, timeout=WAIT)
    assert errors.reason_of(e.value) == errors.UNAVAILABLE
    assert isinstance(e.value.data, dict) and 0 <= e.value.data["retry_after"] <= 1.0
    assert "killed by SIGKILL" in e.value.message
    # Then it is back by itself, as a new process.
    await events.until(lambda: len(events.ready) == 2)
    assert up.state == "ready" and up.restarts == 1
    second = await pid_of(up)
    assert second != first and not alive(first)


async def test_a_failing_start_says_why_and_is_retried(make: Any, tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    cfg = faulty(
        "--starts",
        str(starts),
        "--fail-starts",
        "2",
        restart_backoff_initial=0.2,
        restart_backoff_max=0.4,
    )
    up, events = make(cfg)
    with pytest.raises(rpc.RpcError) as e:
        await pid_of(up)
    assert errors.reason_of(e.value) == errors.UNAVAILABLE
    assert "exited with code 2" in e.value.message
    assert "fatal: start 1 of 2 planned failures" in e.value.message  # its stderr
    assert up.state in ("failed", "backoff") and up.restarting_at > 0
    await events.until(lambda: bool(events.ready))  # third start succeeds, unaided
    assert up.state == "ready" and up.restarts == 2
    assert len(starts.read_text().split()) == 3
    assert await pid_of(up) > 0


def test_the_backoff_doubles_to_its_ceiling_with_bounded_jitter() -> None:
    cfg = faulty(restart_backoff_initial=0.5, restart_backoff_max=3.0)
    events = Events()
    up = Upstream("f", cfg, events, lambda _n: None, {})
    bases = [0.5, 1.0, 2.0, 3.0, 3.0, 3.0]
    for base in bases:
        delay = up._next_delay()
        assert base <= delay <= base * 1.2, (base, delay)


async def test_the_backoff_resets_only_after_the_upstream_stayed_up(make: Any) -> None:
    cfg = faulty(restart_backoff_initial=0.2, restart_backoff_max=30.0, restart_reset_after=5)
    up, events = make(cfg)
    # A server that dies right after a start keeps its grown backoff...
    pid = await pid_of(up)
    up._backoff = 16.0  # as after several failed starts
    os.kill(pid, 9)
    await events.until(lambda: len(events.closed) == 1)
    assert up.restarting_at - time.monotonic() > 10
    await up.stop()
    # ...one that stayed up long enough starts again from the initial backoff.
    up, events = make(cfg)
    pid = await pid_of(up)
    up._backoff = 16.0
    assert up.started_at is not None
    up.started_at -= 6  # it has been up for longer than restart_reset_after
    os.kill(pid, 9)
    await events.until(lambda: len(events.closed) == 1)
    assert up.restarting_at - time.monotonic() <= 0.2 * 1.2
    await events.until(lambda: len(events.ready) == 2)
    assert await pid_of(up) != pid


async def test_per_client_sessions_are_their_own_processes_until_released(make: Any) -> None:
    up, _events = make(faulty(isolation="per_client", max_clients=2))
    a, b = await pid_of(up, "client-a"), await pid_of(up, "client-b")
    assert a != b
    assert await pid_of(up, "client-a") == a  # kept for that client
    # A third client is refused: the cap is reached.
    with pytest.raises(rpc.RpcError) as e:
        await pid_of(up, "client-c")
    assert errors.reason_of(e.value) == errors.BUSY
    up.release("client-a")
    await asyncio.wait_for(asyncio.gather(*up._closing), WAIT)  # the reaping it started
    assert not alive(a)
    assert await pid_of(up, "client-b") == b  # the other client is untouched
    fresh = await pid_of(up, "client-a")  # its next call starts a fresh one
    assert fresh not in (a, b)
    up.release("no-such-client")  # nothing to end: harmless


async def test_stop_ends_every_child(make: Any) -> None:
    up, _events = make(faulty(isolation="per_client"))
    shared = await pid_of(up)
    own = await pid_of(up, "client-a")
    await asyncio.wait_for(up.stop(), WAIT)
    assert up.state == "stopped"
    assert not alive(shared) and not alive(own)
    with pytest.raises(rpc.RpcError) as e:
        await pid_of(up)
    assert "stopping" in e.value.message


async def test_the_process_budget_counts_every_upstream_and_client_child(make: Any) -> None:
    """`max_processes` spans upstreams: shared children, per_client children and starts."""
    ups: dict[str, Upstream] = {}
    budget = ProcessBudget(3, ups)
    for name, cfg in (("a", faulty()), ("p", faulty(isolation="per_client"))):
        up, _events = make(cfg)
        up.name = name
        up.budget = budget
        ups[name] = up
    a, p = ups["a"], ups["p"]
    await pid_of(a)  # 1
    own = await pid_of(p, "client-1")  # 2 (p's shared child is not started by a client call)
    await pid_of(p)  # 3: p's shared child
    assert budget.running() == 3
    with pytest.raises(rpc.RpcError) as e:
        await pid_of(p, "client-2")
    assert e.value.data == {"reason": "process_limit", "upstream": "p", "limit": 3}
    assert "3 stdio processes already run (max_processes)" in e.value.message
    p.release("client-1")  # room again
    await asyncio.wait_for(asyncio.gather(*p._closing), WAIT)
    assert not alive(own) and budget.running() == 2
    assert await pid_of(p, "client-2") != own
    assert budget.running() == 3
