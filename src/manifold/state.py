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
- Legacy HTTP sessions and their stream logs live in `downstream/http.py`, bounded in memory.

A modern upstream's input rounds need no store: their state travels sealed in the client's
`requestState` (`mrtr.RoundSeal`), so any process with the same `Secrets` continues them.
Parked calls hold a live upstream call (a legacy upstream blocked on its sampling request), so
`ParkingLot` keeps tasks and such a call resumes only on its own process.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from manifold.config import GatewayConfig
    from manifold.downstream.mrtr import Parked
    from manifold.economy.dedup import Seen
    from manifold.economy.results import Page
    from manifold.economy.store import Row


class Secrets(Protocol):
    """Keys for the HMACs of the gateway's own tokens, one per purpose."""

    def key(self, purpose: str) -> bytes: ...


class ResultPages(Protocol):
    page_chars: int

    def put(self, text: str, bounds: Sequence[int] = ()) -> str: ...
    def pages(self, text: str) -> int: ...
    def page(self, rid: str, page: int) -> Page | None: ...


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


def open_state(config: GatewayConfig) -> State:
    """The state backend the config asks for (today: the embedded one)."""
    from manifold.downstream.mrtr import ParkingLot
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
    )
