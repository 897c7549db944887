"""The savings store: counter rows in a local SQLite file (standard library `sqlite3`, WAL mode).

Design: one row per (UTC day, mechanism) in the table `savings`, holding sums:

    day TEXT        'YYYY-MM-DD' (UTC) of the flush that wrote the figures
    mechanism TEXT  router_listing, search, calls, governor, projection, dedup, summarize, ...
    events, tokens_before, tokens_after            estimates (chars/4), as `tokens.estimate`
    sampled, sampled_before, sampled_after         the events that were also counted exactly,
                                                   and their estimates (to compare like for like)
    exact_before, exact_after                      exact tokenizer counts of those events

A gateway adds deltas to these rows (an upsert that sums), so any number of gateway processes
can share one file, and a day's rows only grow. `manifold report` sums the rows back; nothing
is kept in memory between runs. Writes are a few rows every few seconds, never one per call;
every method here blocks, so the gateway calls them in a worker thread (`asyncio.to_thread`).
"""

from __future__ import annotations

import datetime as _dt
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS savings (
    day TEXT NOT NULL,
    mechanism TEXT NOT NULL,
    events INTEGER NOT NULL DEFAULT 0,
    tokens_before INTEGER NOT NULL DEFAULT 0,
    tokens_after INTEGER NOT NULL DEFAULT 0,
    sampled INTEGER NOT NULL DEFAULT 0,
    sampled_before INTEGER NOT NULL DEFAULT 0,
    sampled_after INTEGER NOT NULL DEFAULT 0,
    exact_before INTEGER NOT NULL DEFAULT 0,
    exact_after INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, mechanism)
) WITHOUT ROWID;
"""
_COLUMNS = (
    "events",
    "tokens_before",
    "tokens_after",
    "sampled",
    "sampled_before",
    "sampled_after",
    "exact_before",
    "exact_after",
)
_UPSERT = (
    f"INSERT INTO savings (day, mechanism, {', '.join(_COLUMNS)}) "
    f"VALUES (?, ?, {', '.join('?' for _ in _COLUMNS)}) "
    "ON CONFLICT (day, mechanism) DO UPDATE SET "
    + ", ".join(f"{c} = {c} + excluded.{c}" for c in _COLUMNS)
)


@dataclass(slots=True)
class Row:
    """Summed figures of one mechanism (over one day, or over the days a report covers)."""

    events: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    sampled: int = 0
    sampled_before: int = 0
    sampled_after: int = 0
    exact_before: int = 0
    exact_after: int = 0

    def add(self, other: Row) -> None:
        for f in _COLUMNS:
            setattr(self, f, getattr(self, f) + getattr(other, f))

    def values(self) -> tuple[int, ...]:
        return tuple(getattr(self, f) for f in _COLUMNS)

    def is_zero(self) -> bool:
        return not any(self.values())


assert tuple(f.name for f in fields(Row)) == _COLUMNS


def utc_day(when: _dt.datetime | None = None) -> str:
    return (when or _dt.datetime.now(_dt.UTC)).strftime("%Y-%m-%d")


class SavingsStore:
    """One SQLite file. Opened on first use; safe to call from any one thread at a time."""

    def __init__(self, path: str | Path, timeout: float = 5.0) -> None:
        self.path = Path(os.path.expanduser(str(path)))
        self.timeout = timeout
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            import sqlite3  # (here: a gateway with no state file never loads SQLite)

            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(
                self.path, timeout=self.timeout, check_same_thread=False, isolation_level=None
            )
            # Switching a new file to WAL and creating the schema can meet another process
            # doing the same; SQLite answers "database is locked" there without waiting on the
            # busy timeout, so wait and retry here (bounded by the same timeout).
            deadline = time.monotonic() + self.timeout
            delay = 0.01
            while True:
                try:
                    db.execute("PRAGMA journal_mode=WAL")
                    db.execute("PRAGMA synchronous=NORMAL")
                    db.executescript(_SCHEMA)
                    db.execute(
                        "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)",
                        (str(SCHEMA_VERSION),),
                    )
                    break
                except sqlite3.OperationalError as e:
                    if "locked" not in str(e) or time.monotonic() > deadline:
                        db.close()
                        raise
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    time.sleep(delay)
                    delay = min(delay * 2, 0.2)
                except sqlite3.Error:
                    db.close()
                    raise
            self._db = db
        return self._db

    def add(self, rows: Mapping[str, Row], day: str | None = None) -> None:
        """Add `rows` (mechanism -> deltas) to the day's counters, in one transaction."""
        items = [(m, r) for m, r in rows.items() if not r.is_zero()]
        if not items:
            return
        d = day or utc_day()
        with self._lock:
            db = self._open()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(_UPSERT, [(d, m, *r.values()) for m, r in items])
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def read_totals(path: str | Path, since: str | None = None) -> dict[str, Row] | None:
    """Sum the rows per mechanism (days >= `since`, 'YYYY-MM-DD'); None when there is no file.

    Opens the file read-only and never creates it; a gateway may be writing it meanwhile (WAL).
    """
    import sqlite3

    p = Path(os.path.expanduser(str(path)))
    if not p.exists():
        return None
    db = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
    try:
        try:
            cur = db.execute(
                f"SELECT mechanism, {', '.join(f'SUM({c})' for c in _COLUMNS)} FROM savings "
                "WHERE day >= ? GROUP BY mechanism",
                (since or "",),
            )
        except sqlite3.OperationalError as e:
            if "no such table" in str(e):
                return {}
            raise
        return {m: Row(*(int(v or 0) for v in vals)) for m, *vals in cur.fetchall()}
    finally:
        db.close()
