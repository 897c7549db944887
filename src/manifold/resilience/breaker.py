"""Circuit breakers: one per upstream, and one per tool where `resilience.tools` asks for it.

Closed, a breaker counts the calls that ended in the last `window` seconds (ten buckets, so
counting costs a few integer operations) and the failures among them: no answer in time, an
upstream that cannot be reached, a server error it answered (-32603, -32000..-32099). When at
least `min_calls` ended and `failure_ratio` of them failed, it opens: for `open_for` seconds
every call fails at once with -32001 and `data.reason` "circuit_open" (`upstream`,
`retry_after`), without reaching the upstream. Then it is half-open: `half_open_probes` calls
go through; a probe that succeeds closes it, one that fails opens it again for twice as long
(up to `open_for_max`). Each change is logged; the state is in `/health` and `manifold check`.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Final

from manifold.config import BreakerConfig
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.resilience.policy import Policy, ResilienceHost, transient

log = logging.getLogger("manifold.resilience")

CIRCUIT_OPEN: Final = "circuit_open"
_BUCKETS = 10

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"


class Circuit:
    """One breaker: a sliding window of outcomes and the closed / open / half-open state."""

    __slots__ = (
        "calls",
        "cfg",
        "epochs",
        "fails",
        "last_calls",
        "last_fails",
        "name",
        "open_for",
        "probes",
        "state",
        "tool",
        "until",
        "upstream",
        "width",
    )

    def __init__(self, upstream: str, cfg: BreakerConfig, tool: str = "") -> None:
        self.upstream = upstream
        self.tool = tool
        self.name = f"{upstream}/{tool}" if tool else upstream
        self.cfg = cfg
        self.width = cfg.window / _BUCKETS
        self.calls = [0] * _BUCKETS
        self.fails = [0] * _BUCKETS
        self.epochs = [-1] * _BUCKETS
        self.state = CLOSED
        self.until = 0.0
        self.open_for = cfg.open_for
        self.probes = 0
        self.last_calls = 0
        self.last_fails = 0

    # ------------------------------------------------------------------ admission

    def admit(self, now: float) -> bool:
        """True: the call may go (a probe when half-open). False: refuse it."""
        if self.state == CLOSED:
            return True
        if self.state == OPEN:
            if now < self.until:
                return False
            self.state = HALF_OPEN
            self.probes = 0
            log.info("circuit %s half-open: letting a probe through", self.name)
        if self.probes < self.cfg.half_open_probes:
            self.probes += 1
            return True
        return False

    def refusal(self, now: float) -> rpc.RpcError:
        wait = max(0.0, self.until - now)
        what = f"upstream {self.upstream!r}" + (f" tool {self.tool!r}" if self.tool else "")
        if self.state == HALF_OPEN:
            msg = f"{what} is being probed after failures (circuit half-open); try again shortly"
            wait = max(wait, 0.5)
        else:
            msg = (
                f"{what} is failing ({self.last_fails} of {self.last_calls} calls in the last "
                f"{self.cfg.window:g} s): circuit open, calls fail fast; next try in {wait:.1f} s"
            )
        data: dict[str, Any] = {
            "reason": CIRCUIT_OPEN,
            "upstream": self.upstream,
            "retry_after": round(wait, 1),
        }
        if self.tool:
            data["tool"] = self.tool
        return rpc.RpcError(rpc.UPSTREAM_UNAVAILABLE, msg, data)

    # ------------------------------------------------------------------ outcomes

    def record(self, ok: bool, probe: bool, now: float) -> None:
        if probe and self.state == HALF_OPEN:
            if ok:
                self._close()
            else:
                self.open_for = min(
                    self.open_for * 2, max(self.cfg.open_for_max, self.cfg.open_for)
                )
                self._open(now, "a probe failed")
            return
        epoch = int(now / self.width)
        i = epoch % _BUCKETS
        if self.epochs[i] != epoch:
            self.epochs[i] = epoch
            self.calls[i] = 0
            self.fails[i] = 0
        self.calls[i] += 1
        if ok:
            return
        self.fails[i] += 1
        if self.state != CLOSED:
            return
        oldest = epoch - _BUCKETS + 1
        calls = fails = 0
        for k in range(_BUCKETS):
            if self.epochs[k] >= oldest:
                calls += self.calls[k]
                fails += self.fails[k]
        if calls >= self.cfg.min_calls and fails >= self.cfg.failure_ratio * calls:
            self.last_calls, self.last_fails = calls, fails
            self._open(now, f"{fails} of {calls} calls failed in the last {self.cfg.window:g} s")

    def release_probe(self) -> None:
        """A probe ended without an outcome (cancelled): another may go."""
        if self.state == HALF_OPEN and self.probes > 0:
            self.probes -= 1

    def _open(self, now: float, why: str) -> None:
        self.state = OPEN
        self.until = now + self.open_for
        log.warning(
            "circuit %s opened: %s; calls fail fast for %.1f s", self.name, why, self.open_for
        )

    def _close(self) -> None:
        self.state = CLOSED
        self.open_for = self.cfg.open_for
        self.calls = [0] * _BUCKETS
        self.fails = [0] * _BUCKETS
        self.epochs = [-1] * _BUCKETS
        log.info("circuit %s closed: a probe succeeded", self.name)

    def status(self, now: float) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state}
        if self.state == OPEN:
            out["retry_after"] = round(max(0.0, self.until - now), 1)
        return out


class Breaker:
    """The breaker addon: refuses calls to an open circuit, counts the outcomes of the rest."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.cfg = {n: s.breaker for n, s in policy.settings.items() if s.breaker.enabled}
        self.circuits: dict[str, Circuit] = {n: Circuit(n, c) for n, c in self.cfg.items()}
        self.tool_circuits: dict[tuple[str, str], Circuit] = {}

    async def call(self, ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        up = ctx.route.upstream
        c = self.circuits.get(up)
        if c is None:
            return await call_next(ctx)
        t: Circuit | None = None
        if (
            ctx.method == "tools/call"
            and self.policy.facts(up, ctx.method, ctx.route.name).own_breaker
        ):
            key = (up, ctx.route.name)
            t = self.tool_circuits.get(key)
            if t is None:
                t = self.tool_circuits[key] = Circuit(up, c.cfg, ctx.route.name)
        now = time.monotonic()
        probe = c.state != CLOSED
        if not c.admit(now):
            raise c.refusal(now)
        tprobe = False
        if t is not None:
            tprobe = t.state != CLOSED
            if not t.admit(now):
                if probe:
                    c.release_probe()
                raise t.refusal(now)
        try:
            res = await call_next(ctx)
        except rpc.RpcError as e:
            ok = not transient(e)
            now = time.monotonic()
            c.record(ok, probe, now)
            if t is not None:
                t.record(ok, tprobe, now)
            raise
        except BaseException:  # cancelled, or a bug below: no verdict on the upstream
            if probe:
                c.release_probe()
            if t is not None and tprobe:
                t.release_probe()
            raise
        now = time.monotonic()
        c.record(True, probe, now)
        if t is not None:
            t.record(True, tprobe, now)
        return res

    def health(self) -> dict[str, Any]:
        now = time.monotonic()
        out = {n: c.status(now) for n, c in self.circuits.items()}
        out.update(
            {c.name: c.status(now) for c in self.tool_circuits.values() if c.state != CLOSED}
        )
        return {"circuits": out}


def build(gw: ResilienceHost, policy: Policy | None = None) -> Breaker | None:
    policy = policy or Policy(gw)
    addon = Breaker(policy)
    return addon if addon.cfg else None
