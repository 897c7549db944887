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
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson

from manifold.downstream.frames import BadFrame, parse_frame
from manifold.downstream.httpserver import HttpServer, Limits, Request, Responder
from manifold.downstream.session import DownstreamSession
from manifold.gateway import Gateway
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import LEGACY_VERSIONS, META_PROTOCOL_VERSION, MODERN_VERSION
from manifold.protocol.headers import decode_value, param_headers
from manifold.state import EventLog, Replays, SessionRecord, SessionReplay, SessionTable

if TYPE_CHECKING:
    from manifold.identity.authn import Authenticator, Identity
    from manifold.identity.refusals import RefusalLog

log = logging.getLogger("manifold.http")

_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}
_MAX_HOSTS_OK = 64  # accepted Host values remembered (a port may differ per client)
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


class _Answer:
    """One request's answer: JSON, unless a frame is sent first, then an SSE stream.

    Writes are synchronous (the transport buffers), so a side message never waits; but a
    stream whose client reads nothing is dropped once it is too far behind (`stream_max_buffer`
    bytes unsent, or behind for `stream_stall_timeout` seconds). On a legacy session the
    stream's events are also kept (an `EventLog` of the session's replay, created with the
    first streamed event, so a plain-JSON answer costs nothing), and a client whose connection
    dropped, or was dropped, can resume it.
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
        self.log: EventLog | None = None
        self.streaming = False
        self.dropped = False
        self.behind = 0.0

    def _write(self, frame: bytes) -> None:
        legacy, stream = self.legacy, self.log
        eid = legacy.append(stream, frame) if stream is not None and legacy is not None else "0"
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
            if self.log is not None and self.legacy is not None:
                self.legacy.close_stream(self.log)
            if not self.resp.done:
                self.resp.end()
            return
        if self.resp.done:
            return
        if frame is None:
            self.resp.send(status, self.extra or {})
        else:
            self.resp.send(status, {**_JSON, **self.extra} if self.extra else _JSON, frame)


class _LegacySession(SessionRecord):
    """A legacy session as the front holds it: its record (what the session table keeps), and
    what is live on this process (the downstream session, its GET stream, its followers)."""

    __slots__ = ("_ids", "down", "followers", "get_open", "owner", "replay", "standalone")

    def __init__(self, down: DownstreamSession, replay: SessionReplay, owner: str = "") -> None:
        super().__init__(down.id)
        self.down = down
        self.owner = owner  # who authenticated its initialize: only they may use it
        self.get_open = False
        self._ids = itertools.count(1)
        self.replay = replay
        # A GET stream that waits for what its stream log gets next, by stream name.
        self.followers: dict[str, _Follower] = {}
        # The standalone stream's messages are kept even while no GET is open, for replay.
        self.standalone = replay.open("g")
        down.send = self._standalone_send

    def _standalone_send(self, frame: bytes) -> None:
        self.append(self.standalone, frame)

    def new_stream(self) -> EventLog:
        return self.replay.open(f"p{next(self._ids)}")

    def append(self, log: EventLog, frame: bytes) -> str:
        """Keep `frame` in `log` and hand it to the stream's follower; its event id."""
        seq = log.append(frame)
        if self.followers:
            follower = self.followers.get(log.name)
            if follower is not None:
                follower.push(seq, frame)
        return f"{log.name}.{seq}"

    def close_stream(self, log: EventLog) -> None:
        log.close()
        follower = self.followers.get(log.name)
        if follower is not None:
            follower.wake.set()

    def clear(self) -> None:
        self.replay.clear()  # its kept events are freed now, and its streams are closed
        for follower in self.followers.values():
            follower.wake.set()


def _busy(s: _LegacySession) -> bool:
    return bool(s.down.inflight)  # a request in flight keeps its session


class HttpFront:
    def __init__(self, gateway: Gateway) -> None:
        self.gw = gateway
        cfg = gateway.config.http
        self.host = cfg.host
        self.port = cfg.port
        self.path = cfg.path
        self.allowed_hosts = {h.lower() for h in cfg.allowed_hosts}
        self.allowed_origins = {o.lower().rstrip("/") for o in cfg.allowed_origins}
        # Host header values already accepted, as received (checked once, then looked up).
        self._hosts_ok: set[bytes] = set()
        # Legacy sessions and their kept events, in the stores the state backend provides.
        self.sessions: SessionTable[_LegacySession] = gateway.state.sessions
        self.replays: Replays = gateway.state.replays
        self.idle_ttl = self.sessions.idle_ttl
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
        self.loop: asyncio.AbstractEventLoop | None = None
        self.url = ""
        # Inbound authentication (identity/authn.py), only when configured: without it the
        # front costs one attribute check per request more.
        self.auth: Authenticator | None = None
        self.auth_paths: tuple[str, ...] = ()
        self.refusals: RefusalLog | None = None  # the refused requests' log lines, rate-limited

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        auth = self.gw.config.auth
        if auth.enabled:  # before binding: no request is ever served unauthenticated
            from manifold.identity.authn import Authenticator
            from manifold.identity.refusals import RefusalLog

            self.auth = Authenticator(auth, "")
            self.refusals = RefusalLog(log, auth.refusal_log_interval, auth.refusal_log_max_keys)
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
        if self.auth is not None:
            self.auth.set_resource(self.url)  # until now no token's audience could match
            self.auth_paths = self.auth.metadata_paths()
        self._sweeper = asyncio.ensure_future(self._sweep())

    async def stop(self) -> None:
        if self._starting is not None:
            self._starting.cancel()
        if self._sweeper:
            self._sweeper.cancel()
        for s in self.sessions:
            self._end_session(s)
        if self.refusals is not None:
            self.refusals.close()  # the last interval's summary, if any
        await self.server.stop()
        await self.gw.stop()

    async def _sweep(self) -> None:
        """End sessions idle (of requests) past the TTL; age out their kept events."""
        every = max(0.05, min(60.0, self.idle_ttl / 4, self.replay_max_age / 4))
        while True:
            await asyncio.sleep(every)
            now = time.monotonic()
            for s in self.sessions.evict(now, _busy):
                log.info(
                    "legacy session %s expired: no request for %.0f s",
                    s.id[:8],
                    now - s.last_seen,
                )
                self._end_session(s)
            for s in self.sessions:
                s.replay.evict(now)

    def _end_session(self, s: _LegacySession) -> None:
        s.clear()  # its kept events are freed now, and its open streams end
        self.sessions.delete(s.id)
        s.down.send = None
        s.down.close()
        self.gw.end_session(s.down)

    def _new_session(self, who: Identity | None = None) -> _LegacySession:
        down = DownstreamSession()
        if who is not None:
            down.principal = who.tenant
        now = time.monotonic()
        session = _LegacySession(down, self.replays.open(down.id), who.key if who else "")
        idlest = self.sessions.create(session, now)
        if idlest is not None:
            log.warning(
                "%d legacy sessions (http.max_sessions): ended the idlest, %s (idle %.0f s)",
                self.sessions.max_sessions,
                idlest.id[:8],
                now - idlest.last_seen,
            )
            self._end_session(idlest)
        self.gw.sessions.add(down)
        return session

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
            who = None
            if self.auth is not None:
                who = await self._authenticate(req, resp)
                if who is None:
                    return
            if req.method == "POST":
                await self.post(req, resp, who)
            elif req.method == "GET":
                await self.get(req, resp, who)
            elif req.method == "DELETE":
                self.delete(req, resp, who)
            else:
                _text(resp, 405, "Method Not Allowed", {"Allow": "GET, POST, DELETE"})
        elif req.path in self.auth_paths and req.method == "GET" and self.auth is not None:
            if not self._origin_ok(req, resp):
                return
            resp.send(
                200, {**_JSON, "Cache-Control": "max-age=3600"}, orjson.dumps(self.auth.metadata())
            )
        elif req.path == "/health" and req.method == "GET":
            if not self._origin_ok(req, resp):  # it names the upstreams: same checks as /mcp
                return
            if self.auth is not None and not await self._health_caller(req):
                # A load balancer's probe needs no token; the upstreams' names need one.
                resp.send(200, _JSON, b'{"status":"ok"}')
                return
            ups = {n: u.state for n, u in self.gw.upstreams.items()}
            body: dict[str, Any] = {"status": "ok", "upstreams": ups}
            for addon in self.gw.hooks.addons:  # what addons report (circuits, the cache)
                if callable(report := getattr(addon, "health", None)):
                    body.update(report())
            resp.send(200, _JSON, orjson.dumps(body))
        else:
            _text(resp, 404, "Not Found")

    async def _authenticate(self, req: Request, resp: Responder) -> Identity | None:
        """The request's identity, or None when it was refused (401/403/400, answered here)."""
        assert self.auth is not None
        try:
            return await self.auth.authenticate(
                # With an upstream configured for RFC 8693 token exchange, the identity keeps
                # the client's validated token (in memory only) for the credentials layer.
                req.headers.get("authorization"),
                req.query,
                self.gw.keep_client_tokens,
            )
        except Exception as exc:
            from manifold.identity.authn import AuthError

            if not isinstance(exc, AuthError):
                raise
            e = exc
            assert self.refusals is not None
            source = resp.peer_host()
            self.refusals.refused(
                f"{e.status} {e.error}",  # the kind (a fixed few), not the attacker's text
                source,
                "refused %s %s from %s: %s (%d)",
                req.method,
                req.path,
                source,
                e.description,
                e.status,
            )
            reason = "forbidden" if e.status == 403 else "unauthorized"
            resp.send(
                e.status,
                {**_JSON, "WWW-Authenticate": self.auth.challenge(e)},
                rpc.encode_error(
                    None,
                    rpc.INVALID_REQUEST,
                    e.description,
                    {"reason": reason, "error": e.error or "invalid_request"},
                ),
            )
            return None

    async def _health_caller(self, req: Request) -> bool:
        """Whether a /health request carries credentials that would be let into /mcp."""
        from manifold.identity.authn import AuthError

        assert self.auth is not None
        if req.headers.get("authorization") is None:
            return False
        try:
            await self.auth.authenticate(req.headers.get("authorization"), req.query)
        except AuthError:
            return False
        return True

    @staticmethod
    def _not_yours(s: _LegacySession | None, who: Identity | None) -> bool:
        """A session that is not there, or was opened by someone else (both look the same)."""
        return s is None or s.owner != (who.key if who is not None else "")

    def _origin_ok(self, req: Request, resp: Responder) -> bool:
        headers = req.headers
        raw_host = headers.raw(b"host")
        if raw_host is None or raw_host not in self._hosts_ok:
            host = _host_only(headers.get("host", "")).lower()
            if host not in _LOOPBACK_NAMES and host not in self.allowed_hosts and host != self.host:
                log.warning("rejected Host %r (DNS-rebinding defence)", host)
                _text(resp, 421, "Misdirected Request: Host not allowed")
                return False
            if raw_host is not None and len(self._hosts_ok) < _MAX_HOSTS_OK:
                self._hosts_ok.add(raw_host)
        origin = headers.get("origin") if headers.raw(b"origin") is not None else None
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

    async def post(self, req: Request, resp: Responder, who: Identity | None = None) -> None:
        headers = req.headers
        ctype = headers.raw(b"content-type")
        if ctype != b"application/json" and (
            (headers.get("content-type") or "").partition(";")[0].strip().lower()
            != "application/json"
        ):
            ctype_text = headers.get("content-type", "")
            # A browser may send text/plain (or no type) cross-site without a preflight.
            log.warning("rejected a POST with Content-Type %r", ctype_text)
            _error(
                resp,
                None,
                rpc.INVALID_REQUEST,
                "Unsupported Media Type: Content-Type must be application/json",
                415,
            )
            return
        accept = headers.raw(b"accept") or b""
        # (bytes.find: `in` on bytes first tries the needle as an int, raising inside)
        if accept.find(b"application/json") < 0 and accept.find(b"*/*") < 0:
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
        header_version = headers.get("mcp-protocol-version")
        is_modern = isinstance(meta, dict) and META_PROTOCOL_VERSION in meta
        if is_modern or (header_version == MODERN_VERSION and "mcp-session-id" not in headers):
            await self._post_modern(req, resp, msg, header_version, who)
        else:
            await self._post_legacy(req, resp, msg, header_version, who)

    async def _post_modern(
        self,
        req: Request,
        resp: Responder,
        msg: dict[str, Any],
        header_version: str | None,
        who: Identity | None = None,
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
        await self._answer(req, resp, self.modern, msg, cancel_on_disconnect=True, who=who)

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
        self,
        req: Request,
        resp: Responder,
        msg: dict[str, Any],
        header_version: str | None,
        who: Identity | None = None,
    ) -> None:
        rid = msg.get("id")
        method = msg.get("method")
        sid = req.headers.get("mcp-session-id")
        if method == "initialize" and "id" in msg:
            if sid and self.sessions.get(sid) is not None:
                _error(resp, rid, rpc.INVALID_REQUEST, "session already initialized", 400)
                return
            new = self._new_session(who)
            await self._answer(
                req,
                resp,
                new.down,
                msg,
                cancel_on_disconnect=False,
                extra={"Mcp-Session-Id": new.id},
                legacy=new,
                who=who,
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
        if found is None or (who is not None and self._not_yours(found, who)):
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
        self.sessions.touch(found, time.monotonic())
        if "method" not in msg:
            found.down.answer(msg)
            resp.send(202, {})
            return
        if "id" not in msg:
            await self.gw.dispatcher.notification(found.down, msg)
            resp.send(202, {})
            return
        await self._answer(
            req, resp, found.down, msg, cancel_on_disconnect=False, legacy=found, who=who
        )

    async def _answer(
        self,
        req: Request,
        resp: Responder,
        down: DownstreamSession,
        msg: dict[str, Any],
        cancel_on_disconnect: bool,
        extra: dict[str, str] | None = None,
        legacy: _LegacySession | None = None,
        who: Identity | None = None,
    ) -> None:
        """Run the request in this task; side traffic turns the answer into an SSE stream (kept
        for resumption in `legacy`'s replay, for a request of a legacy session)."""
        rid = msg["id"]
        task = asyncio.current_task(self.loop)  # given the loop: no lookup of the running one
        assert task is not None
        out = _Answer(resp, extra, legacy, self.stream_limits)
        if cancel_on_disconnect:
            req.on_disconnect = task.cancel  # modern: closing the stream is the cancellation
        else:
            down.inflight[rid] = task  # legacy: notifications/cancelled cancels it
            req.on_disconnect = lambda: log.info(
                "client went away during request %r; it runs on", rid
            )
        try:
            if who is None:
                frame, status = await self.gw.dispatcher.handle(down, msg, out.send)
            else:
                frame, status = await self.gw.dispatcher.handle(
                    down,
                    msg,
                    out.send,
                    down.principal if legacy else who.tenant,
                    who.subject,
                    who.token,
                )
        except asyncio.CancelledError:
            if req.gone:
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
                self.sessions.touch(legacy, time.monotonic())  # idle counts from a request's end
        out.finish(frame, status)

    # ----------------------------------------------------------------- GET / DELETE

    async def get(self, req: Request, resp: Responder, who: Identity | None = None) -> None:
        sid = req.headers.get("mcp-session-id")
        if not sid:
            # Modern clients have no GET stream; without a session there is nothing to open.
            _text(resp, 405, "Method Not Allowed", {"Allow": "POST"})
            return
        if "text/event-stream" not in req.headers.get("accept", ""):
            _text(resp, 406, "Not Acceptable: Accept must list text/event-stream")
            return
        s = self.sessions.get(sid)
        if s is None or (who is not None and self._not_yours(s, who)):
            _error(resp, None, rpc.INVALID_REQUEST, "Session not found", 404)
            return
        self.sessions.touch(s, time.monotonic())  # opening a stream is a request, not keeping it
        last = req.headers.get("last-event-id")
        log = s.standalone
        after = None
        if last:
            name, _, seq = last.rpartition(".")
            found = s.replay.get(name)
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
        stream: EventLog,
        after: int | None,
    ) -> None:
        """Stream `stream`: what the client missed after `after` (a resumption), then what comes.

        Writing waits while the client does not read; the stream is dropped (with a log line)
        when it stays behind for `stream_stall_timeout` or more than `stream_max_buffer` bytes
        wait for it. What it missed stays in the replay, within its bounds."""
        max_buffer, stall = self.stream_limits
        sent = stream.seq if after is None else after
        # What is kept now is replayed; what comes from now on goes to the follower.
        missed = stream.after(sent) if after is not None else []
        follower = _Follower(
            max_buffer,
            max(sent, stream.seq),
            lambda: resp.abort("a GET stream's client stopped reading (http.stream_max_buffer)"),
        )
        s.followers[stream.name] = follower
        try:
            resp.start_now(200, _SSE)
            await self._stream_write(resp, b": stream open\n\n", stall)
            for seq, frame in missed:
                await self._stream_write(resp, sse_event(f"{stream.name}.{seq}", frame), stall)
                sent = seq
            while not s.down.closed and not req.gone:
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
            if s.followers.get(stream.name) is follower:
                del s.followers[stream.name]
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

    def delete(self, req: Request, resp: Responder, who: Identity | None = None) -> None:
        sid = req.headers.get("mcp-session-id")
        if not sid:
            _text(resp, 405, "Method Not Allowed", {"Allow": "POST"})
            return
        s = self.sessions.get(sid)
        if s is None or (who is not None and self._not_yours(s, who)):
            _text(resp, 404, "Session not found")
            return
        self._end_session(s)
        resp.send(200, {})
