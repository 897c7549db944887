"""The Streamable HTTP front end: one path (`/mcp`), both protocol eras.

A POST whose request carries modern `_meta` is served statelessly (its headers checked against
the body); anything else follows the legacy session rules (`initialize` mints an
`Mcp-Session-Id`, later requests must carry it, GET opens the standalone stream, DELETE ends
the session). A request's answer is plain JSON unless something is sent before it (progress,
a log message, a server-to-client request), in which case the answer becomes an SSE stream.
Host and Origin are checked on every request (DNS-rebinding defence) and the server binds to
loopback unless told otherwise. aiohttp carries the bytes (see docs/architecture.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import logging
import time
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from manifold.downstream.frames import MAX_FRAME, BadFrame, parse_frame
from manifold.downstream.session import DownstreamSession
from manifold.gateway import Gateway
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import LEGACY_VERSIONS, META_PROTOCOL_VERSION, MODERN_VERSION
from manifold.protocol.headers import decode_value, param_headers

log = logging.getLogger("manifold.http")

_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}
_NAMED = ("tools/call", "resources/read", "prompts/get")
SESSION_IDLE_SECONDS = 3600.0
KEEPALIVE_SECONDS = 15.0
_FINAL = object()


def _host_only(host: str) -> str:
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _error_response(
    rid: Any, code: int, message: str, status: int, data: Any = None
) -> web.Response:
    return web.Response(
        body=rpc.encode_error(rid, code, message, data),
        status=status,
        content_type="application/json",
    )


class _Stream:
    """Frames a request produces before (and including) its answer."""

    __slots__ = ("queue",)

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Any] = asyncio.Queue()

    def send(self, frame: bytes) -> None:
        self.queue.put_nowait(frame)


class _LegacySession:
    __slots__ = ("down", "get_open", "last_seen")

    def __init__(self, down: DownstreamSession) -> None:
        self.down = down
        self.last_seen = time.monotonic()
        self.get_open = False


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
        self.modern = DownstreamSession()  # stateless requests share no state; this is a shell
        self._runner: web.AppRunner | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._starting: asyncio.Task[None] | None = None
        self._event_ids = itertools.count(1)
        self.url = ""

    # ----------------------------------------------------------------- lifecycle

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_FRAME)
        app.router.add_post(self.path, self.post)
        app.router.add_get(self.path, self.get)
        app.router.add_delete(self.path, self.delete)
        app.router.add_get("/health", self.health)
        return app

    async def start(self) -> None:
        # Bind at once; requests that need the upstreams wait for their first connection.
        self._starting = asyncio.ensure_future(self.gw.start())
        self._runner = web.AppRunner(self.app(), handler_cancellation=True, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True)
        await site.start()
        server: Any = site._server
        if self.port == 0 and server is not None and server.sockets:
            self.port = server.sockets[0].getsockname()[1]
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
        if self._runner is not None:
            await self._runner.cleanup()
        await self.gw.stop()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(60)
            now = time.monotonic()
            for sid, s in list(self.sessions.items()):
                if now - s.last_seen > SESSION_IDLE_SECONDS and not s.get_open:
                    log.info("legacy session %s expired", sid[:8])
                    self._end_session(s)

    def _end_session(self, s: _LegacySession) -> None:
        self.sessions.pop(s.down.id, None)
        s.down.close()
        self.gw.sessions.discard(s.down)

    # ----------------------------------------------------------------- checks

    def _check_origin(self, request: web.Request) -> web.Response | None:
        host = _host_only(request.headers.get("Host", "")).lower()
        if host not in _LOOPBACK_NAMES and host not in self.allowed_hosts and host != self.host:
            log.warning("rejected Host %r (DNS-rebinding defence)", host)
            return web.Response(status=421, text="Misdirected Request: Host not allowed")
        origin = request.headers.get("Origin")
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
                    return web.Response(status=403, text="Forbidden: Origin not allowed")
        return None

    # ----------------------------------------------------------------- handlers

    async def health(self, request: web.Request) -> web.Response:
        ups = {n: u.state for n, u in self.gw.upstreams.items()}
        return web.json_response({"status": "ok", "upstreams": ups})

    async def post(self, request: web.Request) -> web.StreamResponse:
        bad = self._check_origin(request)
        if bad is not None:
            return bad
        accept = request.headers.get("Accept", "")
        if "application/json" not in accept and "*/*" not in accept:
            return _error_response(
                None,
                rpc.INVALID_REQUEST,
                "Not Acceptable: Accept must list application/json and text/event-stream",
                406,
            )
        if request.content_length is not None and request.content_length > MAX_FRAME:
            return _error_response(
                None, rpc.INVALID_REQUEST, f"message too large (limit {MAX_FRAME} bytes)", 413
            )
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return _error_response(
                None, rpc.INVALID_REQUEST, f"message too large (limit {MAX_FRAME} bytes)", 413
            )
        try:
            msg = parse_frame(body)
        except BadFrame as e:
            return web.Response(body=e.frame(), status=400, content_type="application/json")
        params = msg.get("params") or {}
        meta = params.get("_meta") if isinstance(params, dict) else None
        header_version = request.headers.get("MCP-Protocol-Version")
        is_modern = isinstance(meta, dict) and META_PROTOCOL_VERSION in meta
        if is_modern or (
            header_version == MODERN_VERSION and "Mcp-Session-Id" not in request.headers
        ):
            return await self._post_modern(request, msg, header_version)
        return await self._post_legacy(request, msg, header_version)

    async def _post_modern(
        self, request: web.Request, msg: dict[str, Any], header_version: str | None
    ) -> web.StreamResponse:
        if "method" not in msg:
            return _error_response(
                msg.get("id"),
                rpc.INVALID_REQUEST,
                "a 2026-07-28 client must not POST responses",
                400,
            )
        rid = msg.get("id")
        params = msg.get("params") or {}
        meta = params.get("_meta") or {}
        version = meta.get(META_PROTOCOL_VERSION)
        if version is None:
            return _error_response(
                rid, rpc.INVALID_PARAMS, f"_meta is missing {META_PROTOCOL_VERSION!r}", 400
            )
        method = msg["method"]
        if header_version is not None and header_version != version:
            return _error_response(
                rid,
                rpc.HEADER_MISMATCH,
                f"MCP-Protocol-Version header {header_version!r} does not match "
                f"_meta protocolVersion {version!r}",
                400,
            )
        if version == MODERN_VERSION:
            mismatch = self._header_mismatch(request, msg, header_version)
            if mismatch:
                return _error_response(rid, rpc.HEADER_MISMATCH, mismatch, 400)
        if "id" not in msg:
            if method == "notifications/cancelled":
                return web.Response(status=202)
            await self.gw.dispatcher.notification(self.modern, msg)
            return web.Response(status=202)
        return await self._answer(request, self.modern, msg, cancel_on_disconnect=True)

    def _header_mismatch(
        self, request: web.Request, msg: dict[str, Any], header_version: str | None
    ) -> str | None:
        if header_version is None:
            return "missing MCP-Protocol-Version header"
        if header_version != MODERN_VERSION:
            return f"MCP-Protocol-Version header {header_version!r} is not {MODERN_VERSION}"
        hm = request.headers.get("Mcp-Method")
        if hm is None:
            return "missing Mcp-Method header"
        if hm != msg["method"]:
            return f"Mcp-Method header {hm!r} does not match method {msg['method']!r}"
        if msg["method"] in _NAMED:
            params = msg.get("params") or {}
            want = params.get("uri") if msg["method"] == "resources/read" else params.get("name")
            hn = request.headers.get("Mcp-Name")
            if hn is None:
                return "missing Mcp-Name header"
            if decode_value(hn) != want:
                return f"Mcp-Name header does not match {want!r}"
            if msg["method"] == "tools/call":
                return self._param_headers_mismatch(request, params)
        return None

    def _param_headers_mismatch(self, request: web.Request, params: dict[str, Any]) -> str | None:
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
            got = request.headers.get(header)
            if expected is None:
                continue
            if got is None:
                return f"missing {header} header"
            decoded = decode_value(got)
            if decoded is None:
                return f"{header} header is not valid"
            if decoded != decode_value(expected):
                return f"{header} header does not match argument {'.'.join(path)!r}"
        return None

    async def _post_legacy(
        self, request: web.Request, msg: dict[str, Any], header_version: str | None
    ) -> web.StreamResponse:
        rid = msg.get("id")
        method = msg.get("method")
        sid = request.headers.get("Mcp-Session-Id")
        if method == "initialize" and "id" in msg:
            if sid and sid in self.sessions:
                return _error_response(rid, rpc.INVALID_REQUEST, "session already initialized", 400)
            down = DownstreamSession()
            s = _LegacySession(down)
            self.sessions[down.id] = s
            self.gw.sessions.add(down)
            resp = await self._answer(request, down, msg, cancel_on_disconnect=False)
            resp.headers["Mcp-Session-Id"] = down.id
            return resp
        if not sid:
            return _error_response(
                rid,
                rpc.INVALID_REQUEST,
                "Bad Request: missing Mcp-Session-Id header (initialize first)",
                400,
            )
        found = self.sessions.get(sid)
        if found is None:
            return _error_response(rid, rpc.INVALID_REQUEST, "Session not found", 404)
        s = found
        if header_version is not None and header_version not in LEGACY_VERSIONS:
            return _error_response(
                rid, rpc.INVALID_REQUEST, f"Unsupported MCP-Protocol-Version: {header_version}", 400
            )
        s.last_seen = time.monotonic()
        if "method" not in msg:
            s.down.answer(msg)
            return web.Response(status=202)
        if "id" not in msg:
            await self.gw.dispatcher.notification(s.down, msg)
            return web.Response(status=202)
        return await self._answer(request, s.down, msg, cancel_on_disconnect=False)

    async def _answer(
        self,
        request: web.Request,
        down: DownstreamSession,
        msg: dict[str, Any],
        cancel_on_disconnect: bool,
    ) -> web.StreamResponse:
        stream = _Stream()
        q = stream.queue

        async def run() -> None:
            try:
                frame, status = await self.gw.dispatcher.handle(down, msg, stream.send)
            except asyncio.CancelledError:
                q.put_nowait((_FINAL, None, 0))
                raise
            except Exception as e:
                log.exception("internal error handling %s", msg.get("method"))
                frame, status = (
                    rpc.encode_error(msg["id"], rpc.INTERNAL_ERROR, f"internal error: {e}"),
                    500,
                )
            q.put_nowait((_FINAL, frame, status))

        task = asyncio.ensure_future(run())
        legacy = not cancel_on_disconnect
        if legacy:
            down.inflight[msg["id"]] = task
            task.add_done_callback(lambda _t: down.inflight.pop(msg["id"], None))
        resp: web.StreamResponse | None = None
        try:
            while True:
                item = await q.get()
                if isinstance(item, tuple) and item[0] is _FINAL:
                    _, frame, status = item
                    if resp is None:
                        if frame is None:
                            return web.Response(status=204)
                        return web.Response(
                            body=frame, status=status, content_type="application/json"
                        )
                    if frame is not None:
                        await resp.write(self._event(frame))
                    await resp.write_eof()
                    return resp
                if resp is None:
                    resp = web.StreamResponse(
                        status=200,
                        headers={
                            "Content-Type": "text/event-stream",
                            "Cache-Control": "no-cache",
                            "X-Accel-Buffering": "no",
                        },
                    )
                    if msg.get("method") == "initialize":
                        resp.headers["Mcp-Session-Id"] = down.id
                    await resp.prepare(request)
                await resp.write(self._event(item))
        except (asyncio.CancelledError, ConnectionResetError):
            if cancel_on_disconnect:
                task.cancel()  # modern: closing the stream is the cancellation
            raise

    def _event(self, frame: bytes) -> bytes:
        return (
            b"id: "
            + str(next(self._event_ids)).encode()
            + b"\nevent: message\ndata: "
            + frame
            + b"\n\n"
        )

    async def get(self, request: web.Request) -> web.StreamResponse:
        bad = self._check_origin(request)
        if bad is not None:
            return bad
        sid = request.headers.get("Mcp-Session-Id")
        if not sid:
            # Modern clients have no GET stream; without a session there is nothing to open.
            return web.Response(status=405, headers={"Allow": "POST"}, text="Method Not Allowed")
        if "text/event-stream" not in request.headers.get("Accept", ""):
            return web.Response(
                status=406, text="Not Acceptable: Accept must list text/event-stream"
            )
        found = self.sessions.get(sid or "")
        if found is None:
            return _error_response(None, rpc.INVALID_REQUEST, "Session not found", 404)
        s = found
        if s.get_open:
            return _error_response(
                None, rpc.INVALID_REQUEST, "Conflict: a standalone stream is already open", 409
            )
        resp = web.StreamResponse(
            status=200,
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
            },
        )
        await resp.prepare(request)
        stream = _Stream()
        s.get_open = True
        s.down.send = stream.send
        try:
            await resp.write(b": stream open\n\n")
            while not s.down.closed:
                try:
                    frame = await asyncio.wait_for(stream.queue.get(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    await resp.write(b": keep-alive\n\n")
                    continue
                await resp.write(self._event(frame))
        except (asyncio.CancelledError, ConnectionResetError):
            pass
        finally:
            s.get_open = False
            if s.down.send == stream.send:
                s.down.send = None
        return resp

    async def delete(self, request: web.Request) -> web.Response:
        bad = self._check_origin(request)
        if bad is not None:
            return bad
        sid = request.headers.get("Mcp-Session-Id")
        if not sid:
            return web.Response(
                status=405 if request.headers.get("MCP-Protocol-Version") == MODERN_VERSION else 400
            )
        s = self.sessions.get(sid)
        if s is None:
            return web.Response(status=404, text="Session not found")
        self._end_session(s)
        return web.Response(status=200)
