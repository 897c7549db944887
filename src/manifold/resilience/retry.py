"""Retries of calls that are safe to repeat, with backoff, jitter, an attempt cap and a budget.

Safe to repeat: reads (`resources/read`, `prompts/get`, `completion/complete`) and tools
annotated `readOnlyHint` or `idempotentHint`, or marked `retry: true` in the upstream's
`resilience.tools`; `retry: false` there turns it off for a tool. Any other call is sent once:
a timeout or a lost connection after the request left may mean it ran, and running it twice
is worse than failing once.

What is retried: no answer in time, an upstream that cannot be reached or went away mid-call
(unless it says its restart is further off than `max_retry_after`), and server errors it
answered (-32603, -32000..-32099); never an error about the request itself, an `isError`
result, a modern input round, or a call the breaker refused.

The budget keeps a dying upstream from getting `attempts` times its load: each call earns
`budget_ratio` of a retry (up to `budget_burst` kept), each retry spends one.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable

from manifold.config import RetryConfig
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.resilience.policy import Policy, ResilienceHost, transient

log = logging.getLogger("manifold.resilience")


class RetryBudget:
    """A token bucket filled by calls: retries stay near `ratio` of the calls made."""

    __slots__ = ("balance", "cap", "ratio", "refused", "warned_at")

    def __init__(self, cfg: RetryConfig) -> None:
        self.ratio = cfg.budget_ratio
        self.cap = float(cfg.budget_burst)
        self.balance = self.cap
        self.refused = 0
        self.warned_at = 0.0

    def earn(self) -> None:
        b = self.balance + self.ratio
        self.balance = b if b < self.cap else self.cap

    def spend(self) -> bool:
        if self.balance >= 0.999_999:  # sums of ratios such as 0.1 fall just short of 1
            self.balance -= 1.0
            return True
        self.refused += 1
        return False


def _retry_after(e: BaseException) -> float | None:
    data = e.data if isinstance(e, rpc.RpcError) else None
    ra = data.get("retry_after") if isinstance(data, dict) else None
    return float(ra) if isinstance(ra, int | float) else None


class Retry:
    """The retry addon (innermost of the resilience addons: each try goes to the upstream)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.cfg: dict[str, RetryConfig] = {
            name: s.retry
            for name, s in policy.settings.items()
            if s.retry.enabled and s.retry.attempts > 1
        }
        self.budgets = {name: RetryBudget(c) for name, c in self.cfg.items()}
        self.retries: dict[str, int] = dict.fromkeys(self.cfg, 0)

    async def call(self, ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        up = ctx.route.upstream
        cfg = self.cfg.get(up)
        if cfg is None:
            return await call_next(ctx)
        self.budgets[up].earn()
        if not self.policy.facts(up, ctx.method, ctx.route.name).retry_safe or (
            "requestState" in ctx.params or "inputResponses" in ctx.params
        ):
            return await call_next(ctx)
        try:  # the first try inline: a call that succeeds costs no more than this
            return await call_next(ctx)
        except rpc.RpcError as e:
            what = f"{ctx.method} {ctx.route.name}"
            if not self._again(e, 1, cfg, self.budgets[up], up, what):
                raise
            first = e
        return await self._tries(up, cfg, what, lambda: call_next(ctx), first)

    async def retrying(
        self, upstream: str, what: str, send: Callable[[], Awaitable[rpc.Incoming]]
    ) -> rpc.Incoming:
        """`send()` with this upstream's retries: for the gateway's own reads (its lists)."""
        cfg = self.cfg.get(upstream)
        if cfg is None:
            return await send()
        self.budgets[upstream].earn()
        try:
            return await send()
        except rpc.RpcError as e:
            if not self._again(e, 1, cfg, self.budgets[upstream], upstream, what):
                raise
            first = e
        return await self._tries(upstream, cfg, what, send, first)

    async def _tries(
        self,
        up: str,
        cfg: RetryConfig,
        what: str,
        send: Callable[[], Awaitable[rpc.Incoming]],
        why: rpc.RpcError,
    ) -> rpc.Incoming:
        """Retries after the first try failed with `why` (and the budget allowed one)."""
        budget = self.budgets[up]
        attempt = 1
        while True:
            delay = random.uniform(
                0.0, min(cfg.backoff_max, cfg.backoff_initial * 2 ** (attempt - 1))
            )
            ra = _retry_after(why)
            if ra is not None:
                # A restart is scheduled: try once it has begun (the figure is rounded to
                # 0.1 s; a call that arrives while it starts waits for it).
                delay = max(delay, ra + 0.1)
            self.retries[up] += 1
            log.info(
                "retrying %s on upstream %s (try %d of %d) in %.0f ms: %s",
                what,
                up,
                attempt + 1,
                cfg.attempts,
                delay * 1000,
                why,
            )
            await asyncio.sleep(delay)
            attempt += 1
            try:
                return await send()
            except rpc.RpcError as e:
                if not self._again(e, attempt, cfg, budget, up, what):
                    raise
                why = e

    def _again(
        self,
        e: rpc.RpcError,
        attempt: int,
        cfg: RetryConfig,
        budget: RetryBudget,
        up: str,
        what: str,
    ) -> bool:
        if attempt >= cfg.attempts or not transient(e):
            return False
        ra = _retry_after(e)
        if ra is not None and ra > cfg.max_retry_after:
            return False
        if budget.spend():
            return True
        now = time.monotonic()
        if now - budget.warned_at >= 10.0:  # one line per upstream every 10 s at most
            budget.warned_at = now
            log.warning(
                "upstream %s: retry budget spent (%d retries refused so far): %s not retried",
                up,
                budget.refused,
                what,
            )
        return False


def build(gw: ResilienceHost, policy: Policy | None = None) -> Retry | None:
    policy = policy or Policy(gw)
    addon = Retry(policy)
    return addon if addon.cfg else None
