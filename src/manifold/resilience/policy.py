"""What the resilience addons know of a call: its upstream's effective settings (the top-level
`resilience:` defaults under the upstream's own keys) and, for a tool, whether it is safe to
repeat and whether its answer may be kept, from its annotations and the config's tool globs.

Per tool the answer is worked out once and kept until the catalog changes (a restart or a
`list_changed` may bring new annotations), so a call costs one dict lookup here.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any, Protocol

from manifold.catalog import Catalog
from manifold.config import GatewayConfig, ToolResilience, UpstreamResilience, resilience_for
from manifold.protocol import jsonrpc as rpc
from manifold.upstream import errors
from manifold.upstream.session import UpstreamError

# Reads: they change nothing upstream, so they are safe to repeat and to share.
READ_METHODS = frozenset({"resources/read", "prompts/get", "completion/complete"})


class ResilienceHost(Protocol):
    @property
    def config(self) -> GatewayConfig: ...
    @property
    def catalog(self) -> Catalog: ...


@dataclass(frozen=True, slots=True)
class ToolFacts:
    """One tool (or read) of one upstream, as the resilience addons see it."""

    retry_safe: bool  # may be sent again after a failure (read-only, idempotent, or config)
    cacheable: bool  # its answer may be kept and shared (read-only, or config)
    cache_ttl: float | None  # the tool's own TTL (config), None: the upstream's
    own_breaker: bool  # a breaker of its own besides the upstream's


_READ = ToolFacts(True, True, None, False)
_NONE = ToolFacts(False, False, None, False)


class Policy:
    """Settings per upstream and facts per tool, for the three addons."""

    def __init__(self, host: ResilienceHost) -> None:
        self.catalog = host.catalog
        cfg = host.config
        self.settings: dict[str, UpstreamResilience] = {
            name: resilience_for(cfg.resilience, up.resilience)
            for name, up in cfg.upstreams.items()
        }
        self._globs: dict[str, list[tuple[str, ToolResilience]]] = {
            name: list(s.tools.items()) for name, s in self.settings.items()
        }
        self._facts: dict[tuple[str, str], ToolFacts] = {}
        self._version = -1

    def any_on(self, section: str) -> bool:
        return any(getattr(s, section).enabled for s in self.settings.values())

    def facts(self, upstream: str, method: str, name: str) -> ToolFacts:
        if method != "tools/call":
            return _READ if method in READ_METHODS else _NONE
        if self._version != self.catalog.version:
            self._facts.clear()
            self._version = self.catalog.version
        key = (upstream, name)
        f = self._facts.get(key)
        if f is None:
            f = self._facts[key] = self._work_out(upstream, name)
        return f

    def _work_out(self, upstream: str, name: str) -> ToolFacts:
        ann: dict[str, Any] = {}
        for t in self.catalog.upstream_items(upstream, "tools"):
            if t.get("name") == name:
                a = t.get("annotations")
                ann = a if isinstance(a, dict) else {}
                break
        read_only = ann.get("readOnlyHint") is True
        # idempotentHint means something only for a tool that may write (the spec's reading).
        idempotent = ann.get("idempotentHint") is True and not read_only
        over = next(
            (o for g, o in self._globs.get(upstream, ()) if fnmatch.fnmatchcase(name, g)), None
        )
        retry_safe = read_only or idempotent
        cacheable = read_only
        ttl = None
        own = False
        if over is not None:
            if over.retry is not None:
                retry_safe = over.retry
            if over.cache is not None:
                cacheable = over.cache
            ttl = over.cache_ttl
            own = over.breaker
        return ToolFacts(retry_safe, cacheable, ttl, own)


def transient(e: BaseException) -> bool:
    """A failure that says nothing about the request itself, so another try may succeed: no
    answer in time, the upstream unreachable or gone mid-call, or a server error it answered
    (-32603, -32000..-32099). An error about the request (-32602, ...) is not."""
    if isinstance(e, UpstreamError):
        return e.code == rpc.INTERNAL_ERROR or -32099 <= e.code <= -32000
    if isinstance(e, rpc.RpcError):
        return errors.reason_of(e) in (errors.TIMEOUT, errors.UNAVAILABLE)
    return isinstance(e, TimeoutError)
