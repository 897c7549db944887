"""Where tool pins live: the embedded store, a SQLite file (standard library `sqlite3`, WAL), or
for a gateway with no state file (`state.path: ""`), dictionaries in memory (`MemoryPinStore`,
the same answers; SQLite is then not loaded at all, about 0.9 MiB).

Tables (one file may be shared by several gateway processes and the `manifold pins` command):

    pins     (upstream, tool) -> hash, definition, first_seen, approved, renamed_from
             the definition trusted for a tool: the first one seen (trust on first use), or the
             one an operator approved
    pending  (upstream, tool) -> hash, definition, fields, seen
             a definition that differs from the pinned one, waiting for `manifold pins approve`
    sources  upstream -> what the config runs for it (command and args, or URL)

`hash` is the SHA-256 of the canonical JSON (sorted keys, no spaces) of the pinned fields of a
definition without its name (the name is the key), so the same definition under a new name has
the same hash: that is how a rename is recognised. `definition` is that canonical JSON with the
name, kept so that `manifold pins diff` can show what changed.

Every method blocks; the gateway calls them only when a tool list arrives (and, while a tool
is held, a cheap `changed()` once per `poll_interval`), never per call.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson

if TYPE_CHECKING:
    import sqlite3

    from manifold.config import GatewayConfig

# The parts of a tool definition that are pinned: what the model reads and what decides how it
# is called. Others (`_meta`, `icons`, `execution`) may change freely.
PINNED_FIELDS: Final = ("title", "description", "inputSchema", "outputSchema", "annotations")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pins (
    upstream TEXT NOT NULL,
    tool TEXT NOT NULL,
    hash TEXT NOT NULL,
    definition TEXT NOT NULL,
    first_seen REAL NOT NULL,
    approved REAL,
    renamed_from TEXT,
    PRIMARY KEY (upstream, tool)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pending (
    upstream TEXT NOT NULL,
    tool TEXT NOT NULL,
    hash TEXT NOT NULL,
    definition TEXT NOT NULL,
    fields TEXT NOT NULL,
    seen REAL NOT NULL,
    PRIMARY KEY (upstream, tool)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sources (
    upstream TEXT PRIMARY KEY,
    source TEXT NOT NULL
) WITHOUT ROWID;
"""


PINS_FILE: Final = "pins.db"


def pins_path(config: GatewayConfig) -> Path | None:
    """Where the pins live: `security.pins.path`, else `pins.db` in the folder of `state.path`
    (~/.manifold/pins.db by default); None (memory only) when `state.path` is ""."""
    configured = config.security.pins.path
    if configured:
        return Path(os.path.expanduser(configured)).absolute()
    if not config.state.path or "://" in config.state.path:
        return None
    return Path(os.path.expanduser(config.state.path)).absolute().parent / PINS_FILE


def pinned_part(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The pinned fields of a definition (absent ones left out)."""
    return {k: tool[k] for k in PINNED_FIELDS if k in tool}


def canonical(obj: Any) -> bytes:
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # an integer past 64 bits, deep nesting
        import json

        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def digest_of(tool: Mapping[str, Any]) -> str:
    """The hash of a definition's pinned fields, without its name."""
    return hashlib.sha256(canonical(pinned_part(tool))).hexdigest()


def definition_of(tool: Mapping[str, Any]) -> str:
    """The canonical JSON of a definition's pinned fields with its name (what is stored)."""
    return canonical({**pinned_part(tool), "name": tool.get("name")}).decode()


def fingerprint(tool: Mapping[str, Any]) -> tuple[str, str]:
    """(`digest_of`, `definition_of`)."""
    return digest_of(tool), definition_of(tool)


def changed_fields(old_definition: str, new_definition: str) -> list[str]:
    """The pinned fields that differ between two stored definitions."""
    try:
        old, new = orjson.loads(old_definition), orjson.loads(new_definition)
    except orjson.JSONDecodeError:
        return list(PINNED_FIELDS)
    return [k for k in PINNED_FIELDS if old.get(k) != new.get(k)]


@dataclass(slots=True, frozen=True)
class Pin:
    upstream: str
    tool: str
    hash: str
    definition: str
    first_seen: float = 0.0
    approved: float | None = None
    renamed_from: str | None = None


@dataclass(slots=True, frozen=True)
class Pending:
    upstream: str
    tool: str
    hash: str
    definition: str
    fields: tuple[str, ...]
    seen: float = 0.0


class SqlitePinStore:
    """The embedded `PinStore` (`manifold.state`): a SQLite file, or memory for path None."""

    def __init__(self, path: Path | None) -> None:
        import sqlite3

        self.errors: tuple[type[Exception], ...] = (sqlite3.Error,)  # what its methods raise
        self.path = path
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            fresh = not path.exists()
            self._db = sqlite3.connect(
                str(path), timeout=5.0, isolation_level=None, check_same_thread=False
            )
            if fresh:
                os.chmod(path, 0o600)
            self._db.execute("PRAGMA journal_mode=WAL")
        else:
            self._db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._db.executescript(_SCHEMA)
        self._version = self._data_version()

    def __repr__(self) -> str:
        return str(self.path) if self.path is not None else "the in-memory pins"

    @property
    def persistent(self) -> bool:
        return self.path is not None

    # ----------------------------------------------------------------- reads

    def pinned(self, upstream: str) -> dict[str, Pin]:
        rows = self._db.execute(
            "SELECT upstream, tool, hash, definition, first_seen, approved, renamed_from "
            "FROM pins WHERE upstream = ?",
            (upstream,),
        )
        return {r[1]: Pin(*r) for r in rows}

    def pins(self) -> list[Pin]:
        rows = self._db.execute(
            "SELECT upstream, tool, hash, definition, first_seen, approved, renamed_from "
            "FROM pins ORDER BY upstream, tool"
        )
        return [Pin(*r) for r in rows]

    def pending(self, upstream: str | None = None) -> list[Pending]:
        """Changes waiting for approval (of one upstream, or all)."""
        where, args = ("WHERE upstream = ? ", (upstream,)) if upstream is not None else ("", ())
        rows = self._db.execute(
            "SELECT upstream, tool, hash, definition, fields, seen FROM pending "
            f"{where}ORDER BY upstream, tool",
            args,
        )
        return [Pending(r[0], r[1], r[2], r[3], tuple(orjson.loads(r[4])), r[5]) for r in rows]

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM pins").fetchone()[0])

    def source(self, upstream: str) -> str | None:
        row = self._db.execute("SELECT source FROM sources WHERE upstream = ?", (upstream,))
        found = row.fetchone()
        return None if found is None else str(found[0])

    def changed(self) -> bool:
        """Whether another connection (another gateway, `manifold pins approve`) wrote since
        the last call. Cheap: one pragma."""
        v = self._data_version()
        if v == self._version:
            return False
        self._version = v
        return True

    def _data_version(self) -> int:
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    # ----------------------------------------------------------------- writes

    def record(
        self,
        upstream: str,
        new: Iterable[Pin] = (),
        pending: Iterable[Pending] = (),
        resolved: Iterable[str] = (),
        source: str | None = None,
    ) -> None:
        """One transaction: new pins (never replacing one), pending changes (replacing an
        older pending one), tools back to their pinned definition (their pending row goes)."""
        with self._tx() as db:
            db.executemany(
                "INSERT OR IGNORE INTO pins VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (p.upstream, p.tool, p.hash, p.definition, p.first_seen, None, p.renamed_from)
                    for p in new
                ],
            )
            db.executemany(
                "INSERT OR REPLACE INTO pending VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        p.upstream,
                        p.tool,
                        p.hash,
                        p.definition,
                        orjson.dumps(p.fields).decode(),
                        p.seen,
                    )
                    for p in pending
                ],
            )
            db.executemany(
                "DELETE FROM pending WHERE upstream = ? AND tool = ?",
                [(upstream, t) for t in resolved],
            )
            if source is not None:
                db.execute("INSERT OR REPLACE INTO sources VALUES (?, ?)", (upstream, source))

    def approve(self, keys: Iterable[tuple[str, str]] | None = None) -> list[Pending]:
        """Make pending definitions the pinned ones (`keys`: (upstream, tool); None: all)."""
        now = time.time()
        with self._tx() as db:
            rows = [
                Pending(r[0], r[1], r[2], r[3], tuple(orjson.loads(r[4])), r[5])
                for r in db.execute(
                    "SELECT upstream, tool, hash, definition, fields, seen FROM pending"
                )
            ]
            if keys is not None:
                wanted = set(keys)
                rows = [p for p in rows if (p.upstream, p.tool) in wanted]
            for p in rows:
                db.execute(
                    "INSERT INTO pins VALUES (?, ?, ?, ?, ?, ?, NULL) "
                    "ON CONFLICT (upstream, tool) DO UPDATE SET hash = excluded.hash, "
                    "definition = excluded.definition, approved = excluded.approved",
                    (p.upstream, p.tool, p.hash, p.definition, now, now),
                )
                db.execute(
                    "DELETE FROM pending WHERE upstream = ? AND tool = ?", (p.upstream, p.tool)
                )
        return rows

    def close(self) -> None:
        self._db.close()

    def _tx(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error) on an autocommit connection."""

    __slots__ = ("db",)

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.db.execute("ROLLBACK" if exc_type is not None else "COMMIT")


class MemoryPinStore:
    """The `PinStore` of a gateway with no state file: the pins live as long as the process,
    as in SQLite's memory mode (`SqlitePinStore(None)`), with the same answers."""

    path: Path | None = None
    errors: tuple[type[Exception], ...] = ()  # nothing to fail: dictionaries

    def __init__(self) -> None:
        self._pins: dict[tuple[str, str], Pin] = {}
        self._pending: dict[tuple[str, str], Pending] = {}
        self._sources: dict[str, str] = {}

    def __repr__(self) -> str:
        return "the in-memory pins"

    @property
    def persistent(self) -> bool:
        return False

    def pinned(self, upstream: str) -> dict[str, Pin]:
        return {t: p for (u, t), p in self._pins.items() if u == upstream}

    def pins(self) -> list[Pin]:
        return [self._pins[k] for k in sorted(self._pins)]

    def pending(self, upstream: str | None = None) -> list[Pending]:
        keys = sorted(k for k in self._pending if upstream is None or k[0] == upstream)
        return [self._pending[k] for k in keys]

    def count(self) -> int:
        return len(self._pins)

    def source(self, upstream: str) -> str | None:
        return self._sources.get(upstream)

    def changed(self) -> bool:
        return False  # no other process shares it

    def record(
        self,
        upstream: str,
        new: Iterable[Pin] = (),
        pending: Iterable[Pending] = (),
        resolved: Iterable[str] = (),
        source: str | None = None,
    ) -> None:
        for p in new:  # never replacing a pin
            self._pins.setdefault(
                (p.upstream, p.tool),
                Pin(p.upstream, p.tool, p.hash, p.definition, p.first_seen, None, p.renamed_from),
            )
        for q in pending:
            self._pending[(q.upstream, q.tool)] = Pending(
                q.upstream, q.tool, q.hash, q.definition, tuple(q.fields), q.seen
            )
        for t in resolved:
            self._pending.pop((upstream, t), None)
        if source is not None:
            self._sources[upstream] = source

    def approve(self, keys: Iterable[tuple[str, str]] | None = None) -> list[Pending]:
        now = time.time()
        rows = list(self._pending.values())
        if keys is not None:
            wanted = set(keys)
            rows = [p for p in rows if (p.upstream, p.tool) in wanted]
        for p in rows:
            old = self._pins.get((p.upstream, p.tool))
            self._pins[(p.upstream, p.tool)] = Pin(
                p.upstream,
                p.tool,
                p.hash,
                p.definition,
                now if old is None else old.first_seen,
                now,
                None if old is None else old.renamed_from,
            )
            del self._pending[(p.upstream, p.tool)]
        return rows

    def close(self) -> None:
        pass
