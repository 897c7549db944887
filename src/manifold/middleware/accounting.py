"""Accounting: what the model reads, per call and per tool listing, in chars/4 tokens.

Two middleware, built together by `accounting_pair()`, sit at the two ends of the chain:

- `accounting` (outermost) sees every tools/call the client made and the result the model gets
  after every other middleware. It records the call under one mechanism (`savings.py`):
  `search` for search_tools / list_servers / list_tools, `calls` for everything else.
- `raw_meter` (innermost, right before the router) sees what the upstream itself returned:
  that is the native cost (`before`) of the call. invoke_tool re-enters the pipeline for the
  real call; that inner call is measured by `raw_meter` and accounted by the outer one only.

The two are linked by a context variable holding the outer call's cell, set for the duration
of the call (inner calls run in the same task). A result that reached the outer end without
passing `raw_meter` (answered from a cache, say) counts as its own native cost.

Tokens are those of the JSON-RPC response frame: the result JSON plus the envelope around it
(`tokens.ENVELOPE_CHARS`), and for a 2026-07-28 client the `"resultType":"complete"` the
dispatcher adds where a result lacks it. The hot path is a context-variable set/reset, a few
length reads and `Savings.record` (plus, for a modern client calling through invoke_tool, a
scan of the result for "resultType", as the dispatcher does too).

`ListingMeter` does the same for tools/list in router and hybrid mode (called by the
dispatcher, which answers lists itself): before = the native (passthrough) pages, after = the
page sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any, Protocol

import orjson

from manifold.catalog import Route
from manifold.economy.savings import Savings
from manifold.economy.tokens import (
    ENVELOPE_BASE_CHARS,
    ENVELOPE_CHARS,
    MODERN_EXTRA_CHARS,
    estimate_chars,
)
from manifold.pipeline import CallContext, CallNext, Middleware
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import Era
from manifold.router import GATEWAY

SEARCH_NAMES = frozenset({"search_tools", "list_servers", "list_tools"})
_ERROR_ENVELOPE_CHARS = ENVELOPE_CHARS - 1  # "error" is one character shorter than "result"
_RESULT_TYPE = re.compile(rb'"resultType"')


class _Cell:
    __slots__ = ("raw", "route")

    def __init__(self) -> None:
        self.raw: list[Any] = []  # upstream result texts seen by raw_meter during the call
        self.route: Route | None = None  # the upstream call's route


_CALL: ContextVar[_Cell | None] = ContextVar("manifold_accounting_call", default=None)


EraOf = Callable[[str], Era | None]


class CursorMaker(Protocol):
    def make(self, kind: str, offset: int) -> str: ...


def _no_era(upstream: str) -> Era | None:
    return None


def accounting_pair(savings: Savings, era_of: EraOf = _no_era) -> tuple[Middleware, Middleware]:
    """(accounting, raw_meter): put the first outermost and the second innermost.

    `era_of(upstream)` tells which era an upstream speaks: a 2026-07-28 client gets
    `"resultType":"complete"` added to a legacy upstream's result (`MODERN_EXTRA_CHARS`).
    """

    def added(route: Route, result: Any) -> int:
        """What the dispatcher adds to `result` for a modern client."""
        if route.upstream == GATEWAY:
            return 0 if _RESULT_TYPE.search(result) else MODERN_EXTRA_CHARS
        return MODERN_EXTRA_CHARS if era_of(route.upstream) is Era.LEGACY else 0

    async def accounting(ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        if ctx.method != "tools/call" or _CALL.get() is not None:
            return await call_next(ctx)
        cell = _Cell()
        token = _CALL.set(cell)
        try:
            res = await call_next(ctx)
        except rpc.RpcError as e:
            n = estimate_chars(len(orjson.dumps(e.to_obj())) + _ERROR_ENVELOPE_CHARS)
            savings.record("calls", n, n)
            raise
        finally:
            _CALL.reset(token)
        modern = ctx.client_caps is not None
        result = res.result
        route = ctx.route
        extra_after = added(route, result) if modern else 0
        after = estimate_chars(len(result) + ENVELOPE_CHARS + extra_after)
        raw: Sequence[Any] = ()
        extra_before = 0
        if route.upstream == GATEWAY and route.name != "invoke_tool":
            mechanism = "search" if route.name in SEARCH_NAMES else "calls"
            before = 0
        else:
            mechanism = "calls"
            raw = cell.raw
            if raw:
                if len(raw) > 1:
                    raw = [b"".join(bytes(r) for r in raw)]
                # Natively, the upstream's result as a passthrough relay sends it.
                extra_before = added(cell.route, raw[0]) if modern and cell.route else 0
                before = estimate_chars(len(raw[0]) + ENVELOPE_CHARS + extra_before)
            else:
                before, raw, extra_before = after, (result,), extra_after
        savings.record(mechanism, before, after)
        if savings.sampling:
            savings.sample(
                mechanism, raw, (result,), before, after, extra_before > 0, extra_after > 0
            )
        return res

    async def raw_meter(ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        res = await call_next(ctx)
        cell = _CALL.get()
        if cell is not None and ctx.route.upstream != GATEWAY:
            cell.raw.append(res.result)
            cell.route = ctx.route
        return res

    return accounting, raw_meter


class ListingMeter:
    """tools/list in router or hybrid mode: what the native list would have cost, and what
    was sent. The native pages are encoded once per catalog version."""

    def __init__(self, savings: Savings) -> None:
        self.savings = savings
        self._items: object = None
        self._key: tuple[int, bool, int] | None = None
        self._pages: list[bytes] = []

    def native_pages(
        self, items: list[dict[str, Any]], size: int, modern: bool, ttl: int, cursors: CursorMaker
    ) -> list[bytes]:
        """The result JSON of each page a passthrough client would fetch."""
        key = (size, modern, ttl)
        if self._items is not items or self._key != key:
            pages = []
            for start in range(0, max(len(items), 1), size):
                res: dict[str, Any] = {"tools": items[start : start + size]}
                if start + size < len(items):
                    res["nextCursor"] = cursors.make("tools", start + size)
                if modern:
                    res.update(ttlMs=ttl, cacheScope="private", resultType="complete")
                pages.append(orjson.dumps(res))
            self._items, self._key, self._pages = items, key, pages
        return self._pages

    def record(
        self,
        rid: Any,
        mode: str,
        native: list[dict[str, Any]],
        start: int,
        size: int,
        sent: dict[str, Any],
        modern: bool,
        ttl: int,
        cursors: CursorMaker,
    ) -> None:
        envelope = ENVELOPE_BASE_CHARS + len(orjson.dumps(rid))
        pages = self.native_pages(native, size, modern, ttl, cursors)
        if mode == "router":
            # The whole native list is charged to the first page of the router list.
            before_pages = pages if start == 0 else []
        else:
            i = start // size
            before_pages = pages[i : i + 1]
        sent_json = orjson.dumps(sent)
        sent_chars = len(sent_json) + envelope
        if modern and "resultType" not in sent:
            sent_chars += MODERN_EXTRA_CHARS
        before = sum(estimate_chars(len(p) + envelope) for p in before_pages)
        after = estimate_chars(sent_chars)
        self.savings.record("router_listing", before, after)
        if self.savings.sampling:
            self.savings.sample(
                "router_listing",
                before_pages,
                (sent_json,),
                before,
                after,
                False,  # the native pages above carry their resultType
                modern and "resultType" not in sent,
            )
