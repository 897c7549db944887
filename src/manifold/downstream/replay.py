"""The embedded (in-memory) stores of the HTTP front's legacy sessions and of the events their
SSE streams keep for resumption (`Last-Event-ID`): the default implementations of
`state.SessionTable`, `state.Replays`, `state.SessionReplay` and `state.EventLog`, which
`state.open_state()` hands to `downstream/http.py`.

They keep data only: the front holds what is live (the downstream session, open connections,
the followers that wake a waiting GET stream).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from manifold.state import SessionRecord

S = TypeVar("S", bound="SessionRecord")

# What one kept event costs beyond its frame (tuple, deque slot, bytes header), so that
# `replay_max_bytes` also bounds the number of small events.
EVENT_OVERHEAD = 160
# Stream logs one session keeps at most (the oldest finished ones are forgotten first).
MAX_STREAMS = 64


class MemoryEventLog:
    """The events of one SSE stream, kept in its session's `MemoryReplay` (which bounds them)."""

    __slots__ = ("done", "events", "name", "replay", "seq")

    def __init__(self, name: str, replay: MemoryReplay) -> None:
        self.name = name
        self.replay = replay
        self.events: deque[tuple[int, bytes]] = deque()
        self.done = False
        self.seq = 0

    def append(self, frame: bytes) -> int:
        self.seq += 1
        self.events.append((self.seq, frame))
        self.replay.kept(self, len(frame))
        return self.seq

    def after(self, seq: int) -> list[tuple[int, bytes]]:
        return [e for e in self.events if e[0] > seq]

    def close(self) -> None:
        self.done = True


class MemoryReplay:
    """What a legacy session keeps for resumption, oldest first across all its streams,
    bounded by bytes and by age; a finished stream with nothing left is forgotten."""

    __slots__ = ("max_age", "max_bytes", "max_streams", "order", "size", "streams")

    def __init__(self, max_bytes: int, max_age: float, max_streams: int = MAX_STREAMS) -> None:
        self.max_bytes = max_bytes
        self.max_age = max_age
        self.max_streams = max_streams
        self.order: deque[tuple[MemoryEventLog, int, float]] = deque()
        self.size = 0
        self.streams: dict[str, MemoryEventLog] = {}

    def open(self, name: str) -> MemoryEventLog:
        log = MemoryEventLog(name, self)
        streams = self.streams
        streams[name] = log
        while len(streams) > self.max_streams:  # the oldest finished streams go first
            oldest = next((k for k, v in streams.items() if v.done), None)
            if oldest is None:
                break
            del streams[oldest]
        return log

    def get(self, name: str) -> MemoryEventLog | None:
        return self.streams.get(name)

    def kept(self, log: MemoryEventLog, size: int) -> None:
        size += EVENT_OVERHEAD
        now = time.monotonic()
        self.order.append((log, size, now))
        self.size += size
        if self.size > self.max_bytes or now - self.order[0][2] > self.max_age:
            self.evict(now)

    def evict(self, now: float) -> None:
        order, streams = self.order, self.streams
        while order and (self.size > self.max_bytes or now - order[0][2] > self.max_age):
            log, size, _ = order.popleft()
            log.events.popleft()  # a stream's oldest event is the oldest of it in `order`
            self.size -= size
            if log.done and not log.events and streams.get(log.name) is log:
                del streams[log.name]

    def clear(self) -> None:
        for log in self.streams.values():
            log.events.clear()
            log.close()  # open streams of the session end with it
        self.streams.clear()
        self.order.clear()
        self.size = 0


class MemoryReplays:
    """A `MemoryReplay` per legacy session, each with the same bounds."""

    def __init__(self, max_bytes: int, max_age: float) -> None:
        self.max_bytes = max_bytes
        self.max_age = max_age

    def open(self, sid: str) -> MemoryReplay:
        return MemoryReplay(self.max_bytes, self.max_age)


class MemorySessions(Generic[S]):
    """Legacy sessions by id in one dict: a new one past `max_sessions` ends the idlest."""

    def __init__(self, max_sessions: int, idle_ttl: float) -> None:
        self.max_sessions = max_sessions
        self.idle_ttl = idle_ttl
        self._by_id: dict[str, S] = {}

    def create(self, session: S, now: float) -> S | None:
        by_id = self._by_id
        if session.id in by_id:
            raise ValueError(f"session {session.id[:8]} exists")
        idlest = None
        if len(by_id) >= self.max_sessions:
            idlest = min(by_id.values(), key=lambda x: x.last_seen)
            del by_id[idlest.id]
        session.last_seen = now
        by_id[session.id] = session
        return idlest

    def get(self, sid: str) -> S | None:
        return self._by_id.get(sid)

    def touch(self, session: S, now: float) -> None:
        session.last_seen = now

    def evict(self, now: float, busy: Callable[[S], bool]) -> list[S]:
        ttl, by_id = self.idle_ttl, self._by_id
        gone = [s for s in by_id.values() if now - s.last_seen > ttl and not busy(s)]
        for s in gone:
            del by_id[s.id]
        return gone

    def delete(self, sid: str) -> S | None:
        return self._by_id.pop(sid, None)

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[S]:
        return iter(list(self._by_id.values()))  # a snapshot: callers may end sessions meanwhile
