"""The terminal step of the pipeline: send the routed request to its upstream.

The upstream's own concurrency cap, timeout and restart policy apply there (`upstream/`).
"""

from __future__ import annotations

from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.upstream.supervisor import Upstream


class Router:
    def __init__(self, upstreams: dict[str, Upstream]) -> None:
        self.upstreams = upstreams

    async def __call__(self, ctx: CallContext) -> rpc.Incoming:
        up = self.upstreams.get(ctx.route.upstream)
        if up is None:
            raise rpc.RpcError(rpc.INVALID_PARAMS, f"unknown upstream {ctx.route.upstream!r}")
        return await up.request(ctx.method, ctx.params, sink=ctx.sink, client_caps=ctx.client_caps)
