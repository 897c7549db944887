"""A stdio child's stderr as the gateway keeps it: lines rebuilt across reads, cut at the cap,
rate-limited in the log with a count of what was left out, and the last lines kept."""

from __future__ import annotations

import logging

import pytest

from manifold.upstream.stdio import StderrLog


def logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "manifold.upstream.stdio"]


def test_lines_are_rebuilt_across_reads_and_the_last_ones_kept() -> None:
    err = StderrLog("up", max_line=100, rate=100, burst=100, tail=2)
    for chunk in (b"hel", b"lo\nwor", b"ld\r\n\n", b"third\n"):
        err.feed(chunk)
    assert list(err.tail) == ["world", "third"]
    assert err.last_lines() == "world | third"


def test_a_long_line_is_cut_at_the_cap_and_its_rest_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "manifold.upstream.stdio")
    err = StderrLog("up", max_line=100, rate=100, burst=100, tail=5)
    for _ in range(1000):
        err.feed(b"x" * 1000)  # a megabyte, no newline yet
    err.feed(b"xx\nnext\n")
    assert list(err.tail) == ["x" * 100 + " [line cut at 100 bytes]", "next"]
    assert logged(caplog) == [
        "[up stderr] " + "x" * 100 + " [line cut at 100 bytes]",
        "[up stderr] next",
    ]


def test_a_flood_is_rate_limited_and_what_was_left_out_is_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "manifold.upstream.stdio")
    err = StderrLog("up", max_line=100, rate=0.001, burst=3, tail=5)
    err.feed(b"".join(b"line %d\n" % i for i in range(10)))
    err.flush()
    msgs = logged(caplog)
    assert msgs[:3] == ["[up stderr] line 0", "[up stderr] line 1", "[up stderr] line 2"]
    assert msgs[3:] == ["[up stderr] 7 lines suppressed (more than 0.001 lines a second)"]
    assert list(err.tail) == [f"line {i}" for i in range(5, 10)]  # kept even when not logged


def test_a_last_line_without_newline_is_kept_at_the_end() -> None:
    err = StderrLog("up", max_line=100, rate=100, burst=100, tail=5)
    err.feed(b"Traceback\nValueError: bad")
    assert list(err.tail) == ["Traceback"]
    err.flush()
    assert list(err.tail) == ["Traceback", "ValueError: bad"]
