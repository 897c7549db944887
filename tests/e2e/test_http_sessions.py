"""Legacy sessions and SSE streams of `manifold serve` under load: memory stays bounded.

Memory is what the user sees: the gateway's resident set, read from /proc/<pid>/status. The
client is a raw HTTP/1.1 connection, so a test can stop reading a stream, as a stuck client
does, and so thousands of calls stay quick.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_supervision import descendants
from tests.support import (
    MANIFOLD,
    free_port,
    http_server,
    stdio_upstream,
    write_config,
)

MIB = 1024 * 1024
LEGACY = "2025-11-25"


@contextlib.contextmanager
def gateway(config: Path, log: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """`manifold serve` on a free port; yields the port and the process (for its memory)."""
    port = free_port()
    cmd = [MANIFOLD, "serve", "--config", str(config), "--port", str(port), "--log-level", "info"]
    with http_server(cmd, f"http://127.0.0.1:{port}/health", log) as proc:
        yield port, proc


def servers(proc: subprocess.Popen[bytes]) -> list[int]:
    """The upstream server processes below this gateway (not other tests' leftovers)."""
    found = []
    for pid in descendants(proc.pid):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"large_server.py" in cmdline:
            found.append(pid)
    return found


def rss(proc: subprocess.Popen[bytes]) -> int:
    for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


class Conn:
    """One keep-alive HTTP/1.1 connection to the gateway's /mcp."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader
        self.writer: asyncio.StreamWriter

    async def open(self, rcvbuf: int = 0) -> Conn:
        if rcvbuf:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", self.port))
            # A client that does not read: small socket buffer, and the reader stops taking
            # bytes from the socket past a small limit.
            self.reader, self.writer = await asyncio.open_connection(sock=sock, limit=4096)
        else:
            self.reader, self.writer = await asyncio.open_connection(
                "127.0.0.1", self.port, limit=2**26
            )
        return self

    def close(self) -> None:
        self.writer.close()

    def send(self, method: str, headers: dict[str, str], body: Any = None) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        head = [f"{method} /mcp HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        head.append(f"Content-Length: {len(data)}")
        if body is not None:
            head.append("Content-Type: application/json")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)

    async def head(self) -> tuple[int, dict[str, str]]:
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
        return int(lines[0].split()[1]), headers

    async def body(self, headers: dict[str, str], partial: bool = False) -> bytes:
        """The body; with `partial`, what arrived before the connection ended (a dropped
        stream) instead of an error."""
        if "content-length" in headers:
            return await self.reader.readexactly(int(headers["content-length"]))
        out = []
        while True:
            line = await self.reader.readline()
            if partial and not line:
                return b"".join(out)
            size = int(line.strip(), 16)
            try:
                chunk = await self.reader.readexactly(size + 2)
            except asyncio.IncompleteReadError as e:
                if not partial:
                    raise
                return b"".join(out) + e.partial
            if size == 0:
                return b"".join(out)
            out.append(chunk[:-2])

    async def request(
        self, method: str, headers: dict[str, str], body: Any = None
    ) -> tuple[int, dict[str, str], bytes]:
        self.send(method, headers, body)
        status, h = await self.head()
        return status, h, await self.body(h)


def accept(session: str | None = None) -> dict[str, str]:
    h = {"Accept": "application/json, text/event-stream"}
    if session:
        h |= {"Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY}
    return h


async def initialize(conn: Conn) -> str:
    params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t"}}
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
    status, h, _ = await conn.request("POST", accept(), init)
    assert status == 200
    sid = h["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await conn.request("POST", accept(sid), note))[0] == 202
    return sid


def call(rid: int, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    params = {"name": tool, "arguments": args}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def sse_frames(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    """(id, message) of each complete SSE event with data (a cut-off last one is left out)."""
    out = []
    for event in body.split(b"\n\n")[:-1]:
        eid, data = "", b""
        for line in event.split(b"\n"):
            if line.startswith(b"id: "):
                eid = line[4:].decode()
            elif line.startswith(b"data: ") and line[6:].strip():
                data = line[6:]
        if data:
            out.append((eid, json.loads(data)))
    return out


async def wait_for(what: str, check: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def large(tmp_path: Path, **http: Any) -> Path:
    return write_config(tmp_path / "m.yaml", {"big": stdio_upstream("large_server.py")}, http=http)


async def test_plain_json_calls_do_not_grow_memory(tmp_path: Path) -> None:
    """Thousands of sequential calls on one legacy session: memory stays flat (each answer
    used to leave an event log behind, about 0.9 KB a call)."""
    with gateway(large(tmp_path), tmp_path / "gw.log") as (port, proc):
        async with asyncio.timeout(240):
            conn = await Conn(port).open()
            sid = await initialize(conn)
            h = accept(sid)

            async def calls(first: int, count: int) -> None:
                for rid in range(first, first + count):
                    status, rh, body = await conn.request("POST", h, call(rid, "big__small", {}))
                    assert status == 200 and rh["content-type"] == "application/json", body
                    assert json.loads(body)["result"]["content"][0]["text"] == "small answer"

            await calls(1, 1000)  # warm-up: caches, pools, allocator arenas
            before = rss(proc)
            await calls(1001, 12000)
            grown = rss(proc) - before
            conn.close()
    # The old code grew by about 3.6 MiB here.
    assert grown < 1.5 * MIB, f"RSS grew by {grown / MIB:.1f} MiB over 12000 calls"


async def test_streamed_answers_are_bounded_by_the_replay_and_freed(tmp_path: Path) -> None:
    """Every streamed answer is kept for resumption, but only within `replay_max_bytes`, and
    DELETE frees what the session kept."""
    cfg = large(tmp_path, replay_max_bytes=16 * MIB)
    with gateway(cfg, tmp_path / "gw.log") as (port, proc):
        async with asyncio.timeout(120):
            conn = await Conn(port).open()
            sid = await initialize(conn)
            await conn.request("POST", accept(sid), call(1, "big__streamed", {"size": 1000}))
            before = rss(proc)
            for rid in range(2, 42):  # 40 answers of 5.5 MB streamed: 220 MB if all were kept
                status, rh, body = await conn.request(
                    "POST", accept(sid), call(rid, "big__streamed", {"size": 2_000_000 + rid})
                )
                assert status == 200 and rh["content-type"] == "text/event-stream"
                eid, answer = sse_frames(body)[-1]
                assert answer["id"] == rid
            kept = rss(proc) - before
            # The last answer is still resumable: it fits the replay.
            get = {**accept(sid), "Accept": "text/event-stream"}
            last = await Conn(port).open()
            last.send("GET", {**get, "Last-Event-ID": eid.rpartition(".")[0] + ".0"})
            status, gh = await last.head()
            assert status == 200
            frames = sse_frames(await last.body(gh))
            assert frames[-1][1]["id"] == 41 and len(frames[-1][1]["result"]["content"][0]["text"])
            last.close()
            assert (await conn.request("DELETE", {"Mcp-Session-Id": sid}))[0] == 200
            await asyncio.sleep(0.5)
            after_delete = rss(proc) - before
            assert (await conn.request("POST", accept(sid), call(99, "big__small", {})))[0] == 404
            conn.close()
    # The old code kept all 40 answers (about +266 MiB), and as much after DELETE.
    assert kept < 16 * MIB + 24 * MIB, f"RSS grew by {kept / MIB:.1f} MiB"  # replay + slack
    assert after_delete < 16 * MIB, f"{after_delete / MIB:.1f} MiB still held after DELETE"


@pytest.mark.parametrize("resume", [False, True], ids=["post-stream", "get-stream"])
async def test_a_stream_whose_client_reads_nothing_is_dropped(tmp_path: Path, resume: bool) -> None:
    """A client that stops reading its stream (a POST's, or a GET resuming one) does not make
    the gateway buffer without limit: the stream is dropped with a log line, the gateway
    serves on, and the client can resume what is still kept."""
    cfg = large(tmp_path, replay_max_bytes=8 * MIB, stream_max_buffer=4 * MIB)
    log = tmp_path / "gw.log"
    with gateway(cfg, log) as (port, proc):
        async with asyncio.timeout(120):
            conn = await Conn(port).open()
            sid = await initialize(conn)
            before = rss(proc)
            stuck = await Conn(port).open(rcvbuf=4096)
            # 2000 log messages of 40 KB: 80 MB that the client never reads.
            stuck.send("POST", accept(sid), call(1, "big__flood", {"count": 2000, "size": 40_000}))
            if resume:
                status, sh = await stuck.head()
                assert status == 200 and sh["content-type"] == "text/event-stream"
                stuck.close()  # the POST stream drops; the client resumes it and stops reading
                stuck = await Conn(port).open(rcvbuf=4096)
                get = {**accept(sid), "Accept": "text/event-stream", "Last-Event-ID": "p1.0"}
                stuck.send("GET", get)
            peak = 0

            def dropped() -> bool:
                nonlocal peak
                peak = max(peak, rss(proc) - before)
                return "dropped the SSE stream p1" in log.read_text()

            await wait_for("the stream to be dropped", dropped, 90)
            # The gateway serves on, on another connection of the same session.
            status, _, body = await conn.request("POST", accept(sid), call(2, "big__small", {}))
            assert status == 200 and b"small answer" in body
            # What is still kept, then the rest of the call, reach a client that resumes. A
            # resuming client that falls behind the flood is dropped too (by design); it
            # resumes again from its last event, as a client does.
            frames: list[tuple[str, Any]] = []
            segments: list[list[int]] = []
            last = "p1.0"
            for _ in range(10):
                again = await Conn(port).open()
                get = {**accept(sid), "Accept": "text/event-stream", "Last-Event-ID": last}
                again.send("GET", get)
                status, gh = await again.head()
                assert status == 200
                got = sse_frames(await again.body(gh, partial=True))
                again.close()
                frames += got
                segments.append([int(eid.rpartition(".")[2]) for eid, _ in got if eid])
                if frames and frames[-1][1].get("id") == 1:
                    break
                if got:
                    last = got[-1][0]
            # Each resumed stream is in order with no gap; across resumptions only what the
            # bounded replay let go while the client fell behind may be missing, never a
            # repeat or a step back.
            for seg in segments:
                assert seg == list(range(seg[0], seg[-1] + 1)) if seg else True, seg
            seqs = [int(eid.rpartition(".")[2]) for eid, _ in frames]
            assert seqs == sorted(set(seqs)), seqs
            assert frames[-1][1]["id"] == 1
            assert frames[-1][1]["result"]["content"][0]["text"] == "flooded"
            for c in (stuck, conn):
                c.close()
    # The old code buffered all 80 MB (and more) for the client that did not read.
    assert peak < 40 * MIB, f"RSS grew by {peak / MIB:.1f} MiB"


async def test_a_get_stream_that_stalls_is_dropped_after_the_timeout(tmp_path: Path) -> None:
    """A GET stream waits for a slow client, but not forever: `stream_stall_timeout`."""
    cfg = large(
        tmp_path, replay_max_bytes=64 * MIB, stream_stall_timeout=2, stream_max_buffer=256 * MIB
    )
    log = tmp_path / "gw.log"
    with gateway(cfg, log) as (port, _):
        async with asyncio.timeout(60):
            conn = await Conn(port).open()
            sid = await initialize(conn)
            # 300 log messages of 40 KB, all kept for replay (12 MB, more than socket buffers hold).
            status, _, body = await conn.request(
                "POST", accept(sid), call(1, "big__flood", {"count": 300, "size": 40_000})
            )
            assert status == 200 and sse_frames(body)[-1][1]["id"] == 1
            stuck = await Conn(port).open(rcvbuf=4096)
            get = {**accept(sid), "Accept": "text/event-stream", "Last-Event-ID": "p1.0"}
            stuck.send("GET", get)
            started = time.monotonic()
            await wait_for("the stream to be dropped", lambda: "read nothing" in log.read_text())
            assert time.monotonic() - started > 1.5  # it waited for the client first
            status, _, body = await conn.request("POST", accept(sid), call(2, "big__small", {}))
            assert status == 200 and b"small answer" in body
            for c in (stuck, conn):
                c.close()


async def test_a_post_stream_resumes_while_the_standalone_stream_is_open(tmp_path: Path) -> None:
    """One standalone GET stream at a time, but resuming a POST's stream is another stream."""
    with gateway(large(tmp_path), tmp_path / "gw.log") as (port, _):
        async with asyncio.timeout(60):
            conn = await Conn(port).open()
            sid = await initialize(conn)
            get = {**accept(sid), "Accept": "text/event-stream"}
            standalone = await Conn(port).open()
            standalone.send("GET", get)
            assert (await standalone.head())[0] == 200
            second = await Conn(port).open()
            second.send("GET", get)
            assert (await second.head())[0] == 409  # a second standalone stream: refused
            status, _, body = await conn.request(
                "POST", accept(sid), call(1, "big__flood", {"count": 3, "size": 10})
            )
            eid, answer = sse_frames(body)[-1]
            assert status == 200 and answer["id"] == 1
            resume = await Conn(port).open()
            resume.send("GET", {**get, "Last-Event-ID": eid.rpartition(".")[0] + ".0"})
            status, rh = await resume.head()
            assert status == 200
            frames = sse_frames(await resume.body(rh))
            assert frames[-1][1]["id"] == 1 and len(frames) == 4  # three messages, the answer
            for c in (standalone, second, resume, conn):
                c.close()


async def test_sessions_are_capped_the_idlest_is_ended(tmp_path: Path) -> None:
    with gateway(large(tmp_path, max_sessions=3), tmp_path / "gw.log") as (port, _):
        async with asyncio.timeout(60):
            conn = await Conn(port).open()
            sids = [await initialize(conn) for _ in range(3)]
            for rid, sid in enumerate(sids[1:]):  # the first one is now the idlest
                assert (await conn.request("POST", accept(sid), call(rid, "big__small", {})))[
                    0
                ] == 200
            fourth = await initialize(conn)
            status, _, body = await conn.request("POST", accept(sids[0]), call(9, "big__small", {}))
            assert status == 404, body  # evicted: the client must initialize again
            for rid, sid in enumerate([*sids[1:], fourth], start=10):
                status, _, _ = await conn.request("POST", accept(sid), call(rid, "big__small", {}))
                assert status == 200
            conn.close()
    assert "http.max_sessions" in (tmp_path / "gw.log").read_text()


async def test_an_idle_session_expires_even_with_a_get_stream_open(tmp_path: Path) -> None:
    """Idle means no request: an open GET stream does not keep a session forever. The
    expired session's per-client upstream process is released with it."""
    up = stdio_upstream("large_server.py", isolation="per_client")
    cfg = write_config(tmp_path / "m.yaml", {"big": up}, http={"session_idle_ttl": 2})
    with gateway(cfg, tmp_path / "gw.log") as (port, proc):
        async with asyncio.timeout(60):
            before = len(servers(proc))
            conn = await Conn(port).open()
            sid = await initialize(conn)
            assert (await conn.request("POST", accept(sid), call(1, "big__small", {})))[0] == 200
            assert len(servers(proc)) == before + 1  # the client's own server process
            stream = await Conn(port).open()
            stream.send("GET", {**accept(sid), "Accept": "text/event-stream"})
            status, sh = await stream.head()
            assert status == 200
            # The stream ends when the session expires, and so does the client's process.
            await asyncio.wait_for(stream.body(sh), 20)
            await wait_for("the client's process to end", lambda: len(servers(proc)) == before)
            status, _, _ = await conn.request("POST", accept(sid), call(2, "big__small", {}))
            assert status == 404
            for c in (stream, conn):
                c.close()


async def test_an_abandoned_client_makes_room_at_max_clients(tmp_path: Path) -> None:
    """With `isolation: per_client`, a client that left without DELETE no longer locks the
    next one out at `max_clients`: its idle session is ended and its process released."""
    up = stdio_upstream("large_server.py", isolation="per_client", max_clients=1)
    cfg = write_config(tmp_path / "m.yaml", {"big": up}, http={"client_reclaim_idle": 2})
    with gateway(cfg, tmp_path / "gw.log") as (port, _):
        async with asyncio.timeout(60):
            conn = await Conn(port).open()
            gone = await initialize(conn)
            assert (await conn.request("POST", accept(gone), call(1, "big__small", {})))[0] == 200
            # A second client while the first is not yet idle long enough: refused.
            busy = await initialize(conn)
            status, _, body = await conn.request("POST", accept(busy), call(2, "big__small", {}))
            assert b"already runs 1 client sessions" in body, body
            await asyncio.sleep(2.5)  # the first client left without DELETE
            new = await initialize(conn)
            status, _, body = await conn.request("POST", accept(new), call(3, "big__small", {}))
            assert status == 200 and b"small answer" in body, body
            status, _, _ = await conn.request("POST", accept(gone), call(4, "big__small", {}))
            assert status == 404  # the abandoned session was ended: it must initialize again
            conn.close()
