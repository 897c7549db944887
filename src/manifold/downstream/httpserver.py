"""A small HTTP/1.1 server for the gateway's front end: asyncio protocol + httptools parsing.

It does what `/mcp` needs and nothing else: keep-alive, request bodies up to a limit, whole
responses with Content-Length, streamed (chunked) responses for SSE with back-pressure, and a
disconnect signal per request. Measured here it costs a fraction of a general-purpose web
framework per request, which matters because every call crosses it (docs/architecture.md).
Malformed HTTP gets 400 and the connection is closed; the server keeps serving.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

import httptools

from manifold.protocol.httpheaders import Headers

log = logging.getLogger("manifold.http")


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


class Request:
    __slots__ = ("body", "disconnected", "headers", "method", "on_disconnect", "path", "query")

    def __init__(self, method: str, path: str, query: str, headers: Headers) -> None:
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers  # lower-case names
        self.body = b""
        self.disconnected: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.on_disconnect: Callable[[], Any] | None = None


class Responder:
    """How a handler answers: `send()` once, or `start()` then `write()`s then `end()`."""

    __slots__ = ("_conn", "_keep_alive", "done", "started", "status")

    def __init__(self, conn: _Conn, keep_alive: bool) -> None:
        self._conn = conn
        self._keep_alive = keep_alive
        self.started = False
        self.done = False
        self.status = 0

    def _head(self, status: int, headers: dict[str, str], extra: str) -> bytes:
        lines = [f"HTTP/1.1 {status} {_reason(status)}"]
        lines.extend(f"{k}: {v}" for k, v in headers.items())
        lines.append(extra)
        if not self._keep_alive:
            lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def send(self, status: int, headers: dict[str, str], body: bytes = b"") -> None:
        if self.started:
            raise RuntimeError("response already started")
        self.started = self.done = True
        self.status = status
        self._conn.write(self._head(status, headers, f"Content-Length: {len(body)}") + body)
        self._conn.response_done(self._keep_alive)

    async def start(self, status: int, headers: dict[str, str]) -> None:
        self.start_now(status, headers)
        await self._conn.drain()

    def start_now(self, status: int, headers: dict[str, str]) -> None:
        self.started = True
        self.status = status
        self._conn.write(self._head(status, headers, "Transfer-Encoding: chunked"))

    def write_now(self, data: bytes) -> None:
        """Write a chunk without waiting for the client to read (small frames only)."""
        if data and not self._conn.lost:
            self._conn.write(b"%x\r\n%b\r\n" % (len(data), data))

    async def write(self, data: bytes) -> None:
        if self._conn.lost:
            raise ConnectionResetError("client disconnected")
        if data:
            self._conn.write(b"%x\r\n%b\r\n" % (len(data), data))
            await self._conn.drain()

    # --- minimal stand-ins used by downstream/http.py's streams; to be replaced by the
    # connection's own write back-pressure API (branch httpconn) when that is merged.
    def buffered(self) -> int:
        """Bytes written to this connection that the client has not read yet."""
        t = self._conn.transport
        return t.get_write_buffer_size() if t is not None and not self._conn.lost else 0

    def abort(self) -> None:
        """Close the connection at once, discarding what is still buffered for it."""
        t = self._conn.transport
        if t is not None and not self._conn.lost:
            t.abort()
            self._conn.lost = True  # nothing more is written to it

    # --- end of stand-ins

    def end(self) -> None:
        if not self.done:
            self.done = True
            self._conn.write(b"0\r\n\r\n")
            self._conn.response_done(self._keep_alive)


Handler = Callable[[Request, Responder], Awaitable[None]]


class _Conn(asyncio.Protocol):
    def __init__(self, server: HttpServer) -> None:
        self.server = server
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.lost = False
        self._url = b""
        self._headers = Headers()
        self._body: list[bytes] = []
        self._size = 0
        self._too_big = False
        self._queue: deque[tuple[Request, bool]] = deque()
        self._current: Request | None = None
        self._task: asyncio.Task[None] | None = None
        self._paused = False
        self._drain: asyncio.Future[None] | None = None

    # transport side
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.server.connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.server.connections.discard(self)
        cur = self._current
        if cur is not None and not cur.disconnected.done():
            cur.disconnected.set_result(None)
            if cur.on_disconnect is not None:
                cur.on_disconnect()
        if self._drain is not None and not self._drain.done():
            self._drain.set_exception(ConnectionResetError("client disconnected"))

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)

    async def drain(self) -> None:
        if self.lost:
            raise ConnectionResetError("client disconnected")
        if self._paused:
            self._drain = asyncio.get_running_loop().create_future()
            await self._drain

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.lost:
            self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._reject(400, "upgrades are not supported")
        except httptools.HttpParserError as e:
            log.warning("malformed HTTP request: %s", e)
            self._reject(400, "malformed HTTP request")

    def _reject(self, status: int, text: str, content_type: str = "text/plain") -> None:
        body = text.encode()
        head = f"HTTP/1.1 {status} {_reason(status)}\r\nContent-Type: {content_type}\r\n"
        head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        self.write(head.encode() + body)
        if self.transport is not None:
            self.transport.close()

    # httptools callbacks
    def on_message_begin(self) -> None:
        self._url = b""
        self._headers = Headers()
        self._body = []
        self._size = 0
        self._too_big = False

    def on_url(self, url: bytes) -> None:
        self._url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.add(name, value)

    def on_headers_complete(self) -> None:
        if self._headers.get("expect", "").lower() == "100-continue":
            self.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        self._size += len(body)
        if self._size > self.server.max_body:
            self._too_big = True
            self._body = []
        elif not self._too_big:
            self._body.append(body)

    def on_message_complete(self) -> None:
        url = self._url.decode("latin-1")
        path, _, query = url.partition("?")
        method = self.parser.get_method().decode("latin-1")
        req = Request(method, path, query, self._headers)
        req.body = b"".join(self._body)
        keep_alive = self.parser.should_keep_alive()
        if self._too_big:
            self.server.rejected_too_big += 1
            limit = self.server.max_body
            log.warning("rejected a %d-byte request body (limit %d)", self._size, limit)
            why = f"message too large ({self._size} bytes; limit {limit})"
            err = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": why}}
            self._reject(413, json.dumps(err), "application/json")
            return
        self._queue.append((req, keep_alive))
        if self._task is None:
            self._next()

    # request handling, one at a time per connection (HTTP/1.1 answers in order)
    def _next(self) -> None:
        if not self._queue or self.lost:
            self._task = None
            self._current = None
            return
        req, keep_alive = self._queue.popleft()
        self._current = req
        self._task = asyncio.ensure_future(self._run(req, Responder(self, keep_alive)))

    async def _run(self, req: Request, resp: Responder) -> None:
        try:
            await self.server.handler(req, resp)
        except (ConnectionResetError, asyncio.CancelledError):
            return
        except Exception:
            log.exception("error handling %s %s", req.method, req.path)
            if not resp.started:
                resp.send(500, {"Content-Type": "text/plain"}, b"internal error")
        if not resp.done:
            if resp.started:
                resp.end()
            else:
                resp.send(204, {})

    def response_done(self, keep_alive: bool) -> None:
        if not keep_alive and self.transport is not None:
            self.transport.close()
        loop = asyncio.get_running_loop()
        loop.call_soon(self._next)


class HttpServer:
    def __init__(self, handler: Handler, max_body: int) -> None:
        self.handler = handler
        self.max_body = max_body
        self.connections: set[_Conn] = set()
        self.rejected_too_big = 0
        self._server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> int:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: _Conn(self), host, port, reuse_address=True, backlog=1024
        )
        sock: Any = self._server.sockets[0]
        return int(sock.getsockname()[1])

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for c in list(self.connections):
            if c.transport is not None:
                c.transport.close()
        if self._server is not None:
            try:
                async with asyncio.timeout(2):
                    await self._server.wait_closed()
            except TimeoutError:
                pass
