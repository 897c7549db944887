"""Savings: counters in memory, flushed as deltas to the store; the accounting middleware and
the listing meter; the report's arithmetic (parts sum to the total)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest

from manifold.catalog import Route
from manifold.downstream.cursor import Cursors
from manifold.economy import savings as savings_mod
from manifold.economy import tokens
from manifold.economy.savings import PARTS, Savings, build_report, open_store, report_tables
from manifold.economy.store import Row, SavingsStore, read_totals
from manifold.middleware.accounting import ListingMeter, accounting_pair
from manifold.pipeline import CallContext, CallNext, compose
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import Era
from manifold.router import GATEWAY

# ------------------------------------------------------------------ counters and flushing


def test_record_adds_to_counters() -> None:
    s = Savings()
    s.record("calls", 100, 40)
    s.record("calls", 10, 10)
    s.record("search", 0, 7)
    assert (s.counters["calls"].events, s.counters["calls"].before) == (2, 110)
    assert s.counters["calls"].after == 50 and s.counters["calls"].saved == 60
    assert s.counters["search"].saved == -7


async def test_flush_writes_only_what_changed(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    s = Savings(store=SavingsStore(db))
    await s.flush()
    assert not db.exists()  # nothing recorded: no file
    s.record("calls", 100, 40)
    s.record("router_listing", 900, 90)
    await s.flush()
    assert read_totals(db) == {"calls": Row(1, 100, 40), "router_listing": Row(1, 900, 90)}
    s.record("calls", 50, 50)
    await s.flush()
    await s.flush()  # nothing new
    assert read_totals(db) == {"calls": Row(2, 150, 90), "router_listing": Row(1, 900, 90)}
    await s.stop()


async def test_memory_only_never_touches_disk(tmp_path: Path) -> None:
    assert open_store("") is None
    s = Savings(store=open_store(""))
    s.start()
    s.record("calls", 1, 1)
    await s.flush()
    await s.stop()
    assert s.counters["calls"].events == 1


async def test_a_failed_write_is_retried_with_nothing_lost(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    s = Savings(store=SavingsStore(blocker / "state.db"))
    s.record("calls", 100, 40)
    with caplog.at_level(logging.WARNING, "manifold.savings"):
        await s.flush()
    assert "cannot write" in caplog.text
    s.record("calls", 10, 5)
    s.store = SavingsStore(tmp_path / "ok.db")
    await s.flush()
    assert read_totals(tmp_path / "ok.db") == {"calls": Row(2, 110, 45)}


async def test_periodic_flush_and_final_flush_at_stop(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    s = Savings(store=SavingsStore(db), flush_interval=0.05)
    s.start()
    s.start()  # idempotent
    s.record("calls", 8, 4)
    async with asyncio.timeout(10):
        while not read_totals(db):  # noqa: ASYNC110 - the file is the thing awaited
            await asyncio.sleep(0.02)
    assert read_totals(db) == {"calls": Row(1, 8, 4)}
    s.record("search", 0, 3)
    s.flush_interval = 3600  # only stop() can write it now
    await asyncio.sleep(0.1)
    await s.stop()
    assert read_totals(db) == {"calls": Row(1, 8, 4), "search": Row(1, 0, 3)}


async def test_exact_counts_of_samples_go_to_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a tokenizer, sampled events carry exact counts beside their estimates (a stand-in
    tokenizer here: one token per word)."""

    def words(text: str | bytes) -> int:
        return len(bytes(text).split() if not isinstance(text, str) else text.split())

    monkeypatch.setattr(tokens, "exact", words)
    monkeypatch.setattr(tokens, "exact_available", lambda: True)
    monkeypatch.setattr(tokens, "exact_status", lambda: "a stand-in tokenizer")
    monkeypatch.setattr(savings_mod, "tokenizer_installed", lambda: True)
    db = tmp_path / "state.db"
    s = Savings(store=SavingsStore(db), flush_interval=3600)
    s.start()  # loads the tokenizer in a thread, then turns sampling on
    async with asyncio.timeout(10):
        while not s.sampling:  # noqa: ASYNC110 - set by the flusher task
            await asyncio.sleep(0.01)
    s.record("calls", 1, 1)
    envelope = words(tokens.ENVELOPE_TEXT)
    s.record("calls", 30, 3)
    s.sample("calls", [b"a b c d e f"], [b"a b"], 30, 3)
    s.sample("calls", [b"x" * (savings_mod.SAMPLE_BUDGET + 1)], [], 1, 1)  # over budget
    await s.stop()
    got = read_totals(db)
    assert got == {"calls": Row(2, 31, 4, 1, 30, 3, 6 + envelope, 2 + envelope)}
    rep = build_report(got, str(db), None)
    assert rep["exact"] == {
        "calls": {
            "events": 1,
            "estimate_before": 30,
            "estimate_after": 3,
            "exact_before": 6 + envelope,
            "exact_after": 2 + envelope,
        }
    }


# ------------------------------------------------------------------ the report's arithmetic


def test_report_parts_sum_to_total_and_breakdown_is_not_added() -> None:
    rows = {
        "router_listing": Row(2, 5000, 300),
        "search": Row(3, 0, 150),
        "calls": Row(10, 20000, 4000),
        "governor": Row(2, 15000, 1000),
        "dedup": Row(1, 900, 40),
        "cache": Row(1, 5, 5),  # a name this build does not know: shown within calls
    }
    rep = build_report(rows, "state.db", "2026-01-01")
    parts = rep["mechanisms"]
    assert list(parts) == list(PARTS)
    for k in ("events", "before", "after", "saved"):
        assert rep["total"][k] == sum(p[k] for p in parts.values())
    assert rep["total"] == {
        "events": 15,
        "before": 25000,
        "after": 4450,
        "saved": 20550,
        "percent": 82.2,
    }
    assert parts["search"]["percent"] is None and parts["search"]["saved"] == -150
    assert rep["within_calls"]["governor"]["saved"] == 14000
    assert rep["within_calls"]["cache"]["events"] == 1
    assert rep["exact"] is None and rep["found"] is True
    empty = build_report(None, "x.db", None)
    assert empty["found"] is False and empty["total"]["before"] == 0


def test_report_tables_render() -> None:
    from rich.console import Console

    rep = build_report(
        {"calls": Row(1, 100, 10, 1, 100, 10, 90, 9), "governor": Row(1, 95, 5)}, "s.db", None
    )
    console = Console(width=140, record=True)
    for t in report_tables(rep):
        console.print(t)
    text = console.export_text()
    assert "router_listing" in text and "of calls: governor" in text and "total" in text
    assert "90.0%" in text and "Exact counts" in text


# ------------------------------------------------------------------ accounting middleware


class _Sink:
    log_level = None

    def progress(self, params: dict[str, Any]) -> None: ...

    def log(self, params: dict[str, Any]) -> None: ...

    async def server_request(self, method: str, params: dict[str, Any], key: Any = None) -> Any:
        return {}


def _ctx(upstream: str, name: str, modern: bool = False, method: str = "tools/call") -> CallContext:
    caps: dict[str, Any] | None = {} if modern else None
    return CallContext(method, {"name": name}, Route(upstream, name), name, _Sink(), caps)


def _result(text: str, modern_shape: bool = False) -> bytes:
    body: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if modern_shape:
        body = {"resultType": "complete", **body}
    return orjson.dumps(body)


def _frame_tokens(result: bytes, rid: Any = 12, modern_extra: bool = False) -> int:
    """What a client reading the response line would count."""
    if modern_extra:
        result = b'{"resultType":"complete",' + result[1:]
    return tokens.estimate(rpc.encode_raw_result(rid, result))


class _World:
    """An accounting chain around a fake router: upstream results by tool name, a middle
    middleware that may shrink results, and invoke_tool re-entering the pipeline."""

    def __init__(self, results: dict[str, bytes], shrink: int = 0, legacy: bool = True) -> None:
        self.savings = Savings()
        era = Era.LEGACY if legacy else Era.MODERN
        eras = {"up": era}
        accounting, raw_meter = accounting_pair(self.savings, eras.get)
        self.results = results

        async def shrinker(ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
            res = await call_next(ctx)
            if shrink and ctx.route.upstream != GATEWAY:
                return rpc.Incoming(result=msgspec.Raw(_result("x" * shrink)))
            return res

        self.pipeline = compose([accounting, shrinker, raw_meter], self.router)

    async def router(self, ctx: CallContext) -> rpc.Incoming:
        name = ctx.route.name
        if ctx.route.upstream == GATEWAY:
            if name == "invoke_tool":
                inner = CallContext(
                    "tools/call",
                    {"name": "big"},
                    Route("up", "big"),
                    "up__big",
                    ctx.sink,
                    ctx.client_caps,
                )
                return await self.pipeline(inner)
            return rpc.Incoming(result=msgspec.Raw(_result(f"answer of {name}")))
        if name == "boom":
            raise rpc.RpcError(rpc.INVALID_PARAMS, "no such thing")
        return rpc.Incoming(result=msgspec.Raw(self.results[name]))

    def counter(self, m: str) -> tuple[int, int, int]:
        c = self.savings.counters.get(m)
        return (c.events, c.before, c.after) if c else (0, 0, 0)


async def test_a_plain_call_costs_what_it_returns() -> None:
    big = _result("y" * 4000)
    w = _World({"big": big})
    await w.pipeline(_ctx("up", "big"))
    n = _frame_tokens(big)
    assert w.counter("calls") == (1, n, n)


async def test_a_shrunk_call_counts_the_upstream_result_before_and_the_shrunk_one_after() -> None:
    big = _result("y" * 4000)
    w = _World({"big": big}, shrink=100)
    res = await w.pipeline(_ctx("up", "big"))
    assert w.counter("calls") == (1, _frame_tokens(big), _frame_tokens(bytes(res.result)))


async def test_invoke_tool_is_counted_once_with_the_inner_upstream_result_as_native() -> None:
    big = _result("z" * 8000)
    w = _World({"big": big}, shrink=50)
    res = await w.pipeline(_ctx(GATEWAY, "invoke_tool"))
    assert w.counter("calls") == (1, _frame_tokens(big), _frame_tokens(bytes(res.result)))
    assert set(w.savings.counters) == {"calls"}


async def test_discovery_answers_have_no_native_cost_and_read_result_none_either() -> None:
    w = _World({})
    for name in ("search_tools", "list_servers", "list_tools"):
        await w.pipeline(_ctx(GATEWAY, name))
    res = await w.pipeline(_ctx(GATEWAY, "read_result"))
    assert w.counter("search")[0:2] == (3, 0)
    names = ("search_tools", "list_servers", "list_tools")
    assert w.counter("search")[2] == sum(_frame_tokens(_result(f"answer of {n}")) for n in names)
    assert w.counter("calls") == (1, 0, _frame_tokens(bytes(res.result)))


async def test_an_error_costs_the_same_both_ways_and_still_raises() -> None:
    w = _World({})
    with pytest.raises(rpc.RpcError):
        await w.pipeline(_ctx("up", "boom"))
    ev, before, after = w.counter("calls")
    frame = rpc.encode_error(12, rpc.INVALID_PARAMS, "no such thing")
    assert ev == 1 and before == after == tokens.estimate(frame)


async def test_other_methods_are_not_counted() -> None:
    w = _World({"p": _result("prompt")})
    await w.pipeline(_ctx("up", "p", method="prompts/get"))
    assert w.savings.counters == {}


async def test_modern_client_frames_carry_result_type() -> None:
    big = _result("q" * 3000)
    w = _World({"big": big}, shrink=40)  # a legacy upstream: the dispatcher adds resultType
    res = await w.pipeline(_ctx(GATEWAY, "invoke_tool", modern=True))
    after = _frame_tokens(bytes(res.result), modern_extra=True)
    assert w.counter("calls") == (1, _frame_tokens(big, modern_extra=True), after)
    shaped = _result("q" * 3000, modern_shape=True)
    w2 = _World({"big": shaped}, legacy=False)  # a modern upstream's result already has it
    await w2.pipeline(_ctx("up", "big", modern=True))
    assert w2.counter("calls") == (1, _frame_tokens(shaped), _frame_tokens(shaped))


# ------------------------------------------------------------------ listing meter


def _tools(n: int) -> list[dict[str, Any]]:
    schema = {"type": "object"}
    return [
        {"name": f"s__tool{i}", "description": f"Tool number {i}.", "inputSchema": schema}
        for i in range(n)
    ]


def _native_frames(items: list[dict[str, Any]], size: int, cursors: Cursors, rid: Any) -> int:
    total = 0
    for start in range(0, len(items), size):
        res: dict[str, Any] = {"tools": items[start : start + size]}
        if start + size < len(items):
            res["nextCursor"] = cursors.make("tools", start + size)
        total += tokens.estimate(rpc.encode_result(rid, res))
    return total


def test_router_listing_charges_every_native_page_to_the_first_router_page() -> None:
    s = Savings()
    meter = ListingMeter(s)
    cursors = Cursors()
    native = _tools(25)
    sent = {"tools": [{"name": "search_tools"}]}
    meter.record(7, "router", native, 0, 10, sent, False, 0, cursors)
    c = s.counters["router_listing"]
    assert c.before == _native_frames(native, 10, cursors, 7)
    assert c.after == tokens.estimate(rpc.encode_result(7, sent))
    meter.record(8, "router", native, 10, 10, sent, False, 0, cursors)  # a later router page
    assert c.events == 2 and c.before == _native_frames(native, 10, cursors, 7)


def test_hybrid_listing_compares_page_by_page() -> None:
    s = Savings()
    meter = ListingMeter(s)
    cursors = Cursors()
    native = _tools(12)
    hybrid = [*native, {"name": "search_tools"}, {"name": "read_result"}]
    total_native = 0
    for start in (0, 10):
        page: dict[str, Any] = {"tools": hybrid[start : start + 10]}
        if start + 10 < len(hybrid):
            page["nextCursor"] = cursors.make("tools", start + 10)
        meter.record(3, "hybrid", native, start, 10, page, False, 0, cursors)
    total_native = _native_frames(native, 10, cursors, 3)
    c = s.counters["router_listing"]
    assert c.events == 2 and c.before == total_native and c.after > c.before


def test_listing_modern_frames() -> None:
    s = Savings()
    meter = ListingMeter(s)
    cursors = Cursors()
    native = _tools(3)
    sent: dict[str, Any] = {
        "tools": [{"name": "search_tools"}],
        "ttlMs": 0,
        "cacheScope": "private",
    }
    meter.record("a", "router", native, 0, 10, sent, True, 0, cursors)
    full = {**sent, "resultType": "complete"}
    native_res = {"tools": native, "ttlMs": 0, "cacheScope": "private", "resultType": "complete"}
    c = s.counters["router_listing"]
    assert c.after == tokens.estimate(rpc.encode_result("a", full))
    assert c.before == tokens.estimate(rpc.encode_result("a", native_res))


# ------------------------------------------------------------------ tokens


def test_estimate_is_chars_over_four_rounded_up() -> None:
    assert tokens.estimate("") == 0
    assert tokens.estimate("abcd") == 1
    assert tokens.estimate(b"abcde") == 2
    assert tokens.estimate_chars(9) == 3


def test_exact_is_a_count_or_none_with_a_reason() -> None:
    status = tokens.exact_status()
    n = tokens.exact("hello world")
    if tokens.exact_available():
        assert n == 2 and "tiktoken" in status
        assert tokens.exact(b'{"a": 1}') == tokens.exact('{"a": 1}')
    else:
        assert n is None and "estimates only" in status
