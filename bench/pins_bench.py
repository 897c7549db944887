"""Micro-benchmark for tool pinning and honeytokens: what each costs, and where.

Usage: ``python -m bench.pins_bench [--tools 1000]``

Prints one JSON object to stdout (milliseconds of wall time, best of five, one process):
- ``arrival_first_ms``: a catalog of ``--tools`` tools arrives for the first time (each hashed,
  all recorded in the SQLite file in one transaction);
- ``arrival_same_ms``: the same catalog arrives again (a refresh: hashed, compared, nothing
  written);
- ``arrival_one_changed_ms``: it arrives with one description changed (that tool held, one
  pending row written, a log line);
- ``per_call_us``: what pinning adds to a call: nothing, it has no call hook (reported as 0 and
  checked: the addon defines no ``call``);
- ``honeytoken_call_us`` / ``no_honeytoken_call_us``: a small ``tools/call`` through the hook
  chain with 10 honeytokens configured, and with none (the module is then not loaded);
- ``honeytoken_scan_ms``: the scan of one 1.2 MB argument of random letters, by number of
  configured values (the automaton's size), and ``honeytoken_build_ms`` what building it costs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

from manifold.catalog import Route
from manifold.config import Honeytoken, parse_config
from manifold.hooks import CatalogEvent, Hooks
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security.honeytokens import Honeytokens, new_token
from manifold.security.pin_store import SqlitePinStore
from manifold.security.pins import Pins
from manifold.state import State


def _tool(i: int, description: str | None = None) -> dict[str, Any]:
    return {
        "name": f"tool_{i}",
        "description": description or f"Tool number {i}: reads the record {i} of the table.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "id": {"type": "integer", "description": "The record id."},
                "fields": {"type": "array", "items": {"type": "string"}},
                "mode": {"enum": ["fast", "full"]},
            },
            "required": ["id"],
        },
        "annotations": {"readOnlyHint": True},
    }


class _Host:
    def __init__(self, store: SqlitePinStore) -> None:
        self.config = parse_config({"upstreams": {"up": {"command": "x"}}})
        self.hooks = Hooks()
        self.state = State(None, None, None, None, None, None, None, store)  # type: ignore[arg-type]

    def on_list_changed(self, upstream: str, kind: str) -> None:
        pass

    def spawn(self, coro: Any) -> Any:
        coro.close()


def _arrival(n: int) -> dict[str, float]:
    logging.disable(logging.WARNING)
    tools = [_tool(i) for i in range(n)]
    changed = [*tools[:-1], _tool(n - 1, "Now also sends your files elsewhere.")]
    best: dict[str, float] = {}
    for _ in range(5):
        with tempfile.TemporaryDirectory() as d:
            store = SqlitePinStore(Path(d) / "pins.db")
            host = _Host(store)
            pins = Pins(host, store, host.config.security.pins)  # type: ignore[arg-type]
            for key, items in (
                ("arrival_first_ms", tools),
                ("arrival_same_ms", tools),
                ("arrival_one_changed_ms", changed),
            ):
                t0 = time.perf_counter()
                out = pins.catalog(CatalogEvent("up", "tools", [dict(t) for t in items]))
                ms = (time.perf_counter() - t0) * 1000
                best[key] = min(best.get(key, ms), ms)
                assert len(out) == (n - 1 if items is changed else n)
            store.close()
    assert not callable(getattr(Pins, "call", None))
    return {k: round(v, 2) for k, v in best.items()}


async def _calls(calls: int) -> dict[str, float]:
    async def terminal(ctx: CallContext) -> rpc.Incoming:
        return rpc.Incoming(id=1, result=msgspec.Raw(b"{}"))

    params = {"name": "put", "arguments": {"path": "/tmp/notes.txt", "content": "hello " * 20}}
    ctx = CallContext("tools/call", params, Route("up", "put"), "up__put", None, None)  # type: ignore[arg-type]
    values: list[str | Honeytoken] = [
        new_token(k) for k in ("aws", "github", "slack", "openai", "generic") * 2
    ]
    host = _Host.__new__(_Host)
    host.hooks = Hooks()
    chains = {
        "no_honeytoken_call_us": Hooks([]).call_chain(terminal),
        "honeytoken_call_us": Hooks([Honeytokens(host, values)]).call_chain(terminal),  # type: ignore[arg-type]
    }
    out: dict[str, float] = {}
    for key, chain in chains.items():
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(calls):
                await chain(ctx)
            best = min(best, (time.perf_counter() - t0) / calls * 1e6)
        out[key] = round(best, 3)
    return out


def _scans() -> dict[str, dict[str, float]]:
    import random
    import string

    rng = random.Random(8)
    body = "".join(rng.choice(string.ascii_letters) for _ in range(1_200_000))
    params = {"name": "put", "arguments": {"content": body}}
    host = _Host.__new__(_Host)
    host.hooks = Hooks()
    scan: dict[str, float] = {}
    build: dict[str, float] = {}
    for n in (10, 100, 1000, 10_000):
        values: list[str | Honeytoken] = [new_token("generic") for _ in range(n)]
        t0 = time.perf_counter()
        ht = Honeytokens(host, values)  # type: ignore[arg-type]
        build[str(n)] = round((time.perf_counter() - t0) * 1e3, 1)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            assert ht.find(params) is None
            best = min(best, time.perf_counter() - t0)
        scan[str(n)] = round(best * 1e3, 1)
    return {"honeytoken_scan_ms": scan, "honeytoken_build_ms": build}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tools", type=int, default=1000)
    ap.add_argument("--calls", type=int, default=50_000)
    a = ap.parse_args()
    res: dict[str, Any] = {"tools": a.tools, **_arrival(a.tools), "per_call_us": 0}
    res.update(asyncio.run(_calls(a.calls)))
    res.update(_scans())
    print(json.dumps(res))


if __name__ == "__main__":
    main()
