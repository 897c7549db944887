"""Restarts that hold, end to end through `manifold run`: an upstream that fails its first
starts is retried until it comes up (and a call meanwhile says when the next attempt is), a
crash loop backs off to the ceiling and the backoff resets only after the upstream stayed up,
a call's time queued for a `max_in_flight` slot counts against its timeout, and a streak of
timeouts restarts a wedged server even with health checks off.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_supervision import (
    StdioGateway,
    assert_nothing_left,
    basic,
    error_of,
    poll,
    recorder,
    text_of,
)
from tests.support import stdio_upstream, write_config


def faulty(*opts: str, **extra: Any) -> dict[str, Any]:
    return stdio_upstream("faulty_server.py", *opts, **extra)


def failing_first(starts: Path, fails: int, *opts: str, backoff: float, most: float) -> Any:
    """A faulty upstream whose first `fails` starts exit (counted in `starts`)."""
    return faulty(
        "--starts",
        str(starts),
        "--fail-starts",
        str(fails),
        *opts,
        restart_backoff_initial=backoff,
        restart_backoff_max=most,
    )


def start_times(path: Path) -> list[float]:
    return [float(x) for x in path.read_text().split()] if path.exists() else []


def test_upstream_failing_its_first_starts_is_retried_until_it_comes_up(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"f": failing_first(starts, 3, backoff=1.0, most=2.0), "ok": faulty()},
    )
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        # Down after its first start: the call fails at once, says why and when it retries.
        err = error_of(gw.tool("f__pid"))
        assert err["code"] == -32001, err
        assert err["data"]["reason"] == "upstream_unavailable", err
        assert err["data"]["upstream"] == "f", err
        assert 0 <= err["data"]["retry_after"] <= 2.5, err
        assert "exited with code 2" in err["message"], err
        assert "fatal: start 1 of 3 planned failures" in err["message"], err
        assert "next start attempt in" in err["message"], err
        assert text_of(gw.tool("ok__echo", {"text": "fine"})) == "fine"

        # No call brings it up: the supervisor keeps trying by itself (1 s, 2 s, 2 s).
        poll(lambda: len(start_times(starts)) >= 4, 60)
        poll(lambda: "upstream f ready" in gw.log_text(), 30)
        assert len(start_times(starts)) == 4
        assert int(text_of(gw.tool("f__pid"))) > 0
        names = [t["name"] for t in gw.call("tools/list")["result"]["tools"]]
        assert "f__pid" in names and "ok__pid" in names, names


def test_a_call_just_after_an_upstream_comes_back_waits_for_its_tools(tmp_path: Path) -> None:
    # The upstream is up (and logged ready) a moment before its tool list arrives: a call in
    # that moment waits for the list rather than hearing "Unknown tool".
    starts = tmp_path / "starts"
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"f": failing_first(starts, 1, "--list-delay", "1.5", backoff=0.5, most=0.5)},
    )
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        poll(lambda: "upstream f ready" in gw.log_text(), 30)
        assert int(text_of(gw.tool("f__pid"))) > 0
        names = [t["name"] for t in gw.call("tools/list")["result"]["tools"]]
        assert "f__pid" in names, names


def test_a_call_cut_by_a_crash_says_the_upstream_is_unavailable_and_when_it_retries(
    tmp_path: Path,
) -> None:
    cfg = write_config(tmp_path / "gw.yaml", {"a": basic("a", restart_backoff_initial=2.0)})
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        err = error_of(gw.tool("a__crash", timeout=15))
        assert err["code"] == -32001, err
        assert err["data"]["reason"] == "upstream_unavailable", err
        assert err["data"]["upstream"] == "a", err
        assert 0 < err["data"]["retry_after"] <= 2.5, err
        assert "exited with code 3" in err["message"], err
        down = error_of(gw.tool("a__echo", {"text": "x"}))
        assert down["data"]["reason"] == "upstream_unavailable", down
        assert "next start attempt in" in down["message"], down


def test_crash_loop_backs_off_to_the_ceiling_and_resets_after_a_good_run(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    # Dies 0.5 s after initialize, four times; then stays up 3 s (longer than
    # restart_reset_after) before it dies.
    cfg = write_config(
        tmp_path / "gw.yaml",
        {
            "f": faulty(
                "--starts",
                str(starts),
                "--die-after",
                "0.5,0.5,0.5,0.5,3",
                restart_backoff_initial=0.25,
                restart_backoff_max=2.0,
                restart_reset_after=2.0,
                health_interval=0,
            )
        },
    )
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        poll(lambda: len(start_times(starts)) >= 7, 90)
        log = gw.log_text()
    t = start_times(starts)
    runs = [0.5, 0.5, 0.5, 0.5, 3.0, 3.0]
    waits = [t[i + 1] - t[i] - runs[i] for i in range(6)]
    # After four quick deaths the wait has grown to the 2 s ceiling (not 0.25 s every time).
    assert waits[3] >= 1.9, waits
    delays = [float(d) for d in re.findall(r"upstream f: next start attempt in ([0-9.]+) s", log)]
    assert len(delays) >= 6, log[-3000:]
    bases = [0.25, 0.5, 1.0, 2.0, 0.25, 0.25]  # doubling to the ceiling; reset after 3 s up
    for got, base in zip(delays, bases, strict=False):
        assert base - 0.01 <= got <= base * 1.2 + 0.01, (delays, bases)
    # And the restarts really waited that long.
    for wait, delay in zip(waits, delays, strict=False):
        assert wait >= delay - 0.05, (waits, delays)


def test_time_queued_for_a_slot_counts_against_the_timeout(tmp_path: Path) -> None:
    # The slot is held by a call with a longer timeout (`linger`, 6 s), so the queued calls'
    # own 2 s run out while it is surely still taken: no instant where it is handed over. No
    # restart after a streak of timeouts here either.
    rec = recorder(
        "rec",
        "--linger-tool",
        max_in_flight=1,
        timeout=2,
        tool_timeouts={"linger": 6},
        restart_after_timeouts=0,
    )
    cfg = write_config(tmp_path / "gw.yaml", {"rec": rec})
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        t0 = time.monotonic()
        holder = gw.send("tools/call", {"name": "rec__linger", "arguments": {"seconds": 30}})
        ids = [
            gw.send("tools/call", {"name": "rec__hold", "arguments": {"seconds": 30}})
            for _ in range(3)
        ]
        errs = [error_of(gw.wait_answer(rid, 60)) for rid in ids]
        # Every queued call ends at its own 2 s timeout, in the queue (not at 6 + 2 s, nor at
        # 2, 4 and 6 s), and says it found no free slot.
        last = max(gw.answered_at(rid) for rid in ids) - t0
        assert last < 5.0, last
        for e in errs:
            assert e["code"] == -32001 and e["data"] == {"reason": "timeout", "upstream": "rec"}, e
            assert "no free slot" in e["message"] and "max_in_flight 1" in e["message"], e
        # The holder ends at its own 6 s, upstream.
        e = error_of(gw.wait_answer(holder, 60))
        assert e["data"] == {"reason": "timeout", "upstream": "rec"}, e
        assert "did not answer tools/call within 6 s" in e["message"], e
        assert gw.answered_at(holder) - t0 >= 6.0
        assert text_of(gw.tool("rec__echo", {"text": "after"})) == "rec:after"


def test_timeout_streak_restarts_a_wedged_server_with_health_checks_off(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {
            "h": stdio_upstream(
                "hang_server.py", timeout=1, health_interval=0, restart_backoff_initial=0.2
            )
        },
    )
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        pid = int(text_of(gw.tool("h__pid")))
        assert error_of(gw.tool("h__freeze", timeout=20))["data"]["reason"] == "timeout"
        # Two more timeouts make three in a row (the default restart_after_timeouts).
        for _ in range(2):
            assert error_of(gw.tool("h__pid", timeout=20))["data"]["reason"] == "timeout"

        def new_pid() -> int | None:
            r = gw.tool("h__pid", timeout=20)
            return int(text_of(r)) if "result" in r else None

        assert poll(new_pid, 30, every=0.5) != pid
        assert "3 calls in a row timed out: restarting it" in gw.log_text()


def test_timeout_streak_can_be_turned_off(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {
            "h": stdio_upstream(
                "hang_server.py", timeout=0.5, health_interval=0, restart_after_timeouts=0
            )
        },
    )
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        pid = int(text_of(gw.tool("h__pid")))
        gw.tool("h__freeze", timeout=20)
        for _ in range(4):
            assert error_of(gw.tool("h__pid", timeout=20))["data"]["reason"] == "timeout"
        assert "restarting it" not in gw.log_text()
        assert "went away" not in gw.log_text()
        assert pid > 0


@pytest.fixture(autouse=True)
def _no_strays() -> Iterator[None]:
    yield
    assert_nothing_left(set(), timeout=15)
