"""Retries, circuit breakers and the response cache, end to end through the real `manifold`
process, against real faulty upstream processes (`tests/servers/flaky_server.py`) that count
every call they receive in a file: one failing every other call, one that hangs, one that
crash-loops, one that answers slowly under load.

What is asserted is what a user sees and what the upstream saw: a call safe to repeat is
retried (its key arrives twice upstream), any other call arrives once; every request gets
exactly one answer; the breaker opens, fails fast naming the upstream, probes and closes again;
identical read-only calls reach the upstream once, others every time; an answer marked private
is never served to another session; other upstreams keep answering meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from tests.e2e.test_supervision import StdioGateway, error_of, poll, text_of
from tests.support import MANIFOLD, gateway_http, stdio_upstream, test_env, write_config


def flaky(log: Path, *opts: str, **extra: Any) -> dict[str, Any]:
    return stdio_upstream("flaky_server.py", "--log", str(log), *opts, **extra)


def received(log: Path) -> list[str]:
    """The calls the upstream received, in order ("<tool> <key>")."""
    return log.read_text().splitlines() if log.exists() else []


def answered_once(gw: StdioGateway, ids: list[Any]) -> None:
    """Every request got exactly one answer (none lost, none doubled)."""
    counts: Counter[Any] = Counter()
    for line in gw.raw:
        msg = json.loads(line)
        if "id" in msg and "method" not in msg:
            counts[msg["id"]] += 1
    assert all(counts[i] == 1 for i in ids), {i: counts[i] for i in ids if counts[i] != 1}


RETRY = {"enabled": True, "attempts": 3, "backoff_initial": 0.01, "backoff_max": 0.05}


def test_only_calls_safe_to_repeat_are_retried(gateway: Any, tmp_path: Path) -> None:
    """Every other call fails (-32603): read-only and idempotent calls are retried and succeed,
    a call without those annotations arrives once and its failure reaches the client."""
    log = tmp_path / "calls.txt"
    retry = {**RETRY, "budget_ratio": 1.0, "budget_burst": 100}
    gw = gateway({"flaky": flaky(log, "--fail-every", "2")}, resilience={"retry": retry})
    ids = []
    for tool in ("read", "idem", "write"):
        for i in range(6):
            rid = gw.send("tools/call", {"name": f"flaky__{tool}", "arguments": {"key": f"k{i}"}})
            ids.append(rid)
            resp = gw.wait_answer(rid)
            if tool == "write" and i % 2 == 0:
                err = error_of(resp)
                assert err["code"] == -32603 and "internal failure" in err["message"], err
            else:
                assert text_of(resp).startswith(f"{tool}:k{i}:#"), resp
    seen = Counter(received(log))
    # Each read-only / idempotent call failed once upstream, then its retry succeeded.
    assert all(seen[f"{t} k{i}"] == 2 for t in ("read", "idem") for i in range(6)), seen
    # A call that may have side effects is never sent twice.
    assert all(seen[f"write k{i}"] == 1 for i in range(6)), seen
    answered_once(gw, ids)
    assert "retrying tools/call read on upstream flaky" in gw.log_text()


def test_a_list_that_fails_once_is_fetched_again(gateway: Any, tmp_path: Path) -> None:
    """The upstream's first `tools/list` fails: with retries on, the gateway asks again and
    its tools are listed (without, they would stay missing until a list_changed)."""
    up = flaky(tmp_path / "calls.txt", "--list-fails", "1")
    gw = gateway({"flaky": up}, resilience={"retry": RETRY})
    names = {t["name"] for t in gw.call("tools/list", {})["result"]["tools"]}
    assert "flaky__read" in names, names
    assert "retrying tools/list on upstream flaky" in gw.log_text()


def test_the_retry_budget_keeps_a_dying_upstream_from_being_multiplied(
    gateway: Any, tmp_path: Path
) -> None:
    """Every call fails: with 3 tries a call could reach the upstream 3 times; the budget
    (10% of calls, 2 kept) lets only a few retries through."""
    log = tmp_path / "calls.txt"
    retry = {**RETRY, "budget_ratio": 0.1, "budget_burst": 2}
    gw = gateway({"flaky": flaky(log, "--fail-every", "1")}, resilience={"retry": retry})
    calls = 40
    for i in range(calls):
        resp = gw.tool("flaky__read", {"key": f"k{i}"})
        assert error_of(resp)["code"] == -32603
    n = len(received(log))
    assert calls < n <= calls + 2 + calls // 10 + 1, n
    assert "retry budget spent" in gw.log_text()


def test_a_crash_looping_upstream_retries_reads_and_never_repeats_writes(
    gateway: Any, tmp_path: Path
) -> None:
    """The upstream exits on every other call and is restarted by the supervisor: read-only
    calls wait out the restart and succeed; a write that was in flight when it died is not
    sent again (it may have happened); every request gets one answer."""
    log = tmp_path / "calls.txt"
    up = flaky(
        log,
        "--fault",
        "crash",
        "--fail-every",
        "2",
        restart_backoff_initial=0.1,
        restart_backoff_max=0.3,
    )
    retry = {**RETRY, "attempts": 4, "budget_burst": 100, "max_retry_after": 2.0}
    gw = gateway({"flaky": up}, resilience={"retry": retry})
    ids = []
    for i in range(4):
        rid = gw.send("tools/call", {"name": "flaky__read", "arguments": {"key": f"r{i}"}})
        ids.append(rid)
        assert text_of(gw.wait_answer(rid)).startswith(f"read:r{i}:#")
    writes = []
    for i in range(6):
        rid = gw.send("tools/call", {"name": "flaky__write", "arguments": {"key": f"w{i}"}})
        ids.append(rid)
        writes.append(gw.wait_answer(rid))
    seen = Counter(received(log))
    assert all(seen[f"read r{i}"] == 2 for i in range(4)), seen  # crashed once, then answered
    assert all(seen[f"write w{i}"] <= 1 for i in range(6)), seen
    failed = [w for w in writes if "error" in w]
    assert failed and all(error_of(w)["data"]["reason"] == "upstream_unavailable" for w in failed)
    answered_once(gw, ids)


def test_a_hanging_upstream_does_not_slow_the_others(gateway: Any, tmp_path: Path) -> None:
    """One upstream hangs on every call (timeout 0.5 s) and another answers slowly under load
    (0.3 s a call, 2 at a time, 12 queued): a third, healthy upstream answers as fast as ever
    meanwhile. The hung read-only call is retried (its key arrives twice), the hung write
    arrives once."""
    hang_log, slow_log, calm_log = tmp_path / "hang.txt", tmp_path / "slow.txt", tmp_path / "c.txt"
    gw = gateway(
        {
            "hang": flaky(
                hang_log,
                "--fault",
                "hang",
                "--fail-every",
                "1",
                timeout=0.5,
                restart_after_timeouts=0,
            ),
            "slow": flaky(slow_log, "--delay", "0.3", max_in_flight=2, timeout=30),
            "calm": flaky(calm_log),
        },
        resilience={"retry": {**RETRY, "attempts": 2}},
    )

    def calm_latencies(n: int) -> list[float]:
        out = []
        for i in range(n):
            t0 = time.monotonic()
            assert text_of(gw.tool("calm__write", {"key": f"c{i}"})).startswith("write:")
            out.append(time.monotonic() - t0)
        return out

    before = sorted(calm_latencies(10))
    hung = [
        gw.send("tools/call", {"name": f"hang__{t}", "arguments": {"key": t}})
        for t in ("read", "write")
    ]
    loaded = [
        gw.send("tools/call", {"name": "slow__write", "arguments": {"key": f"s{i}"}})
        for i in range(12)
    ]
    during = sorted(calm_latencies(10))
    for rid in loaded:
        assert text_of(gw.wait_answer(rid)).startswith("write:s")
    for rid in hung:
        assert error_of(gw.wait_answer(rid))["data"]["reason"] == "timeout"
    seen = Counter(received(hang_log))
    assert seen == {"read read": 2, "write write": 1}, seen
    # Generous: the healthy upstream is not queued behind the others (a call of the slow one
    # alone takes 0.3 s, the queue of 12 takes about 1.8 s, a hung call 0.5 s per try).
    assert during[len(during) // 2] < max(0.25, 5 * before[len(before) // 2]), (before, during)
    answered_once(gw, hung + loaded)


def test_identical_read_only_calls_reach_the_upstream_once(gateway: Any, tmp_path: Path) -> None:
    """100 concurrent calls with the same arguments: a read-only tool is asked once (one
    upstream call shared, then kept), a tool without the annotation 100 times."""
    log = tmp_path / "calls.txt"
    gw = gateway({"flaky": flaky(log, "--delay", "0.3")}, resilience={"cache": {"enabled": True}})
    for tool in ("read", "write"):
        frames = b"".join(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": f"{tool}-{i}",
                    "method": "tools/call",
                    "params": {"name": f"flaky__{tool}", "arguments": {"key": "same"}},
                }
            ).encode()
            + b"\n"
            for i in range(100)
        )
        gw.write(frames)
        texts = {text_of(gw.wait_answer(f"{tool}-{i}")) for i in range(100)}
        if tool == "read":
            assert texts == {"read:same:#1"}, texts  # one upstream answer, shared
    seen = Counter(received(log))
    assert seen["read same"] == 1, seen
    assert seen["write same"] == 100, seen
    # Different arguments are different calls; a later identical one is answered from cache.
    assert text_of(gw.tool("flaky__read", {"key": "other"})).startswith("read:other:#")
    assert text_of(gw.tool("flaky__read", {"key": "same"})) == "read:same:#1"
    assert Counter(received(log))["read other"] == 1
    answered_once(gw, [f"{t}-{i}" for t in ("read", "write") for i in range(100)])


def _health(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url.replace("/mcp", "/health"), timeout=10) as r:
        body: dict[str, Any] = json.loads(r.read())
        return body


async def test_a_private_answer_is_never_served_to_another_session(tmp_path: Path) -> None:
    """`whoami` is read-only but its answers are marked `cacheScope: "private"`: each client
    session gets its own (kept for that session alone); a public answer is shared."""
    log = tmp_path / "calls.txt"
    cfg = write_config(
        tmp_path / "m.yaml", {"flaky": flaky(log)}, resilience={"cache": {"enabled": True}}
    )
    with gateway_http(cfg, tmp_path / "gateway.log") as url:
        async with (
            Client(url, mode="legacy", cache=None) as alice,
            Client(url, mode="legacy", cache=None) as bob,
        ):

            async def text(c: Client, tool: str) -> str:
                res = await c.call_tool(f"flaky__{tool}", {"key": "me"})
                content = res.content[0]
                assert isinstance(content, types.TextContent)
                return content.text

            a1 = await text(alice, "whoami")
            b1 = await text(bob, "whoami")
            assert a1 != b1, (a1, b1)  # bob's own answer, not alice's
            assert await text(alice, "whoami") == a1  # kept for alice
            assert await text(bob, "whoami") == b1  # kept for bob
            assert Counter(received(log))["whoami me"] == 2
            # A public answer is one for everyone.
            assert await text(alice, "read") == await text(bob, "read")
            assert Counter(received(log))["read me"] == 1
            cache = _health(url)["cache"]
            assert cache["hits"] >= 3 and cache["entries"] == 3, cache


async def test_the_breaker_opens_fails_fast_probes_and_closes(tmp_path: Path) -> None:
    """An upstream failing every call: after 4 failures its circuit opens and calls fail at
    once (naming the upstream, with `retry_after`) without reaching it, while another upstream
    keeps answering; a failed probe opens it again; once the upstream heals, a probe closes
    it. `/health` shows the state, the log each change."""
    log, calm_log, fault = tmp_path / "calls.txt", tmp_path / "calm.txt", tmp_path / "fault"
    fault.touch()
    breaker = {"enabled": True, "min_calls": 4, "failure_ratio": 0.5, "open_for": 1.0}
    cfg = write_config(
        tmp_path / "m.yaml",
        {
            "flaky": flaky(log, "--fail-every", "1", "--fault-file", str(fault)),
            "calm": flaky(calm_log),
        },
        resilience={"breaker": breaker},
    )
    gwlog = tmp_path / "gateway.log"
    with gateway_http(cfg, gwlog) as url:
        async with Client(url, mode="legacy", cache=None) as c:

            async def call(up: str, key: str) -> Any:
                return await c.call_tool(f"{up}__write", {"key": key})

            for i in range(4):
                with pytest.raises(MCPError) as err:
                    await call("flaky", f"f{i}")
                assert err.value.code == -32603
            assert _health(url)["circuits"]["flaky"]["state"] == "open"
            with pytest.raises(MCPError) as err:
                await call("flaky", "refused")
            assert err.value.data["reason"] == "circuit_open", err.value.data
            assert err.value.data["upstream"] == "flaky"
            assert 0 < err.value.data["retry_after"] <= 1.0
            assert "'flaky'" in err.value.message and "circuit open" in err.value.message
            assert len(received(log)) == 4  # the refused call never reached it
            assert (await call("calm", "ok")).content  # the other upstream is unaffected
            # Half-open after open_for: one probe goes through, fails, and reopens it.
            await asyncio.sleep(1.1)
            with pytest.raises(MCPError) as err:
                await call("flaky", "probe")
            assert err.value.code == -32603
            with pytest.raises(MCPError) as err:
                await call("flaky", "refused-again")
            assert err.value.data["reason"] == "circuit_open"
            # Healed: the next probe succeeds and closes the circuit.
            fault.unlink()
            deadline = time.monotonic() + 15
            while True:
                try:
                    res = await call("flaky", "healed")
                    break
                except MCPError as e:
                    assert e.data["reason"] == "circuit_open", e
                    assert time.monotonic() < deadline, "the circuit did not close"
                    await asyncio.sleep(0.2)
            assert isinstance(res.content[0], types.TextContent)
            assert res.content[0].text.startswith("write:healed:#")
            assert _health(url)["circuits"]["flaky"]["state"] == "closed"
            assert Counter(received(log))["write refused"] == 0
    text = poll(lambda: gwlog.read_text() if "closed" in gwlog.read_text() else None, 10)
    assert "circuit flaky opened: 4 of 4 calls failed" in text
    assert "circuit flaky opened: a probe failed" in text
    assert "circuit flaky closed" in text


def pid_of(resp: dict[str, Any]) -> int:
    return int(text_of(resp).rsplit(":", 1)[1])


def test_killing_one_of_three_replicas_loses_no_read(gateway: Any, tmp_path: Path) -> None:
    """Three replicas of a server (`count: 3`) share the load; one is killed while 60 slow
    read-only calls are in flight: each call still gets its answer (the lost ones fail over
    to the others), the dead replica is ejected, the others take the load, and it returns
    to service (restarted) after `eject_for`. Ejection and return are logged."""
    log = tmp_path / "calls.txt"
    up = flaky(log, "--delay", "0.3", count=3, restart_backoff_initial=0.2)
    replicas = {"eject_after": 2, "eject_for": 4.0}
    gw = gateway({"svc": up}, resilience={"replicas": replicas})
    pids = {pid_of(gw.tool("svc__pid", {"key": f"p{i}"})) for i in range(6)}
    assert len(pids) == 3, pids  # in turn: each replica served
    victim = sorted(pids)[0]
    ids = [
        gw.send("tools/call", {"name": "svc__pid", "arguments": {"key": f"k{i}"}})
        for i in range(60)
    ]
    time.sleep(0.1)  # the calls are spread and in flight
    os.kill(victim, signal.SIGKILL)
    served = Counter(pid_of(gw.wait_answer(rid)) for rid in ids)
    assert sum(served.values()) == 60
    assert set(served) <= pids, served  # answered by the three (the victim before it died)
    # Every call the victim lost was answered by another replica: failover happened.
    assert served[victim] < 20, served
    text = gw.log_text()
    assert "replica svc" in text and "ejected after" in text, text[-3000:]
    # While it is out, the two others serve everything.
    during = {pid_of(gw.tool("svc__pid", {"key": f"d{i}"})) for i in range(4)}
    assert victim not in during and len(during) == 2, during
    # After eject_for it is back, restarted (a new process).
    back = poll(lambda: {pid_of(gw.tool("svc__pid", {"key": "b"})) for _ in range(3)} - pids, 15)
    assert back, back
    assert "returns to service" in gw.log_text()
    answered_once(gw, ids)


def test_a_slow_replica_is_hedged_for_reads_only(gateway: Any, tmp_path: Path) -> None:
    """Two replicas, the first slow (2 s a call), the second quick; with hedging after 0.2 s a
    read-only call that went to the slow one is also sent to the quick one, whose answer wins
    (both received it) and the slow one is told to cancel; a call without the annotation is
    never sent twice."""
    log, cancels = tmp_path / "calls.txt", tmp_path / "cancelled.txt"
    slow = flaky(log, "--delay", "2", "--cancel-log", str(cancels))
    quick_args = [*slow["args"][:-4], "--delay", "0"]
    slow["replicas"] = [{"args": quick_args}]
    replicas = {"balance": "round_robin", "hedge": True, "hedge_delay": 0.2}
    gw = gateway({"svc": slow}, resilience={"replicas": replicas})
    ids = [
        gw.send("tools/call", {"name": "svc__pid", "arguments": {"key": f"r{i}"}}) for i in range(4)
    ]
    answers = [gw.wait_answer(rid, timeout=10) for rid in ids]
    served = {pid_of(a) for a in answers}
    assert len(served) == 1, served  # all from the quick replica
    seen = Counter(received(log))
    assert sorted(seen[f"pid r{i}"] for i in range(4)) == [1, 1, 2, 2], seen  # 2 hedged
    # The slow replica's losing calls were cancelled (it was told).
    poll(lambda: len(received(cancels)) == 2, 10)
    writes = [
        gw.send("tools/call", {"name": "svc__write", "arguments": {"key": f"w{i}"}})
        for i in range(2)
    ]
    for rid in writes:
        assert text_of(gw.wait_answer(rid, timeout=10)).startswith("write:w")
    seen = Counter(received(log))
    assert [seen[f"write w{i}"] for i in range(2)] == [1, 1], seen
    answered_once(gw, ids + writes)


def test_a_sticky_session_stays_on_its_replica(gateway: Any, tmp_path: Path) -> None:
    """`sticky`: a client session (here the stdio client) keeps the replica it started on
    (a stateful server), where without it calls are spread over the three."""
    up = flaky(tmp_path / "calls.txt", count=3)
    gw = gateway({"svc": up}, resilience={"replicas": {"sticky": True}})
    assert len({pid_of(gw.tool("svc__pid", {"key": f"p{i}"})) for i in range(6)}) == 1


def test_check_shows_the_circuits(tmp_path: Path) -> None:
    """`manifold check` names each upstream's circuit (closed after a healthy start)."""
    cfg = write_config(
        tmp_path / "m.yaml",
        {"flaky": flaky(tmp_path / "calls.txt")},
        resilience={"breaker": {"enabled": True}},
    )
    out = subprocess.run(
        [MANIFOLD, "check", "--config", str(cfg)],
        capture_output=True,
        text=True,
        env=test_env(),
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "circuit flaky: closed" in out.stdout, out.stdout
    js = subprocess.run(
        [MANIFOLD, "check", "--json", "--config", str(cfg)],
        capture_output=True,
        text=True,
        env=test_env(),
        timeout=60,
        check=False,
    )
    assert json.loads(js.stdout)["circuits"] == {"flaky": {"state": "closed"}}
