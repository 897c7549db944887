"""A small HTTP/1.1 server for the gateway's front end: asyncio protocol + httptools parsing.

It does what `/mcp` needs and nothing else: keep-alive, request bodies up to a limit, whole
responses with Content-Length, streamed (chunked) responses for SSE, and a disconnect signal per
request. Measured here it costs a fraction of a general-purpose web framework per request, which
matters because every call crosses it (docs/architecture.md). Malformed HTTP gets 400 and the
connection is closed; the server keeps serving.

Every connection is bounded (`Limits`, from the `http:` config):

- time: the request head must arrive within `head_timeout` of its first byte (or of the
  connection opening), a body may not pause longer than `body_timeout`, an idle keep-alive
  connection is closed after `idle_timeout`, and a client that reads nothing for
  `write_timeout` while its answers wait is dropped. A connection has one timer, re-armed by
  storing a deadline (nothing is done per byte); idleness is checked once per `idle_timeout`,
  so an idle connection goes within twice that.
- size: request line (414), header bytes and fields (431), body (413, refused from its
  `Content-Length` before it is read), pipelined requests waiting for their turn.
- count: past `max_connections` a new connection gets 503 with `Retry-After` and is closed.

A refusal is answered with its status and `Connection: close`, logged once, and the rest of
what the client is sending is read and thrown away (bounded) so the client sees the answer.

Back-pressure (for handlers that stream): the transport pauses the writer when its buffer is
over `write_high_water`; while paused, the connection reads no further requests. A handler
streaming to a client uses the `Responder`:

- `await resp.write(chunk)` sends a chunk and waits while the client is behind (the wait is
  bounded: after `write_timeout` the connection is dropped and it raises ConnectionResetError);
- `resp.write_now(chunk)` sends without waiting; a stream whose client is behind with more than
  `stream_buffer` (`http.stream_max_buffer`) bytes unsent is dropped (logged) instead of
  buffering further;
- `resp.is_behind` (the writer is paused), `resp.buffered` (bytes not yet sent),
  `resp.closed` (the connection is gone) let a producer skip or coalesce work;
- `resp.abort(reason)` drops the connection at once (its buffer is freed), with a log line.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, cast

import httptools

from manifold.config import HttpConfig
from manifold.protocol.httpheaders import Headers

log = logging.getLogger("manifold.http")

KiB = 1024
MiB = 1024 * KiB


@dataclass(frozen=True, slots=True)
class Limits:
    """What one connection may cost; see the `http:` section of the config."""

    max_body: int = 32 * MiB
    head_timeout: float = 10.0
    body_timeout: float = 30.0
    idle_timeout: float = 60.0
    write_timeout: float = 30.0
    max_connections: int = 1024
    max_request_line: int = 8 * KiB
    max_header_bytes: int = 64 * KiB
    max_header_fields: int = 100
    max_pipelined: int = 16
    write_high_water: int = 256 * KiB
    stream_buffer: int = 4 * MiB

    @classmethod
    def from_config(cls, cfg: HttpConfig) -> Limits:
        fields = {f: getattr(cfg, f) for f in cls.__dataclass_fields__ if f != "stream_buffer"}
        return cls(**fields, stream_buffer=cfg.stream_max_buffer)


# What a connection is waiting for; its one timer acts on the deadline of the current phase.
_NONE, _HEAD, _BODY, _IDLE, _LINGER = 0, 1, 2, 3, 4
# After a refusal, what the client is still sending is read and thrown away (nothing is kept)
# so that it gets to read the answer instead of a reset: while the bytes keep coming (a pause
# of LINGER_SECONDS ends it), up to LINGER_BYTES (a refused body: its declared length), and for
# LINGER_MAX_SECONDS at most.
LINGER_SECONDS = 2.0
LINGER_BYTES = 64 * MiB
LINGER_MAX_SECONDS = 30.0


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


# A response head up to its framing fields ("HTTP/1.1 200 OK\r\nContent-Type: ...\r\n"), by
# status and header fields: most answers share a few heads, and building one costs more than
# the rest of sending it. Bounded: when full it starts again (a head with a session id in it
# is seen once per session).
_HEADS: dict[tuple[int, tuple[tuple[str, str], ...]], bytes] = {}
_MAX_HEADS = 256


def _head(status: int, headers: dict[str, str]) -> bytes:
    key = (status, tuple(headers.items()))
    head = _HEADS.get(key)
    if head is None:
        lines = [f"HTTP/1.1 {status} {_reason(status)}\r\n"]
        lines.extend(f"{k}: {v}\r\n" for k, v in headers.items())
        head = "".join(lines).encode("latin-1")
        if len(_HEADS) >= _MAX_HEADS:
            _HEADS.clear()
        _HEADS[key] = head
    return head


class _Refuse(Exception):
    """Raised in a parser callback: answer `status` and close."""

    def __init__(
        self,
        status: int,
        text: str,
        why: str = "",
        linger: int = LINGER_BYTES,
        json_error: bool = False,
    ) -> None:
        super().__init__(text)
        self.status = status
        self.text = text
        self.why = why or text
        self.linger = linger
        self.json_error = json_error


class Request:
    __slots__ = (
        "_disconnected",
        "body",
        "gone",
        "headers",
        "method",
        "on_disconnect",
        "path",
        "query",
    )

    def __init__(self, method: str, path: str, query: str, headers: Headers) -> None:
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers  # lower-case names
        self.body = b""
        self.gone = False  # the client closed the connection while this request was current
        self._disconnected: asyncio.Future[None] | None = None
        self.on_disconnect: Callable[[], Any] | None = None

    @property
    def disconnected(self) -> asyncio.Future[None]:
        """Resolved when the client goes away (made on first use: most requests never wait
        for it, and a future per request is not free)."""
        fut = self._disconnected
        if fut is None:
            fut = self._disconnected = asyncio.get_running_loop().create_future()
            if self.gone:
                fut.set_result(None)
        return fut

    def _went_away(self) -> None:
        self.gone = True
        fut = self._disconnected
        if fut is not None and not fut.done():
            fut.set_result(None)
        if self.on_disconnect is not None:
            self.on_disconnect()


class Responder:
    """How a handler answers: `send()` once, or `start()` then `write()`s then `end()`.

    See the module docstring for the back-pressure API (`write`, `write_now`, `is_behind`,
    `buffered`, `closed`, `abort`).
    """

    __slots__ = ("_conn", "_keep_alive", "done", "started", "status")

    def __init__(self, conn: _Conn, keep_alive: bool) -> None:
        self._conn = conn
        self._keep_alive = keep_alive
        self.started = False
        self.done = False
        self.status = 0

    def send(self, status: int, headers: dict[str, str], body: bytes = b"") -> None:
        if self.started:
            raise RuntimeError("response already started")
        self.started = self.done = True
        self.status = status
        close = b"" if self._keep_alive else b"Connection: close\r\n"
        self._conn.write(
            b"%bContent-Length: %d\r\n%b\r\n%b" % (_head(status, headers), len(body), close, body)
        )
        self._conn.response_done(self._keep_alive)

    def peer_host(self) -> str:
        """The client's address (no port): what a refusal is counted by."""
        return self._conn.peer_host()

    async def start(self, status: int, headers: dict[str, str]) -> None:
        self.start_now(status, headers)
        await self._conn.drain()

    def start_now(self, status: int, headers: dict[str, str]) -> None:
        self.started = True
        self.status = status
        close = b"" if self._keep_alive else b"Connection: close\r\n"
        self._conn.write(
            b"%bTransfer-Encoding: chunked\r\n%b\r\n" % (_head(status, headers), close)
        )

    def write_now(self, data: bytes) -> bool:
        """Write a chunk without waiting for the client to read.

        Returns False if the connection is gone, or if the client is behind by more than the
        stream buffer: then the connection is dropped (with a log line) rather than buffering.
        """
        conn = self._conn
        if conn.lost:
            return False
        if conn.paused and not conn.room_for_stream():
            return False
        if data:
            conn.write(b"%x\r\n%b\r\n" % (len(data), data))
        return True

    async def write(self, data: bytes) -> None:
        """Write a chunk, then wait (bounded by `write_timeout`) while the client is behind.

        Raises ConnectionResetError once the connection is gone (closed, or dropped for being
        too slow).
        """
        conn = self._conn
        if conn.lost:
            raise ConnectionResetError("client disconnected")
        if data:
            conn.write(b"%x\r\n%b\r\n" % (len(data), data))
            if conn.paused:
                await conn.drain()

    async def drain(self) -> None:
        """Wait until the client has caught up (bounded by `write_timeout`)."""
        await self._conn.drain()

    @property
    def is_behind(self) -> bool:
        """The client is not reading fast enough: the write buffer is over its high-water mark."""
        return self._conn.paused

    @property
    def buffered(self) -> int:
        """Bytes written to this connection that the client has not taken yet."""
        return self._conn.buffered()

    @property
    def closed(self) -> bool:
        return self._conn.lost

    def abort(self, reason: str) -> None:
        """Drop the connection now (unsent data is discarded), logging `reason`."""
        self._conn.abort(reason)

    def end(self) -> None:
        if not self.done:
            self.done = True
            self._conn.write(b"0\r\n\r\n")
            self._conn.response_done(self._keep_alive)


Handler = Callable[[Request, Responder], Awaitable[None]]


class _Conn(asyncio.Protocol):
    def __init__(self, server: HttpServer) -> None:
        self.server = server
        self.limits = lim = server.limits
        self._max_body = lim.max_body  # the limits checked on every request, at hand
        self._max_header_bytes = lim.max_header_bytes
        self._max_fields = lim.max_header_fields
        self._max_pipelined = lim.max_pipelined
        self.loop = asyncio.get_running_loop()
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.lost = False
        self.paused = False
        self._closing = False
        self._reading = True
        self._url = b""
        self._headers = Headers()
        self._body: bytes | bytearray = b""
        self._size = 0
        self._head_size = 0
        self._header_bytes = 0
        self._count_headers = False
        self._queue: deque[tuple[Request, bool]] = deque()
        self._current: Request | None = None
        self._busy = False
        self._task: asyncio.Task[None] | None = None
        self._drain: asyncio.Future[None] | None = None
        # The one read-side timer. `_phase` is what the connection waits for now (the parser
        # callbacks set it: a store); `_armed` is the phase the deadline was set for, armed only
        # when a phase outlasts a read (a request arriving in one piece arms nothing); the
        # handle fires at `_at`, and on firing re-arms itself if the deadline has moved on.
        self._phase = _NONE
        self._armed = _NONE
        self._deadline = 0.0
        self._progress = False
        self._timer: asyncio.TimerHandle | None = None
        self._at = 0.0
        self._write_timer: asyncio.TimerHandle | None = None
        self._linger_left = 0
        self._linger_end = 0.0
        self._served = 0  # requests started, and that count when the idle period began
        self._idle_mark = -1

    # ----------------------------------------------------------------- timers

    def _arm(self, phase: int, seconds: float) -> None:
        """Enter `phase` with a deadline `seconds` from now (cheap: usually just a store)."""
        self._phase = self._armed = phase
        self._deadline = deadline = self.loop.time() + seconds
        timer = self._timer
        if timer is None or deadline < self._at:
            if timer is not None:
                timer.cancel()
            self._at = deadline
            self._timer = self.loop.call_at(deadline, self._tick)

    def _schedule(self, seconds: float) -> None:
        self._at = self.loop.time() + seconds
        self._timer = self.loop.call_at(self._at, self._tick)

    def _tick(self) -> None:
        self._timer = None
        phase = self._phase
        if phase == _NONE or phase != self._armed or self.lost:
            return
        if phase == _IDLE:
            # Idle is not timed per request (that would cost a clock read each): it is over
            # when a whole period passed with no request started.
            if self._served == self._idle_mark:
                self._phase = self._armed = _NONE
                log.debug("closed an idle keep-alive connection from %s", self._peer())
                self._close()
            else:
                self._idle_mark = self._served
                self._schedule(self.limits.idle_timeout)
            return
        now = self.loop.time()
        if now < self._deadline:  # the deadline moved on since the timer was set
            self._at = self._deadline
            self._timer = self.loop.call_at(self._deadline, self._tick)
            return
        if self._progress and (phase == _BODY or (phase == _LINGER and now < self._linger_end)):
            self._progress = False
            seconds = self.limits.body_timeout if phase == _BODY else LINGER_SECONDS
            self._arm(phase, seconds)
            return
        self._phase = self._armed = _NONE
        if phase == _HEAD:
            if self._head_size or self._url:
                self._refuse(
                    408,
                    "request head not complete in time",
                    f"request head not complete within {self.limits.head_timeout:g} s",
                    linger=0,
                )
            else:
                log.info(
                    "closed a connection from %s: no request within %g s",
                    self._peer(),
                    self.limits.head_timeout,
                )
                self._close()
        elif phase == _BODY:
            self._refuse(
                408,
                "request body stalled",
                f"request body stalled for {self.limits.body_timeout:g} s after {self._size} bytes",
                linger=0,
            )
        else:  # _LINGER
            self._close()

    def peer_host(self) -> str:
        peer = self.transport.get_extra_info("peername") if self.transport else None
        return str(peer[0]) if isinstance(peer, tuple) and peer else "?"

    def _peer(self) -> str:
        peer = self.transport.get_extra_info("peername") if self.transport else None
        if isinstance(peer, tuple) and len(peer) >= 2:
            return f"{peer[0]}:{peer[1]}"
        return "?"

    # ----------------------------------------------------------------- transport side

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport = cast(asyncio.Transport, transport)
        lim = self.limits
        transport.set_write_buffer_limits(high=lim.write_high_water)
        if len(self.server.connections) >= lim.max_connections:
            self._refuse(
                503,
                "too many connections",
                f"refused a connection: {lim.max_connections} open (http.max_connections)",
                headers="Retry-After: 1\r\n",
                linger=64 * KiB,
            )
            return
        self.server.connections.add(self)
        self._arm(_HEAD, lim.head_timeout)  # a first request is due

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.server.connections.discard(self)
        self._phase = _NONE
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None
        cur = self._current
        if cur is not None and not cur.gone:
            cur._went_away()
        if self._drain is not None and not self._drain.done():
            self._drain.set_exception(ConnectionResetError("client disconnected"))
            self._drain.exception()  # retrieved: no "never retrieved" warning if nobody waits
        # Let go of whatever the connection held (a half-read body, queued requests).
        self._body = b""
        self._queue.clear()
        self._headers = Headers()
        self._url = b""

    def pause_writing(self) -> None:
        self.paused = True
        self._update_reading()
        if self._write_timer is None and self.limits.write_timeout > 0:
            self._write_timer = self.loop.call_later(self.limits.write_timeout, self._stalled)

    def resume_writing(self) -> None:
        self.paused = False
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)
        self._drain = None
        self._update_reading()
        if not self._busy and self._queue:
            self._next()

    def _stalled(self) -> None:
        self._write_timer = None
        if self.paused and not self.lost:
            self.abort(
                f"the client read nothing for {self.limits.write_timeout:g} s "
                f"with {self.buffered()} bytes unsent"
            )

    def room_for_stream(self) -> bool:
        """While paused: may a stream add to the buffer? If not, the connection is dropped."""
        buffered = self.buffered()
        if buffered <= self.limits.stream_buffer:
            return True
        self.abort(f"the client is behind by {buffered} bytes on a stream (http.stream_max_buffer)")
        return False

    def buffered(self) -> int:
        t = self.transport
        return t.get_write_buffer_size() if t is not None and not self.lost else 0

    def abort(self, reason: str) -> None:
        if self.lost:
            return
        self.server.dropped += 1
        log.warning("dropped the connection from %s: %s", self._peer(), reason)
        self.lost = True  # from now on writes fail at once (connection_lost follows)
        if self.transport is not None:
            self.transport.abort()

    async def drain(self) -> None:
        if self.lost:
            raise ConnectionResetError("client disconnected")
        if self.paused:
            if self._drain is None or self._drain.done():
                self._drain = self.loop.create_future()
            await asyncio.shield(self._drain)

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.lost and not self._closing:
            self.transport.write(data)

    def _update_reading(self) -> None:
        want = not self.paused and len(self._queue) < self.limits.max_pipelined
        t = self.transport
        if want != self._reading and t is not None and not self.lost and not self._closing:
            self._reading = want
            if want:
                t.resume_reading()
            else:
                t.pause_reading()

    def _close(self) -> None:
        self._closing = True
        self._phase = _NONE
        if self.transport is not None:
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._closing:  # answered and closing; a refused client's bytes are thrown away
            if self._phase == _LINGER:
                self._progress = True
                self._linger_left -= len(data)
                if self._linger_left <= 0:
                    self._close()
            return
        self._count_headers = len(data) > self._max_header_bytes
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as e:
            refusal = e.__context__
            if isinstance(refusal, _Refuse):
                self._refuse_with(refusal)
                return
            log.warning("malformed HTTP request from %s: %s", self._peer(), e)
            self._reject(400, "malformed HTTP request")
            return
        except httptools.HttpParserUpgrade:
            self._reject(400, "upgrades are not supported")
            return
        except httptools.HttpParserError as e:
            log.warning("malformed HTTP request from %s: %s", self._peer(), e)
            self._reject(400, "malformed HTTP request")
            return
        phase = self._phase
        if phase == self._armed or phase == _NONE:
            if phase == _HEAD:
                # A head spread over several reads: count them all (httptools gathers a
                # header's pieces itself, so a huge one must be stopped here).
                self._head_size += len(data)
                lim = self.limits
                if self._head_size > lim.max_request_line + lim.max_header_bytes:
                    why = f"request head over {self._head_size} bytes"
                    self._refuse_with(_Refuse(431, "request header fields too large", why))
        elif phase == _HEAD:  # a head began in this read and is not complete
            self._head_size = 1
            self._arm(_HEAD, self.limits.head_timeout)
        elif phase == _BODY:  # a body is due and is not complete in this read
            refusal = self._declared_too_large()
            if refusal is not None:
                self._refuse_with(refusal)
                return
            self._progress = False
            self._arm(_BODY, self.limits.body_timeout)

    def _reject(self, status: int, text: str, content_type: str = "text/plain") -> None:
        """Answer `status` and close (bad HTTP: nothing more of this connection is read)."""
        if self._busy or self._queue:
            self.abort(f"{text} (while an earlier request was being answered)")
            return
        self._respond_close(status, text, content_type, "")
        self._close()

    def _respond_close(self, status: int, text: str, content_type: str, headers: str) -> None:
        body = text.encode()
        head = f"HTTP/1.1 {status} {_reason(status)}\r\nContent-Type: {content_type}\r\n"
        head += f"{headers}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        self.write(head.encode() + body)

    def _refuse_with(self, r: _Refuse) -> None:
        if r.json_error:
            err = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": r.text}}
            self._refuse(r.status, json.dumps(err), r.why, "application/json", linger=r.linger)
        else:
            self._refuse(r.status, r.text, r.why, linger=r.linger)

    def _refuse(
        self,
        status: int,
        text: str,
        why: str,
        content_type: str = "text/plain",
        headers: str = "",
        linger: int = LINGER_BYTES,
    ) -> None:
        """Answer `status`, log `why`, and close; read and drop up to `linger` more bytes first
        so that a client still sending sees the answer instead of a reset."""
        self.server.refused[status] = self.server.refused.get(status, 0) + 1
        if self._busy or self._queue:
            # An earlier request on this connection is still to be answered: the refusal
            # cannot be sent in order, so the connection goes, with both.
            self.abort(f"{why} (while an earlier request was being answered)")
            return
        log.warning("%s: answered %d to %s and closed", why, status, self._peer())
        self._respond_close(status, text, content_type, headers)
        self._body = b""
        t = self.transport
        if linger <= 0 or t is None or not t.can_write_eof():
            self._close()
            return
        t.write_eof()  # the answer is complete; what the client still sends is thrown away
        if not self._reading:
            self._reading = True
            t.resume_reading()
        self._closing = True
        self._linger_left = linger
        self._linger_end = self.loop.time() + LINGER_MAX_SECONDS
        self._progress = False
        self._arm(_LINGER, LINGER_SECONDS)

    # ----------------------------------------------------------------- httptools callbacks

    def on_message_begin(self) -> None:
        self._url = b""
        self._headers = Headers()
        self._size = 0
        self._head_size = 0
        self._header_bytes = 0
        self._phase = _HEAD

    def on_url(self, url: bytes) -> None:
        self._url += url
        if len(self._url) > self.limits.max_request_line:
            raise _Refuse(414, f"request target over {self.limits.max_request_line} bytes")

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.add(name, value)
        if self._count_headers:  # only a read larger than the limit can hold too much
            self._header_bytes += len(name) + len(value)
            if self._header_bytes > self._max_header_bytes:
                raise self._too_large()

    def _too_large(self) -> _Refuse:
        lim = self.limits
        return _Refuse(
            431,
            f"request header fields too large (limits: {lim.max_header_bytes} bytes, "
            f"{lim.max_header_fields} fields)",
        )

    def _declared_too_large(self) -> _Refuse | None:
        """A Content-Length over the limit: refused before the body is read (at most part of
        one read of it has been taken)."""
        length = self._headers.get("content-length")
        limit = self._max_body
        if length is None or not length.isdigit() or int(length) <= limit:
            return None
        self.server.rejected_too_big += 1
        return _Refuse(
            413,
            f"message too large ({int(length)} bytes; limit {limit})",
            f"rejected a {int(length)}-byte request body (limit {limit}) before reading it",
            linger=int(length) - self._size,
            json_error=True,
        )

    def on_headers_complete(self) -> None:
        headers = self._headers
        if headers.count() > self._max_fields:
            raise self._too_large()
        self._phase = _BODY
        expect = headers.raw(b"expect")
        if expect is not None and expect.strip(b" \t").lower() == b"100-continue":
            refusal = self._declared_too_large()
            if refusal is not None:
                raise refusal  # and no "100 Continue": the client need not send the body
            self.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        self._progress = True
        self._size += len(body)
        if self._size > self._max_body:
            self.server.rejected_too_big += 1
            limit = self.limits.max_body
            raise _Refuse(
                413,
                f"message too large (over {limit} bytes)",
                f"rejected a request body of over {limit} bytes (limit {limit})",
                json_error=True,
            )
        buf = self._body
        if not buf:
            self._body = body  # most bodies come in one piece: no copy
        elif isinstance(buf, bytes):
            grown = bytearray(buf)  # one growing buffer: freed in one piece when done
            grown += body
            self._body = grown
        else:
            buf += body

    def on_message_complete(self) -> None:
        self._phase = self._armed = _NONE
        url = self._url.decode("latin-1")
        path, _, query = url.partition("?")
        method = self.parser.get_method().decode("latin-1")
        req = Request(method, path, query, self._headers)
        body = self._body
        req.body = body if isinstance(body, bytes) else bytes(body)
        self._body = b""
        self._queue.append((req, self.parser.should_keep_alive()))
        if len(self._queue) >= self._max_pipelined:
            self._update_reading()
        if not self._busy:
            self._next()

    # ----------------------------------------------------------------- request handling
    # One at a time per connection (HTTP/1.1 answers in order); the next waits while the
    # client is behind on reading the previous answers.

    def _next(self) -> None:
        if not self._queue or self.lost or self._closing or self.paused:
            self._busy = False
            self._current = None
            if not self._queue and not self.lost and not self._closing and self._phase == _NONE:
                self._phase = self._armed = _IDLE
                if self._timer is None:
                    self._idle_mark = self._served
                    self._schedule(self.limits.idle_timeout)
            return
        req, keep_alive = self._queue.popleft()
        if not self._reading:
            self._update_reading()
        self._busy = True
        self._served += 1
        self._current = req
        if self._phase == _IDLE:
            self._phase = _NONE
        self._task = self.loop.create_task(self._run(req, Responder(self, keep_alive)))

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
        if not keep_alive:
            self._close()
        if self._queue:
            self.loop.call_soon(self._next)  # a pipelined request: its own turn of the loop
        else:
            self._next()  # nothing waits: the connection goes idle now (no callback to schedule)


class HttpServer:
    def __init__(self, handler: Handler, limits: Limits | None = None) -> None:
        self.handler = handler
        self.limits = limits or Limits()
        self.max_body = self.limits.max_body
        self.connections: set[_Conn] = set()
        self.rejected_too_big = 0
        self.dropped = 0  # connections dropped (a client too slow, or a handler's abort)
        self.refused: dict[int, int] = {}  # refusals by status
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
