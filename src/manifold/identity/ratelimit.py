"""Rate limits and budgets (D7): token buckets per tenant, per client and per tool, caps on
concurrent calls, and a daily budget of calls and of result tokens per tenant.

Limits are keyed by identity (the tenant, and the client within it: an API key's name or a
token's subject; on stdio the connection), never by session, so reconnecting resets nothing.
A call over a limit is refused before it reaches the upstream with JSON-RPC error -32000,
`data.reason` "rate_limited" (or "budget_exhausted"), `data.limit` naming the limit and
`data.retry_after` in seconds. A refused call consumes nothing. What is kept is bounded: at
most `ratelimits.max_keys` buckets, counters and budgets (least recently used dropped first; a
dropped bucket comes back full, so the bound errs on the side of serving).
"""

from __future__ import annotations

import fnmatch
import logging
import time
from collections import OrderedDict
from typing import Any, Protocol

from manifold.config import GatewayConfig, LimitSet, RateLimitConfig, TenantLimits
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.jsonrpc import Incoming

log = logging.getLogger("manifold.ratelimit")

RATE_LIMITED = -32000  # implementation-defined server error; data.reason says which


class RateLimitHost(Protocol):
    @property
    def config(self) -> GatewayConfig: ...


class _Bucket:
    __slots__ = ("cap", "rate", "stamp", "tokens")

    def __init__(self, rate: float, cap: float, now: float) -> None:
        self.rate = rate
        self.cap = cap
        self.tokens = cap
        self.stamp = now

    def wait(self, now: float) -> float:
        """0 when a token is there (after refilling), else the seconds until one is."""
        self.tokens = min(self.cap, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return 0.0 if self.tokens >= 1.0 else (1.0 - self.tokens) / self.rate


def _buckets(limits: LimitSet) -> list[tuple[str, float, float]]:
    """(name, rate per second, capacity) of each bucket a limit set asks for."""
    out = []
    if limits.calls_per_second > 0:
        r = limits.calls_per_second
        out.append(("calls_per_second", r, float(limits.burst or max(1.0, r))))
    if limits.calls_per_minute > 0:
        r = limits.calls_per_minute / 60.0
        out.append(
            ("calls_per_minute", r, float(limits.burst or max(1.0, limits.calls_per_minute)))
        )
    return out


class RateLimiter:
    def __init__(self, cfg: RateLimitConfig) -> None:
        self.cfg = cfg
        self.max_keys = cfg.max_keys
        self.buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self.running: dict[str, int] = {}
        self.days: OrderedDict[str, list[Any]] = OrderedDict()  # tenant -> [day, calls, tokens]

    def limits(self, tenant: str) -> TenantLimits:
        return self.cfg.tenants.get(tenant, self.cfg.default)

    def _bucket(self, key: str, rate: float, cap: float, now: float) -> _Bucket:
        b = self.buckets.get(key)
        if b is None:
            b = self.buckets[key] = _Bucket(rate, cap, now)
            if len(self.buckets) > self.max_keys:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(key)
        return b

    def _refuse(self, reason: str, limit: str, retry: float, who: str) -> rpc.RpcError:
        retry = round(max(retry, 0.001), 3)
        log.warning("refused a call of %s: %s (retry after %.3f s)", who, limit, retry)
        return rpc.RpcError(
            RATE_LIMITED,
            f"{'rate limit' if reason == 'rate_limited' else 'budget'} exceeded: {limit}; "
            f"retry after {retry:g} s",
            {"reason": reason, "limit": limit, "retry_after": retry},
        )

    def _day(self, tenant: str) -> list[Any]:
        today = time.strftime("%Y-%m-%d", time.gmtime())
        d = self.days.get(tenant)
        if d is None or d[0] != today:
            d = self.days[tenant] = [today, 0, 0]
            if len(self.days) > self.max_keys:
                self.days.popitem(last=False)
        return d

    def admit(self, ctx: CallContext) -> tuple[list[str], TenantLimits, list[Any] | None]:
        """Check every limit that applies; take a token from each bucket only when all allow.
        Returns the concurrency keys taken (the caller releases them) and the day's counter."""
        tenant = ctx.principal
        lim = self.limits(tenant)
        client = ctx.subject or ctx.session_key or "-"
        who = f"{tenant}/{client}"
        now = time.monotonic()
        day = None
        if lim.daily_calls or lim.daily_tokens:
            day = self._day(tenant)
            until_midnight = 86400 - (time.time() % 86400)
            if lim.daily_calls and day[1] >= lim.daily_calls:
                raise self._refuse(
                    "budget_exhausted", f"tenant daily_calls {lim.daily_calls}", until_midnight, who
                )
            if lim.daily_tokens and day[2] >= lim.daily_tokens:
                raise self._refuse(
                    "budget_exhausted",
                    f"tenant daily_tokens {lim.daily_tokens}",
                    until_midnight,
                    who,
                )
        scopes: list[tuple[str, str, LimitSet]] = [
            ("tenant", f"t\x1f{tenant}", lim),
            ("client", f"c\x1f{tenant}\x1f{client}", lim.per_client),
        ]
        for pattern, tl in lim.tools.items():
            if fnmatch.fnmatchcase(ctx.exposed, pattern):
                scopes.append((f"tool {pattern}", f"x\x1f{tenant}\x1f{pattern}", tl))
        taken: list[_Bucket] = []
        worst = 0.0
        worst_name = ""
        conc: list[str] = []
        for scope, key, ls in scopes:
            for name, rate, cap in _buckets(ls):
                b = self._bucket(f"{key}\x1f{name}", rate, cap, now)
                w = b.wait(now)
                if w > worst:
                    worst, worst_name = w, f"{scope} {name} {getattr(ls, name):g}"
                taken.append(b)
            if ls.concurrent and self.running.get(key, 0) >= ls.concurrent:
                raise self._refuse("rate_limited", f"{scope} concurrent {ls.concurrent}", 0.1, who)
            if ls.concurrent:
                conc.append(key)
        if worst > 0:
            raise self._refuse("rate_limited", worst_name, worst, who)
        for b in taken:
            b.tokens -= 1.0
        for key in conc:
            self.running[key] = self.running.get(key, 0) + 1
        if day is not None:
            day[1] += 1
        return conc, lim, day

    def release(self, conc: list[str]) -> None:
        for key in conc:
            n = self.running.get(key, 1) - 1
            if n > 0:
                self.running[key] = n
            else:
                self.running.pop(key, None)

    async def call(self, ctx: CallContext, call_next: CallNext) -> Incoming:
        conc, lim, day = self.admit(ctx)
        try:
            res = await call_next(ctx)
        finally:
            if conc:
                self.release(conc)
        if day is not None and lim.daily_tokens and res.result is not None:
            day[2] += len(bytes(res.result)) // 4  # the estimator used everywhere: chars/4
        return res


def build(gw: RateLimitHost) -> RateLimiter | None:
    cfg = gw.config.ratelimits
    return RateLimiter(cfg) if cfg is not None else None
