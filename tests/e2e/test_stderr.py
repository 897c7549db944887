"""A stdio child's stderr, end to end through `manifold run`: a flood reaches the gateway's log
rate-limited (with a count of what was left out), a line without end is cut at
`stderr_max_line` so the gateway's memory stays bounded, and the upstream keeps serving."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_supervision import StdioGateway, assert_nothing_left, poll, text_of
from tests.support import stdio_upstream, write_config


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    m = re.search(r"VmHWM:\s+(\d+) kB", status)
    assert m, status
    return int(m.group(1)) / 1024


def test_a_stderr_flood_is_rate_limited_in_the_log(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"f": stdio_upstream("faulty_server.py")},
    )
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        # 10 MB in 100 000 lines.
        assert text_of(gw.tool("f__stderr", {"bytes": 10_000_000}, timeout=120)) == "ok"
        assert int(text_of(gw.tool("f__pid"))) > 0

        def accounted() -> tuple[int, list[int]] | None:
            log = gw.log_text()
            logged = log.count("[f stderr] noise")
            counts = [int(n) for n in re.findall(r"\[f stderr\] (\d+) lines suppressed", log)]
            return (logged, counts) if logged + sum(counts) >= 100_000 else None

        # Every one of the 100 000 lines is either logged or counted as suppressed.
        logged, counts = poll(accounted, 60)
        log = gw.log_text()
    # The burst (200) and 20 lines a second for the few seconds this takes: far from 100 000.
    assert 150 <= logged < 2000, logged
    assert counts, log[-2000:]
    assert len(log) < 1_000_000, len(log)


def test_a_stderr_line_without_end_is_cut_and_memory_stays_bounded(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {
            "f": stdio_upstream("faulty_server.py"),
            "g": stdio_upstream("faulty_server.py"),
        },
    )
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        base = peak_rss_mb(gw.proc.pid)
        args = {"bytes": 50_000_000, "newlines": False}  # 50 MB, one line without end
        assert text_of(gw.tool("f__stderr", args, timeout=120)) == "ok"
        poll(lambda: "[f stderr] stderr done" in gw.log_text(), 60)
        assert int(text_of(gw.tool("f__pid"))) > 0
        assert text_of(gw.tool("g__echo", {"text": "ok"})) == "ok"
        grown = peak_rss_mb(gw.proc.pid) - base
        log = gw.log_text()
    assert grown < 25, f"peak RSS grew by {grown:.0f} MB for 50 MB of stderr"
    assert "[line cut at 8192 bytes]" in log
    assert len(log) < 100_000, len(log)


@pytest.fixture(autouse=True)
def _no_strays() -> Iterator[None]:
    yield
    assert_nothing_left(set(), timeout=15)
