"""`upstream/httpclient.py`: the lean HTTP/1.1 client of the upstream hot path, against a small
real HTTP server on loopback started by each test. Keep-alive reuse (and no reuse of a
connection whose response was not read to its end), chunked bodies streamed as they arrive, a
server that closes mid-body or before answering, bad HTTP, a refused connection named as such,
and the hints an error status gets. Requests answered through callbacks on a kept-alive
connection (`HttpPool.send`): a whole body, a stream taken over at its head, a failure, and a
request given up."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from manifold.upstream.httpclient import (
    HttpClientError,
    HttpPool,
    Response,
    connect_failure,
    status_hint,
)
from tests.support import free_port

WAIT = 10.0  # bound on every wait here: generous, never a performance claim

Reply = Callable[[asyncio.StreamWriter, "Server"], Awaitable[None]]


@dataclass
class Server:
    """A loopback HTTP server: each request's path picks its reply; it counts connections and
    the requests each one carried."""

    replies: dict[str, Reply]
    connections: int = 0
    requests: list[tuple[int, str, bytes]] = field(default_factory=list)  # (conn, path, body)
    go: asyncio.Event = field(default_factory=asyncio.Event)  # a reply may wait for the test
    port: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        conn = self.connections
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1]
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                body = await reader.readexactly(length) if length else b""
                self.requests.append((conn, path, body))
                await self.replies[path](writer, self)
                if writer.is_closing():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def serve(replies: dict[str, Reply]) -> AsyncIterator[Server]:
    srv = Server(replies)
    server = await asyncio.start_server(srv.handle, "127.0.0.1", 0)
    srv.port = server.sockets[0].getsockname()[1]
    try:
        yield srv
    finally:
        server.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), WAIT)


def fixed(body: bytes, status: str = "200 OK", extra: str = "") -> Reply:
    async def reply(w: asyncio.StreamWriter, _s: Server) -> None:
        head = f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
        w.write(head.encode() + body)
        await w.drain()

    return reply


def chunked(parts: list[bytes], wait_after_first: bool = False) -> Reply:
    async def reply(w: asyncio.StreamWriter, s: Server) -> None:
        w.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for i, p in enumerate(parts):
            w.write(b"%x\r\n%s\r\n" % (len(p), p))
            await w.drain()
            if i == 0 and wait_after_first:
                await asyncio.wait_for(s.go.wait(), WAIT)  # until the client saw it
        w.write(b"0\r\n\r\n")
        await w.drain()

    return reply


async def cut_mid_body(w: asyncio.StreamWriter, _s: Server) -> None:
    w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b")
    await w.drain()
    w.close()


async def cut_mid_chunks(w: asyncio.StreamWriter, _s: Server) -> None:
    w.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n")
    await w.drain()
    w.close()


async def close_at_once(w: asyncio.StreamWriter, _s: Server) -> None:
    w.close()


async def garbage(w: asyncio.StreamWriter, _s: Server) -> None:
    w.write(b"this is not HTTP at all\r\n\r\n")
    await w.drain()


async def get(pool: HttpPool, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    resp = await asyncio.wait_for(pool.request("POST" if body else "GET", {}, body, path), WAIT)
    try:
        return resp.status, await asyncio.wait_for(resp.read(), WAIT)
    finally:
        resp.release()


async def test_a_connection_is_kept_alive_and_reused() -> None:
    async with serve({"/a": fixed(b"one"), "/b": fixed(b"two")}) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/mcp", WAIT)
        assert await get(pool, "/a", b'{"x":1}') == (200, b"one")
        assert await get(pool, "/b") == (200, b"two")
        assert await get(pool, "/a") == (200, b"one")
        pool.close()
    assert srv.connections == 1
    assert [(c, p) for c, p, _ in srv.requests] == [(1, "/a"), (1, "/b"), (1, "/a")]
    assert srv.requests[0][2] == b'{"x":1}'  # the body went whole


async def test_overlapping_requests_get_connections_of_their_own() -> None:
    async with serve({"/slow": chunked([b"a", b"b"], wait_after_first=True)}) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/", WAIT)
        first = await asyncio.wait_for(pool.request("GET", {}, None, "/slow"), WAIT)
        second = await asyncio.wait_for(pool.request("GET", {}, None, "/slow"), WAIT)
        srv.go.set()
        assert await asyncio.wait_for(first.read(), WAIT) == b"ab"
        assert await asyncio.wait_for(second.read(), WAIT) == b"ab"
        first.release()
        second.release()
        assert await get(pool, "/slow") == (200, b"ab")  # an idle one is reused
        pool.close()
    assert srv.connections == 2


async def test_idle_connections_are_kept_up_to_max_idle() -> None:
    async with serve({"/slow": chunked([b"a", b"b"], wait_after_first=True)}) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/", WAIT, max_idle=2)
        held = [
            await asyncio.wait_for(pool.request("GET", {}, None, "/slow"), WAIT) for _ in range(5)
        ]
        srv.go.set()
        for resp in held:
            assert await asyncio.wait_for(resp.read(), WAIT) == b"ab"
            resp.release()
        assert srv.connections == 5
        assert len(pool._idle) == 2  # the surplus of a burst is closed, not kept forever
        for _ in range(3):
            assert await get(pool, "/slow") == (200, b"ab")
        assert srv.connections == 5  # the kept ones serve the next calls
        pool.close()


async def test_a_response_not_read_to_its_end_is_not_reused() -> None:
    async with serve({"/s": chunked([b"a", b"b"], wait_after_first=True)}) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/", WAIT)
        resp = await asyncio.wait_for(pool.request("GET", {}, None, "/s"), WAIT)
        chunks = resp.iter_chunks()
        assert await asyncio.wait_for(anext(chunks), WAIT) == b"a"
        resp.release()  # given up half way: the connection cannot carry another request
        srv.go.set()
        assert await get(pool, "/s") == (200, b"ab")
        pool.close()
    assert srv.connections == 2


async def test_a_chunked_body_streams_chunk_by_chunk() -> None:
    parts = [b"data: one\n\n", b"data: two\n\n", b"data: three\n\n"]
    async with serve({"/sse": chunked(parts, wait_after_first=True)}) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/", WAIT)
        resp = await asyncio.wait_for(pool.request("GET", {}, None, "/sse"), WAIT)
        assert resp.status == 200 and resp.headers.get("transfer-encoding") == "chunked"
        got: list[bytes] = []
        async with asyncio.timeout(WAIT):
            async for chunk in resp.iter_chunks():
                got.append(chunk)
                srv.go.set()  # the server sends the rest only once the first arrived here
        assert b"".join(got) == b"".join(parts)
        assert got[0] == parts[0]  # delivered before the rest was even sent
        resp.release()
        # Read to its end: the connection is reused, and read() joins a chunked body.
        assert await get(pool, "/sse") == (200, b"".join(parts))
        pool.close()
    assert srv.connections == 1


@pytest.mark.parametrize("path", ["/cut", "/cut-chunks"])
async def test_a_server_that_closes_mid_body_is_an_error_not_a_short_body(path: str) -> None:
    replies = {"/cut": cut_mid_body, "/cut-chunks": cut_mid_chunks, "/ok": fixed(b"fine")}
    async with serve(replies) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/", WAIT)
        resp = await asyncio.wait_for(pool.request("GET", {}, None, path), WAIT)
        assert resp.status == 200
        with pytest.raises(HttpClientError, match="connection closed by upstream"):
            await asyncio.wait_for(resp.read(), WAIT)
        resp.release()
        assert await get(pool, "/ok") == (200, b"fine")  # on a new connection
        pool.close()
    assert srv.connections == 2


async def test_a_streamed_body_cut_short_ends_with_an_error() -> None:
    async with serve({"/cut-chunks": cut_mid_chunks}) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/", WAIT)
        resp = await asyncio.wait_for(pool.request("GET", {}, None, "/cut-chunks"), WAIT)
        got: list[bytes] = []
        with pytest.raises(HttpClientError, match="connection closed by upstream"):
            async with asyncio.timeout(WAIT):
                async for chunk in resp.iter_chunks():
                    got.append(chunk)
        assert got == [b"first"]
        resp.release()
        pool.close()


async def test_a_server_that_closes_before_answering_or_speaks_no_http() -> None:
    async with serve({"/close": close_at_once, "/junk": garbage}) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/", WAIT)
        with pytest.raises(HttpClientError, match="connection closed by upstream"):
            await asyncio.wait_for(pool.request("GET", {}, None, "/close"), WAIT)
        with pytest.raises(HttpClientError, match="bad HTTP from upstream"):
            await asyncio.wait_for(pool.request("GET", {}, None, "/junk"), WAIT)
        pool.close()


async def test_a_refused_connection_names_the_cause() -> None:
    port = free_port()  # nothing listens there
    pool = HttpPool(f"http://127.0.0.1:{port}/mcp", WAIT)
    with pytest.raises(HttpClientError) as e:
        await asyncio.wait_for(pool.request("GET", {}, None), WAIT)
    assert str(e.value) == f"connection to 127.0.0.1:{port} refused: nothing listens there"
    assert isinstance(e.value.__cause__, ConnectionRefusedError)


async def test_an_error_status_is_a_response_and_its_hint_points_at_the_fix() -> None:
    replies = {"/mcp": fixed(b"who are you?", "401 Unauthorized", "WWW-Authenticate: Bearer\r\n")}
    async with serve(replies) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/mcp", WAIT)
        status, body = await get(pool, "/mcp")
        pool.close()
    assert (status, body) == (401, b"who are you?")
    assert "credentials" in status_hint(status) and "`headers`" in status_hint(status)
    assert "Authorization" in status_hint(403)
    assert "no MCP endpoint at this URL" in status_hint(404) and "/mcp" in status_hint(404)
    assert status_hint(502) == "HTTP 502"


def test_connect_failures_are_named_by_their_cause() -> None:
    assert "refused: nothing listens there" in connect_failure("h", 1, ConnectionRefusedError(), 5)
    gai = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    assert connect_failure("nowhere.example", 80, gai, 5) == (
        "cannot resolve host 'nowhere.example' (DNS: Name or service not known)"
    )
    assert connect_failure("h", 1, TimeoutError(), 2.5) == "no connection to h:1 within 2.5 s"
    assert "Network is unreachable" in connect_failure(
        "h", 1, OSError(101, "Network is unreachable"), 5
    )


async def test_https_to_a_plain_http_server_says_so() -> None:
    async def plain(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        w.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        await w.drain()
        w.close()

    server = await asyncio.start_server(plain, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        pool = HttpPool(f"https://127.0.0.1:{port}/mcp", WAIT)
        with pytest.raises(HttpClientError) as e:
            await asyncio.wait_for(pool.request("GET", {}, None), WAIT)
    finally:
        server.close()
    assert f"TLS handshake with 127.0.0.1:{port} failed" in str(e.value)
    assert "is it an https server?" in str(e.value)
    assert isinstance(e.value.__cause__, ssl.SSLError)


def test_a_pool_takes_only_http_urls_and_sends_the_right_host() -> None:
    for bad in ("ftp://h/x", "http:///nohost", "h:80"):
        with pytest.raises(ValueError, match="not an http"):
            HttpPool(bad, 1)
    pool = HttpPool("http://127.0.0.1:8123/mcp?k=v", 1)
    head = pool._request_bytes("POST", {"Accept": "text/event-stream"}, b"{}", None)
    assert head.startswith(b"POST /mcp?k=v HTTP/1.1\r\nHost: 127.0.0.1:8123\r\n")
    assert head.endswith(b"Content-Length: 2\r\n\r\n{}")
    assert b"Host: example.org\r\n" in HttpPool("https://example.org/", 1)._request_bytes(
        "GET", {}, None, None
    )
    assert b"Host: [::1]:9000\r\n" in HttpPool("http://[::1]:9000/", 1)._request_bytes(
        "GET", {}, None, None
    )


class Listener:
    """A ResponseListener that records what it is told; `stream` takes a streamed answer over
    at its head (as the transport does for SSE) and reads it in a task."""

    def __init__(self, stream: bool = False) -> None:
        self.stream = stream
        self.done: asyncio.Future[tuple[int, bytes | None, str | None]] = (
            asyncio.get_running_loop().create_future()
        )
        self.streamed: asyncio.Future[asyncio.Task[list[bytes]]] = (
            asyncio.get_running_loop().create_future()
        )

    def on_head(self, resp: Response) -> bool:
        if not self.stream:
            return True

        async def read_all() -> list[bytes]:
            try:
                return [c async for c in resp.iter_chunks()]
            finally:
                resp.release()

        self.streamed.set_result(asyncio.ensure_future(read_all()))
        return False

    def on_complete(self, resp: Response | None, error: str | None) -> None:
        if resp is None or error is not None:
            self.done.set_result((0, None, error))
            return
        body = resp.body()
        resp.release()
        self.done.set_result((resp.status, body, None))


async def test_a_kept_alive_connection_answers_through_callbacks() -> None:
    parts = [b"data: one\n\n", b"data: two\n\n"]
    async with serve({"/a": fixed(b'{"ok":1}'), "/sse": chunked(parts)}) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/a", WAIT)
        listener = Listener()
        assert pool.send("POST", {}, b"{}", listener) is None  # nothing idle yet: not sent
        assert await get(pool, "/a") == (200, b'{"ok":1}')  # opens the connection
        assert pool.send("POST", {}, b'{"n":1}', listener) is not None
        assert await asyncio.wait_for(listener.done, WAIT) == (200, b'{"ok":1}', None)
        # Read to its end by the listener: the same connection carries the next one, here a
        # stream that the listener takes over at its head.
        pool.path = "/sse"
        streaming = Listener(stream=True)
        assert pool.send("POST", {}, b"{}", streaming) is not None
        reading = await asyncio.wait_for(streaming.streamed, WAIT)
        got = await asyncio.wait_for(reading, WAIT)
        assert b"".join(got) == b"".join(parts)
        assert not streaming.done.done()  # a listener that took over is not called again
        pool.path = "/a"
        again = Listener()
        assert pool.send("POST", {}, b"{}", again) is not None
        assert await asyncio.wait_for(again.done, WAIT) == (200, b'{"ok":1}', None)
        pool.close()
    assert srv.connections == 1
    assert [path for _c, path, _b in srv.requests] == ["/a", "/a", "/sse", "/a"]


async def test_a_callback_answer_cut_short_is_an_error_and_the_connection_is_not_reused() -> None:
    async with serve({"/a": fixed(b"{}"), "/cut": cut_mid_body}) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/cut", WAIT)
        assert await get(pool, "/a") == (200, b"{}")
        listener = Listener()
        assert pool.send("POST", {}, b"{}", listener) is not None
        status, body, error = await asyncio.wait_for(listener.done, WAIT)
        assert (status, body) == (0, None) and error and "connection" in error
        assert await get(pool, "/a") == (200, b"{}")  # on a new connection
        pool.close()
    assert srv.connections == 2


async def test_a_request_given_up_closes_its_connection_and_tells_no_one() -> None:
    arrived = asyncio.Event()

    async def never(w: asyncio.StreamWriter, s: Server) -> None:
        arrived.set()
        await asyncio.wait_for(s.go.wait(), WAIT)  # answers only when the test says so

    async with serve({"/a": fixed(b"{}"), "/slow": never}) as srv:
        pool = HttpPool(f"http://127.0.0.1:{srv.port}/slow", WAIT)
        assert await get(pool, "/a") == (200, b"{}")
        listener = Listener()
        exchange = pool.send("POST", {}, b"{}", listener)
        assert exchange is not None
        await asyncio.wait_for(arrived.wait(), WAIT)
        exchange.abandon()  # a modern request's cancellation: its stream is closed
        await asyncio.sleep(0.05)
        assert not listener.done.done()
        srv.go.set()
        assert await get(pool, "/a") == (200, b"{}")  # a new connection: the old one is gone
        pool.close()
    assert srv.connections == 2
