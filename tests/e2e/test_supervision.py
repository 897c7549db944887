"""Supervision, end to end through the real `manifold` process.

An upstream that dies mid-call (SIGKILL, or exiting from inside a tool) fails that call at
once, the other upstreams keep working, and it is restarted after its backoff. A slow call never
holds up another call on the same upstream; `max_in_flight` caps concurrency; a per-upstream
`timeout` ends a call with an error and tells the upstream to cancel. A missing command leaves
the rest of the gateway working. However the gateway ends (stdin EOF, SIGTERM, SIGINT; `run`
and `serve`), no process it started is left behind.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.support import (
    MANIFOLD,
    free_port,
    marked_pids,
    spawn,
    stdio_upstream,
    stop_group,
    test_env,
    wait_http,
    write_config,
)

T = TypeVar("T")

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "1"},
}


# --------------------------------------------------------------------------- helpers


class StdioGateway:
    """`manifold run` as a child on pipes; a reader thread collects every stdout line."""

    def __init__(self, config: Path, log: Path, *extra: str) -> None:
        self.log = log
        cmd = [MANIFOLD, "run", "--config", str(config), "--log-level", "info", *extra]
        with log.open("ab") as err:
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env=test_env(),
                start_new_session=True,
            )
        self.raw: list[bytes] = []  # every stdout line, as written
        self.answers: dict[Any, tuple[dict[str, Any], float]] = {}
        self.null_errors: list[dict[str, Any]] = []
        self.notifications: list[dict[str, Any]] = []
        self.eof = False
        self.cond = threading.Condition()
        self._ids = itertools.count(1000)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            now = time.monotonic()
            try:
                msg = json.loads(line)
            except ValueError:
                msg = None
            with self.cond:
                self.raw.append(line)
                if isinstance(msg, dict) and "method" not in msg and "id" in msg:
                    if msg["id"] is None:
                        self.null_errors.append(msg)
                    else:
                        self.answers[msg["id"]] = (msg, now)
                elif isinstance(msg, dict):
                    self.notifications.append(msg)
                self.cond.notify_all()
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def __enter__(self) -> StdioGateway:
        return self

    def __exit__(self, *exc: object) -> None:
        stop_group(self.proc)
        self._reader.join(10)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def write(self, data: bytes, timeout: float = 120.0) -> None:
        """Write to the gateway's stdin from a thread, so a stuck pipe cannot hang the test."""
        errors: list[BaseException] = []

        def go() -> None:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except OSError as e:
                errors.append(e)

        t = threading.Thread(target=go, daemon=True)
        t.start()
        t.join(timeout)
        assert not t.is_alive(), f"writing {len(data)} bytes to the gateway did not finish"
        if errors:
            raise errors[0]

    def send(self, method: str, params: dict[str, Any] | None = None, rid: Any = None) -> Any:
        rid = next(self._ids) if rid is None else rid
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.write(json.dumps(msg).encode() + b"\n")
        return rid

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.write(json.dumps(msg).encode() + b"\n")

    def wait_answer(self, rid: Any, timeout: float = 30.0) -> dict[str, Any]:
        with self.cond:
            self.cond.wait_for(lambda: rid in self.answers or self.eof, timeout)
            if rid in self.answers:
                return self.answers[rid][0]
        raise AssertionError(
            f"no answer to id {rid!r} within {timeout} s (stdout closed: {self.eof})\n"
            f"--- gateway log ---\n{self.log_text()[-3000:]}"
        )

    def answered_at(self, rid: Any) -> float:
        with self.cond:
            return self.answers[rid][1]

    def has_answer(self, rid: Any) -> bool:
        with self.cond:
            return rid in self.answers

    def wait_null_error(self, seen: int, timeout: float = 30.0) -> dict[str, Any]:
        """The next error answer with id null after `seen` of them."""
        with self.cond:
            self.cond.wait_for(lambda: len(self.null_errors) > seen or self.eof, timeout)
            if len(self.null_errors) > seen:
                return self.null_errors[seen]
        raise AssertionError(f"no id-null error within {timeout} s\n{self.log_text()[-3000:]}")

    def call(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0
    ) -> dict[str, Any]:
        return self.wait_answer(self.send(method, params), timeout)

    def tool(
        self, name: str, arguments: dict[str, Any] | None = None, timeout: float = 30.0
    ) -> dict[str, Any]:
        return self.call("tools/call", {"name": name, "arguments": arguments or {}}, timeout)

    def initialize(self, timeout: float = 90.0) -> dict[str, Any]:
        params = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "e2e", "version": "1"},
        }
        res = self.call("initialize", params, timeout)
        assert "result" in res, res
        self.notify("notifications/initialized")
        return res

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()


def text_of(resp: dict[str, Any]) -> str:
    assert "result" in resp, resp
    assert not resp["result"].get("isError"), resp
    return str(resp["result"]["content"][0]["text"])


def error_of(resp: dict[str, Any]) -> dict[str, Any]:
    assert "error" in resp, resp
    err = resp["error"]
    assert isinstance(err["code"], int) and isinstance(err["message"], str), err
    return dict(err)


def poll(what: Callable[[], T | None], timeout: float, every: float = 0.2) -> T:
    """`what()` until it returns something truthy, bounded."""
    deadline = time.monotonic() + timeout
    while True:
        got = what()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(every)


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return ") Z" not in stat


def descendants(root: int) -> set[int]:
    """Every live process below `root` (by parent pid), as the tree is now."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    out: set[int] = set()
    todo = [root]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def upstream_pids(script: str, name: str) -> list[int]:
    """Live marked processes running tests/servers/<script> --name <name>."""
    found = []
    for pid in marked_pids():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        mine = any(a.endswith(script.encode()) for a in argv) and name.encode() in argv
        if mine and alive(pid):
            found.append(pid)
    return found


def assert_nothing_left(pids: set[int], timeout: float = 10.0, ignore: Iterable[int] = ()) -> None:
    """None of `pids`, and no marked process but those in `ignore`, is alive (bounded wait)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        marked = [p for p in marked_pids() if p not in ignore]
        if not left and not marked:
            return
        time.sleep(0.1)
    raise AssertionError(f"left behind: {left} (marked: {marked})")


def basic(name: str, **extra: Any) -> dict[str, Any]:
    return stdio_upstream("basic_server.py", "--name", name, **extra)


def recorder(name: str, *opts: str, **extra: Any) -> dict[str, Any]:
    return stdio_upstream("recorder_server.py", "--name", name, *opts, **extra)


# --------------------------------------------------------------------------- crashes


def test_sigkill_mid_call_fails_fast_others_keep_working_and_it_restarts(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"a": basic("a", restart_backoff_initial=1.0), "b": basic("b")},
    )
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        pid_a = int(text_of(gw.tool("a__pid")))
        assert upstream_pids("basic_server.py", "a") == [pid_a]
        slow = gw.send("tools/call", {"name": "a__sleep", "arguments": {"seconds": 60}})
        time.sleep(0.5)  # let the call reach the upstream
        assert not gw.has_answer(slow)
        killed_at = time.monotonic()
        os.kill(pid_a, signal.SIGKILL)

        err = error_of(gw.wait_answer(slow, timeout=15))
        assert gw.answered_at(slow) - killed_at < 15  # the call's timeout is 60 s
        assert "went away" in err["message"] or "not running" in err["message"], err
        # The other upstream is not disturbed.
        assert text_of(gw.tool("b__echo", {"text": "still here"})) == "b:still here"

        # The supervisor restarts `a` by itself, after its backoff (1 s here).
        new = poll(lambda: [p for p in upstream_pids("basic_server.py", "a") if p != pid_a], 60)
        assert time.monotonic() - killed_at >= 0.9
        assert not alive(pid_a)

        def pid_now() -> int | None:
            r = gw.tool("a__pid")
            return int(text_of(r)) if "result" in r else None

        assert poll(pid_now, 60, every=0.5) == new[0]
        assert text_of(gw.tool("a__echo", {"text": "back"})) == "a:back"
        assert "upstream a went away" in gw.log_text()


def test_crash_inside_a_tool_fails_that_call_and_the_upstream_comes_back(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "gw.yaml", {"a": basic("a"), "b": basic("b")})
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        pid_a = int(text_of(gw.tool("a__pid")))
        t0 = time.monotonic()
        err = error_of(gw.tool("a__crash", timeout=15))
        assert time.monotonic() - t0 < 15
        assert "exited with code 3" in err["message"], err
        assert text_of(gw.tool("b__add", {"a": 2, "b": 3})) == "5"

        def echo() -> str | None:
            r = gw.tool("a__echo", {"text": "again"})
            return text_of(r) if "result" in r else None

        assert poll(echo, 60, every=0.5) == "a:again"
        assert int(text_of(gw.tool("a__pid"))) != pid_a


# --------------------------------------------------------------------------- concurrency


def test_slow_call_does_not_block_another_call_on_the_same_upstream(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "gw.yaml", {"a": basic("a")})
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        slow = gw.send("tools/call", {"name": "a__sleep", "arguments": {"seconds": 3}})
        t0 = time.monotonic()
        assert text_of(gw.tool("a__echo", {"text": "quick"})) == "a:quick"
        assert time.monotonic() - t0 < 2.0
        assert not gw.has_answer(slow)  # the echo overtook the sleep
        assert text_of(gw.wait_answer(slow, 30)) == "slept 3.0"


def test_max_in_flight_caps_concurrent_calls(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"capped": recorder("capped", max_in_flight=2), "free": recorder("free")},
    )
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        for up in ("capped", "free"):
            t0 = time.monotonic()
            ids = [
                gw.send("tools/call", {"name": f"{up}__hold", "arguments": {"seconds": 1.0}})
                for _ in range(3)
            ]
            for rid in ids:
                assert text_of(gw.wait_answer(rid, 30)) == f"{up} held 1.0"
            ends = sorted(gw.answered_at(rid) - t0 for rid in ids)
            stats = json.loads(text_of(gw.tool(f"{up}__stats")))
            if up == "capped":
                assert stats["peak"] == 2, stats  # two ran together, never three
                assert ends[2] >= 1.8  # the third waited for a slot
                assert ends[2] - ends[0] >= 0.8
            else:
                assert stats["peak"] == 3, stats
            assert stats["current"] == 0


def test_timeout_fails_the_call_cancels_upstream_and_later_calls_work(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "gw.yaml", {"rec": recorder("rec", timeout=1)})
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        t0 = time.monotonic()
        err = error_of(gw.tool("rec__hold", {"seconds": 5}, timeout=15))
        assert time.monotonic() - t0 < 4.5  # ended by the 1 s timeout, not by the 5 s hold
        assert "within 1 s" in err["message"], err

        def cancelled() -> dict[str, Any] | None:
            st = json.loads(text_of(gw.tool("rec__stats")))
            return st if st["cancelled"] else None

        stats = poll(cancelled, 10)
        assert len(stats["cancelled"]) == 1 and stats["cancel_notes"] == 1, stats
        assert stats["current"] == 0
        assert text_of(gw.tool("rec__echo", {"text": "after"})) == "rec:after"
        assert text_of(gw.tool("rec__hold", {"seconds": 0.1})) == "rec held 0.1"


def test_missing_command_other_upstreams_still_served(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-server"
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"rec": recorder("rec"), "broken": {"command": str(missing), "args": ["x"]}},
    )
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        assert text_of(gw.tool("rec__echo", {"text": "ok"})) == "rec:ok"
        names = [t["name"] for t in gw.call("tools/list")["result"]["tools"]]
        assert names and all(n.startswith("rec__") for n in names)
        err = error_of(gw.tool("broken__echo", {"text": "x"}))
        assert "broken" in err["message"], err
        assert "no-such-server" in err["message"] or "unavailable" in err["message"], err
        assert text_of(gw.tool("rec__echo", {"text": "still"})) == "rec:still"
        assert "upstream broken failed to start" in gw.log_text()

    proc = subprocess.run(
        [MANIFOLD, "check", "--config", str(cfg)],
        capture_output=True,
        text=True,
        env=test_env(),
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "upstreams not ready: broken" in out, out
    assert "rec" in proc.stdout


def test_call_sent_before_upstreams_are_up_waits_for_them(tmp_path: Path) -> None:
    """A modern client needs no handshake: its first call may arrive while upstreams start."""
    cfg = write_config(tmp_path / "gw.yaml", {"a": basic("a")})
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        params = {"name": "a__echo", "arguments": {"text": "early"}, "_meta": MODERN_META}
        assert text_of(gw.call("tools/call", params, timeout=90)) == "a:early"


# --------------------------------------------------------------------------- shutdown


def _http_session(url: str) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    """A minimal legacy-era HTTP client: initialize, then tools/call by name."""
    ids = itertools.count(1)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

    def post(msg: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, str]]:
        req = urllib.request.Request(url, json.dumps(msg).encode(), headers, method="POST")
        with urllib.request.urlopen(req, timeout=60) as resp:
            body = resp.read()
            hdrs = dict(resp.headers)
        if resp.headers.get("Content-Type", "").startswith("text/event-stream"):
            datas = [ln[5:] for ln in body.splitlines() if ln.startswith(b"data:")]
            body = datas[-1] if datas else b""
        return (json.loads(body) if body.strip() else None), hdrs

    init = {
        "jsonrpc": "2.0",
        "id": next(ids),
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "e2e", "version": "1"},
        },
    }
    _, hdrs = post(init)
    headers["Mcp-Session-Id"] = hdrs["Mcp-Session-Id"]
    headers["MCP-Protocol-Version"] = "2025-11-25"
    post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        msg = {
            "jsonrpc": "2.0",
            "id": next(ids),
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        res, _ = post(msg)
        assert res is not None
        return res

    return call


@pytest.fixture
def shutdown_config(tmp_path: Path) -> Path:
    # `stubborn` ignores SIGTERM and stdin EOF and has a grandchild: only SIGKILL of its group
    # ends it, so this also checks the gateway's close escalates.
    return write_config(
        tmp_path / "gw.yaml", {"a": basic("a"), "stubborn": recorder("stubborn", "--stubborn")}
    )


@pytest.mark.parametrize("how", ["eof", "SIGTERM", "SIGINT"])
def test_run_exit_leaves_no_process(how: str, shutdown_config: Path, tmp_path: Path) -> None:
    with StdioGateway(shutdown_config, tmp_path / "gw.log") as gw:
        gw.initialize()
        pids = {
            int(text_of(gw.tool("a__pid"))),
            json.loads(text_of(gw.tool("stubborn__stats")))["pid"],
        }
        tree = descendants(gw.proc.pid)
        assert pids <= tree and len(tree) >= 3, tree  # a, stubborn and its grandchild
        gw.send("tools/call", {"name": "a__sleep", "arguments": {"seconds": 60}})  # in flight
        time.sleep(0.3)
        if how == "eof":
            gw.close_stdin()
        else:
            os.kill(gw.proc.pid, getattr(signal, how))
        rc = gw.proc.wait(timeout=30)
        assert rc == 0, gw.log_text()[-3000:]
        assert_nothing_left(tree)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_exit_leaves_no_process(sig: int, shutdown_config: Path, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "gw.log"
    cmd = [MANIFOLD, "serve", "--config", str(shutdown_config), "--port", str(port)]
    proc = spawn(cmd, log)
    try:
        wait_http(f"http://127.0.0.1:{port}/health", 60, proc)
        call = _http_session(f"http://127.0.0.1:{port}/mcp")
        pids = {
            int(text_of(call("a__pid", {}))),
            json.loads(text_of(call("stubborn__stats", {})))["pid"],
        }
        tree = descendants(proc.pid)
        assert pids <= tree and len(tree) >= 3, tree
        os.kill(proc.pid, sig)
        rc = proc.wait(timeout=30)
        assert rc == 0, log.read_text(errors="replace")[-3000:]
        assert_nothing_left(tree)
    finally:
        stop_group(proc)


@pytest.fixture(autouse=True)
def _no_strays() -> Iterator[None]:
    yield
    assert_nothing_left(set(), timeout=15)
