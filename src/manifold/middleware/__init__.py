"""Pipeline middleware, one concern per module, built from the config in a fixed order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from manifold.pipeline import Middleware

if TYPE_CHECKING:
    from manifold.gateway import Gateway


def build_middleware(gw: Gateway) -> list[Middleware]:
    """The configured chain, outermost first."""
    from manifold.middleware.accounting import accounting_pair

    # Accounting wraps everything (what the model reads); its raw meter is the innermost step
    # (what the upstream returned). Keep them first and last.
    accounting, raw_meter = accounting_pair(gw.savings, gw.upstreams)
    chain: list[Middleware] = [accounting]
    from manifold.middleware import governor

    if governor.wanted(gw.config.response):
        chain.append(governor.Governor(gw))
    chain.append(raw_meter)
    return chain
