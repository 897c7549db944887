"""`manifold serve` under abusive clients, through raw sockets: slow heads, idle and surplus
connections, stalled and oversized bodies, huge headers, answers nobody reads, and the smaller
front-door checks (Content-Type, /health's Host, binding beyond loopback).

Each test sets the relevant limit small in the `http:` config so it runs quickly; where it is
about memory, the gateway's resident size is read from /proc/<pid>/status. Every wait is
bounded, and after each abuse a well-behaved client is still served.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import (
    MANIFOLD,
    free_port,
    http_server,
    spawn,
    stdio_upstream,
    stop_group,
    write_config,
)

MiB = 1024 * 1024
pytestmark = pytest.mark.timeout(180)


class Gw:
    def __init__(self, proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
        self.proc = proc
        self.port = port
        self.log = log

    def rss(self) -> int:
        """Resident memory of the gateway process, bytes."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS")

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=30)

    def head(self, method: str, path: str = "/mcp", extra: str = "") -> bytes:
        return f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n{extra}".encode()

    def health(self) -> int:
        """A well-behaved client on a new connection: the /health status."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            c.request("GET", "/health")
            r = c.getresponse()
            r.read()
            return r.status
        finally:
            c.close()


@contextlib.contextmanager
def gateway(tmp_path: Path, upstreams: dict[str, Any] | None = None, **http: Any) -> Iterator[Gw]:
    port = free_port()
    cfg = write_config(
        tmp_path / "gw.yaml",
        upstreams if upstreams is not None else {},
        http=http,
        response={"dedup": False},
    )
    log = tmp_path / "gw.log"
    cmd = [MANIFOLD, "serve", "--config", str(cfg), "--port", str(port), "--log-level", "info"]
    with http_server(cmd, f"http://127.0.0.1:{port}/health", log) as proc:
        yield Gw(proc, port, log)


def wait_for(cond: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        got = cond()
        if got:
            return got
        assert time.monotonic() < deadline, f"not within {seconds}s: {what}"
        time.sleep(0.05)


def read_all(s: socket.socket, seconds: float) -> bytes:
    """Everything the server sends until it closes; fails if it does not close in time."""
    s.settimeout(seconds)
    out = b""
    deadline = time.monotonic() + seconds
    while True:
        try:
            data = s.recv(65536)
        except TimeoutError:
            raise AssertionError(f"the server did not close within {seconds}s") from None
        except ConnectionResetError:
            return out
        if not data:
            return out
        out += data
        assert time.monotonic() < deadline, f"the server did not close within {seconds}s"


def status_of(data: bytes) -> int:
    assert data.startswith(b"HTTP/1.1 "), data[:200]
    return int(data.split(b" ", 2)[1])


# --------------------------------------------------------------------------- item 2


def test_slow_heads_and_idle_connections_are_closed(tmp_path: Path) -> None:
    with gateway(tmp_path, head_timeout=2.0) as gw:
        head = gw.head("POST", extra="X-Slow: " + "s" * 20 + "\r\n")
        slow = [gw.connect() for _ in range(20)]
        for s in slow:
            s.send(head[:1])
        idle = [gw.connect() for _ in range(100)]
        stop = threading.Event()

        def dribble() -> None:  # then one header byte a second on each slow connection
            for i in range(1, len(head)):
                if stop.wait(1.0):
                    return
                for s in slow:
                    with contextlib.suppress(OSError):
                        s.send(head[i : i + 1])

        t = threading.Thread(target=dribble, daemon=True)
        t.start()
        try:
            assert gw.health() == 200  # others are served meanwhile
            for s in slow:
                assert status_of(read_all(s, 20)) == 408
            for s in idle:
                assert read_all(s, 20) == b""
            assert gw.health() == 200
        finally:
            stop.set()
            t.join(5)
            for s in slow + idle:
                s.close()
        text = gw.text()
        assert text.count("request head not complete within 2 s") == 20, text[-3000:]
        assert text.count("no request within 2 s") >= 100, text[-3000:]


def classify(conns: list[socket.socket], refused_wanted: int, seconds: float) -> tuple[int, int]:
    """(held, refused): how many connections are still open with nothing to read, and how many
    were answered 503; waits (bounded) for the refusals to arrive, then a little longer in case
    there are more than wanted."""
    answered: set[int] = set()
    for s in conns:
        s.setblocking(False)

    def poll() -> int:
        for i, s in enumerate(conns):
            if i in answered:
                continue
            try:
                got = s.recv(65536)
            except BlockingIOError:
                continue
            assert status_of(got) == 503
            assert b"Retry-After: 1" in got
            answered.add(i)
        return len(answered)

    wait_for(lambda: poll() >= refused_wanted, seconds, f"{refused_wanted} refused")
    time.sleep(0.5)
    poll()
    return len(conns) - len(answered), len(answered)


def test_connections_past_the_cap_get_503(tmp_path: Path) -> None:
    with gateway(tmp_path, max_connections=50, head_timeout=60) as gw:
        conns = [gw.connect() for _ in range(53)]
        try:
            assert classify(conns, 3, 15) == (50, 3)
            for s in conns[:5]:
                s.close()
            assert wait_for(lambda: gw.health() == 200, 10, "a new client served")
        finally:
            for s in conns:
                s.close()
        assert gw.text().count("refused a connection: 50 open (http.max_connections)") == 3


def test_a_flood_of_idle_connections_is_capped_by_default(tmp_path: Path) -> None:
    with gateway(tmp_path) as gw:  # the default cap: 1024 connections
        conns = [gw.connect() for _ in range(1100)]
        try:
            assert classify(conns, 76, 30) == (1024, 76)
            for s in conns[:10]:
                s.close()
            assert wait_for(lambda: gw.health() == 200, 10, "a new client served")
        finally:
            for s in conns:
                s.close()


def test_stalled_bodies_are_dropped_and_their_memory_freed(tmp_path: Path) -> None:
    with gateway(tmp_path, body_timeout=5.0) as gw:
        base = gw.rss()
        conns = []
        chunk = b"x" * MiB
        for _ in range(10):  # each announces 33,000,000 bytes and stalls after 30 MiB
            s = gw.connect()
            s.sendall(gw.head("POST", extra="Content-Type: application/json\r\n"))
            s.sendall(b"Content-Length: 33000000\r\n\r\n")
            for _ in range(30):
                s.sendall(chunk)
            conns.append(s)
        try:
            peak = wait_for(lambda: (r := gw.rss()) > base + 150 * MiB and r, 30, "bodies held")
            for s in conns:
                assert status_of(read_all(s, 20)) == 408
        finally:
            for s in conns:
                s.close()
        after = wait_for(lambda: (r := gw.rss()) < base + 60 * MiB and r, 20, "memory freed")
        assert after < peak
        assert gw.health() == 200
        assert gw.text().count("request body stalled for 5 s after 31457280 bytes") == 10


def test_a_body_over_the_limit_is_refused_before_it_is_sent(tmp_path: Path) -> None:
    with gateway(tmp_path) as gw:
        s = gw.connect()
        try:
            s.sendall(gw.head("POST", extra="Content-Type: application/json\r\n"))
            s.sendall(b"Content-Length: 40000000\r\n\r\n")  # and no body at all
            s.settimeout(10)
            got = s.recv(65536)
        finally:
            s.close()
        assert status_of(got) == 413
        msg = json.loads(got.split(b"\r\n\r\n", 1)[1])
        assert "message too large (40000000 bytes" in msg["error"]["message"]
        assert gw.health() == 200
        assert "rejected a 40000000-byte request body" in gw.text()


def test_a_huge_header_is_refused_and_others_are_not_stalled(tmp_path: Path) -> None:
    with gateway(tmp_path) as gw:
        s = gw.connect()
        s.sendall(gw.head("GET", "/health") + b"X-Huge: ")
        s.setblocking(False)
        sent, got = 0, b""
        piece = b"h" * 65536
        try:
            while sent < 64 * MiB:
                with contextlib.suppress(BlockingIOError):
                    got += s.recv(65536)
                if got:
                    break
                with contextlib.suppress(BlockingIOError):
                    sent += s.send(piece)
                if sent % (4 * MiB) < 65536:
                    assert gw.health() == 200  # the others are served meanwhile
            s.setblocking(True)
            s.settimeout(10)
            while b"\r\n\r\n" not in got:
                got += s.recv(65536)
        finally:
            s.close()
        assert status_of(got) == 431
        assert sent < 8 * MiB, sent  # refused long before the 64 MiB were sent
        assert gw.health() == 200
        assert "request head over" in gw.text()


# --------------------------------------------------------------------------- item 3


def _initialize(gw: Gw) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    c = http.client.HTTPConnection("127.0.0.1", gw.port, timeout=60)
    try:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "abuse", "version": "1"},
            },
        }
        c.request("POST", "/mcp", json.dumps(init), headers)
        r = c.getresponse()
        r.read()
        assert r.status == 200
        headers["Mcp-Session-Id"] = r.getheader("Mcp-Session-Id") or ""
        headers["MCP-Protocol-Version"] = "2025-11-25"
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        c.request("POST", "/mcp", json.dumps(note), headers)
        r = c.getresponse()
        r.read()
        assert r.status == 202
    finally:
        c.close()
    return headers


def _post(gw: Gw, headers: dict[str, str], msg: dict[str, Any]) -> bytes:
    body = json.dumps(msg).encode()
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return gw.head("POST", extra=f"{extra}Content-Length: {len(body)}\r\n\r\n") + body


def test_pipelined_answers_nobody_reads_do_not_pile_up(tmp_path: Path) -> None:
    ups = {"large": stdio_upstream("large_server.py")}
    with gateway(tmp_path, ups, write_timeout=5.0) as gw:
        headers = _initialize(gw)
        base = gw.rss()
        s = gw.connect()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        reqs = b"".join(
            _post(
                gw,
                headers,
                {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": "large__big", "arguments": {"size": MiB + i}},
                },
            )
            for i in range(150)  # 150 answers of 1 MiB each, never read
        )
        try:
            s.sendall(reqs)
            time.sleep(3)
            grown = gw.rss() - base
            # Dropped once it has read nothing for write_timeout (its answers go with it).
            wait_for(lambda: "the client read nothing for 5 s" in gw.text(), 30, "dropped")
        finally:
            s.close()
        assert grown < 60 * MiB, f"grew {grown / MiB:.0f} MiB"
        assert gw.health() == 200


# --------------------------------------------------------------------------- item 5


def _raw(gw: Gw, data: bytes) -> tuple[int, bytes]:
    s = gw.connect()
    try:
        s.sendall(data)
        s.settimeout(30)
        got = b""
        while b"\r\n\r\n" not in got:
            more = s.recv(65536)
            assert more, got
            got += more
        head, _, body = got.partition(b"\r\n\r\n")
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                while len(body) < int(line.split(b":")[1]):
                    body += s.recv(65536)
        return status_of(got), body
    finally:
        s.close()


def test_post_content_type_must_be_json(tmp_path: Path) -> None:
    with gateway(tmp_path, {"a": stdio_upstream("basic_server.py", "--name", "a")}) as gw:
        legacy = _initialize(gw)
        ping = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
        modern_msg = {
            "jsonrpc": "2.0",
            "id": 8,
            "method": "tools/list",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "1"},
                }
            },
        }
        modern = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/list",
        }
        for headers, msg in ((legacy, ping), (modern, modern_msg)):
            for ctype in ("text/plain", "application/x-www-form-urlencoded", None):
                h = {k: v for k, v in headers.items() if k != "Content-Type"}
                if ctype is not None:
                    h["Content-Type"] = ctype
                status, body = _raw(gw, _post(gw, h, msg))
                assert status == 415, (ctype, body)
                assert (
                    "Content-Type must be application/json" in json.loads(body)["error"]["message"]
                )
            for ctype in ("application/json; charset=utf-8", "Application/JSON"):
                status, body = _raw(gw, _post(gw, {**headers, "Content-Type": ctype}, msg))
                assert status == 200, (ctype, body)
                assert json.loads(body)["id"] == msg["id"]
        assert "rejected a POST with Content-Type 'text/plain'" in gw.text()


def test_health_checks_the_host(tmp_path: Path) -> None:
    with gateway(tmp_path, {"a": stdio_upstream("basic_server.py", "--name", "a")}) as gw:
        req = b"GET /health HTTP/1.1\r\nHost: attacker.example\r\n\r\n"
        status, body = _raw(gw, req)
        assert status == 421
        assert b'"a"' not in body
        status, body = _raw(gw, gw.head("GET", "/health", "\r\n"))
        assert status == 200 and set(json.loads(body)["upstreams"]) == {"a"}
        assert "rejected Host 'attacker.example'" in gw.text()


def test_serve_beyond_loopback_needs_allowed_hosts_or_allow_remote(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "gw.yaml", {})
    port = free_port()
    cmd = [MANIFOLD, "serve", "--config", str(cfg), "--host", "0.0.0.0", "--port", str(port)]
    proc = spawn(cmd, tmp_path / "refused.log")
    try:
        proc.wait(timeout=30)
    finally:
        stop_group(proc)
    assert proc.returncode != 0
    assert "refusing to serve on 0.0.0.0" in (tmp_path / "refused.log").read_text()
    with http_server(
        [*cmd, "--allow-remote", "--allow-unauthenticated"],
        f"http://127.0.0.1:{port}/health",
        tmp_path / "allowed.log",
    ):
        pass
    cfg = write_config(tmp_path / "gw2.yaml", {}, http={"allowed_hosts": ["gw.internal"]})
    cmd = [
        MANIFOLD,
        "serve",
        "--config",
        str(cfg),
        "--host",
        "0.0.0.0",
        "--port",
        str(port),
        "--allow-unauthenticated",
    ]
    with http_server(cmd, f"http://127.0.0.1:{port}/health", tmp_path / "hosts.log"):
        pass


def test_a_post_stream_nobody_reads_is_dropped(tmp_path: Path) -> None:
    ups = {"flood": stdio_upstream("flood_server.py")}
    with gateway(tmp_path, ups, stream_max_buffer=1 * MiB) as gw:
        headers = _initialize(gw)
        base = gw.rss()
        s = gw.connect()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        call = {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {
                "name": "flood__flood",
                "arguments": {"count": 8000, "size": 16 * 1024},  # 128 MiB of SSE events
                "_meta": {"progressToken": "p"},
            },
        }
        try:
            s.sendall(_post(gw, headers, call))
            text = wait_for(
                lambda: "(http.stream_max_buffer)" in (t := gw.text()) and t, 60, "dropped"
            )
            grown = gw.rss() - base
        finally:
            s.close()
        assert "dropped the connection from" in text
        assert grown < 60 * MiB, f"grew {grown / MiB:.0f} MiB"
        assert gw.health() == 200
