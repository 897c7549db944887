"""Micro-benchmark for ``manifold.security.validate``: what argument validation adds per call.

Usage: ``python bench/validate_bench.py [--calls 200000]``

Prints one JSON object to stdout, times in microseconds per call (best of five, thread CPU):
- ``chain_off_us`` / ``chain_on_us``: a valid ``tools/call`` (a typical small schema: four
  properties, a required list, an enum, ``additionalProperties: false``) through the hook chain
  around an in-process terminal, without and with the validation addon; ``overhead_us`` is the
  difference, the cost the addon puts on the hot path;
- ``rs_is_valid_us`` / ``py_is_valid_us``: the compiled check alone, with ``jsonschema-rs`` (what
  the addon uses) and with ``jsonschema`` (the pure-Python library), and each one's compile time;
- ``refused_us``: an invalid call, refused with its errors collected (log line not written).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import jsonschema
import jsonschema_rs
import msgspec

from manifold.catalog import Route
from manifold.config import ValidationConfig
from manifold.hooks import Hooks
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security.validate import ArgumentValidator

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to write."},
        "content": {"type": "string"},
        "mode": {"enum": ["w", "a"]},
        "lines": {"type": "integer", "minimum": 0},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}
ARGS = {"path": "/tmp/notes.txt", "content": "hello world " * 5, "mode": "w", "lines": 3}
RESULT = rpc.Incoming(result=msgspec.Raw(b'{"content":[]}'))


class _Sink:
    log_level = None

    def progress(self, params: dict[str, Any]) -> None: ...

    def log(self, params: dict[str, Any]) -> None: ...

    async def server_request(
        self, method: str, params: dict[str, Any], key: str | None = None
    ) -> dict[str, Any]:
        return {}


async def _terminal(ctx: CallContext) -> rpc.Incoming:
    return RESULT


def _best(fn: Callable[[], Any], n: int) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.thread_time()
        for _ in range(n):
            fn()
        best = min(best, time.thread_time() - start)
    return best / n * 1e6


def _chain_cost(addons: list[object], args: Any, n: int) -> float:
    hooks = Hooks(addons)
    hooks.catalog("up", "tools", [{"name": "write", "inputSchema": SCHEMA}])
    chain = hooks.call_chain(_terminal)
    params = {"name": "write", "arguments": args}
    ctx = CallContext("tools/call", params, Route("up", "write"), "up__write", _Sink(), None)

    def once() -> None:
        coro = chain(ctx)
        try:
            coro.send(None)  # the chain never suspends here: one step runs it to the end
        except StopIteration:
            pass
        except rpc.RpcError:
            pass

    return _best(once, n)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200_000)
    n = ap.parse_args().calls
    logging.disable(logging.WARNING)  # the refusal's log line is not what is measured here
    off = _chain_cost([], ARGS, n)
    on = _chain_cost([ArgumentValidator(ValidationConfig())], ARGS, n)
    bad = {"path": 1, "content": "x", "extra": True}
    refused = _chain_cost([ArgumentValidator(ValidationConfig())], bad, max(1, n // 10))
    rs = jsonschema_rs.Draft202012Validator(SCHEMA, offline=True)
    py = jsonschema.Draft202012Validator(SCHEMA)
    out = {
        "calls": n,
        "chain_off_us": round(off, 3),
        "chain_on_us": round(on, 3),
        "overhead_us": round(on - off, 3),
        "refused_us": round(refused, 3),
        "rs_is_valid_us": round(_best(lambda: rs.is_valid(ARGS), n), 3),
        "py_is_valid_us": round(_best(lambda: py.is_valid(ARGS), max(1, n // 20)), 3),
        "rs_compile_us": round(
            _best(lambda: jsonschema_rs.Draft202012Validator(SCHEMA, offline=True), 2000), 2
        ),
        "py_compile_us": round(_best(lambda: jsonschema.Draft202012Validator(SCHEMA), 2000), 2),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
