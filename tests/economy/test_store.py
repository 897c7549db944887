"""The savings store: SQLite rows per (UTC day, mechanism) that only grow, shared by writers."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from manifold.economy.store import Row, SavingsStore, read_totals, utc_day


def test_rows_add_up_per_mechanism_and_day(tmp_path: Path) -> None:
    db = tmp_path / "sub" / "state.db"
    store = SavingsStore(db)
    store.add({"calls": Row(2, 100, 40), "search": Row(1, 0, 12)}, day="2026-01-01")
    store.add({"calls": Row(1, 10, 10)}, day="2026-01-01")
    store.add({"calls": Row(3, 300, 30), "governor": Row(1, 250, 20)}, day="2026-01-03")
    store.add({"dedup": Row()})  # all zero: nothing written
    store.close()

    got = read_totals(db)
    assert got == {
        "calls": Row(6, 410, 80),
        "search": Row(1, 0, 12),
        "governor": Row(1, 250, 20),
    }
    assert read_totals(db, since="2026-01-02") == {
        "calls": Row(3, 300, 30),
        "governor": Row(1, 250, 20),
    }
    assert read_totals(db, since="2026-02-01") == {}
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        days = conn.execute("SELECT DISTINCT day FROM savings ORDER BY day").fetchall()
    assert days == [("2026-01-01",), ("2026-01-03",)]


def test_exact_columns_travel_with_the_estimates(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    store = SavingsStore(db)
    store.add({"calls": Row(1, 100, 50, sampled=1, sampled_before=100, sampled_after=50,
                            exact_before=90, exact_after=47)})  # fmt: skip
    store.add({"calls": Row(1, 10, 10)})
    store.close()
    assert read_totals(db) == {"calls": Row(2, 110, 60, 1, 100, 50, 90, 47)}


def test_no_file_reads_as_none_and_is_not_created(tmp_path: Path) -> None:
    db = tmp_path / "missing.db"
    assert read_totals(db) is None
    assert not db.exists()
    store = SavingsStore(db)
    store.add({})  # nothing to write: the file is not created either
    assert not db.exists()


def test_an_empty_database_has_no_rows(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    sqlite3.connect(db).close()
    assert read_totals(db) == {}


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    """Several stores (as several gateway processes would) adding to one file at once."""
    db = tmp_path / "state.db"
    day = utc_day()
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        store = SavingsStore(db)
        try:
            for _ in range(50):
                store.add({"calls": Row(1, n, 1), f"w{n}": Row(1, 1, 0)}, day=day)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)
        finally:
            store.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    got = read_totals(db)
    assert got is not None
    assert got["calls"] == Row(200, 50 * (1 + 2 + 3 + 4), 200)
    assert all(got[f"w{n}"] == Row(50, 50, 0) for n in range(1, 5))


def test_a_reader_does_not_block_a_writer(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    store = SavingsStore(db)
    store.add({"calls": Row(1, 4, 2)})
    reader = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        reader.execute("BEGIN")
        assert reader.execute("SELECT SUM(events) FROM savings").fetchone() == (1,)
        store.add({"calls": Row(1, 4, 2)})  # WAL: the open read transaction does not block it
        assert reader.execute("SELECT SUM(events) FROM savings").fetchone() == (1,)
        reader.execute("COMMIT")
        assert reader.execute("SELECT SUM(events) FROM savings").fetchone() == (2,)
    finally:
        reader.close()
        store.close()
