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
from manifold.upstream.supervisor import Upstream

GATEWAY = "@manifold"  # route.upstream of the gateway's own tools (not a valid upstream name)


class Router:
    def __init__(
        self, upstreams: dict[str, Upstream], catalog: Catalog, local: CallNext | None = None
    ) -> None:
        self.upstreams = upstreams
        self.catalog = catalog
        self.local = local  # the gateway's own tools, an in-process upstream

    def __call__(self, ctx: CallContext) -> Awaitable[rpc.Incoming]:
        # Not a coroutine itself: it hands back the upstream's request (one level less to step
        # through on every call). An unknown upstream raises here, where it is awaited.
        up = self.upstreams.get(ctx.route.upstream)
        if up is None:
            if ctx.route.upstream == GATEWAY and self.local is not None:
                return self.local(ctx)
            raise rpc.RpcError(rpc.INVALID_PARAMS, f"unknown upstream {ctx.route.upstream!r}")
        headers = None
        hmap = (
            self.catalog.upstream_header_maps.get(ctx.route) if ctx.method == "tools/call" else None
        )
        if hmap:
            args = ctx.params.get("arguments")
            headers = param_headers(hmap, args if isinstance(args, dict) else {})
        timeout = up.cfg.tool_timeouts.get(ctx.route.name) if up.cfg.tool_timeouts else None
        return up.request(
            ctx.method,
            ctx.params,
            sink=ctx.sink,
            timeout=timeout,
            client_caps=ctx.client_caps,
            headers=headers,
            client_key=ctx.session_key,
        )
