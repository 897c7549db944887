"""A lean HTTP/1.1 client for the upstream hot path: keep-alive connections, httptools parsing.

One request per connection at a time; a pool keeps idle connections per upstream and opens
more when calls overlap. Responses are either read whole or streamed chunk by chunk (SSE).
On a kept-alive connection a request can also be answered by callbacks (`HttpPool.send`, a
`ResponseListener`): no task and no future, for the common plain-JSON answer; the listener may
still take a streamed answer over at its head.
Measured here: about 28 us of CPU per call, against about 160 us for aiohttp's client, which is
why the gateway does not use a general-purpose client for its upstream calls (see
docs/architecture.md). Cancelling a streamed response closes its connection, which is how a
modern HTTP request is cancelled.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections import deque
from collections.abc import AsyncIterator
from typing import Any, Protocol
from urllib.parse import urlsplit

import httptools

from manifold.protocol.httpheaders import Headers

MAX_HEADS = 256  # request heads kept per upstream (see HttpPool._request_bytes)


class HttpClientError(Exception):
    """The connection failed or the response was not HTTP."""


def connect_failure(host: str, port: int, e: BaseException, timeout: float) -> str:
    """Why a connection failed, in words that point at the fix."""
    where = f"{host}:{port}"
    if isinstance(e, ssl.SSLCertVerificationError):
        return f"TLS certificate of {where} not accepted: {e.verify_message or e}"
    if isinstance(e, ssl.SSLError):
        return f"TLS handshake with {where} failed ({e.reason or e}): is it an https server?"
    if isinstance(e, socket.gaierror):
        return f"cannot resolve host {host!r} (DNS: {e.strerror or e})"
    if isinstance(e, ConnectionRefusedError):
        return f"connection to {where} refused: nothing listens there"
    if isinstance(e, TimeoutError):
        return f"no connection to {where} within {timeout:g} s"
    if isinstance(e, OSError) and e.strerror:
        return f"cannot connect to {where}: {e.strerror}"
    return f"cannot connect to {where}: {e}"


def status_hint(status: int) -> str:
    """What an HTTP error status of an upstream most likely asks of its config."""
    if status in (401, 403):
        return (
            f"HTTP {status}: the server wants credentials; set them in this upstream's "
            "`headers` (e.g. Authorization: Bearer ${TOKEN})"
        )
    if status == 404:
        return "HTTP 404: no MCP endpoint at this URL (check the path, e.g. /mcp)"
    return f"HTTP {status}"


class Response:
    __slots__ = ("_conn", "headers", "status")

    def __init__(self, conn: _Conn, status: int, headers: Headers) -> None:
        self._conn = conn
        self.status = status
        self.headers = headers

    async def read(self) -> bytes:
        conn = self._conn
        while not conn.complete:
            await conn.wait()
        parts, conn.parts = conn.parts, []
        if conn.error is not None:
            raise HttpClientError(conn.error)
        return b"".join(parts)

    async def iter_chunks(self) -> AsyncIterator[bytes]:
        conn = self._conn
        while True:
            if conn.parts:
                parts, conn.parts = conn.parts, []
                for p in parts:
                    yield p
                continue
            if conn.complete:
                break
            await conn.wait()
        if conn.error is not None:
            raise HttpClientError(conn.error)

    def body(self) -> bytes:
        """The whole body, once the response is complete (what a listener is handed)."""
        conn = self._conn
        parts, conn.parts = conn.parts, []
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def release(self) -> None:
        """Give the connection back if the response was read to its end, else close it."""
        conn = self._conn
        conn.finish(reuse=conn.complete and not conn.parts and conn.error is None)


class ResponseListener(Protocol):
    """Told of a response sent with `HttpPool.send`, from the connection's callbacks."""

    def on_head(self, resp: Response) -> bool:
        """The status and headers are in. True: call `on_complete` when the body is; False:
        the listener reads the body itself (`read()`/`iter_chunks()`, from a task)."""
        ...

    def on_complete(self, resp: Response | None, error: str | None) -> None:
        """The response is complete (`resp.body()`, then `resp.release()`), or failed with
        `error` (then `resp` is None when no head arrived; the connection is closed)."""
        ...


class _Conn(asyncio.Protocol):
    def __init__(self, pool: HttpPool) -> None:
        self.pool = pool
        self.loop = asyncio.get_running_loop()  # made inside create_connection: once per connection
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.headers = Headers()
        self.head: asyncio.Future[Response] | None = None
        self.listener: ResponseListener | None = None  # callback mode (`send_to`)
        self.response: Response | None = None
        self.parts: list[bytes] = []
        self.complete = False
        self._waiter: asyncio.Future[None] | None = None
        self.error: str | None = None
        self.keep_alive = True
        self.closed = False

    def wait(self) -> asyncio.Future[None]:
        self._waiter = self.loop.create_future()
        return self._waiter

    def _wake(self) -> None:
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as e:
            self._fail(f"bad HTTP from upstream: {e}")

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.complete or self.head is not None:
            self._fail(f"connection lost: {exc}" if exc else "connection closed by upstream")

    def _fail(self, why: str) -> None:
        if self.head is not None and not self.head.done():
            self.head.set_exception(HttpClientError(why))
        elif not self.complete:
            self.error = why
            self.complete = True
            listener = self.listener
            if listener is not None:
                self.listener = None
                self.closed = True  # closed below: never handed back to the pool
                listener.on_complete(self.response, why)
            else:
                self._wake()
        if self.transport is not None:
            self.transport.close()

    # httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.add(name, value)

    def on_headers_complete(self) -> None:
        self.keep_alive = self.parser.should_keep_alive()
        if self.head is not None and not self.head.done():
            self.head.set_result(Response(self, self.parser.get_status_code(), self.headers))
        elif self.listener is not None:
            resp = self.response = Response(self, self.parser.get_status_code(), self.headers)
            if not self.listener.on_head(resp):
                self.listener = None  # it reads the rest itself

    def on_body(self, body: bytes) -> None:
        self.parts.append(body)
        self._wake()

    def on_message_complete(self) -> None:
        self.complete = True
        listener = self.listener
        if listener is not None:
            self.listener = None
            assert self.response is not None
            listener.on_complete(self.response, None)
        else:
            self._wake()

    # use
    def send(self, request: bytes) -> asyncio.Future[Response]:
        assert self.transport is not None
        self.headers = Headers()
        self.error = None
        self.parts = []
        self.complete = False
        self.head = self.loop.create_future()
        self.transport.write(request)
        return self.head

    def send_to(self, request: bytes, listener: ResponseListener) -> None:
        """Send `request`; its response goes to `listener` (see `ResponseListener`)."""
        assert self.transport is not None
        self.headers = Headers()
        self.error = None
        self.parts = []
        self.complete = False
        self.head = None
        self.response = None
        self.listener = listener
        self.transport.write(request)

    def abandon(self) -> None:
        """Give up the request in flight: the connection is closed, the listener not called
        (for a modern upstream, closing the stream is the request's cancellation)."""
        self.finish(reuse=False)

    def finish(self, reuse: bool) -> None:
        self.head = None
        self.listener = None
        self.response = None
        pool = self.pool
        idle = pool._idle
        if (
            reuse
            and self.keep_alive
            and not self.closed
            and not pool.closed
            and len(idle) < pool.max_idle
        ):
            idle.append(self)
        elif self.transport is not None:
            self.closed = True
            self.transport.close()


Exchange = _Conn  # a request sent with `HttpPool.send` (see `_Conn.abandon`)


class HttpPool:
    """Keep-alive connections to one origin."""

    def __init__(self, url: str, connect_timeout: float, max_idle: int = 64) -> None:
        u = urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.host = u.hostname
        self.port = u.port or (443 if u.scheme == "https" else 80)
        self.path = (u.path or "/") + (f"?{u.query}" if u.query else "")
        self.ssl: ssl.SSLContext | None = (
            ssl.create_default_context() if u.scheme == "https" else None
        )
        default_port = self.port == (443 if self.ssl else 80)
        self.host_header = self.host if default_port else f"{self.host}:{self.port}"
        if ":" in self.host and not self.host.startswith("["):
            self.host_header = f"[{self.host}]" + ("" if default_port else f":{self.port}")
        self.connect_timeout = connect_timeout
        self.max_idle = max_idle
        self._idle: deque[_Conn] = deque()
        self._heads: dict[tuple[str, str, tuple[tuple[str, str], ...]], bytes] = {}
        self.closed = False

    async def _connect(self) -> _Conn:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.connect_timeout):
                _t, conn = await loop.create_connection(
                    lambda: _Conn(self),
                    self.host,
                    self.port,
                    ssl=self.ssl,
                    server_hostname=self.host if self.ssl else None,
                )
        except (OSError, TimeoutError) as e:
            why = connect_failure(self.host, self.port, e, self.connect_timeout)
            raise HttpClientError(why) from e
        return conn

    def _request_bytes(
        self, method: str, headers: dict[str, str], body: bytes | None, path: str | None
    ) -> bytes:
        # The head up to its framing is the same call after call (method, path, the upstream's
        # configured and negotiated headers, Mcp-Method/Mcp-Name): built once, then looked up.
        path = path or self.path
        key = (method, path, tuple(headers.items()))
        head = self._heads.get(key)
        if head is None:
            lines = [f"{method} {path} HTTP/1.1\r\nHost: {self.host_header}\r\n"]
            lines.extend(f"{k}: {v}\r\n" for k, v in headers.items())
            head = "".join(lines).encode("latin-1")
            if len(self._heads) >= MAX_HEADS:
                self._heads.clear()  # bounded: per-call values (Mcp-Param-*) start it over
            self._heads[key] = head
        if body is None:
            return head + b"\r\n"
        return b"%bContent-Length: %d\r\n\r\n%b" % (head, len(body), body)

    async def request(
        self,
        method: str,
        headers: dict[str, str],
        body: bytes | None = None,
        path: str | None = None,
    ) -> Response:
        """Send a request; the caller reads the body and then calls `Response.release()`.

        `path` (with its query) overrides the pool URL's path on the same origin."""
        data = self._request_bytes(method, headers, body, path)
        conn = self._take_idle()
        if conn is None:
            conn = await self._connect()
        # No automatic retry: the upstream may have acted on the request before it failed.
        try:
            return await conn.send(data)
        except BaseException:
            conn.finish(reuse=False)
            raise

    def _take_idle(self) -> _Conn | None:
        while self._idle:
            c = self._idle.pop()
            if not c.closed and c.transport is not None and not c.transport.is_closing():
                return c
        return None

    def send(
        self, method: str, headers: dict[str, str], body: bytes, listener: ResponseListener
    ) -> Exchange | None:
        """Send on an idle kept-alive connection, its response going to `listener`; None when
        no connection is idle (then `request()`, which may connect). The exchange can be
        `abandon()`ed."""
        conn = self._take_idle()
        if conn is None:
            return None
        conn.send_to(self._request_bytes(method, headers, body, None), listener)
        return conn

    def close(self) -> None:
        self.closed = True
        while self._idle:
            c = self._idle.pop()
            if c.transport is not None:
                c.transport.close()


def lower_headers(headers: dict[str, Any]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in headers.items()}
