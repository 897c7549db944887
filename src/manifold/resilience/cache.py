"""The response cache and the coalescing of identical calls in flight.

Only what is safe to share: `tools/call` of tools annotated `readOnlyHint` (or marked
`cache: true` in the upstream's `resilience.tools`; `cache: false` turns a tool off) and
`resources/read` (`cache.resources`). The key is a digest of the principal, the upstream, the
method, the tool name or URI and the arguments in canonical form (keys sorted), so two tenants
never share an entry; an answer its server marks `cacheScope: "private"` is kept under the
client session as well, and only for a call that has a session.

How long: the answer's own `ttlMs` when it gives one (0: not kept), else the tool's
`cache_ttl`, else `ttl`. Never kept: errors, `isError` results, modern input rounds
(`input_required`, and any call carrying `requestState` or `inputResponses`), answers larger
than `max_entry_bytes`. The whole cache holds at most `max_bytes` (the top-level setting),
least recently used evicted first.

Coalescing (`coalesce`): while one such call is in flight, an identical one waits for its
answer instead of sending its own, and gets the same answer or error. An answer that may not
be kept (an input round, an `isError` result) is not shared: the waiter asks for itself. The
first call runs in its caller's task (no task of its own, so a miss costs little): when its
client cancels it, it is cancelled upstream as usual and the waiters make their own call. A
private answer goes only to waiters of the same session; the others make their own call.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import OrderedDict
from typing import Any

import msgspec
import orjson

from manifold.config import CacheConfig
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.resilience.policy import Policy, ResilienceHost

log = logging.getLogger("manifold.resilience")

_ENTRY_OVERHEAD = 256  # bytes an entry costs besides its answer (key, record, LRU node)
_CACHED_METHODS = frozenset({"tools/call", "resources/read"})


class LruBytes:
    """Answers by key, bounded in bytes, least recently used evicted first, each expiring."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.evictions = 0
        self._d: OrderedDict[bytes, tuple[bytes, float, int]] = OrderedDict()  # raw, expires, size

    def __len__(self) -> int:
        return len(self._d)

    def get(self, key: bytes, now: float) -> bytes | None:
        e = self._d.get(key)
        if e is None:
            return None
        if e[1] <= now:
            del self._d[key]
            self.bytes -= e[2]
            return None
        self._d.move_to_end(key)
        return e[0]

    def put(self, key: bytes, raw: bytes, expires: float) -> None:
        size = len(raw) + _ENTRY_OVERHEAD
        if size > self.max_bytes:
            return
        d = self._d
        old = d.pop(key, None)
        if old is not None:
            self.bytes -= old[2]
        d[key] = (raw, expires, size)
        self.bytes += size
        while self.bytes > self.max_bytes:
            _, gone = d.popitem(last=False)
            self.bytes -= gone[2]
            self.evictions += 1


class _LeaderGone(Exception):
    """The call that others waited for was cancelled by its own caller."""


class _Flight:
    """One upstream call in flight; identical calls wait on `future` (made by the first)."""

    __slots__ = ("future", "session")

    def __init__(self, session: str) -> None:
        self.future: asyncio.Future[rpc.Incoming] | None = None
        self.session = session


def _key(ctx: CallContext) -> bytes:
    args = ctx.params.get("arguments") if ctx.method == "tools/call" else None
    r = ctx.route
    data = orjson.dumps(
        [ctx.principal, r.upstream, ctx.method, r.name, args], option=orjson.OPT_SORT_KEYS
    )
    return hashlib.blake2b(data, digest_size=20).digest()


class _Terms(msgspec.Struct):
    """The members of an answer that decide whether and how long it may be kept; msgspec reads
    just these (it skips the rest without building it), faster than searching the bytes."""

    isError: Any = None
    resultType: Any = "complete"
    ttlMs: Any = None
    cacheScope: Any = None


_terms = msgspec.json.Decoder(_Terms)


def _keepable(raw: bytes, default_ttl: float) -> tuple[float, bool] | None:
    """(ttl seconds, private) for an answer that may be kept, or None."""
    try:
        t = _terms.decode(raw)
    except msgspec.DecodeError:  # not JSON, or not an object
        return None
    if t.isError is True or t.resultType != "complete":
        return None  # a failure, or an input round (MRTR): anything but a final answer
    ttl = default_ttl
    ms = t.ttlMs
    if isinstance(ms, int | float) and not isinstance(ms, bool):
        if ms <= 0:
            return None
        ttl = ms / 1000.0
    return ttl, t.cacheScope == "private"


class Cache:
    """The cache addon (outermost of the resilience addons: a hit reaches nothing below)."""

    def __init__(self, policy: Policy, max_bytes: int) -> None:
        self.policy = policy
        self.cfg: dict[str, CacheConfig] = {
            n: s.cache for n, s in policy.settings.items() if s.cache.enabled
        }
        self.store = LruBytes(max_bytes)
        self.flights: dict[bytes, _Flight] = {}
        self.hits = 0
        self.misses = 0
        self.coalesced = 0
        self.private_kept = False  # some answer was kept for one session: look there too

    async def call(self, ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        up = ctx.route.upstream
        cfg = self.cfg.get(up)
        if cfg is None or ctx.method not in _CACHED_METHODS:
            return await call_next(ctx)
        facts = self.policy.facts(up, ctx.method, ctx.route.name)
        if (
            not facts.cacheable
            or (ctx.method == "resources/read" and not cfg.resources)
            or "requestState" in ctx.params
            or "inputResponses" in ctx.params
        ):
            return await call_next(ctx)
        key = _key(ctx)
        now = time.monotonic()
        session = ctx.session_key
        raw = self.store.get(key, now)
        if raw is None and session and self.private_kept:
            raw = self.store.get(key + session.encode(), now)
        if raw is not None:
            self.hits += 1
            return rpc.Incoming(result=msgspec.Raw(raw))
        self.misses += 1
        ttl = facts.cache_ttl or cfg.ttl
        if not cfg.coalesce:
            res = await call_next(ctx)
            self._keep(key, session, res, ttl, cfg)
            return res
        flight = self.flights.get(key)
        if flight is None:  # the first: make the call; identical ones meanwhile wait for it
            self.flights[key] = flight = _Flight(session)
            try:
                res = await call_next(ctx)
            except asyncio.CancelledError:
                # The caller left (its client cancelled): waiters make their own call.
                self._land(key, flight, exc=_LeaderGone())
                raise
            except BaseException as e:
                self._land(key, flight, exc=e)
                raise
            self._land(key, flight, res=res)
            self._keep(key, session, res, ttl, cfg)
            return res
        self.coalesced += 1
        if flight.future is None:
            flight.future = asyncio.get_running_loop().create_future()
        try:
            res = await asyncio.shield(flight.future)
        except _LeaderGone:
            return await self.call(ctx, call_next)  # its caller left: this one asks itself
        kept = _keepable(bytes(res.result or b""), ttl)
        if kept is None or (kept[1] and (not session or flight.session != session)):
            # Not to be reused (an input round, `isError`, `ttlMs: 0`), or private to another
            # client session: this caller asks for itself.
            return await call_next(ctx)
        return rpc.Incoming(result=res.result)

    def _land(
        self,
        key: bytes,
        flight: _Flight,
        res: rpc.Incoming | None = None,
        exc: BaseException | None = None,
    ) -> None:
        if self.flights.get(key) is flight:
            del self.flights[key]
        f = flight.future
        if f is None:  # nobody waited
            return
        if exc is not None:
            f.set_exception(exc)
            f.exception()  # nobody may be waiting: not an "exception never retrieved"
        else:
            assert res is not None
            f.set_result(res)

    def _keep(self, key: bytes, session: str, res: Any, ttl: float, cfg: CacheConfig) -> None:
        if not isinstance(res, rpc.Incoming) or res.error is not None:
            return
        raw = bytes(res.result or b"")
        if len(raw) > cfg.max_entry_bytes:
            return
        kept = _keepable(raw, ttl)
        if kept is None:
            return
        seconds, private = kept
        if private:
            if not session:
                return  # private to a client session, and the call had none
            key += session.encode()
            self.private_kept = True
        self.store.put(key, raw, time.monotonic() + seconds)

    def health(self) -> dict[str, Any]:
        s = self.store
        return {
            "cache": {
                "entries": len(s),
                "bytes": s.bytes,
                "max_bytes": s.max_bytes,
                "hits": self.hits,
                "misses": self.misses,
                "coalesced": self.coalesced,
                "evictions": s.evictions,
            }
        }


def build(gw: ResilienceHost, policy: Policy | None = None) -> Cache | None:
    policy = policy or Policy(gw)
    addon = Cache(policy, gw.config.resilience.cache.max_bytes)
    return addon if addon.cfg else None
