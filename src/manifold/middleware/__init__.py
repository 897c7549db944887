"""Pipeline middleware, one concern per module, built from the config in a fixed order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from manifold.pipeline import Middleware

if TYPE_CHECKING:
    from manifold.gateway import Gateway


def build_middleware(gw: Gateway) -> list[Middleware]:
    """The configured chain, outermost first."""
    chain: list[Middleware] = []
    return chain
