"""No orphans however the gateway dies: SIGKILL of `manifold run` or `manifold serve` (or of
its whole process group) while a call is in flight ends every upstream, the one that ignores
SIGTERM, and their grandchildren. The gateway's child watchdog (`upstream/reaper.py`) does it.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_supervision import (
    StdioGateway,
    _http_session,
    alive,
    assert_nothing_left,
    basic,
    descendants,
    recorder,
    text_of,
)
from tests.support import MANIFOLD, free_port, spawn, stop_group, wait_http, write_config


@pytest.fixture
def config(tmp_path: Path) -> Path:
    # `stubborn` ignores SIGTERM and stdin EOF and has a grandchild `sleep` in its group.
    return write_config(
        tmp_path / "gw.yaml", {"a": basic("a"), "stubborn": recorder("stubborn", "--stubborn")}
    )


def _kill(pid: int, target: str) -> None:
    if target == "group":
        os.killpg(pid, signal.SIGKILL)  # e.g. a supervisor or a terminal killing the job
    else:
        os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("target", ["process", "group"])
def test_sigkill_of_run_leaves_no_process(target: str, config: Path, tmp_path: Path) -> None:
    with StdioGateway(config, tmp_path / "gw.log") as gw:
        gw.initialize()
        pids = {
            int(text_of(gw.tool("a__pid"))),
            json.loads(text_of(gw.tool("stubborn__stats")))["pid"],
        }
        busy = gw.send("tools/call", {"name": "a__sleep", "arguments": {"seconds": 60}})
        time.sleep(0.5)  # the call is in flight
        assert not gw.has_answer(busy)
        tree = descendants(gw.proc.pid)
        assert pids <= tree and len(tree) >= 3, tree  # a, stubborn and its grandchild
        _kill(gw.proc.pid, target)
        gw.proc.wait(timeout=10)
        assert_nothing_left(tree, timeout=15)
        assert not any(alive(p) for p in pids)


@pytest.mark.parametrize("target", ["process", "group"])
def test_sigkill_of_serve_leaves_no_process(target: str, config: Path, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "gw.log"
    proc = spawn([MANIFOLD, "serve", "--config", str(config), "--port", str(port)], log)
    try:
        wait_http(f"http://127.0.0.1:{port}/health", 60, proc)
        call = _http_session(f"http://127.0.0.1:{port}/mcp")
        pids = {
            int(text_of(call("a__pid", {}))),
            json.loads(text_of(call("stubborn__stats", {})))["pid"],
        }
        in_flight = threading.Thread(target=_quietly, args=(call, "a__sleep"), daemon=True)
        in_flight.start()
        time.sleep(0.5)
        tree = descendants(proc.pid)
        assert pids <= tree and len(tree) >= 3, tree
        _kill(proc.pid, target)
        proc.wait(timeout=10)
        assert_nothing_left(tree, timeout=15)
        in_flight.join(30)
    finally:
        stop_group(proc)


def _quietly(call: Callable[[str, dict[str, Any]], dict[str, Any]], tool: str) -> None:
    with contextlib.suppress(OSError, ValueError, http.client.HTTPException):  # it dies under it
        call(tool, {"seconds": 60})


@pytest.fixture(autouse=True)
def _no_strays() -> Iterator[None]:
    yield
    assert_nothing_left(set(), timeout=15)
