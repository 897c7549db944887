"""Savings counters: what each mechanism of the token economy saved, in estimated tokens.

`record(mechanism, before, after)` is called on the hot path and only adds to counters in
memory. When the gateway has a store (`state.path`), a background task adds what changed since
the last flush to it every few seconds and once more at shutdown (`store.py`); `manifold
report` rebuilds the figures from the store alone.

Mechanisms and how they add up (`before` = what native MCP would have cost the model, `after` =
what it read, both in chars/4 tokens of the JSON-RPC responses):

- Parts, which partition the traffic and sum to the report's total:
  - `router_listing`: tools/list in router or hybrid mode; before = every page of the native
    (passthrough) list, after = the list sent.
  - `search`: answers of search_tools, list_servers and list_tools; before = 0 (a native client
    has no such call: it read the whole list instead), after = the answer.
  - `calls`: every other tools/call the model made (direct calls, invoke_tool, read_result):
    before = the upstream's own result (read_result: 0), after = what the model got.
- Within calls (how the `calls` saving came about; already inside its figures, so not added
  to the total again): `projection`, `dedup`, `governor`, `summarize`, and any other name.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from manifold.economy import tokens
from manifold.economy.store import Row, SavingsStore

if TYPE_CHECKING:
    from manifold.state import CounterStore

log = logging.getLogger("manifold.savings")

PARTS = ("router_listing", "search", "calls")
WITHIN_CALLS = ("projection", "dedup", "governor", "summarize")
MECHANISMS = PARTS + WITHIN_CALLS
FLUSH_INTERVAL = 5.0
# Text kept per flush interval for exact counting (only with a tokenizer and a store).
SAMPLE_BUDGET = 4 << 20


@dataclass(slots=True)
class Counter:
    events: int = 0
    before: int = 0  # tokens the model would have read without the mechanism
    after: int = 0  # tokens it read with it

    @property
    def saved(self) -> int:
        return self.before - self.after


@dataclass(slots=True)
class Sample:
    """One event kept for exact counting: the result texts of the frames on each side."""

    mechanism: str
    before: Sequence[Any]  # bytes-like result JSON texts, one per response frame
    after: Sequence[Any]
    est_before: int
    est_after: int
    # Whether the dispatcher adds "resultType":"complete" to those frames (a modern client).
    modern_before: bool = False
    modern_after: bool = False


@dataclass
class Savings:
    counters: dict[str, Counter] = field(default_factory=dict)
    store: CounterStore | None = None
    flush_interval: float = FLUSH_INTERVAL
    # Exact counting: turned on by the flusher once a tokenizer has loaded (tiktoken installed).
    sampling: bool = False
    _samples: list[Sample] = field(default_factory=list)
    _sample_room: int = SAMPLE_BUDGET
    _flushed: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    _flush_lock: asyncio.Lock | None = None
    _flusher: asyncio.Task[None] | None = None
    _failures: int = 0  # failed writes in a row (warned once)

    def record(self, mechanism: str, before: int, after: int) -> None:
        c = self.counters.get(mechanism)
        if c is None:
            c = self.counters[mechanism] = Counter()
        c.events += 1
        c.before += before
        c.after += after

    def sample(
        self,
        mechanism: str,
        before: Sequence[Any],
        after: Sequence[Any],
        est_before: int,
        est_after: int,
        modern_before: bool = False,
        modern_after: bool = False,
    ) -> None:
        """Keep an event's texts for exact counting at the next flush, while the budget lasts.

        Callers check `sampling` first; the texts are referenced, not copied.
        """
        size = sum(len(b) for b in before) + sum(len(a) for a in after)
        if size > self._sample_room:
            return
        self._sample_room -= size
        self._samples.append(
            Sample(mechanism, before, after, est_before, est_after, modern_before, modern_after)
        )

    # ----------------------------------------------------------------- persistence

    def _take(self) -> dict[str, Row]:
        """What changed since the last flush (and mark it flushed)."""
        out: dict[str, Row] = {}
        for m, c in self.counters.items():
            e0, b0, a0 = self._flushed.get(m, (0, 0, 0))
            if c.events != e0 or c.before != b0 or c.after != a0:
                out[m] = Row(c.events - e0, c.before - b0, c.after - a0)
                self._flushed[m] = (c.events, c.before, c.after)
        return out

    def _untake(self, rows: dict[str, Row]) -> None:
        for m, r in rows.items():
            e, b, a = self._flushed[m]
            self._flushed[m] = (e - r.events, b - r.tokens_before, a - r.tokens_after)

    def _write(self, rows: dict[str, Row], samples: list[Sample]) -> None:
        """In a worker thread: count the samples exactly, then add everything to the store."""
        assert self.store is not None
        if samples:
            envelope = tokens.exact(tokens.ENVELOPE_TEXT) or 0
            modern = envelope + (tokens.exact(tokens.MODERN_EXTRA_TEXT) or 0)
            for s in samples:
                env_b = modern if s.modern_before else envelope
                env_a = modern if s.modern_after else envelope
                eb = sum((tokens.exact(t) or 0) + env_b for t in s.before)
                ea = sum((tokens.exact(t) or 0) + env_a for t in s.after)
                r = rows.setdefault(s.mechanism, Row())
                r.sampled += 1
                r.sampled_before += s.est_before
                r.sampled_after += s.est_after
                r.exact_before += eb
                r.exact_after += ea
        self.store.add(rows)

    async def flush(self) -> None:
        """Add what changed since the last flush to the store (no-op without one)."""
        if self.store is None:
            return
        if self._flush_lock is None:
            self._flush_lock = asyncio.Lock()
        async with self._flush_lock:
            rows = self._take()
            samples, self._samples = self._samples, []
            self._sample_room = SAMPLE_BUDGET
            if not rows and not samples:
                return
            try:
                await asyncio.to_thread(self._write, rows, samples)
            except Exception as e:
                # Keep the estimates for the next try; exact samples are dropped.
                self._untake(rows)
                self._failures += 1
                level = logging.WARNING if self._failures == 1 else logging.DEBUG
                log.log(level, "savings: cannot write %s: %s", self.store.path, e)
            else:
                if self._failures:
                    log.warning("savings: %s is writable again", self.store.path)
                self._failures = 0

    async def _run(self) -> None:
        if tokenizer_installed():
            # Exact counts: load the tokenizer off the loop, then keep samples for it.
            self.sampling = await asyncio.to_thread(tokens.exact_available)
            log.info("savings: %s", tokens.exact_status())
        while True:
            await asyncio.sleep(self.flush_interval)
            # Shielded: a stop() arriving mid-write lets the write finish (stop flushes after).
            await asyncio.shield(self.flush())

    def start(self) -> None:
        """Start the periodic flush (with a store; idempotent)."""
        if self.store is not None and self._flusher is None:
            self._flusher = asyncio.ensure_future(self._run())

    async def stop(self) -> None:
        """Stop the periodic flush and write what is left."""
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._flusher
            self._flusher = None
        await self.flush()
        if self.store is not None:
            await asyncio.to_thread(self.store.close)


def tokenizer_installed() -> bool:
    return importlib.util.find_spec("tiktoken") is not None


def open_store(path: str) -> SavingsStore | None:
    """The store for `state.path`: None for "" (memory only) or a URL this build cannot use."""
    if not path:
        return None
    if "://" in path:
        log.warning("state.path %r: only a SQLite file is supported; savings stay in memory", path)
        return None
    return SavingsStore(path)


# --------------------------------------------------------------------------- report


def _entry(events: int, before: int, after: int) -> dict[str, Any]:
    saved = before - after
    pct = round(100.0 * saved / before, 1) if before else None
    return {"events": events, "before": before, "after": after, "saved": saved, "percent": pct}


def build_report(rows: dict[str, Row] | None, state: str, since: str | None) -> dict[str, Any]:
    """The report's figures from the store's rows (`store.read_totals`).

    `mechanisms` holds the parts (PARTS), whose figures sum to `total`; `within_calls` shows
    how the `calls` saving came about and is not added again. `exact` is present when the
    gateway counted some events with a tokenizer: those events' estimates beside their exact
    counts.
    """
    rows = rows or {}
    parts = {m: rows.get(m, Row()) for m in PARTS}
    within = {m: rows.get(m, Row()) for m in WITHIN_CALLS}
    within.update({m: r for m, r in rows.items() if m not in parts and m not in within})
    total = Row()
    for r in parts.values():
        total.add(r)
    exact: dict[str, Any] | None = None
    sampled = {m: r for m, r in rows.items() if r.sampled}
    if sampled:
        exact = {
            m: {
                "events": r.sampled,
                "estimate_before": r.sampled_before,
                "estimate_after": r.sampled_after,
                "exact_before": r.exact_before,
                "exact_after": r.exact_after,
            }
            for m, r in sampled.items()
        }
    return {
        "state": state,
        "since": since,
        "estimator": "chars/4 of the JSON-RPC responses",
        "found": bool(rows),
        "total": _entry(total.events, total.tokens_before, total.tokens_after),
        "mechanisms": {
            m: _entry(r.events, r.tokens_before, r.tokens_after) for m, r in parts.items()
        },
        "within_calls": {
            m: _entry(r.events, r.tokens_before, r.tokens_after) for m, r in within.items()
        },
        "exact": exact,
    }


def report_tables(rep: dict[str, Any]) -> list[Any]:
    """Rich tables for a report (`build_report`)."""
    from rich.table import Table

    def pct(e: dict[str, Any]) -> str:
        return "-" if e["percent"] is None else f"{e['percent']:.1f}%"

    def cells(e: dict[str, Any]) -> list[str]:
        return [f"{e[k]:,}" for k in ("events", "before", "after", "saved")] + [pct(e)]

    since = f" since {rep['since']} (UTC)" if rep["since"] else ""
    table = Table("mechanism", "events", "before", "after", "saved", "%")
    table.title = f"Token savings{since}"
    for col in table.columns[1:]:
        col.justify = "right"
    for m, e in rep["mechanisms"].items():
        table.add_row(m, *cells(e))
    for m, e in rep["within_calls"].items():
        if e["events"]:
            table.add_row(f"  of calls: {m}", *cells(e), style="dim")
    table.add_section()
    table.add_row("total", *cells(rep["total"]), style="bold")
    out: list[Any] = [
        table,
        "Tokens are estimates (chars/4 of the JSON-RPC responses). before: what native MCP\n"
        "would have cost the model; after: what it read. The parts above the total add up\n"
        "to it; the 'of calls' lines show how the calls saving came about.",
    ]
    if rep["exact"]:
        ex = Table(
            "mechanism",
            "events",
            "estimate before",
            "exact before",
            "estimate after",
            "exact after",
            title="Exact counts (tiktoken) of the events the gateway sampled",
        )
        for col in ex.columns[1:]:
            col.justify = "right"
        for m, e in rep["exact"].items():
            ex.add_row(
                m,
                *(
                    f"{e[k]:,}"
                    for k in (
                        "events",
                        "estimate_before",
                        "exact_before",
                        "estimate_after",
                        "exact_after",
                    )
                ),
            )
        out.append(ex)
    return out
