"""The contract of the HTTP front's legacy session table and replay stores (`state.SessionTable`,
`state.Replays`, `state.SessionReplay`, `state.EventLog`), run against the embedded ones
(`downstream/replay.py`). Another backend passes the same tests: add its factories to `TABLES`
and `REPLAYS`.

Times are `time.monotonic()` values; the table is given them, the replay stamps its events
itself, so age is tested by evicting "later" rather than by sleeping."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from manifold.downstream.replay import EVENT_OVERHEAD, MAX_STREAMS, MemoryReplays, MemorySessions
from manifold.state import Replays, SessionRecord, SessionTable

TableFactory = Callable[[int, float], SessionTable[SessionRecord]]
ReplaysFactory = Callable[[int, float], Replays]

TABLES: dict[str, TableFactory] = {"memory": MemorySessions}
REPLAYS: dict[str, ReplaysFactory] = {"memory": MemoryReplays}


@pytest.fixture(params=sorted(TABLES))
def make_table(request: pytest.FixtureRequest) -> TableFactory:
    return TABLES[request.param]


@pytest.fixture(params=sorted(REPLAYS))
def make_replays(request: pytest.FixtureRequest) -> ReplaysFactory:
    return REPLAYS[request.param]


def _never(_s: SessionRecord) -> bool:
    return False


# --------------------------------------------------------------------------- session table


def test_a_session_is_created_found_and_deleted(make_table: TableFactory) -> None:
    table = make_table(10, 60.0)
    a, b = SessionRecord("a" * 32), SessionRecord("b" * 32)
    assert table.create(a, 100.0) is None and table.create(b, 101.0) is None
    assert table.get(a.id) is a and table.get(b.id) is b  # the caller's own object comes back
    assert a.last_seen == 100.0
    assert table.get("nope") is None
    assert len(table) == 2 and {s.id for s in table} == {a.id, b.id}
    assert table.delete(a.id) is a
    assert table.get(a.id) is None and table.delete(a.id) is None
    assert len(table) == 1 and list(table) == [b]


def test_an_id_is_created_once(make_table: TableFactory) -> None:
    table = make_table(10, 60.0)
    table.create(SessionRecord("a" * 32), 1.0)
    with pytest.raises(ValueError):
        table.create(SessionRecord("a" * 32), 2.0)
    assert len(table) == 1


def test_past_max_sessions_the_idlest_is_removed_and_returned(make_table: TableFactory) -> None:
    table = make_table(3, 3600.0)
    s1, s2, s3, s4 = (SessionRecord(f"{i}" * 32) for i in range(1, 5))
    for t, s in enumerate((s1, s2, s3), start=1):
        assert table.create(s, float(t)) is None
    table.touch(s1, 4.0)  # s1 was used last: s2 is now the idlest
    assert s1.last_seen == 4.0
    assert table.create(s4, 5.0) is s2
    assert table.get(s2.id) is None and len(table) == 3
    assert {s.id for s in table} == {s1.id, s3.id, s4.id}


def test_idle_sessions_are_evicted_unless_busy(make_table: TableFactory) -> None:
    table = make_table(10, 10.0)
    a, b, c = SessionRecord("a" * 32), SessionRecord("b" * 32), SessionRecord("c" * 32)
    for s in (a, b, c):
        table.create(s, 0.0)
    table.touch(a, 8.0)
    assert table.evict(10.0, _never) == []  # idle exactly the TTL: not yet
    busy = {c.id}
    gone = table.evict(12.0, lambda s: s.id in busy)
    assert gone == [b]  # a was touched at 8, c has a request in flight
    assert table.get(b.id) is None and table.get(a.id) is a and table.get(c.id) is c
    busy.clear()
    assert table.evict(12.0, _never) == [c]
    assert table.evict(18.5, _never) == [a]
    assert len(table) == 0 and list(table) == []


def test_sessions_may_be_ended_while_iterating(make_table: TableFactory) -> None:
    table = make_table(10, 60.0)
    for i in range(5):
        table.create(SessionRecord(f"{i}" * 32), float(i))
    for s in table:
        table.delete(s.id)
    assert len(table) == 0


# --------------------------------------------------------------------------- event logs


def test_a_stream_numbers_its_events_and_replays_after_an_id(make_replays: ReplaysFactory) -> None:
    replay = make_replays(1 << 20, 300.0).open("sid")
    log = replay.open("p1")
    assert (log.name, log.seq, log.done) == ("p1", 0, False)
    assert [log.append(f"e{i}".encode()) for i in range(1, 6)] == [1, 2, 3, 4, 5]
    assert log.seq == 5
    assert log.after(0) == [(i, f"e{i}".encode()) for i in range(1, 6)]
    assert log.after(3) == [(4, b"e4"), (5, b"e5")]
    assert log.after(5) == []
    assert replay.get("p1") is log and replay.get("p2") is None
    log.close()
    assert log.done and replay.get("p1") is log  # a finished stream stays while it has events


def test_bytes_are_bounded_across_a_sessions_streams_oldest_first(
    make_replays: ReplaysFactory,
) -> None:
    frame = b"x" * 40
    cost = len(frame) + EVENT_OVERHEAD
    replays = make_replays(3 * cost, 300.0)
    replay = replays.open("sid")
    g, p1 = replay.open("g"), replay.open("p1")
    g.append(frame)  # 1: the oldest of the session
    p1.append(frame)
    g.append(frame)
    p1.append(frame)  # the fourth event pushes out the oldest, g's first
    assert [s for s, _ in g.after(0)] == [2]
    assert [s for s, _ in p1.after(0)] == [1, 2]
    assert (g.seq, p1.seq) == (2, 2)
    # Another session has its own bound: filling it leaves this one alone.
    other = replays.open("sid2").open("g")
    for _ in range(3):
        other.append(frame)
    assert [s for s, _ in p1.after(0)] == [1, 2]


def test_an_event_larger_than_the_bound_is_numbered_not_kept(make_replays: ReplaysFactory) -> None:
    replay = make_replays(1000, 300.0).open("sid")
    log = replay.open("p1")
    log.append(b"small")
    assert log.append(b"y" * 2000) == 2
    assert all(len(f) < 2000 for _, f in log.after(0))
    assert log.append(b"next") == 3 and log.after(2) == [(3, b"next")]


def test_a_byte_bound_of_zero_keeps_nothing(make_replays: ReplaysFactory) -> None:
    replay = make_replays(0, 300.0).open("sid")
    log = replay.open("g")
    assert log.append(b"a") == 1 and log.append(b"b") == 2
    assert log.after(0) == []


def test_old_events_are_evicted_and_finished_empty_streams_forgotten(
    make_replays: ReplaysFactory,
) -> None:
    replay = make_replays(1 << 20, 5.0).open("sid")
    done, running = replay.open("p1"), replay.open("p2")
    done.append(b"a")
    done.close()
    running.append(b"b")
    replay.evict(time.monotonic())  # nothing is 5 s old yet
    assert done.after(0) == [(1, b"a")] and running.after(0) == [(1, b"b")]
    replay.evict(time.monotonic() + 6.0)
    assert replay.get("p1") is None  # finished, nothing left: forgotten
    assert replay.get("p2") is running and running.after(0) == []  # still open: kept, empty
    assert running.append(b"c") == 2  # numbering goes on
    assert running.after(1) == [(2, b"c")]


def test_the_oldest_finished_streams_go_past_the_stream_cap(make_replays: ReplaysFactory) -> None:
    replay = make_replays(1 << 20, 300.0).open("sid")
    g = replay.open("g")  # never finished
    logs = []
    for i in range(1, MAX_STREAMS + 6):  # each POST stream finishes before the next opens
        log = replay.open(f"p{i}")
        logs.append(log)
        if log.name != "p3":  # except this one, still running
            log.close()
    assert replay.get("g") is g and replay.get("p3") is logs[2]  # open: never forgotten
    gone = [log.name for log in logs if replay.get(log.name) is None]
    assert gone == ["p1", "p2", "p4", "p5", "p6", "p7"]  # the oldest finished ones
    assert replay.get(logs[-1].name) is logs[-1]


def test_clear_forgets_everything_and_closes_the_streams(make_replays: ReplaysFactory) -> None:
    replay = make_replays(1 << 20, 300.0).open("sid")
    g, p1 = replay.open("g"), replay.open("p1")
    g.append(b"a")
    p1.append(b"b")
    replay.clear()
    assert g.done and p1.done
    assert replay.get("g") is None and replay.get("p1") is None
    assert g.after(0) == [] and p1.after(0) == []
