"""The terminal step of the pipeline: send the routed request to its upstream.

The upstream's own concurrency cap, timeout and restart policy apply there (`upstream/`).
Tool arguments that the tool's schema marks with `x-mcp-header` are mirrored as `Mcp-Param-*`
headers (used by HTTP upstreams, ignored by the others).
"""

from __future__ import annotations

from collections.abc import Awaitable

from manifold.catalog import Catalog
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.headers import param_headers
from manifold.upstream.session import UpstreamError
from manifold.upstream.supervisor import Upstream

GATEWAY = "@manifold"  # route.upstream of the gateway's own tools (not a valid upstream name)


class Router:
    def __init__(
        self,
        upstreams: dict[str, Upstream],
        catalog: Catalog,
        local: CallNext | None = None,
        replicas: dict[str, Upstream] | None = None,
    ) -> None:
        self.upstreams = upstreams
        self.catalog = catalog
        self.local = local  # the gateway's own tools, an in-process upstream
        self.replicas = replicas or {}  # more instances of an upstream ("name#2", ...)

    def __call__(self, ctx: CallContext) -> Awaitable[rpc.Incoming]:
        # Not a coroutine itself: it hands back the upstream's request (one level less to step
        # through on every call). An unknown upstream raises here, where it is awaited.
        up = (
            self.replicas.get(ctx.replica)
            if ctx.replica
            else self.upstreams.get(ctx.route.upstream)
        )
        if up is None:
            if ctx.route.upstream == GATEWAY and self.local is not None:
                return self.local(ctx)
            raise rpc.RpcError(rpc.INVALID_PARAMS, f"unknown upstream {ctx.route.upstream!r}")
        headers = None
        # Keyed by the route (the upstream's name), never the replica's: every instance of an
        # upstream serves the same tools and gets the same `Mcp-Param-*` headers.
        hmap = (
            self.catalog.upstream_header_maps.get(ctx.route) if ctx.method == "tools/call" else None
        )
        if hmap:
            args = ctx.params.get("arguments")
            headers = param_headers(hmap, args if isinstance(args, dict) else {})
        timeout = up.cfg.tool_timeouts.get(ctx.route.name) if up.cfg.tool_timeouts else None
        if up.exchange is not None:  # the call goes as its client's user (RFC 8693)
            return self._as_user(up, ctx, headers, timeout)
        return up.request(
            ctx.method,
            ctx.params,
            sink=ctx.sink,
            timeout=timeout,
            client_caps=ctx.client_caps,
            headers=headers,
            client_key=ctx.session_key,
            tenant=ctx.principal,
        )

    async def _as_user(
        self,
        up: Upstream,
        ctx: CallContext,
        headers: dict[str, str] | None,
        timeout: float | None,
    ) -> rpc.Incoming:
        """A call with a token exchanged for its client's (`credentials/exchange.py`). An
        exchanged token the upstream refuses (HTTP 401, before acting on the call) is forgotten
        and the call made once more with a fresh exchange."""
        exchange = up.exchange
        assert exchange is not None
        bearer = await exchange.header(ctx.client_token, ctx.principal, ctx.subject)
        try:
            return await self._send(up, ctx, headers, timeout, bearer)
        except UpstreamError as e:
            refused = isinstance(e.data, dict) and e.data.get("status") == 401
            if not refused or ctx.client_token is None:
                raise
        exchange.forget(ctx.client_token, bearer)
        bearer = await exchange.header(ctx.client_token, ctx.principal, ctx.subject)
        return await self._send(up, ctx, headers, timeout, bearer)

    @staticmethod
    async def _send(
        up: Upstream,
        ctx: CallContext,
        headers: dict[str, str] | None,
        timeout: float | None,
        bearer: str,
    ) -> rpc.Incoming:
        return await up.request(
            ctx.method,
            ctx.params,
            sink=ctx.sink,
            timeout=timeout,
            client_caps=ctx.client_caps,
            headers={**headers, "Authorization": bearer} if headers else {"Authorization": bearer},
            client_key=ctx.session_key,
            tenant=ctx.principal,
        )
