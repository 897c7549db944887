"""What belongs to one downstream client: its era, capabilities, log level, subscriptions, the
requests it has in flight, and the server-to-client requests the gateway has sent it.

`RequestSink` is the per-request end of a call's side traffic: progress, log messages and
server-to-client requests travel back on the request's own channel (its SSE stream, or stdout),
so they reach the client that caused them and no other.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from manifold.downstream.mrtr import InputAsk
from manifold.hooks import Hooks, NotificationEvent, ServerRequestContext
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import LOG_LEVEL_RANK, META_LOG_LEVEL, Era

Send = Callable[[bytes], None]

# Which declared client capability a server-to-client request needs, and the error when absent.
_NEEDS = {
    "sampling/createMessage": ("sampling", rpc.METHOD_NOT_FOUND),
    "elicitation/create": ("elicitation", rpc.INVALID_PARAMS),
    "roots/list": ("roots", rpc.METHOD_NOT_FOUND),
}
SERVER_REQUEST_TIMEOUT = 600.0


@dataclass(eq=False)
class DownstreamSession:
    """A legacy session (after `initialize`) or a stdio connection (either era per request)."""

    send: Send | None = None  # the standalone channel: stdout, or the HTTP GET stream
    id: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    initialized: bool = False
    handshake: bool = False
    protocol_version: str | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    client_info: dict[str, Any] = field(default_factory=dict)
    log_level: str | None = None
    subscriptions: set[str] = field(default_factory=set)
    inflight: dict[Any, asyncio.Task[None]] = field(default_factory=dict)
    principal: str = "local"  # the tenant (`local`: stdio, unauthenticated HTTP)
    closed: bool = False
    # A shell for the stateless (modern HTTP) requests of any number of clients.
    shared: bool = False
    _out_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _outbound: dict[Any, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)

    async def request_client(
        self, method: str, params: dict[str, Any], out: Send
    ) -> dict[str, Any]:
        """Send a server-to-client request on `out` and wait for the client's answer."""
        rid = f"mf-{next(self._out_ids)}"
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._outbound[rid] = fut
        try:
            out(rpc.encode_request(rid, method, params))
            async with asyncio.timeout(SERVER_REQUEST_TIMEOUT):
                return await fut
        except TimeoutError:
            raise rpc.RpcError(rpc.INTERNAL_ERROR, f"the client did not answer {method}") from None
        finally:
            self._outbound.pop(rid, None)

    def answer(self, msg: dict[str, Any]) -> bool:
        """A client's response to one of our requests; False when nobody waits for it."""
        fut = self._outbound.get(msg.get("id"))
        if fut is None or fut.done():
            return False
        if "error" in msg:
            err = msg["error"] if isinstance(msg["error"], dict) else {}
            fut.set_exception(
                rpc.RpcError(
                    int(err.get("code", rpc.INTERNAL_ERROR)),
                    str(err.get("message", "client error")),
                    err.get("data"),
                )
            )
        else:
            res = msg.get("result")
            fut.set_result(res if isinstance(res, dict) else {})
        return True

    def close(self) -> None:
        self.closed = True
        for t in self.inflight.values():
            t.cancel()
        for f in self._outbound.values():
            if not f.done():
                f.set_exception(rpc.RpcError(rpc.INTERNAL_ERROR, "client went away"))


class RequestSink:
    """Side traffic of one downstream request."""

    __slots__ = (
        "_keys",
        "ask_waiter",
        "asks",
        "caps",
        "client_name",
        "hooks",
        "log_level",
        "modern",
        "out",
        "principal",
        "relay_rounds",
        "session",
        "upstream",
    )

    def __init__(
        self,
        session: DownstreamSession,
        out: Send,
        modern_meta: dict[str, Any] | None,
    ) -> None:
        self.session = session
        self.out = out
        self.modern = modern_meta is not None
        if modern_meta is not None:
            caps = modern_meta.get("io.modelcontextprotocol/clientCapabilities")
            self.caps: dict[str, Any] = caps if isinstance(caps, dict) else {}
            lvl = modern_meta.get(META_LOG_LEVEL)
            self.log_level: str | None = lvl if isinstance(lvl, str) else None
        else:
            self.caps = session.capabilities
            self.log_level = session.log_level or "debug"
        # A modern client's input requests wait here for the dispatcher, which waits on
        # `ask_waiter` (set while it waits) for the first one or for the call's end.
        self.asks: deque[InputAsk] | None = deque() if self.modern else None
        self.ask_waiter: asyncio.Future[None] | None = None
        self._keys = itertools.count(1)
        # Set by the dispatcher when addons take side traffic (see `hooks.py`).
        self.hooks: Hooks | None = None
        self.upstream = ""
        self.client_name: str | None = None
        # Who the request is from (set by the dispatcher): the session's principal is `local`
        # for the shell shared by modern stateless requests, whatever their credentials.
        self.principal = session.principal
        # A modern upstream's input rounds go back to this (modern) client as they are, with
        # their state sealed by the dispatcher, instead of being fulfilled here (see mrtr.py).
        self.relay_rounds = False

    @property
    def party(self) -> object:
        """Whom this request speaks for: its client's session, or only itself when that
        session is a shell shared by many clients' stateless requests."""
        return self if self.session.shared else self.session

    def _hooked(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        if self.hooks is None or not self.hooks.has_notification:
            return params
        event = NotificationEvent(method, params, self.upstream, self.principal)
        return self.hooks.notification(event)

    def progress(self, params: dict[str, Any]) -> None:
        if params.get("progressToken") is not None:
            hooked = self._hooked("notifications/progress", params)
            if hooked is not None:
                self.out(rpc.encode_notification("notifications/progress", hooked))

    def log(self, params: dict[str, Any]) -> None:
        want = self.log_level
        if want is None:
            return  # a modern request without logLevel gets no log messages
        level = params.get("level")
        if LOG_LEVEL_RANK.get(str(level), 0) >= LOG_LEVEL_RANK.get(want, 0):
            hooked = self._hooked("notifications/message", params)
            if hooked is not None:
                self.out(rpc.encode_notification("notifications/message", hooked))

    async def server_request(
        self, method: str, params: dict[str, Any], key: str | None = None
    ) -> dict[str, Any]:
        if self.hooks is not None and self.hooks.has_server_request:
            ctx = ServerRequestContext(
                method,
                params,
                self.upstream,
                self.principal,
                self.client_name,
                Era.MODERN if self.modern else Era.LEGACY,
            )

            async def deliver(c: ServerRequestContext) -> dict[str, Any]:
                return await self._server_request(c.method, c.params, key)

            return await self.hooks.server_request(ctx, deliver)
        return await self._server_request(method, params, key)

    async def _server_request(
        self, method: str, params: dict[str, Any], key: str | None
    ) -> dict[str, Any]:
        need = _NEEDS.get(method)
        if need is not None and need[0] not in self.caps:
            raise rpc.RpcError(
                need[1],
                f"the client did not declare the {need[0]!r} capability needed for {method}",
            )
        if not self.modern:
            return await self.session.request_client(method, params, self.out)
        # A modern client gets this as an MRTR input request; the dispatcher is waiting.
        assert self.asks is not None
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        # Keep the upstream's own key when it gave one, so the client sees the same request.
        self.asks.append(InputAsk(key or f"input-{next(self._keys)}", method, params, fut))
        waiter = self.ask_waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        return await fut
