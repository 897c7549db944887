"""State behind interfaces: what the gateway keeps between messages, each behind a Protocol,
with the embedded implementations (memory, and SQLite for counters) as the defaults.

A scaled-out backend (Redis, `state: redis://...`) implements the same Protocols and is chosen
here, in `open_state()`: callers take what `State` hands them and never construct their own.

- `Secrets`: keys for the gateway's own tokens (list cursors, `requestState` handles); embedded:
  random per process. Used by `downstream/cursor.py` and `downstream/mrtr.py`.
- `ResultPages`: full results for `read_result`; embedded: `economy/results.py` `ResultStore`
  (bounded in count, bytes and age). Used by the governor and the router tools.
- `DedupMemory`: results already given in a session; embedded: `economy/dedup.py` `Dedup`
  (bounded per session and in sessions). Used by the governor.
- `ParkedCalls`: calls waiting for a modern client's input; embedded: `downstream/mrtr.py`
  `ParkingLot` (bounded in count, expiring). Used by the dispatcher.
- `CounterStore`: savings counters; embedded: `economy/store.py` `SavingsStore` (SQLite). Used
  by `economy/savings.py`.
- `SessionTable`: the HTTP front's legacy sessions (`Mcp-Session-Id`), bounded in number and
  idle time; embedded: `downstream/replay.py` `MemorySessions`. Used by `downstream/http.py`.
- `Replays` / `SessionReplay` / `EventLog`: the events each legacy session keeps for
  resumption (`Last-Event-ID`), one log per SSE stream, bounded per session in bytes and age;
  embedded: `downstream/replay.py` `MemoryReplays`. Used by `downstream/http.py`.
- `PinStore`: tool pins (trusted definitions, changes waiting for approval); embedded:
  `security/pin_store.py` `SqlitePinStore` (a SQLite file next to `state.path`, shared with
  `manifold pins`), or `MemoryPinStore` (dictionaries, when `state.path` is "": SQLite is then
  not loaded). Used by `security/pins.py`.

A modern upstream's input rounds need no store: their state travels sealed in the client's
`requestState` (`mrtr.RoundSeal`), so any process with the same `Secrets` continues them.
Parked calls hold a live upstream call (a legacy upstream blocked on its sampling request, which
answers the call only on this process's connection), so `ParkingLot` keeps tasks and such a call
resumes only on its own process (docs/architecture.md, "State", says precisely why).

The session table keeps the front's session objects; what a shared store would hold of each is
its `SessionRecord` (small and plain). The rest of a legacy session is live (its per-client
upstream sessions, subscriptions, calls in flight, open streams) and stays on the process that
created it, so a scaled-out legacy deployment routes a session to its process by
`Mcp-Session-Id`; modern (2026-07-28) clients keep no session and need no such routing.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from manifold.config import GatewayConfig
    from manifold.downstream.mrtr import Parked
    from manifold.economy.dedup import Seen
    from manifold.economy.results import Page
    from manifold.economy.store import Row
    from manifold.security.pin_store import Pending, Pin


class Secrets(Protocol):
    """Keys for the HMACs of the gateway's own tokens, one per purpose."""

    def key(self, purpose: str) -> bytes: ...


class ResultPages(Protocol):
    page_chars: int

    def put(
        self, text: str, bounds: Sequence[int] = (), owner: str = "", session: str = ""
    ) -> str: ...
    def pages(self, text: str) -> int: ...
    def page(self, rid: str, page: int, owner: str = "", session: str = "") -> Page | None: ...


class DedupMemory(Protocol):
    def seen(self, session: str, key: bytes) -> Seen | None: ...
    def remember(self, session: str, key: bytes, tool: str) -> Seen: ...
    def forget_session(self, session: str) -> None: ...


class ParkedCalls(Protocol):
    def park(self, parked: Parked) -> str: ...
    def take(self, handle: str, principal: str) -> Parked: ...
    def close(self) -> None: ...


class CounterStore(Protocol):
    @property
    def path(self) -> object: ...  # where the counters live, for log lines

    def add(self, rows: Mapping[str, Row], day: str | None = None) -> None: ...
    def close(self) -> None: ...


@dataclass(slots=True, eq=False)
class SessionRecord:
    """What the session table keeps of one legacy HTTP session: its id and when its last
    request was seen (`time.monotonic()`). Fields that bind a session (an owner) belong here."""

    id: str
    last_seen: float = 0.0


S = TypeVar("S", bound=SessionRecord)


class SessionTable(Protocol[S]):
    """Legacy HTTP sessions by id: at most `max_sessions`, each idle for at most `idle_ttl`
    seconds (of requests). Times are `time.monotonic()` values given by the caller."""

    max_sessions: int
    idle_ttl: float

    def create(self, session: S, now: float) -> S | None:
        """Add `session`, seen at `now`. At `max_sessions` the idlest is removed first and
        returned (the caller ends it)."""
        ...

    def get(self, sid: str) -> S | None: ...
    def touch(self, session: S, now: float) -> None: ...
    def evict(self, now: float, busy: Callable[[S], bool]) -> list[S]:
        """Remove and return the sessions idle past `idle_ttl` at `now`, except those `busy`."""
        ...

    def delete(self, sid: str) -> S | None: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[S]: ...  # the sessions this process holds


class EventLog(Protocol):
    """One SSE stream's events, numbered from 1 (`seq` is the last number given; an event is
    numbered even when it is too large to keep). Kept within its session's bounds."""

    @property
    def name(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def done(self) -> bool: ...  # the stream is complete (its answer was sent)

    def append(self, frame: bytes) -> int: ...
    def after(self, seq: int) -> list[tuple[int, bytes]]:
        """The kept events numbered above `seq`, oldest first."""
        ...

    def close(self) -> None: ...


class SessionReplay(Protocol):
    """One legacy session's stream logs, bounded together: at most `max_bytes` (each event
    counted with `EVENT_OVERHEAD`) and `max_age` seconds, oldest events first; a finished
    stream with nothing left is forgotten, and so are the oldest finished streams past
    `max_streams`."""

    def open(self, name: str) -> EventLog: ...
    def get(self, name: str) -> EventLog | None: ...
    def evict(self, now: float) -> None:
        """Drop the events older than `max_age` at `now` (bytes are bounded on each append)."""
        ...

    def clear(self) -> None:
        """Forget every event and stream (the session ended); open streams are closed."""
        ...


class Replays(Protocol):
    def open(self, sid: str) -> SessionReplay:
        """The (empty) stream logs of a new session."""
        ...


class PinStore(Protocol):
    """Trusted tool definitions per (upstream, tool), and changes waiting for approval."""

    # the errors its methods raise when the storage fails (the addon then serves none of the
    # upstream's tools rather than unchecked ones)
    errors: tuple[type[Exception], ...]

    @property
    def persistent(self) -> bool: ...

    def pinned(self, upstream: str) -> dict[str, Pin]: ...
    def pins(self) -> list[Pin]: ...
    def pending(self, upstream: str | None = None) -> list[Pending]: ...
    def count(self) -> int: ...
    def source(self, upstream: str) -> str | None: ...
    def changed(self) -> bool: ...
    def record(
        self,
        upstream: str,
        new: Sequence[Pin] = (),
        pending: Sequence[Pending] = (),
        resolved: Sequence[str] = (),
        source: str | None = None,
    ) -> None: ...
    def approve(self, keys: Sequence[tuple[str, str]] | None = None) -> list[Pending]: ...
    def close(self) -> None: ...


class ProcessSecrets:
    """Keys derived from one random master key (or a configured one, so that several gateway
    processes accept each other's cursors and handles)."""

    def __init__(self, master: bytes | None = None) -> None:
        self._master = master or os.urandom(32)
        self._keys: dict[str, bytes] = {}

    def key(self, purpose: str) -> bytes:
        k = self._keys.get(purpose)
        if k is None:
            k = hmac.new(self._master, purpose.encode(), hashlib.sha256).digest()
            self._keys[purpose] = k
        return k


@dataclass(slots=True)
class State:
    secrets: Secrets
    results: ResultPages
    dedup: DedupMemory
    parking: ParkedCalls
    counters: CounterStore | None
    sessions: SessionTable[Any]
    replays: Replays
    pins: PinStore | None = None  # None: tool pinning is off


def open_state(config: GatewayConfig) -> State:
    """The state backend the config asks for (today: the embedded one)."""
    from manifold.downstream.mrtr import ParkingLot
    from manifold.downstream.replay import MemoryReplays, MemorySessions
    from manifold.economy.dedup import Dedup
    from manifold.economy.results import ResultStore
    from manifold.economy.savings import open_store

    master = config.state.secret
    secrets = ProcessSecrets(hashlib.sha256(master.encode()).digest() if master else None)
    rc = config.response
    page_tokens = rc.page_tokens or rc.max_tokens or 4000
    return State(
        secrets=secrets,
        results=ResultStore(page_tokens * 4, rc.store_ttl),
        dedup=Dedup(),
        parking=ParkingLot(config.mrtr.ttl, secrets.key("mrtr"), config.mrtr.max_parked),
        counters=open_store(config.state.path),
        sessions=MemorySessions(config.http.max_sessions, config.http.session_idle_ttl),
        replays=MemoryReplays(config.http.replay_max_bytes, config.http.replay_max_age),
        pins=open_pins(config) if config.security.pins.mode != "off" else None,
    )


def open_pins(config: GatewayConfig) -> PinStore:
    """The pin store the config asks for: the embedded SQLite file, or memory for a gateway
    with no state file."""
    from manifold.config import ConfigError
    from manifold.security.pin_store import MemoryPinStore, SqlitePinStore, pins_path

    path = pins_path(config)
    if path is None:
        return MemoryPinStore()
    import sqlite3

    try:
        return SqlitePinStore(path)
    except (OSError, sqlite3.Error) as e:
        raise ConfigError(f"security.pins.path: cannot open {path} ({e})") from None
