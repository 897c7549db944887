"""The Streamable HTTP front end: one path (`/mcp`), both protocol eras.

A POST whose request carries modern `_meta` is served statelessly (its headers checked against
the body); anything else follows the legacy session rules (`initialize` mints an
`Mcp-Session-Id`, later requests must carry it, GET opens the standalone stream, DELETE ends
the session). A request's answer is plain JSON unless something is sent before it (progress,
a log message, a server-to-client request), in which case the answer becomes an SSE stream.
For a modern request, the client closing the connection cancels the call. Host and Origin are
checked on every request (DNS-rebinding defence) and the server binds to loopback unless told
otherwise. The bytes are carried by `httpserver.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import logging
import time
from collections import deque
from collections.abc import Callable, Collection
from typing import Any
from urllib.parse import urlsplit

import orjson

from manifold.downstream.frames import BadFrame, parse_frame
from manifold.downstream.httpserver import HttpServer, Limits, Request, Responder
from manifold.downstream.session import DownstreamSession
from manifold.gateway import Gateway
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import LEGACY_VERSIONS, META_PROTOCOL_VERSION, MODERN_VERSION
from manifold.protocol.headers import decode_value, param_headers

log = logging.getLogger("manifold.http")

_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}
_NAMED = ("tools/call", "resources/read", "prompts/get")
KEEPALIVE_SECONDS = 15.0
_JSON = {"Content-Type": "application/json"}
_SSE = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def _host_only(host: str) -> str:
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _error(
    resp: Responder, rid: Any, code: int, message: str, status: int, data: Any = None
) -> None:
    resp.send(status, _JSON, rpc.encode_error(rid, code, message, data))


def _text(resp: Responder, status: int, text: str, headers: dict[str, str] | None = None) -> None:
    resp.send(status, {"Content-Type": "text/plain", **(headers or {})}, text.encode())


# What one kept event costs beyond its frame (tuple, deque slot, bytes header), so that
# `replay_max_bytes` also bounds the number of small events.
EVENT_OVERHEAD = 160
# A stream is "behind" while its connection holds more than this unsent (a stand-in for the
# connection's own high-water mark, which httpserver.py is to provide).


def sse_event(eid: str, frame: bytes) -> bytes:
    return b"id: " + eid.encode() + b"\nevent: message\ndata: " + frame + b"\n\n"


class _StreamBehind(Exception):
    """A stream's client fell too far behind: the stream is dropped (it may resume)."""


class _Follower:
    """The events a GET stream has still to write (those after `floor`), bounded: past the
    bound it is `over`."""

    __slots__ = ("floor", "limit", "on_over", "over", "pending", "size", "wake")

    def __init__(self, limit: int, floor: int, on_over: Callable[[], None]) -> None:
        self.limit = limit
        self.floor = floor
        self.on_over = on_over  # drops the stream at once, even while it waits for the client
        self.pending: deque[tuple[int, bytes]] = deque()
        self.size = 0
        self.over = False
        self.wake = asyncio.Event()

    def push(self, seq: int, frame: bytes) -> None:
        if seq <= self.floor:
            return
        if not self.over:
            self.pending.append((seq, frame))
            self.size += len(frame)
            if self.size > self.limit:
                self.over = True  # the stream is dropped; what it missed is in the replay
                self.pending.clear()
                self.size = 0
                self.on_over()
        self.wake.set()


class _StreamLog:
    """The events of one SSE stream of a legacy session, for resumption (Last-Event-ID).

    Its events are kept in the session's `_Replay`, which bounds them all together."""

    __slots__ = ("done", "events", "follower", "name", "replay", "seq")

    def __init__(self, name: str, replay: _Replay) -> None:
        self.name = name
        self.replay = replay
        self.events: deque[tuple[int, bytes]] = deque()
        self.done = False
        self.follower: _Follower | None = None
        self.seq = 0

    def add(self, frame: bytes) -> str:
        self.seq += 1
        self.events.append((self.seq, frame))
        self.replay.kept(self, len(frame))
        if self.follower is not None:
            self.follower.push(self.seq, frame)
        return f"{self.name}.{self.seq}"

    def close(self) -> None:
        self.done = True
        if self.follower is not None:
            self.follower.wake.set()


class _Replay:
    """What a legacy session keeps for resumption, oldest first across all its streams,
    bounded by bytes and by age; a finished stream with nothing left is forgotten."""

    __slots__ = ("max_age", "max_bytes", "order", "size", "streams")

    def __init__(self, max_bytes: int, max_age: float) -> None:
        self.max_bytes = max_bytes
        self.max_age = max_age
        self.order: deque[tuple[_StreamLog, int, float]] = deque()
        self.size = 0
        self.streams: dict[str, _StreamLog] = {}

    def kept(self, log: _StreamLog, size: int) -> None:
        size += EVENT_OVERHEAD
        now = time.monotonic()
        self.order.append((log, size, now))
        self.size += size
        if self.size > self.max_bytes or now - self.order[0][2] > self.max_age:
            self.trim(now)

    def trim(self, now: float) -> None:
        order, streams = self.order, self.streams
        while order and (self.size > self.max_bytes or now - order[0][2] > self.max_age):
            log, size, _ = order.popleft()
            log.events.popleft()  # a stream's oldest event is the oldest of it in `order`
            self.size -= size
            if log.done and not log.events and streams.get(log.name) is log:
                del streams[log.name]

    def clear(self) -> None:
        for log in self.streams.values():
            log.events.clear()
            log.close()  # open streams of the session end with it
        self.streams.clear()
        self.order.clear()
        self.size = 0


class _Answer:
    """One request's answer: JSON, unless a frame is sent first, then an SSE stream.

    Writes are synchronous (the transport buffers), so a side message never waits; but a
    stream whose client reads nothing is dropped once it is too far behind (`stream_max_buffer`
    bytes unsent, or behind for `stream_stall_timeout` seconds). On a legacy session the
    stream's events are also kept (`_StreamLog`, created with the first streamed event, so a
    plain-JSON answer costs nothing), and a client whose connection dropped, or was dropped,
    can resume it.
    """

    __slots__ = ("behind", "dropped", "extra", "legacy", "limits", "log", "resp", "streaming")

    def __init__(
        self,
        resp: Responder,
        extra: dict[str, str] | None,
        legacy: _LegacySession | None,
        limits: tuple[int, float],
    ) -> None:
        self.resp = resp
        self.extra = extra
        self.legacy = legacy
        self.limits = limits
        self.log: _StreamLog | None = None
        self.streaming = False
        self.dropped = False
        self.behind = 0.0

    def _write(self, frame: bytes) -> None:
        eid = self.log.add(frame) if self.log is not None else "0"
        resp = self.resp
        if resp.done or self.dropped:
            return
        unsent = resp.buffered
        if resp.is_behind:
            now = time.monotonic()
            if not self.behind:
                self.behind = now
            max_buffer, stall = self.limits
            if unsent > max_buffer or now - self.behind > stall:
                self.dropped = True
                log.warning(
                    "dropped the SSE stream %s: its client is behind by %d bytes for %.1f s%s",
                    self.log.name if self.log is not None else "of a stateless request",
                    unsent,
                    now - self.behind,
                    " (it may resume with Last-Event-ID)" if self.log is not None else "",
                )
                resp.abort("an SSE stream's client stopped reading (http.stream_max_buffer)")
                return
        else:
            self.behind = 0.0
        resp.write_now(sse_event(eid, frame))

    def send(self, frame: bytes) -> None:
        if not self.streaming:
            if self.resp.done:
                return
            self.streaming = True
            self.resp.start_now(200, {**_SSE, **(self.extra or {})})
            if self.legacy is not None:
                self.log = self.legacy.new_stream()
                # Priming event (an id, no data) and a retry hint: a client whose connection
                # drops from here on can resume this stream with Last-Event-ID.
                self.resp.write_now(f"id: {self.log.name}.0\nretry: 1000\ndata: \n\n".encode())
        self._write(frame)

    def finish(self, frame: bytes | None, status: int) -> None:
        if self.streaming:
            if frame is not None:
                self._write(frame)
            if self.log is not None:
                self.log.close()
            if not self.resp.done:
                self.resp.end()
            return
        if self.resp.done:
            return
        if frame is None:
            self.resp.send(status, self.extra or {})
        else:
            self.resp.send(status, {**_JSON, **(self.extra or {})}, frame)


class _LegacySession:
    __slots__ = ("_ids", "down", "get_open", "last_seen", "replay", "standalone", "streams")

    def __init__(self, down: DownstreamSession, replay: _Replay) -> None:
        self.down = down
        self.last_seen = time.monotonic()
        self.get_open = False
        self._ids = itertools.count(1)
        self.replay = replay
        # The standalone stream's messages are kept even while no GET is open, for replay.
        self.standalone = _StreamLog("g", replay)
        self.streams = replay.streams
        self.streams["g"] = self.standalone
        down.send = self._standalone_send

    def _standalone_send(self, frame: bytes) -> None:
        self.standalone.add(frame)

    def new_stream(self) -> _StreamLog:
        log = _StreamLog(f"p{next(self._ids)}", self.replay)
        self.streams[log.name] = log
        while len(self.streams) > 64:  # the oldest finished streams go first
            oldest = next((k for k, v in self.streams.items() if v.done), None)
            if oldest is None:
                break
            del self.streams[oldest]
        return log


class HttpFront:
    def __init__(self, gateway: Gateway) -> None:
        self.gw = gateway
        cfg = gateway.config.http
        self.host = cfg.host
        self.port = cfg.port
        self.path = cfg.path
        self.allowed_hosts = {h.lower() for h in cfg.allowed_hosts}
        self.allowed_origins = {o.lower().rstrip("/") for o in cfg.allowed_origins}
        self.sessions: dict[str, _LegacySession] = {}
        self.max_sessions = cfg.max_sessions
        self.idle_ttl = cfg.session_idle_ttl
        self.replay_max_bytes = cfg.replay_max_bytes
        self.replay_max_age = cfg.replay_max_age
        self.stream_limits = (cfg.stream_max_buffer, cfg.stream_stall_timeout)
        self.reclaim_idle = cfg.client_reclaim_idle
        for up in (*gateway.upstreams.values(), *gateway.replicas.values()):
            if up.cfg.isolation == "per_client":
                up.reclaim = self._reclaim_client
        self.modern = DownstreamSession(shared=True)  # stateless requests share no state
        self.server = HttpServer(self.handle, Limits.from_config(cfg))
        self._sweeper: asyncio.Task[None] | None = None
        self._starting: asyncio.Task[None] | None = None
        self.url = ""

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        # Bind at once; requests that need the upstreams wait for their first connection.
        self._starting = asyncio.ensure_future(self.gw.start())
        self.port = await self.server.start(self.host, self.port)
        if self.host not in _LOOPBACK_NAMES and not self.allowed_hosts:
            log.warning(
                "serving on %s beyond loopback with no http.allowed_hosts: requests are accepted "
                "only with a loopback Host header; list the names clients use in allowed_hosts",
                self.host,
            )
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.url = f"http://{host}:{self.port}{self.path}"
        self._sweeper = asyncio.ensure_future(self._sweep())

    async def stop(self) -> None:
        if self._starting is not None:
            self._starting.cancel()
        if self._sweeper:
            self._sweeper.cancel()
        for s in list(self.sessions.values()):
            self._end_session(s)
        await self.server.stop()
        await self.gw.stop()

    async def _sweep(self) -> None:
        """End sessions idle (of requests) past the TTL; age out their kept events."""
        every = max(0.05, min(60.0, self.idle_ttl / 4, self.replay_max_age / 4))
        while True:
            await asyncio.sleep(every)
            now = time.monotonic()
            for sid, s in list(self.sessions.items()):
                if now - s.last_seen > self.idle_ttl and not s.down.inflight:
                    log.info(
                        "legacy session %s expired: no request for %.0f s",
                        sid[:8],
                        now - s.last_seen,
                    )
                    self._end_session(s)
                elif s.replay.order:
                    s.replay.trim(now)

    def _end_session(self, s: _LegacySession) -> None:
        s.replay.clear()  # its kept events are freed now, and its open streams end
        self.sessions.pop(s.down.id, None)
        s.down.send = None
        s.down.close()
        self.gw.end_session(s.down)

    def _new_session(self) -> DownstreamSession:
        if len(self.sessions) >= self.max_sessions:
            idlest = min(self.sessions.values(), key=lambda x: x.last_seen)
            log.warning(
                "%d legacy sessions (http.max_sessions): ended the idlest, %s (idle %.0f s)",
                len(self.sessions),
                idlest.down.id[:8],
                time.monotonic() - idlest.last_seen,
            )
            self._end_session(idlest)
        down = DownstreamSession()
        self.sessions[down.id] = _LegacySession(
            down, _Replay(self.replay_max_bytes, self.replay_max_age)
        )
        self.gw.sessions.add(down)
        return down

    def _reclaim_client(self, upstream: str, holders: Collection[str]) -> bool:
        """An upstream with `isolation: per_client` is at max_clients: end the idlest session
        holding one of its client sessions, if one has been abandoned (idle of requests for
        `client_reclaim_idle`, nothing in flight, no GET stream open). True if one was."""
        now = time.monotonic()
        best: _LegacySession | None = None
        for key in holders:
            s = self.sessions.get(key)
            if s is None or s.down.inflight or s.get_open or now - s.last_seen < self.reclaim_idle:
                continue
            if best is None or s.last_seen < best.last_seen:
                best = s
        if best is None:
            return False
        log.warning(
            "upstream %s is at max_clients: ended legacy session %s, idle for %.0f s, "
            "to serve a new client",
            upstream,
            best.down.id[:8],
            now - best.last_seen,
        )
        self._end_session(best)
        return True

    # ----------------------------------------------------------------- routing and checks

    async def handle(self, req: Request, resp: Responder) -> None:
        if req.path == self.path:
            if not self._origin_ok(req, resp):
                return
            if req.method == "POST":
                await self.post(req, resp)
            elif req.method == "GET":
                await self.get(req, resp)
            elif req.method == "DELETE":
                self.delete(req, resp)
            else:
                _text(resp, 405, "Method Not Allowed", {"Allow": "GET, POST, DELETE"})
        elif req.path == "/health" and req.method == "GET":
            if not self._origin_ok(req, resp):  # it names the upstreams: same checks as /mcp
                return
            ups = {n: u.state for n, u in self.gw.upstreams.items()}
            body: dict[str, Any] = {"status": "ok", "upstreams": ups}
            for addon in self.gw.hooks.addons:  # what addons report (circuits, the cache)
                if callable(report := getattr(addon, "health", None)):
                    body.update(report())
            resp.send(200, _JSON, orjson.dumps(body))
        else:
            _text(resp, 404, "Not Found")

    def _origin_ok(self, req: Request, resp: Responder) -> bool:
        host = _host_only(req.headers.get("host", "")).lower()
        if host not in _LOOPBACK_NAMES and host not in self.allowed_hosts and host != self.host:
            log.warning("rejected Host %r (DNS-rebinding defence)", host)
            _text(resp, 421, "Misdirected Request: Host not allowed")
            return False
        origin = req.headers.get("origin")
        if origin:
            o = origin.lower().rstrip("/")
            if o not in self.allowed_origins:
                h = urlsplit(o).hostname or ""
                ok = h in _LOOPBACK_NAMES
                if not ok:
                    with contextlib.suppress(ValueError):
                        ok = ipaddress.ip_address(h).is_loopback
                if not ok:
                    log.warning("rejected Origin %r", origin)
                    _text(resp, 403, "Forbidden: Origin not allowed")
                    return False
        return True

    # ----------------------------------------------------------------- POST

    async def post(self, req: Request, resp: Responder) -> None:
        ctype = req.headers.get("content-type", "")
        if ctype != "application/json" and (
            ctype.partition(";")[0].strip().lower() != "application/json"
        ):
            # A browser may send text/plain (or no type) cross-site without a preflight.
            log.warning("rejected a POST with Content-Type %r", ctype)
            _error(
                resp,
                None,
                rpc.INVALID_REQUEST,
                "Unsupported Media Type: Content-Type must be application/json",
                415,
            )
            return
        accept = req.headers.get("accept", "")
        if "application/json" not in accept and "*/*" not in accept:
            _error(
                resp,
                None,
                rpc.INVALID_REQUEST,
                "Not Acceptable: Accept must list application/json and text/event-stream",
                406,
            )
            return
        try:
            msg = parse_frame(req.body)
        except BadFrame as e:
            resp.send(400, _JSON, e.frame())
            return
        params = msg.get("params") or {}
        meta = params.get("_meta") if isinstance(params, dict) else None
        header_version = req.headers.get("mcp-protocol-version")
        is_modern = isinstance(meta, dict) and META_PROTOCOL_VERSION in meta
        if is_modern or (header_version == MODERN_VERSION and "mcp-session-id" not in req.headers):
            await self._post_modern(req, resp, msg, header_version)
        else:
            await self._post_legacy(req, resp, msg, header_version)

    async def _post_modern(
        self, req: Request, resp: Responder, msg: dict[str, Any], header_version: str | None
    ) -> None:
        rid = msg.get("id")
        if "method" not in msg:
            _error(
                resp, rid, rpc.INVALID_REQUEST, "a 2026-07-28 client must not POST responses", 400
            )
            return
        params = msg.get("params") or {}
        meta = params.get("_meta") or {}
        version = meta.get(META_PROTOCOL_VERSION)
        if version is None:
            _error(
                resp, rid, rpc.INVALID_PARAMS, f"_meta is missing {META_PROTOCOL_VERSION!r}", 400
            )
            return
        if header_version is not None and header_version != version:
            _error(
                resp,
                rid,
                rpc.HEADER_MISMATCH,
                f"MCP-Protocol-Version header {header_version!r} does not match "
                f"_meta protocolVersion {version!r}",
                400,
            )
            return
        if version == MODERN_VERSION:
            mismatch = self._header_mismatch(req, msg, header_version)
            if mismatch:
                _error(resp, rid, rpc.HEADER_MISMATCH, mismatch, 400)
                return
        if "id" not in msg:
            if msg["method"] != "notifications/cancelled":
                await self.gw.dispatcher.notification(self.modern, msg)
            resp.send(202, {})
            return
        await self._answer(req, resp, self.modern, msg, cancel_on_disconnect=True)

    def _header_mismatch(
        self, req: Request, msg: dict[str, Any], header_version: str | None
    ) -> str | None:
        if header_version is None:
            return "missing MCP-Protocol-Version header"
        hm = req.headers.get("mcp-method")
        if hm is None:
            return "missing Mcp-Method header"
        if hm != msg["method"]:
            return f"Mcp-Method header {hm!r} does not match method {msg['method']!r}"
        if msg["method"] in _NAMED:
            params = msg.get("params") or {}
            want = params.get("uri") if msg["method"] == "resources/read" else params.get("name")
            hn = req.headers.get("mcp-name")
            if hn is None:
                return "missing Mcp-Name header"
            if decode_value(hn) != want:
                return f"Mcp-Name header does not match {want!r}"
            if msg["method"] == "tools/call":
                return self._param_headers_mismatch(req, params)
        return None

    def _param_headers_mismatch(self, req: Request, params: dict[str, Any]) -> str | None:
        """`Mcp-Param-*` headers must mirror the arguments the tool's schema marks for them."""
        name = params.get("name")
        hmap = self.gw.catalog.header_maps.get(name) if isinstance(name, str) else None
        if not hmap:
            return None
        args = params.get("arguments") or {}
        if not isinstance(args, dict):
            return None
        for path, token in hmap.items():
            header = f"Mcp-Param-{token}"
            expected = param_headers({path: token}, args).get(header)
            if expected is None:
                continue
            got = req.headers.get(header.lower())
            if got is None:
                return f"missing {header} header"
            decoded = decode_value(got)
            if decoded is None:
                return f"{header} header is not valid"
            if decoded != decode_value(expected):
                return f"{header} header does not match argument {'.'.join(path)!r}"
        return None

    async def _post_legacy(
        self, req: Request, resp: Responder, msg: dict[str, Any], header_version: str | None
    ) -> None:
        rid = msg.get("id")
        method = msg.get("method")
        sid = req.headers.get("mcp-session-id")
        if method == "initialize" and "id" in msg:
            if sid and sid in self.sessions:
                _error(resp, rid, rpc.INVALID_REQUEST, "session already initialized", 400)
                return
            down = self._new_session()
            await self._answer(
                req, resp, down, msg, cancel_on_disconnect=False, extra={"Mcp-Session-Id": down.id}
            )
            return
        if not sid:
            _error(
                resp,
                rid,
                rpc.INVALID_REQUEST,
                "Bad Request: missing Mcp-Session-Id header (initialize first)",
                400,
            )
            return
        found = self.sessions.get(sid)
        if found is None:
            _error(resp, rid, rpc.INVALID_REQUEST, "Session not found", 404)
            return
        if header_version is not None and header_version not in LEGACY_VERSIONS:
            _error(
                resp,
                rid,
                rpc.INVALID_REQUEST,
                f"Unsupported MCP-Protocol-Version: {header_version}",
                400,
            )
            return
        found.last_seen = time.monotonic()
        if "method" not in msg:
            found.down.answer(msg)
            resp.send(202, {})
            return
        if "id" not in msg:
            await self.gw.dispatcher.notification(found.down, msg)
            resp.send(202, {})
            return
        await self._answer(req, resp, found.down, msg, cancel_on_disconnect=False)

    async def _answer(
        self,
        req: Request,
        resp: Responder,
        down: DownstreamSession,
        msg: dict[str, Any],
        cancel_on_disconnect: bool,
        extra: dict[str, str] | None = None,
    ) -> None:
        """Run the request in this task; side traffic turns the answer into an SSE stream."""
        rid = msg["id"]
        task = asyncio.current_task()
        assert task is not None
        legacy = self.sessions.get(down.id)
        out = _Answer(resp, extra, legacy, self.stream_limits)
        if cancel_on_disconnect:
            req.on_disconnect = task.cancel  # modern: closing the stream is the cancellation
        else:
            down.inflight[rid] = task  # legacy: notifications/cancelled cancels it
            req.on_disconnect = lambda: log.info(
                "client went away during request %r; it runs on", rid
            )
        try:
            frame, status = await self.gw.dispatcher.handle(down, msg, out.send)
        except asyncio.CancelledError:
            if req.disconnected.done():
                log.info("client closed the stream of request %r: cancelled", rid)
                raise
            task.uncancel()  # cancelled by the client's notifications/cancelled: no answer
            out.finish(None, 204)
            return
        except Exception as e:
            log.exception("internal error handling %s", msg.get("method"))
            frame = rpc.encode_error(rid, rpc.INTERNAL_ERROR, f"internal error: {e}")
            status = 500
        finally:
            req.on_disconnect = None
            if not cancel_on_disconnect:
                down.inflight.pop(rid, None)
            if legacy is not None:
                legacy.last_seen = time.monotonic()  # idle counts from a request's end
        out.finish(frame, status)

    # ----------------------------------------------------------------- GET / DELETE

    async def get(self, req: Request, resp: Responder) -> None:
        sid = req.headers.get("mcp-session-id")
        if not sid:
            # Modern clients have no GET stream; without a session there is nothing to open.
            _text(resp, 405, "Method Not Allowed", {"Allow": "POST"})
            return
        if "text/event-stream" not in req.headers.get("accept", ""):
            _text(resp, 406, "Not Acceptable: Accept must list text/event-stream")
            return
        s = self.sessions.get(sid)
        if s is None:
            _error(resp, None, rpc.INVALID_REQUEST, "Session not found", 404)
            return
        s.last_seen = time.monotonic()  # opening a stream is a request; keeping it open is not
        last = req.headers.get("last-event-id")
        log = s.standalone
        after = None
        if last:
            name, _, seq = last.rpartition(".")
            found = s.streams.get(name)
            if found is not None and seq.isdigit():
                log, after = found, int(seq)
        if log is s.standalone:
            if s.get_open:
                _error(
                    resp, None, rpc.INVALID_REQUEST, "Conflict: a standalone stream is open", 409
                )
                return
            s.get_open = True
        await self._follow(req, resp, s, log, after)

    async def _follow(
        self,
        req: Request,
        resp: Responder,
        s: _LegacySession,
        stream: _StreamLog,
        after: int | None,
    ) -> None:
        """Stream `stream`: what the client missed after `after` (a resumption), then what comes.

        Writing waits while the client does not read; the stream is dropped (with a log line)
        when it stays behind for `stream_stall_timeout` or more than `stream_max_buffer` bytes
        wait for it. What it missed stays in the replay, within its bounds."""
        max_buffer, stall = self.stream_limits
        sent = stream.seq if after is None else after
        # What is kept now is replayed; what comes from now on goes to the follower.
        missed = [e for e in stream.events if e[0] > sent] if after is not None else []
        follower = _Follower(
            max_buffer,
            max(sent, stream.seq),
            lambda: resp.abort("a GET stream's client stopped reading (http.stream_max_buffer)"),
        )
        stream.follower = follower
        try:
            resp.start_now(200, _SSE)
            await self._stream_write(resp, b": stream open\n\n", stall)
            for seq, frame in missed:
                await self._stream_write(resp, sse_event(f"{stream.name}.{seq}", frame), stall)
                sent = seq
            while not s.down.closed and not req.disconnected.done():
                if follower.over:
                    raise _StreamBehind(f"more than {max_buffer} bytes waiting")
                if follower.pending:
                    seq, frame = follower.pending.popleft()
                    follower.size -= len(frame)
                    if seq > sent:
                        await self._stream_write(
                            resp, sse_event(f"{stream.name}.{seq}", frame), stall
                        )
                        sent = seq
                    continue
                if stream.done:
                    return  # the request's answer has been sent: that stream is complete
                follower.wake.clear()
                try:
                    await asyncio.wait_for(follower.wake.wait(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    await self._stream_write(resp, b": keep-alive\n\n", stall)
        except (ConnectionResetError, _StreamBehind) as e:
            if isinstance(e, _StreamBehind) or follower.over:
                log.warning(
                    "dropped the SSE stream %s of legacy session %s: its client is behind (%s); "
                    "it may resume with Last-Event-ID",
                    stream.name,
                    s.down.id[:8],
                    e if isinstance(e, _StreamBehind) else f"more than {max_buffer} bytes waiting",
                )
                resp.abort("its client is behind on a GET stream")
        finally:
            if stream.follower is follower:
                stream.follower = None
            if stream is s.standalone:
                s.get_open = False
            resp.end()

    @staticmethod
    async def _stream_write(resp: Responder, data: bytes, stall: float) -> None:
        try:
            async with asyncio.timeout(stall):
                await resp.write(data)
        except TimeoutError:
            raise _StreamBehind(f"it read nothing for {stall:g} s") from None

    def delete(self, req: Request, resp: Responder) -> None:
        sid = req.headers.get("mcp-session-id")
        if not sid:
            _text(resp, 405, "Method Not Allowed", {"Allow": "POST"})
            return
        s = self.sessions.get(sid)
        if s is None:
            _text(resp, 404, "Session not found")
            return
        self._end_session(s)
        resp.send(200, {})
