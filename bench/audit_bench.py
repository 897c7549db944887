"""Micro-benchmark: what the audit addon adds to a call on the event loop.

Runs the same `tools/call` context through a terminal that answers at once, bare and wrapped in
the audit addon (writer thread running, writing to a temporary file), and prints the added
microseconds per call (median of several rounds): the event loop's part alone (entries built and
thrown away) and all in (the writer thread serialising, hashing and appending in the same
process), plus the cost on a 5 MB result (the
`isError` search is the only part that grows with the result). Also the writer's rate.

    python -m bench.audit_bench
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec
import orjson

from manifold.catalog import Route
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security.audit import Audit, AuditLog, verify

CALLS = 20_000
ROUNDS = 7


def _ctx() -> CallContext:
    args = {"path": "/srv/data/report.csv", "mode": "read", "limit": 100}
    sink: Any = None
    return CallContext(
        "tools/call",
        {"name": "read", "arguments": args},
        Route("fs", "read"),
        "fs__read",
        sink,
        None,
        "bench-client",
    )


async def _per_call(result: bytes, calls: int, audit: Audit | None) -> float:
    res = rpc.Incoming(result=msgspec.Raw(result))
    ctx = _ctx()

    async def terminal(_ctx: CallContext) -> rpc.Incoming:
        return res

    t0 = time.perf_counter()
    if audit is None:
        for _ in range(calls):
            await terminal(ctx)
    else:
        for _ in range(calls):
            await audit.call(ctx, terminal)
    return (time.perf_counter() - t0) / calls * 1e6


async def _measure(result: bytes, calls: int, audit: Audit) -> tuple[float, float]:
    bare, wrapped = [], []
    for _ in range(ROUNDS):
        bare.append(await _per_call(result, calls, None))
        wrapped.append(await _per_call(result, calls, audit))
        await asyncio.sleep(0.05)  # let the writer catch up between rounds
    return statistics.median(bare), statistics.median(wrapped)


class _Discard(AuditLog):
    """The event loop's part alone: entries are built, then thrown away."""

    def put(self, entry: dict[str, Any]) -> None:
        pass


async def main() -> None:
    gc.set_threshold(20_000, 20, 20)  # as `manifold run` and `serve` set it
    small = orjson.dumps({"content": [{"type": "text", "text": "x" * 200}]})
    big = orjson.dumps({"content": [{"type": "text", "text": "y" * (5 * 1024 * 1024)}]})
    with tempfile.TemporaryDirectory() as d:
        loop_only = _Discard(Path(d) / "discard.jsonl", 1)
        b, w = await _measure(small, CALLS, Audit(loop_only))
        print(f"event loop only: added {w - b:.2f} us/call")
        loop_only.close()
        path = Path(d) / "audit.jsonl"
        log = AuditLog(path, 1_000_000)
        audit = Audit(log)
        b, w = await _measure(small, CALLS, audit)
        print(f"with the writer: bare {b:.2f} us, audited {w:.2f} us, added {w - b:.2f} us/call")
        b, w = await _measure(big, 50, audit)
        print(f"5 MB result:  bare {b:.2f} us, audited {w:.2f} us, added {w - b:.2f} us/call")
        t0 = time.perf_counter()
        log.close()
        took = time.perf_counter() - t0
        print(f"writer: {log.written} entries written, dropped {log.dropped}, close {took:.3f} s")
        t0 = time.perf_counter()
        v = verify(path)
        dt = time.perf_counter() - t0
        print(f"verify: {v.entries} entries in {dt:.3f} s ({v.entries / dt:,.0f}/s), ok={v.ok}")


if __name__ == "__main__":
    asyncio.run(main())
