"""The audit log: one JSON line per routed call, each chained to the one before it.

The addon sits outermost of the security addons (`manifold.addons`), so it sees the final
outcome of a call: answered, refused (by which mechanism, when the refusal says so) or failed.
An entry says who (principal, subject, client name, session), what (method, upstream, the
exposed tool, prompt or URI), the argument *keys* and a digest of the arguments (never their
values), the outcome, and how long the call took.

Each line carries `prev`, the `hash` of the line before it (64 zeros for the first line of a
file), and `hash`, the SHA-256 of the canonical JSON (sorted keys, no spaces) of the entry with
its `prev`. Editing, deleting, inserting or reordering any line breaks the chain at that line,
which `verify` names. A restart reads the last line and continues the chain.

The event loop only builds a small dict and puts it on a bounded queue; a writer thread
serialises, hashes and appends. When the queue is full an entry is counted as dropped (never
waited for) and the count is written to the log, chained like any entry, once there is room.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import logging
import os
import re
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final, Protocol

import msgspec
import orjson

from manifold.config import AuditConfig, ConfigError, GatewayConfig
from manifold.hooks import RefusedEvent
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc

log = logging.getLogger("manifold.audit")

GENESIS: Final = "0" * 64
_SORT: Final = orjson.OPT_SORT_KEYS
_CLOSE_TIMEOUT: Final = 10.0  # seconds the gateway's stop waits for the queue to drain
_TAIL_BYTES: Final = 1024 * 1024
_BATCH: Final = 4096  # entries per write at most
# A refusal names its mechanism here: `error.data.mechanism`, or for an `isError` result
# `_meta["manifold/mechanism"]`.
MECHANISM_META: Final = "manifold/mechanism"


class AuditHost(Protocol):
    """What the audit log uses of the gateway."""

    @property
    def config(self) -> GatewayConfig: ...


# ------------------------------------------------------------------------------- the chain


def canonical(entry: dict[str, Any]) -> bytes:
    """The bytes an entry's hash covers: sorted keys, no whitespace, UTF-8."""
    return orjson.dumps(entry, option=_SORT)


def seal(entry: dict[str, Any], prev: str) -> tuple[bytes, str]:
    """The line (with its newline) for `entry` chained after `prev`, and its hash."""
    entry["prev"] = prev
    entry.pop("hash", None)
    body = canonical(entry)
    digest = hashlib.sha256(body).hexdigest()
    entry["hash"] = digest
    # The canonical bytes with the hash as a last member (verify re-sorts what it reads).
    return b'%s,"hash":"%s"}\n' % (body[:-1], digest.encode()), digest


@dataclass(slots=True)
class Verdict:
    """What `verify` found: `bad_line` is 1-based (None when the chain holds)."""

    entries: int
    last_hash: str
    bad_line: int | None = None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.bad_line is None


def _lines(f: IO[bytes]) -> Iterator[bytes]:
    yield from f


def verify(path: str | Path) -> Verdict:
    """Walk the whole file; stop at the first line that breaks the chain."""
    prev = GENESIS
    n = 0
    with open(path, "rb") as f:
        for n, line in enumerate(_lines(f), start=1):
            if not line.endswith(b"\n"):
                return Verdict(n - 1, prev, n, "truncated line (no newline at the end)")
            try:
                entry = orjson.loads(line)
            except orjson.JSONDecodeError:
                return Verdict(n - 1, prev, n, "not JSON")
            if not isinstance(entry, dict):
                return Verdict(n - 1, prev, n, "not a JSON object")
            claimed = entry.pop("hash", None)
            if entry.get("prev") != prev:
                return Verdict(n - 1, prev, n, "prev does not match the hash of the line before it")
            if claimed != hashlib.sha256(canonical(entry)).hexdigest():
                return Verdict(n - 1, prev, n, "hash does not match the entry")
            prev = str(claimed)
    return Verdict(n, prev)


def tail(path: Path) -> tuple[str, int, bool]:
    """(the hash and `seq` of the last entry, whether a partial line ends the file).

    Reads at most the last `_TAIL_BYTES` of the file, so a long log costs one seek at start.
    Raises ConfigError when no entry is found there in a file that is not empty."""
    try:
        with open(path, "rb") as f:
            end = f.seek(0, os.SEEK_END)
            start = max(0, end - _TAIL_BYTES)
            f.seek(start)
            buf = f.read()
    except FileNotFoundError:
        return GENESIS, 0, False
    if not buf:
        return GENESIS, 0, False
    partial = not buf.endswith(b"\n")
    lines = buf.split(b"\n")[:-1]  # drop the part after the last newline ("" or a fragment)
    if start > 0 and lines:
        lines = lines[1:]  # may begin mid-line
    for line in reversed(lines):
        try:
            entry = orjson.loads(line)
            return str(entry["hash"]), int(entry.get("seq", 0)), partial
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            continue  # a line a crash cut short, closed at the next start
    if start == 0 and not lines:
        return GENESIS, 0, partial  # only a fragment: nothing to continue
    raise ConfigError(
        f"security.audit.path: {path} does not end with audit entries; "
        "cannot continue its chain (move it aside to start a new log)"
    )


# ------------------------------------------------------------------------------- the writer


class AuditLog:
    """A bounded queue of entries drained by one writer thread into an append-only file."""

    def __init__(self, path: Path, queue_size: int) -> None:
        self.path = path
        self._file = _open_locked(path)
        try:
            prev, seq, partial = tail(path)
        except BaseException:
            self._file.close()
            raise
        self._prev = prev
        self._seq = seq
        if partial:
            # A crash cut the last line short. Close it with a newline so new entries stay
            # lines of their own; `manifold audit verify` names the cut line.
            log.warning("audit log %s ends with a partial line; continuing after it", path)
            self._file.write(b"\n")
        # The event loop appends; the writer pops. A deque needs no lock for that; the writer
        # is woken only when it said it was idle.
        self._pending: deque[dict[str, Any]] = deque()
        self._max = queue_size
        self._wake = threading.Event()
        self._idle = False
        self._closing = False
        self.dropped = 0  # counted on the event loop
        self._dropped_written = 0  # by the writer
        self.written = 0
        self._ts_second = -1
        self._ts_prefix = ""
        self._thread = threading.Thread(target=self._run, name="manifold-audit", daemon=True)
        self._thread.start()

    def put(self, entry: dict[str, Any]) -> None:
        """Queue an entry; never blocks. Past the bound it is counted as dropped."""
        if len(self._pending) >= self._max:
            self.dropped += 1
            if self.dropped == self._dropped_written + 1:  # once per episode, not per entry
                log.warning(
                    "audit log %s: queue full (security.audit.queue_size); dropping entries",
                    self.path,
                )
            return
        self._pending.append(entry)
        if self._idle:
            self._wake.set()

    def close(self, timeout: float = _CLOSE_TIMEOUT) -> None:
        """Write what is queued, then stop the writer (the gateway's stop calls this)."""
        if not self._thread.is_alive():
            return
        self._closing = True
        self._wake.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.warning("audit log %s: not all entries written within %.0f s", self.path, timeout)

    # The writer thread: everything below runs off the event loop.

    def _run(self) -> None:
        pending = self._pending
        try:
            while True:
                if not pending:
                    if self._closing:
                        self._write([])  # a last count of dropped entries, if any
                        return
                    self._idle = True
                    if not pending and not self._closing:  # checked again after saying so
                        self._wake.wait(1.0)
                    self._idle = False
                    self._wake.clear()
                    continue
                batch: list[dict[str, Any]] = []
                while pending and len(batch) < _BATCH:  # one write for what is there
                    batch.append(pending.popleft())
                self._write(batch)
        except Exception:
            log.exception("audit log %s: writer failed; no further entries", self.path)
        finally:
            self._file.close()

    def _write(self, batch: list[dict[str, Any]]) -> None:
        out = [self._line(entry) for entry in batch]
        dropped = self.dropped - self._dropped_written
        if dropped:
            self._dropped_written += dropped
            out.append(self._line({"event": "dropped", "ts": time.time(), "count": dropped}))
        if out:
            self._file.write(b"".join(out))
            self._file.flush()
            self.written += len(out)

    def _line(self, entry: dict[str, Any]) -> bytes:
        self._seq += 1
        entry["seq"] = self._seq
        entry["ts"] = self._iso(entry["ts"])
        line, self._prev = seal(entry, self._prev)
        return line

    def _iso(self, ts: float) -> str:
        """UTC with milliseconds; the date and time of day formatted once per second."""
        second = int(ts)
        if second != self._ts_second:
            self._ts_second = second
            self._ts_prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self._ts_prefix}.{int((ts - second) * 1000):03d}Z"


def _open_locked(path: Path) -> IO[bytes]:
    """Open for appending (created readable by its owner only) and take an exclusive lock: two
    gateways appending to one file would interleave two chains."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError as e:
        raise ConfigError(f"security.audit.path: cannot open {path} ({e.strerror or e})") from None
    f = os.fdopen(fd, "ab")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise ConfigError(
            f"security.audit.path: {path} is in use by another manifold process; "
            "give each gateway its own audit file"
        ) from None
    return f


# ------------------------------------------------------------------------------- the addon


def _args_of(method: str, params: dict[str, Any]) -> Any:
    if method == "completion/complete":
        return params.get("argument")
    return params.get("arguments")


def _mechanism(data: Any) -> str | None:
    if isinstance(data, dict):
        m = data.get("mechanism")
        if isinstance(m, str):
            return m[:64]
    return None


# `"isError": true` can only appear unescaped outside a JSON string (inside one its quotes
# are escaped), so a byte search over the raw result finds it without decoding or copying it.
_IS_ERROR: Final = re.compile(rb'"isError"\s*:\s*true')
_HAS_MECHANISM: Final = re.compile(re.escape(f'"{MECHANISM_META}"'.encode()))


def _result_mechanism(raw: memoryview) -> str | None:
    if _HAS_MECHANISM.search(raw) is None:
        return None
    try:
        meta = orjson.loads(raw).get("_meta")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    return _mechanism({"mechanism": meta.get(MECHANISM_META)} if isinstance(meta, dict) else None)


def _digest(args: dict[str, Any]) -> str | None:
    """SHA-256 of the arguments' canonical JSON; None when they cannot be encoded (nesting
    deeper than the encoder allows)."""
    try:
        body = canonical(args)
    except (TypeError, orjson.JSONEncodeError):  # an integer past 64 bits, deep nesting
        try:
            body = msgspec.json.encode(args, order="sorted")
        except (TypeError, ValueError, RecursionError):
            return None
    return hashlib.sha256(body).hexdigest()


class Audit:
    """The `call` hook: records each routed call's final outcome."""

    __slots__ = ("log",)

    def __init__(self, audit_log: AuditLog) -> None:
        self.log = audit_log

    async def call(self, ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        args = _args_of(ctx.method, ctx.params)
        entry: dict[str, Any] = {
            "event": "call",
            "ts": time.time(),
            "principal": ctx.principal,
            "subject": ctx.subject,
            "client": ctx.client_name,
            "session": ctx.session_key,
            "method": ctx.method,
            "upstream": ctx.route.upstream,
            "target": ctx.exposed,
        }
        if isinstance(args, dict):
            # The keys and a digest, computed now: addons further in may rewrite the arguments.
            entry["arg_keys"] = sorted(args)
            entry["arg_digest"] = _digest(args)
        t0 = time.perf_counter()
        try:
            res = await call_next(ctx)
        except rpc.RpcError as e:
            entry["outcome"] = "error"
            entry["code"] = e.code
            if (m := _mechanism(e.data)) is not None:
                entry["mechanism"] = m
            self._done(entry, t0)
            raise
        except asyncio.CancelledError:
            entry["outcome"] = "cancelled"
            self._done(entry, t0)
            raise
        except Exception:
            entry["outcome"] = "error"
            entry["code"] = rpc.INTERNAL_ERROR
            self._done(entry, t0)
            raise
        if res.error is not None:
            entry["outcome"] = "error"
            err = res.error
            if isinstance(err, dict):
                code = err.get("code")
                entry["code"] = code if type(code) is int else None  # as sent: any JSON
                if (m := _mechanism(err.get("data"))) is not None:
                    entry["mechanism"] = m
        elif ctx.method == "tools/call" and _IS_ERROR.search(raw := memoryview(res.result)):
            entry["outcome"] = "tool_error"
            if (m := _result_mechanism(raw)) is not None:
                entry["mechanism"] = m
        else:
            entry["outcome"] = "ok"
        self._done(entry, t0)
        return res

    def refused(self, event: RefusedEvent) -> None:
        """A call refused before routing (an unknown name): recorded like a refused call,
        with `mechanism` "routing" and no upstream."""
        entry: dict[str, Any] = {
            "event": "call",
            "ts": time.time(),
            "principal": event.principal,
            "subject": event.subject,
            "client": event.client_name,
            "session": event.session_key,
            "method": event.method,
            "upstream": None,
            "target": event.target,
        }
        if isinstance(event.arguments, dict):
            entry["arg_keys"] = sorted(event.arguments)
            entry["arg_digest"] = _digest(event.arguments)
        entry["outcome"] = "error"
        entry["code"] = event.code
        entry["mechanism"] = "routing"
        entry["ms"] = 0.0
        self.log.put(entry)

    def record(self, entry: dict[str, Any]) -> None:
        """An entry that is not a call (e.g. a definition the guard hid): `event` and `ts`
        (epoch seconds) set by the caller; chained like any entry."""
        self.log.put(entry)

    def _done(self, entry: dict[str, Any], t0: float) -> None:
        entry["ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
        self.log.put(entry)

    def audit_event(self, event: str, fields: dict[str, Any]) -> None:
        """An entry that is not a call (a mechanism's alert or decision: a held tool, a
        honeytoken), chained like the others."""
        self.log.put({"event": event, "ts": time.time(), **fields})

    def close(self) -> None:
        self.log.close()


def resolve(cfg: AuditConfig) -> Path | None:
    """The log's path (relative to the working directory, `~` expanded), or None: off."""
    if not cfg.path:
        return None
    return Path(os.path.expanduser(cfg.path)).absolute()


def build(gw: AuditHost) -> Audit | None:
    path = resolve(gw.config.security.audit)
    if path is None:
        return None
    return Audit(AuditLog(path, gw.config.security.audit.queue_size))
