"""Method dispatch for downstream requests, both eras: the gateway acting as an MCP server.

One `handle()` takes a validated JSON-RPC request from any front end and returns the response
frame, with the HTTP status a modern request's envelope errors call for. Session-level methods
(`initialize`, `server/discover`, `ping`, `logging/setLevel`, lists, subscriptions) are answered
here from the catalog; calls (`tools/call`, `prompts/get`, `resources/read`,
`completion/complete`) are routed and sent through the pipeline. For a modern client, a call
that needs client input is parked and answered with MRTR `input_required`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from types import CoroutineType
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from manifold.catalog import Route
from manifold.downstream.mrtr import HANDLE_PREFIX, ROUND_PREFIX, Parked, RoundSeal
from manifold.downstream.session import DownstreamSession, RequestSink, Send
from manifold.economy.router_tools import GATEWAY, HYBRID_TOOLS, READ_RESULT, ROUTER_TOOLS
from manifold.economy.router_tools import NAMES as GATEWAY_TOOL_NAMES
from manifold.hooks import ListingEvent, RefusedEvent
from manifold.middleware.accounting import ListingMeter
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import (
    LATEST_LEGACY,
    LEGACY_VERSIONS,
    LOG_LEVEL_RANK,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    MODERN_META_KEYS,
    MODERN_REMOVED_METHODS,
    MODERN_VERSION,
    MODERN_VERSIONS,
    Era,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from manifold.catalog import Catalog
    from manifold.config import GatewayConfig
    from manifold.credentials.client_token import ClientToken
    from manifold.downstream.cursor import Cursors
    from manifold.economy.exposure import Exposure
    from manifold.economy.savings import Savings
    from manifold.hooks import Hooks
    from manifold.hub import ServerFace, SubscriptionHub
    from manifold.pipeline import CallNext
    from manifold.state import ParkedCalls
    from manifold.upstream.supervisor import Upstream


class DispatchHost(Protocol):
    """What the dispatcher uses of the gateway: the catalog and how it is shown, the pipeline,
    the hub for subscriptions, and the state of parked calls and cursors."""

    @property
    def config(self) -> GatewayConfig: ...
    @property
    def catalog(self) -> Catalog: ...
    @property
    def exposure(self) -> Exposure: ...
    @property
    def face(self) -> ServerFace: ...
    @property
    def hub(self) -> SubscriptionHub: ...
    @property
    def hooks(self) -> Hooks: ...
    @property
    def savings(self) -> Savings: ...
    @property
    def cursors(self) -> Cursors: ...
    @property
    def parking(self) -> ParkedCalls: ...
    @property
    def rounds(self) -> RoundSeal: ...
    @property
    def upstreams(self) -> Mapping[str, Upstream]: ...
    @property
    def replicas(self) -> Mapping[str, Upstream]: ...
    @property
    def pipeline(self) -> CallNext: ...
    @property
    def list_ttl_ms(self) -> int: ...
    async def wait_ready(self) -> None: ...
    async def ensure_lazy(self) -> None: ...
    async def catalog_settled(self, name: str) -> bool: ...
    def native_list_tokens(self) -> int: ...
    def era_of(self, upstream: str) -> Era | None: ...


log = logging.getLogger("manifold.dispatch")

LIST_KINDS = {
    "tools/list": "tools",
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
}
# The HTTP status a modern request's error travels with (the SDK's servers use the same table).
_MODERN_STATUS = {
    rpc.PARSE_ERROR: 400,
    rpc.INVALID_REQUEST: 400,
    rpc.INVALID_PARAMS: 400,
    rpc.HEADER_MISMATCH: 400,
    rpc.MISSING_CLIENT_CAPABILITY: 400,
    rpc.UNSUPPORTED_PROTOCOL_VERSION: 400,
    rpc.METHOD_NOT_FOUND: 404,
}


class EnvelopeError(rpc.RpcError):
    """A modern request whose envelope is wrong: answered with HTTP 400 (or 404)."""

    def __init__(self, code: int, message: str, data: Any = None, status: int = 400) -> None:
        super().__init__(code, message, data)
        self.status = status


INVOKE = Route(GATEWAY, "invoke_tool")


class Request:
    """One downstream request being handled."""

    __slots__ = (
        "id",
        "meta",
        "method",
        "out",
        "params",
        "principal",
        "session",
        "subject",
        "token",
    )

    def __init__(
        self,
        session: DownstreamSession,
        rid: Any,
        method: str,
        params: dict[str, Any],
        meta: dict[str, Any] | None,
        out: Send,
        principal: str | None = None,
        subject: str = "",
        token: ClientToken | None = None,
    ) -> None:
        self.session = session
        # Who asks: the front's authenticated principal, else the session's (stdio: local).
        self.principal = session.principal if principal is None else principal
        self.subject = subject
        self.token = token  # the client's access token, kept only for token exchange
        self.id = rid
        self.method = method
        self.params = params
        self.meta = meta
        self.out = out

    @property
    def modern(self) -> bool:
        return self.meta is not None


Result = dict[str, Any] | rpc.Incoming
Handler = Callable[[Request], Awaitable[Result]]


def _strip_modern_meta(params: dict[str, Any]) -> dict[str, Any]:
    """The downstream's per-request protocol keys are not forwarded: the gateway is the client."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or not (MODERN_META_KEYS & meta.keys()):
        return params
    rest = {k: v for k, v in meta.items() if k not in MODERN_META_KEYS}
    out = {k: v for k, v in params.items() if k != "_meta"}
    if rest:
        out["_meta"] = rest
    return out


class Dispatcher:
    def __init__(self, gateway: DispatchHost) -> None:
        self.gw = gateway
        self.listing = ListingMeter(gateway.savings)  # router/hybrid tools/list savings
        self._loop: asyncio.AbstractEventLoop | None = None
        hooks = gateway.hooks
        # Progress, log messages and server-to-client requests pass the hooks only when some
        # addon takes them: otherwise a call's side traffic goes straight to its client.
        self.side_hooks = hooks if hooks.has_notification or hooks.has_server_request else None
        tenants = gateway.config.tenants
        self.tenant_modes: dict[str, str | None] = (
            {n: p.exposure for n, p in tenants.profiles.items()} if tenants is not None else {}
        )
        self.default_mode = (
            self.tenant_modes.get(tenants.default) if tenants and tenants.default else None
        )
        self.handlers: dict[str, Handler] = {
            "initialize": self.initialize,
            "ping": self.ping,
            "server/discover": self.discover,
            "tools/list": self.list_items,
            "prompts/list": self.list_items,
            "resources/list": self.list_items,
            "resources/templates/list": self.list_items,
            "tools/call": self.tools_call,
            "prompts/get": self.prompts_get,
            "resources/read": self.resources_read,
            "completion/complete": self.complete,
            "resources/subscribe": self.subscribe,
            "resources/unsubscribe": self.unsubscribe,
            "logging/setLevel": self.set_level,
            "subscriptions/listen": self.listen,
        }

    # ----------------------------------------------------------------- entry points

    async def handle(
        self,
        session: DownstreamSession,
        msg: dict[str, Any],
        out: Send,
        principal: str | None = None,
        subject: str = "",
        token: ClientToken | None = None,
    ) -> tuple[bytes, int]:
        """Answer one request: (response frame, HTTP status for front ends that have one).
        `principal` and `subject`: who the front authenticated (default: the session's)."""
        rid = msg["id"]
        method: str = msg["method"]
        params = msg.get("params") or {}
        meta = params.get("_meta")
        modern_meta = meta if isinstance(meta, dict) and META_PROTOCOL_VERSION in meta else None
        try:
            if modern_meta is not None:
                self._check_modern(method, modern_meta)
            handler = self.handlers.get(method)
            if handler is None:
                raise rpc.RpcError(rpc.METHOD_NOT_FOUND, f"Method not found: {method}")
            result = await handler(
                Request(session, rid, method, params, modern_meta, out, principal, subject, token)
            )
        except EnvelopeError as e:
            return rpc.encode_error(rid, e.code, e.message, e.data), e.status
        except rpc.RpcError as e:
            code = e.code
            if modern_meta is not None and code == rpc.RESOURCE_NOT_FOUND_LEGACY:
                code = rpc.INVALID_PARAMS  # resource-not-found moved to -32602 on the modern wire
            status = _MODERN_STATUS.get(code, 200) if modern_meta is not None else 200
            return rpc.encode_error(rid, code, e.message, e.data), status
        if isinstance(result, rpc.Incoming):
            raw = result.result if result.result else b"{}"
            return rpc.encode_raw_result(rid, bytes(raw)), 200
        if modern_meta is not None:
            result.setdefault("resultType", "complete")
        return rpc.encode_result(rid, result), 200

    def _check_modern(self, method: str, meta: dict[str, Any]) -> None:
        version = meta.get(META_PROTOCOL_VERSION)
        if not isinstance(version, str):
            raise EnvelopeError(rpc.INVALID_PARAMS, "_meta protocolVersion must be a string")
        if version not in MODERN_VERSIONS:
            raise EnvelopeError(
                rpc.UNSUPPORTED_PROTOCOL_VERSION,
                f"Unsupported protocol version: {version}",
                {"supported": [*MODERN_VERSIONS, *LEGACY_VERSIONS], "requested": version},
            )
        if not isinstance(meta.get(META_CLIENT_CAPABILITIES), dict):
            raise EnvelopeError(
                rpc.INVALID_PARAMS, f"_meta is missing {META_CLIENT_CAPABILITIES!r}"
            )
        if META_CLIENT_INFO in meta and not isinstance(meta[META_CLIENT_INFO], dict):
            raise EnvelopeError(rpc.INVALID_PARAMS, "_meta clientInfo must be an object")
        lvl = meta.get(META_LOG_LEVEL)
        if lvl is not None and (not isinstance(lvl, str) or lvl not in LOG_LEVEL_RANK):
            raise EnvelopeError(rpc.INVALID_PARAMS, f"invalid logLevel {lvl!r}")
        if method in MODERN_REMOVED_METHODS:
            raise EnvelopeError(
                rpc.METHOD_NOT_FOUND,
                f"Method not found: {method} (removed in {MODERN_VERSION})",
                status=404,
            )

    async def notification(self, session: DownstreamSession, msg: dict[str, Any]) -> None:
        method = msg["method"]
        params = msg.get("params") or {}
        if method == "notifications/initialized":
            session.initialized = True
        elif method == "notifications/cancelled":
            rid = params.get("requestId")
            ok = isinstance(rid, int | str) and not isinstance(rid, bool)
            task = session.inflight.get(rid) if ok else None
            if task is not None:
                task.cancel()
        elif method == "notifications/roots/list_changed":
            await self.gw.hub.broadcast_upstream("notifications/roots/list_changed", None)
        elif method == "notifications/progress":
            pass  # progress on a server-to-client request: nothing to relay it to
        else:
            log.debug("ignored notification %s", method)

    # ----------------------------------------------------------------- session methods

    async def initialize(self, r: Request) -> Result:
        p = r.params
        version = p.get("protocolVersion")
        if not isinstance(version, str):
            raise rpc.RpcError(rpc.INVALID_PARAMS, "initialize: protocolVersion must be a string")
        caps = p.get("capabilities", {})
        if not isinstance(caps, dict):
            raise rpc.RpcError(rpc.INVALID_PARAMS, "initialize: capabilities must be an object")
        s = r.session
        s.handshake = True
        s.protocol_version = version if version in LEGACY_VERSIONS else LATEST_LEGACY
        s.capabilities = caps
        info = p.get("clientInfo")
        s.client_info = info if isinstance(info, dict) else {}
        await self.gw.wait_ready()
        result: dict[str, Any] = {
            "protocolVersion": s.protocol_version,
            "capabilities": self.gw.face.capabilities(Era.LEGACY),
            "serverInfo": self.gw.face.server_info,
        }
        instructions = self.gw.face.instructions()
        if instructions:
            result["instructions"] = instructions
        return result

    async def ping(self, r: Request) -> Result:
        return {}

    async def discover(self, r: Request) -> Result:
        await self.gw.wait_ready()
        result: dict[str, Any] = {
            "supportedVersions": [*MODERN_VERSIONS, *LEGACY_VERSIONS],
            "capabilities": self.gw.face.capabilities(Era.MODERN),
            "ttlMs": self.gw.list_ttl_ms,
            "cacheScope": "private",
            "_meta": {META_SERVER_INFO: self.gw.face.server_info},
        }
        instructions = self.gw.face.instructions()
        if instructions:
            result["instructions"] = instructions
        return result

    def _client_name(self, r: Request) -> str | None:
        if r.meta is not None:
            info = r.meta.get(META_CLIENT_INFO)
            name = info.get("name") if isinstance(info, dict) else None
        else:
            name = r.session.client_info.get("name")
        return name if isinstance(name, str) else None

    def _mode(self, r: Request) -> str:
        """The client's exposure mode: its tenant's, if the tenant's profile names one (the
        command line's `--exposure` still overrides it)."""
        exposure = self.gw.exposure
        mode = None
        if self.tenant_modes and exposure.override is None:
            mode = self.tenant_modes.get(r.principal, self.default_mode)
        if mode is not None and mode != "auto":
            return mode
        return exposure.mode_for(self._client_name(r), self.gw.native_list_tokens())

    async def list_items(self, r: Request) -> Result:
        kind = LIST_KINDS[r.method]
        await self.gw.wait_ready()
        await self.gw.ensure_lazy()
        items = self.visible(r, kind)
        native: list[dict[str, Any]] | None = None
        if kind == "tools":
            mode = self._mode(r)
            if mode == "router":
                native, items = items, ROUTER_TOOLS
            elif mode == "hybrid":
                native, items = items, [*items, *HYBRID_TOOLS]
            elif self.gw.config.response.max_tokens > 0:
                items = [*items, READ_RESULT]  # cut results point the model at it
        cursor = r.params.get("cursor")
        start = 0 if cursor is None else self.gw.cursors.read(kind, cursor)
        size = self.gw.config.page_size
        page = items[start : start + size]
        result: dict[str, Any] = {kind: page}
        if start + size < len(items):
            result["nextCursor"] = self.gw.cursors.make(kind, start + size)
        if r.modern:
            result["ttlMs"] = self.gw.list_ttl_ms
            result["cacheScope"] = "private"
        if native is not None:
            self.listing.record(
                r.id,
                mode,
                native,
                start,
                size,
                result,
                r.modern,
                self.gw.list_ttl_ms,
                self.gw.cursors,
            )
        return result

    def visible(self, r: Request, kind: str) -> list[dict[str, Any]]:
        """The catalog's items of `kind` that this client may see (the listing hooks)."""
        items = self.gw.catalog.items(kind)
        if not self.gw.hooks.has_listing:
            return items
        event = ListingEvent(
            kind,
            items,
            r.principal,
            self._client_name(r),
            Era.MODERN if r.modern else Era.LEGACY,
            "" if r.session.shared else r.session.id,
        )
        return self.gw.hooks.listing(event)

    async def set_level(self, r: Request) -> Result:
        level = r.params.get("level")
        if not isinstance(level, str) or level not in LOG_LEVEL_RANK:
            raise rpc.RpcError(rpc.INVALID_PARAMS, f"invalid log level {level!r}")
        r.session.log_level = level
        await self.gw.hub.update_log_level()
        return {}

    # ----------------------------------------------------------------- routed calls

    def _upstream_params(self, r: Request, **changes: Any) -> dict[str, Any]:
        params = {**r.params, **changes}
        if r.meta is not None:
            params = _strip_modern_meta(params)
        return params

    @staticmethod
    def _named(r: Request) -> str:
        """The `name` of a tools/call or prompts/get, with its `arguments` checked too."""
        name = r.params.get("name")
        if not isinstance(name, str):
            raise rpc.RpcError(rpc.INVALID_PARAMS, f"{r.method}: 'name' must be a string")
        args = r.params.get("arguments")
        if args is not None and not isinstance(args, dict):
            raise rpc.RpcError(rpc.INVALID_PARAMS, f"{r.method}: 'arguments' must be an object")
        return name

    async def tools_call(self, r: Request) -> Result:
        name = self._named(r)
        if self.gw.hooks.aliases:
            name = self.gw.hooks.alias(r.principal, "tools", name)
        route = self.gw.catalog.tool_routes.get(name)
        if name in GATEWAY_TOOL_NAMES and (route is None or self._mode(r) != "passthrough"):
            route = Route(GATEWAY, name)
        if route is None:
            await self.gw.wait_ready()
            await self.gw.ensure_lazy()
            route = self.gw.catalog.tool_routes.get(name)
            if route is None and await self.gw.catalog_settled(name):
                route = self.gw.catalog.tool_routes.get(name)
            if route is None:
                self._check_upstream_up(name)
                self._check_withheld(name, r)
                raise self._refused(r, name, f"Unknown tool: {name}")
        params = (
            self._upstream_params(r, name=route.name)
            if r.params.get("name") != route.name or r.meta
            else r.params
        )
        return await self._call(r, "tools/call", params, route, name)

    def _refused(self, r: Request, name: str, message: str) -> rpc.RpcError:
        """The error for a name that routes nowhere, told to the `refused` hooks (audit)."""
        hooks = self.gw.hooks
        if hooks.refusals:
            hooks.refused(
                RefusedEvent(
                    r.method,
                    name,
                    r.params.get("arguments"),
                    rpc.INVALID_PARAMS,
                    message,
                    r.principal,
                    self._client_name(r),
                    "" if r.session.shared else r.session.id,
                    r.subject,
                )
            )
        return rpc.RpcError(rpc.INVALID_PARAMS, message)

    def _check_upstream_up(self, name: str) -> None:
        """A name under an upstream that is not running: say that, not "Unknown tool"."""
        cfg = self.gw.config
        if not cfg.prefix:
            return
        for up_name, up in self.gw.upstreams.items():
            if name.startswith(up_name + cfg.separator) and up.state != "ready":
                raise up.unavailable(f"{name!r} cannot be called now")

    def _check_withheld(self, name: str, r: Request) -> None:
        """A name an addon holds back from the catalog (tool pinning: a changed definition
        awaiting approval): its refusal, naming the mechanism, not "Unknown tool". Asked only
        for a name that cannot be routed."""
        for addon in self.gw.hooks.addons:
            withheld = getattr(addon, "withheld", None)
            if callable(withheld):
                who = {
                    "principal": r.principal,
                    "client": self._client_name(r),
                    "session": r.session.id,
                }
                err = withheld(name, who)
                if err is not None:
                    raise err

    async def prompts_get(self, r: Request) -> Result:
        name = self._named(r)
        route = self.gw.catalog.prompt_routes.get(name)
        if route is None:
            await self.gw.wait_ready()
            route = self.gw.catalog.prompt_routes.get(name)
            if route is None and await self.gw.catalog_settled(name):
                route = self.gw.catalog.prompt_routes.get(name)
        if route is None:
            raise self._refused(r, name, f"Unknown prompt: {name}")
        return await self._call(
            r, "prompts/get", self._upstream_params(r, name=route.name), route, name
        )

    async def resources_read(self, r: Request) -> Result:
        uri = r.params.get("uri")
        if not isinstance(uri, str):
            raise rpc.RpcError(rpc.INVALID_PARAMS, "resources/read: 'uri' must be a string")
        up = self.gw.catalog.route_resource(uri)
        if up is None:
            await self.gw.wait_ready()
            up = self.gw.catalog.route_resource(uri)
        if up is None:
            code = rpc.INVALID_PARAMS if r.modern else rpc.RESOURCE_NOT_FOUND_LEGACY
            raise rpc.RpcError(code, f"Resource not found: {uri}", {"uri": uri})
        res = await self._call(r, "resources/read", self._upstream_params(r), Route(up, uri), uri)
        if r.modern:
            obj = rpc.load_raw(res.result) if isinstance(res, rpc.Incoming) and res.result else res
            if isinstance(obj, dict):
                if obj.get("resultType", "complete") == "complete":
                    if not obj.get("contents"):
                        raise rpc.RpcError(
                            rpc.INVALID_PARAMS, f"Resource not found: {uri}", {"uri": uri}
                        )
                    obj.setdefault("ttlMs", 0)
                    obj.setdefault("cacheScope", "private")
                return obj
        return res

    async def complete(self, r: Request) -> Result:
        ref = r.params.get("ref")
        if not isinstance(ref, dict):
            raise rpc.RpcError(rpc.INVALID_PARAMS, "completion/complete: 'ref' must be an object")
        if ref.get("type") == "ref/prompt":
            name = ref.get("name")
            route = self.gw.catalog.prompt_routes.get(name) if isinstance(name, str) else None
            if route is None:
                raise rpc.RpcError(rpc.INVALID_PARAMS, f"Unknown prompt: {name}")
            new_ref = {**ref, "name": route.name}
        elif ref.get("type") == "ref/resource":
            uri = ref.get("uri")
            up = self.gw.catalog.route_template(uri) if isinstance(uri, str) else None
            if up is None:
                raise rpc.RpcError(rpc.INVALID_PARAMS, f"Unknown resource template: {uri}")
            route = Route(up, str(uri))
            new_ref = ref
        else:
            raise rpc.RpcError(
                rpc.INVALID_PARAMS, f"unknown completion ref type {ref.get('type')!r}"
            )
        return await self._call(
            r, "completion/complete", self._upstream_params(r, ref=new_ref), route, route.name
        )

    def _call(
        self, r: Request, method: str, params: dict[str, Any], route: Route, exposed: str
    ) -> Awaitable[Result]:
        """The routed call (awaited by the caller: no coroutine of its own on the hot path)."""
        sink = RequestSink(r.session, r.out, r.meta)
        caps = sink.caps if r.meta is not None else None
        client_name = self._client_name(r)
        ctx = CallContext(method, params, route, exposed, sink, caps, client_name)
        ctx.principal = r.principal
        ctx.subject = r.subject
        up = self.gw.upstreams.get(route.upstream)
        if up is not None:
            if up.session is not None:
                ctx.era = up.session.era
            elif self.gw.replicas:  # the upstream itself never started: a replica's, if one is up
                ctx.era = self.gw.era_of(route.upstream)
            if r.token is not None and up.exchange is not None:
                ctx.client_token = r.token  # only a call to an upstream that exchanges it
        elif r.token is not None and route == INVOKE:
            ctx.client_token = r.token  # invoke_tool hands it on to such an upstream alone
        if self.side_hooks is not None:
            sink.hooks = self.side_hooks
            sink.upstream = route.upstream
            sink.client_name = client_name
            sink.principal = r.principal
        if not r.session.shared:
            # One client per session (a legacy session, or a stdio connection of either era);
            # stateless HTTP requests share no per-session state.
            ctx.session_key = r.session.id
        if r.meta is None:
            return self.gw.pipeline(ctx)
        return self._call_modern(r, ctx, sink)

    # ----------------------------------------------------------------- MRTR (modern clients)

    def _round_binding(self, r: Request, ctx: CallContext) -> dict[str, str]:
        return {
            "principal": r.principal,
            "upstream": ctx.route.upstream,
            "method": ctx.method,
            "name": ctx.route.name,
        }

    async def _call_modern(self, r: Request, ctx: CallContext, sink: RequestSink) -> Result:
        state = r.params.get("requestState")
        # A modern upstream's rounds are relayed (stateless) unless addons take server-to-client
        # requests, which need the round fulfilled here, or the call is the gateway's own.
        sink.relay_rounds = ctx.route.upstream != GATEWAY and not (
            self.side_hooks is not None and self.side_hooks.fulfils_rounds
        )
        if isinstance(state, str) and state.startswith(ROUND_PREFIX):
            upstream_state = self.gw.rounds.open(state, self._round_binding(r, ctx))
            params = {k: v for k, v in ctx.params.items() if k != "requestState"}
            if upstream_state is not None:
                params["requestState"] = upstream_state
            ctx.params = params
            sink.relay_rounds = True
            result = await self._drive(r, self._spawn(self.gw.pipeline(ctx)), sink)
        elif isinstance(state, str) and state.startswith(HANDLE_PREFIX):
            parked = self.gw.parking.take(state, r.principal)
            # The retry's channel now carries the call's side traffic.
            parked.sink.out = r.out
            answers = r.params.get("inputResponses") or {}
            if not isinstance(answers, dict):
                answers = {}
            for key, ask in parked.outstanding.items():
                if ask.future.done():
                    continue
                if key in answers and isinstance(answers[key], dict):
                    ask.future.set_result(answers[key])
                else:
                    ask.future.set_exception(
                        rpc.RpcError(rpc.INVALID_PARAMS, f"no input response for {key!r}")
                    )
            result = await self._drive(r, parked.task, parked.sink)
        else:
            ctx.params = {
                k: v for k, v in ctx.params.items() if k not in ("inputResponses", "requestState")
            }
            task = self._spawn(self.gw.pipeline(ctx))
            result = await self._drive(r, task, sink)
        if sink.relay_rounds and isinstance(result, rpc.Incoming):
            raw_round = bytes(result.result or b"")
            if raw_round.find(b'"input_required"') >= 0:  # (cheaper than `in` on bytes)
                obj: dict[str, Any] = rpc.load_raw(result.result)
                if obj.get("resultType") == "input_required":
                    obj["requestState"] = self.gw.rounds.seal(
                        self._round_binding(r, ctx), obj.get("requestState")
                    )
                    return obj
        if isinstance(result, rpc.Incoming):
            up = self.gw.upstreams.get(ctx.route.upstream)
            if up is None:  # the gateway's own tools (invoke_tool may carry a modern result)
                legacy_shape = b'"resultType"' not in bytes(result.result or b"")
            elif up.session is not None:
                legacy_shape = up.session.era is Era.LEGACY
            else:  # served by a replica while the upstream itself is not up
                legacy_shape = self.gw.era_of(ctx.route.upstream) is Era.LEGACY
            if legacy_shape:
                raw = bytes(result.result or b"{}")
                if raw.startswith(b"{") and raw != b"{}":
                    result = rpc.Incoming(
                        result=msgspec.Raw(b'{"resultType":"complete",' + raw[1:])
                    )
                else:
                    result = rpc.Incoming(result=msgspec.Raw(b'{"resultType":"complete"}'))
        return result

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None:  # held: each lookup of the running loop costs a getpid() call
            loop = self._loop = asyncio.get_running_loop()
        return loop

    def _spawn(self, call: Awaitable[rpc.Incoming]) -> asyncio.Task[rpc.Incoming]:
        if isinstance(call, CoroutineType):
            return self._running_loop().create_task(call)
        return asyncio.ensure_future(call)

    async def _drive(
        self, r: Request, task: asyncio.Task[rpc.Incoming], sink: RequestSink
    ) -> Result:
        """Wait for the call to finish or to need client input, whichever comes first."""
        asks = sink.asks
        assert asks is not None
        if task.done():
            return task.result()
        if not asks:
            # One future, woken by the call's end or by its first input request (no task, no
            # asyncio.wait: this runs for every call of a modern client).
            waiter = self._running_loop().create_future()

            def _wake(_t: object) -> None:
                if not waiter.done():
                    waiter.set_result(None)

            sink.ask_waiter = waiter
            task.add_done_callback(_wake)
            try:
                await waiter
            except asyncio.CancelledError:
                task.cancel()
                raise
            finally:
                sink.ask_waiter = None
                task.remove_done_callback(_wake)
        if task.done():
            return task.result()  # input requests that came with the end stay queued
        await asyncio.sleep(0)  # let sibling input requests of the same round arrive
        batch = list(asks)
        asks.clear()
        parked = Parked(task, sink, {a.key: a for a in batch}, principal=r.principal)
        try:
            handle = self.gw.parking.park(parked)
        except rpc.RpcError:
            task.cancel()  # nobody could resume it: the upstream call ends here
            raise
        return {
            "resultType": "input_required",
            "inputRequests": {a.key: {"method": a.method, "params": a.params} for a in batch},
            "requestState": handle,
        }

    # ----------------------------------------------------------------- subscriptions

    async def subscribe(self, r: Request) -> Result:
        uri = r.params.get("uri")
        if not isinstance(uri, str):
            raise rpc.RpcError(rpc.INVALID_PARAMS, "resources/subscribe: 'uri' must be a string")
        if self.gw.hooks.has_listing:
            # Only to what this client may see: the listing hooks judge the one resource.
            one = ListingEvent(
                "resources", [{"uri": uri}], r.principal, self._client_name(r), Era.LEGACY
            )
            if not self.gw.hooks.listing(one):
                raise rpc.RpcError(
                    rpc.RESOURCE_NOT_FOUND_LEGACY, f"Resource not found: {uri}", {"uri": uri}
                )
        await self.gw.hub.subscribe(r.session, uri)
        return {}

    async def unsubscribe(self, r: Request) -> Result:
        uri = r.params.get("uri")
        if not isinstance(uri, str):
            raise rpc.RpcError(rpc.INVALID_PARAMS, "resources/unsubscribe: 'uri' must be a string")
        await self.gw.hub.unsubscribe(r.session, uri)
        return {}

    async def listen(self, r: Request) -> Result:
        if r.meta is None:
            raise rpc.RpcError(rpc.METHOD_NOT_FOUND, "subscriptions/listen is a 2026-07-28 method")
        wanted = r.params.get("notifications")
        if not isinstance(wanted, dict):
            raise rpc.RpcError(
                rpc.INVALID_PARAMS, "subscriptions/listen: 'notifications' must be an object"
            )
        await self.gw.wait_ready()
        uris = wanted.get("resourceSubscriptions")
        if self.gw.hooks.has_listing and isinstance(uris, list):
            # Only to what this client may see, as for resources/subscribe: the others are
            # left out of what the acknowledgement says is honoured.
            client = self._client_name(r)
            seen = self.gw.hooks.listing(
                ListingEvent(
                    "resources",
                    [{"uri": u} for u in uris if isinstance(u, str)],
                    r.principal,
                    client,
                    Era.MODERN,
                )
            )
            wanted = {**wanted, "resourceSubscriptions": [x["uri"] for x in seen]}
        return await self.gw.hub.listen(r.session, r.id, wanted, r.out)
