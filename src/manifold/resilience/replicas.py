"""Replicas of one server: which instance serves a call, failover, passive outlier ejection,
session pinning and hedging.

An upstream with `count: N` (stdio) or `replicas: [...]` runs several instances of its server:
the upstream itself (`<name>#1` in logs) and `<name>#2`, `<name>#3`, ... (the gateway starts
and supervises each; the lists come from the first that is up, `gateway.py`). For each call
this addon picks one in service:

- `balance`: `least_in_flight` (the fewest calls in flight, ties in turn) or `round_robin`;
- `sticky`: a client session stays on the replica it started on while that one is in service
  (a stateful server), and moves to another only when it is not;
- in service: not down or waiting for a restart (its supervisor's state), and not ejected:
  `eject_after` failures in a row (no answer, unreachable, server errors) take a replica out
  for `eject_for` seconds (logged, and logged again when it returns); the last one in service
  is never ejected;
- failover: a call that could not reach its replica (it was down and would not start) goes to
  the next one; one that was sent and lost with its connection goes to the next one only when
  it is safe to repeat (read-only, idempotent, or marked in config), as retries do;
- hedging (`hedge`): a read-only call whose replica has not answered after `hedge_delay` (or
  the p95 of the upstream's recent calls) is sent to a second replica too; the first answer
  wins, the other call is cancelled (the upstream is told).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Mapping
from typing import Any, Protocol

from manifold.config import ReplicasConfig
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.resilience.policy import Policy, ResilienceHost, transient
from manifold.upstream import errors
from manifold.upstream.supervisor import Upstream

log = logging.getLogger("manifold.resilience")

_OUT_OF_SERVICE = frozenset({"down", "backoff", "failed"})
_HEDGE_MIN_SAMPLES = 20


class ReplicasHost(ResilienceHost, Protocol):
    @property
    def upstreams(self) -> Mapping[str, Upstream]: ...
    @property
    def replicas(self) -> Mapping[str, Upstream]: ...


class Member:
    """One instance of the server."""

    __slots__ = ("ejected_until", "fails", "index", "name", "up")

    def __init__(self, index: int, name: str, up: Upstream) -> None:
        self.index = index
        self.name = name
        self.up = up
        self.fails = 0
        self.ejected_until = 0.0

    @property
    def load(self) -> int:
        return self.up.slots.in_use + self.up.slots.queued


class ReplicaSet:
    """The replicas of one upstream and what is known of them."""

    def __init__(self, upstream: str, members: list[Member], cfg: ReplicasConfig) -> None:
        self.upstream = upstream
        self.members = members
        self.cfg = cfg
        self.turn = 0
        self.pins: OrderedDict[str, int] = OrderedDict()
        self.latencies: deque[float] = deque(maxlen=256)
        self._p95: float | None = None
        self._since = 0
        self.hedges = 0
        self.failovers = 0

    def in_service(self, m: Member, now: float) -> bool:
        if m.ejected_until:
            if now < m.ejected_until:
                return False
            m.ejected_until = 0.0
            m.fails = 0
            log.info("upstream %s: replica %s returns to service", self.upstream, m.name)
        return m.up.state not in _OUT_OF_SERVICE

    def pick(self, now: float, tried: set[int], session: str = "") -> Member:
        live = [m for m in self.members if m.index not in tried and self.in_service(m, now)]
        if not live:  # none in service: one not tried yet, to get its error (or its restart)
            live = [m for m in self.members if m.index not in tried] or self.members
        if self.cfg.sticky and session:
            i = self.pins.get(session)
            if i is not None:
                for m in live:
                    if m.index == i:
                        self.pins.move_to_end(session)
                        return m
        n = len(self.members)
        self.turn = (self.turn + 1) % n
        if self.cfg.balance == "round_robin":
            chosen = min(live, key=lambda m: (m.index - self.turn) % n)
        else:
            chosen = min(live, key=lambda m: (m.load, (m.index - self.turn) % n))
        if self.cfg.sticky and session:
            self.pins[session] = chosen.index
            self.pins.move_to_end(session)
            if len(self.pins) > self.cfg.max_pins:
                self.pins.popitem(last=False)
        return chosen

    def outcome(self, m: Member, ok: bool, now: float) -> None:
        if ok:
            m.fails = 0
            return
        m.fails += 1
        if m.fails < self.cfg.eject_after or m.ejected_until:
            return
        others = [x for x in self.members if x is not m and self.in_service(x, now)]
        if not others:
            return  # the last one in service stays
        m.ejected_until = now + self.cfg.eject_for
        log.warning(
            "upstream %s: replica %s ejected after %d failures in a row; back in %.1f s",
            self.upstream,
            m.name,
            m.fails,
            self.cfg.eject_for,
        )

    def took(self, seconds: float) -> None:
        self.latencies.append(seconds)
        self._since += 1
        if self._since >= 16:
            self._since = 0
            if len(self.latencies) >= _HEDGE_MIN_SAMPLES:
                ordered = sorted(self.latencies)
                self._p95 = ordered[int(0.95 * (len(ordered) - 1))]

    def hedge_delay(self) -> float | None:
        return self.cfg.hedge_delay if self.cfg.hedge_delay is not None else self._p95

    def status(self, now: float) -> list[dict[str, Any]]:
        out = []
        for m in self.members:
            d: dict[str, Any] = {"name": m.name, "state": m.up.state, "in_flight": m.load}
            if m.ejected_until > now:
                d["ejected_for"] = round(m.ejected_until - now, 1)
            out.append(d)
        return out


class Replicas:
    """The replica addon: innermost of the resilience addons, so each retry picks again."""

    def __init__(self, policy: Policy, host: ReplicasHost) -> None:
        self.policy = policy
        self.sets: dict[str, ReplicaSet] = {}
        for name, up in host.upstreams.items():
            extra = [(n, u) for n, u in host.replicas.items() if n.partition("#")[0] == name]
            if not extra:
                continue
            members = [Member(0, f"{name}#1", up)]
            members += [Member(i, n, u) for i, (n, u) in enumerate(extra, start=1)]
            self.sets[name] = ReplicaSet(name, members, policy.settings[name].replicas)

    async def call(self, ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        rs = self.sets.get(ctx.route.upstream)
        if rs is None:
            return await call_next(ctx)
        facts = self.policy.facts(ctx.route.upstream, ctx.method, ctx.route.name)
        tried: set[int] = set()
        while True:
            now = time.monotonic()
            m = rs.pick(now, tried, ctx.session_key)
            tried.add(m.index)
            if not facts.retry_safe and m.up.state != "ready":
                # Bring it up first: a failure here surely left nothing behind, so the call
                # may go to another replica even though it is not safe to repeat.
                try:
                    await m.up.ensure()
                except rpc.RpcError as e:
                    rs.outcome(m, False, time.monotonic())
                    if len(tried) < len(rs.members):
                        rs.failovers += 1
                        log.debug("upstream %s: replica %s is down: %s", rs.upstream, m.name, e)
                        continue
                    raise
            ctx.replica = "" if m.index == 0 else m.name
            delay = rs.hedge_delay() if rs.cfg.hedge and facts.cacheable else None
            try:
                if delay is not None and len(rs.members) > 1:
                    res = await self._hedged(rs, m, ctx, call_next, delay, tried)
                else:
                    res = await call_next(ctx)
            except rpc.RpcError as e:
                now = time.monotonic()
                rs.outcome(m, not transient(e), now)
                if (
                    facts.retry_safe
                    and errors.reason_of(e) == errors.UNAVAILABLE
                    and len(tried) < len(rs.members)
                ):
                    rs.failovers += 1
                    log.debug(
                        "upstream %s: %s %s failed on replica %s (%s): trying another",
                        rs.upstream,
                        ctx.method,
                        ctx.route.name,
                        m.name,
                        e.message,
                    )
                    continue
                raise
            finally:
                ctx.replica = ""
            done = time.monotonic()
            rs.outcome(m, True, done)
            rs.took(done - now)
            return res

    async def _hedged(
        self,
        rs: ReplicaSet,
        m: Member,
        ctx: CallContext,
        call_next: CallNext,
        delay: float,
        tried: set[int],
    ) -> rpc.Incoming:
        """The call on `m`; after `delay` without an answer, on a second replica too."""
        first = asyncio.ensure_future(call_next(ctx))
        tasks = {first}
        try:
            done, _ = await asyncio.wait(tasks, timeout=delay)
            if done:
                return first.result()
            second_m = rs.pick(time.monotonic(), tried | {m.index})
            if second_m is m or not rs.in_service(second_m, time.monotonic()):
                return await first
            rs.hedges += 1
            log.debug("upstream %s: hedging %s on %s", rs.upstream, ctx.route.name, second_m.name)
            ctx2 = dataclasses.replace(ctx, replica="" if second_m.index == 0 else second_m.name)
            second = asyncio.ensure_future(call_next(ctx2))
            tasks.add(second)
            pending = set(tasks)
            failure: BaseException | None = None
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for t in done:
                    if t.exception() is None:
                        return t.result()  # the first answer wins
                    failure = failure or t.exception()
            assert failure is not None
            raise failure
        finally:
            for t in tasks:
                if not t.done():
                    t.cancel()  # the loser: cancelled, and the upstream told

    def health(self) -> dict[str, Any]:
        now = time.monotonic()
        return {"replicas": {name: rs.status(now) for name, rs in self.sets.items()}}


def build(gw: ReplicasHost, policy: Policy | None = None) -> Replicas | None:
    policy = policy or Policy(gw)
    addon = Replicas(policy, gw)
    return addon if addon.sets else None
