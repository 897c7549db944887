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
import sys
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
    # The protection layer, outermost first: audit sees every decision below it; the policy
    # decides (allow, deny, confirm, redact) before the other checks run; validation
    # refuses a bad call before anything else looks at it; redaction sits next to the upstream
    # (arguments cleaned on the way out, results and descriptions on the way in).
    # Each module is imported only when it is on (its libraries cost memory at start).
    sec = gw.config.security
    wanted = [
        ("identity.tenants", gw.config.tenants is not None),
        ("identity.ratelimit", gw.config.ratelimits is not None),
        ("audit", bool(sec.audit.path)),
        ("honeytokens", bool(sec.honeytokens.values)),
        ("policy", sec.policy.on),
        # Pins before the guard: a tool's definition is pinned as its upstream sent it, not
        # with the guard's warning (catalog hooks run outermost first).
        ("pins", sec.pins.mode != "off"),
        ("guard", sec.guard.enabled),
        # Validation right before redaction: its check then runs inside redaction's call step
        # (`_fuse_validation`). The guard only looks at results, so a bad call still never
        # leaves; validation's catalog hook keeps the upstream's own schemas (the guard may
        # rewrite descriptions, never types).
        ("validate", sec.validation.enabled),
        ("redact", sec.redaction.enabled),
    ]
    for name, on in wanted:
        if on:
            package = "manifold" if name.startswith("identity.") else "manifold.security"
            module = importlib.import_module(f"{package}.{name}")
            addon = module.build(gw)
            if addon is not None:
                chain.append(addon)
    # Tool overrides: inside the protection layer (it sees the tools as clients do), before the
    # resilience addons; imported only when some upstream has overrides.
    if any(u.overrides for u in gw.config.enabled_upstreams.values()):
        from manifold.middleware import overrides

        chain.append(overrides.build(gw))
    # Resilience, innermost before the raw meter: a cache hit or a coalesced call reaches
    # nothing below it, the breaker refuses before any try, each retry goes to the upstream.
    # Imported only when some upstream turns the mechanism on (docs/resilience.md).
    from manifold.config import resilience_for

    settings = [
        resilience_for(gw.config.resilience, u.resilience) for u in gw.config.upstreams.values()
    ]
    resil = [
        m for m in ("cache", "breaker", "retry") if any(getattr(s, m).enabled for s in settings)
    ]
    if gw.replicas:  # some upstream runs several instances of its server
        resil.append("replicas")
    if resil:
        from manifold.resilience.policy import Policy

        policy = Policy(gw)
        for name in resil:
            addon = importlib.import_module(f"manifold.resilience.{name}").build(gw, policy)
            if addon is not None:
                chain.append(addon)
    # Decisions that are not calls (a hidden definition) go to the audit log when it is on.
    record = next((getattr(a, "record", None) for a in chain if type(a).__name__ == "Audit"), None)
    if record is not None:
        for a in chain:
            if callable(bind := getattr(a, "bind_audit", None)):
                bind(record)
    chain.append(CallAddon(raw_meter, "raw_meter"))
    return _fuse_guard(_fuse_validation(chain))


class _CatalogOnly:
    """Validation's catalog hook alone, once its call check runs inside redaction's step."""

    __slots__ = ("catalog", "validator")

    def __init__(self, validator: Any) -> None:
        self.validator = validator
        self.catalog = validator.catalog


def _fuse_validation(chain: list[object]) -> list[object]:
    """Validation right before redaction in the chain (no other call hook between them) runs
    its check inside redaction's call step: the same order, one step fewer on every call."""
    validate = sys.modules.get("manifold.security.validate")  # not imported: not on
    if validate is None:
        return chain
    calls = [a for a in chain if callable(getattr(a, "call", None))]
    for i, a in enumerate(calls[:-1]):
        nxt = calls[i + 1]
        if isinstance(a, validate.ArgumentValidator) and hasattr(nxt, "pre_call"):
            nxt.pre_call = a.check
            return [_CatalogOnly(a) if x is a else x for x in chain]
    return chain


class _WithoutCall:
    """The guard's hooks but `call`, once its call step runs inside redaction's: every other
    hook (catalog, notification, server requests, ...) is the guard's own."""

    __slots__ = ("addon",)

    def __init__(self, addon: Any) -> None:
        self.addon = addon

    def __getattr__(self, name: str) -> Any:
        if name == "call":
            raise AttributeError(name)
        return getattr(self.addon, name)


def _fuse_guard(chain: list[object]) -> list[object]:
    """The guard right before redaction in the chain (no other call hook between them) runs
    inside redaction's call step (`security/fused.py`): the same order, one step fewer on
    every call, and a result that fires neither prefilter answered at once."""
    guard = sys.modules.get("manifold.security.guard")  # not imported: not on
    redact = sys.modules.get("manifold.security.redact")
    if guard is None or redact is None:
        return chain
    calls = [a for a in chain if callable(getattr(a, "call", None))]
    for i, a in enumerate(calls[:-1]):
        nxt = calls[i + 1]
        if isinstance(a, guard.Guard) and isinstance(nxt, redact.Redaction):
            from manifold.security import fused

            if not fused.fusable(nxt):
                return chain
            nxt.on_answer = fused.FusedAnswer(a, nxt)
            nxt.on_error = a.screened
            return [_WithoutCall(a) if x is a else x for x in chain]
    return chain


def as_addons(middleware: Sequence[Middleware]) -> list[object]:
    return [CallAddon(mw) for mw in middleware]
