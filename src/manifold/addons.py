"""Which addons the gateway runs, in which order: the one place that decides.

Outermost first. `accounting` sees what the model reads (after every other addon) and its raw
meter, innermost, what the upstream returned; the governor shapes results for the model. Addons
named in the config (`addons: ["package.module:Factory"]`) run between the governor and the raw
meter, in the order given; that is where the security and resilience concerns plug in. A
factory is called with the gateway's config and returns an addon (any object with hook methods,
see `hooks.py`).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from manifold.config import ConfigError, GatewayConfig
from manifold.hooks import HOOK_KINDS as _KINDS
from manifold.pipeline import Middleware

if TYPE_CHECKING:
    from manifold.gateway import Gateway


class CallAddon:
    """A plain `(ctx, call_next)` middleware as an addon that takes part in calls only."""

    __slots__ = ("call", "name")

    def __init__(self, mw: Middleware, name: str = "") -> None:
        self.call = mw
        self.name = name or getattr(mw, "__name__", type(mw).__name__)

    def __repr__(self) -> str:
        return f"CallAddon({self.name})"


def load_addon(spec: str, config: GatewayConfig) -> object:
    """Import `module:attr` and build the addon it names (a factory taking the config, or a
    class / function taking nothing)."""
    module_name, _, attr = spec.partition(":")
    try:
        factory: Any = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as e:
        raise ConfigError(f"addons: cannot load {spec!r}: {e}") from None
    try:
        takes_config = bool(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        takes_config = False
    addon = factory(config) if takes_config else factory()
    if not any(callable(getattr(addon, k, None)) for k in _KINDS):
        raise ConfigError(f"addons: {spec!r} implements no hook ({', '.join(_KINDS)})")
    return addon


def build_addons(gw: Gateway, extra: Sequence[object] = ()) -> list[object]:
    """The configured addons, outermost first."""
    from manifold.middleware import governor
    from manifold.middleware.accounting import accounting_pair

    accounting, raw_meter = accounting_pair(gw.savings, gw.era_of)
    chain: list[object] = [CallAddon(accounting, "accounting")]
    if governor.wanted(gw.config.response):
        chain.append(CallAddon(governor.Governor(gw), "governor"))
    chain.extend(extra)
    chain.extend(load_addon(spec, gw.config) for spec in gw.config.addons)
    # The protection layer, outermost first: audit sees every decision below it; validation
    # refuses a bad call before anything else looks at it; redaction sits next to the upstream
    # (arguments cleaned on the way out, results and descriptions on the way in).
    # Each module is imported only when it is on (its libraries cost memory at start).
    sec = gw.config.security
    wanted = [
        ("audit", bool(sec.audit.path)),
        ("validate", sec.validation.enabled),
        ("redact", sec.redaction.enabled),
    ]
    for name, on in wanted:
        if on:
            module = importlib.import_module(f"manifold.security.{name}")
            addon = module.build(gw)
            if addon is not None:
                chain.append(addon)
    # Tool overrides: inside the protection layer (it sees the tools as clients do), before the
    # resilience addons; imported only when some upstream has overrides.
    if any(u.overrides for u in gw.config.enabled_upstreams.values()):
        from manifold.middleware import overrides

        chain.append(overrides.build(gw))
    chain.append(CallAddon(raw_meter, "raw_meter"))
    return chain


def as_addons(middleware: Sequence[Middleware]) -> list[object]:
    return [CallAddon(mw) for mw in middleware]
