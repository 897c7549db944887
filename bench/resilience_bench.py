"""Micro-benchmark for ``manifold.resilience``: what the loaded resilience config adds per call.

Usage: ``python -m bench.resilience_bench [--calls 50000]``

Prints one JSON object to stdout, times in microseconds per call (best of five, process CPU, so
other work on the machine does not count): a ``tools/call`` with distinct arguments each time
(every call a cache miss, so the answer is kept and the LRU evicts), through the hook chain
around an in-process terminal, with no resilience addon (``chain_off_us``), with each alone
(``cache_us``, ``breaker_us``, ``retry_us``) and with all three (``chain_on_us``);
``overhead_us`` is the difference, the cost the loaded config puts on a call that succeeds.
The end-to-end figure (through the real process, against the default config) is the harness's
``python -m bench.run --only resilience``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

import msgspec

from manifold.catalog import Catalog, Route
from manifold.config import GatewayConfig, parse_config
from manifold.hooks import Hooks
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.resilience import breaker, cache, retry
from manifold.resilience.policy import Policy

# As SDK servers answer: `isError: false` on every result.
RESULT = rpc.Incoming(
    result=msgspec.Raw(b'{"content":[{"type":"text","text":"hello"}],"isError":false}')
)


class _Host:
    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.catalog = Catalog(config)


async def _terminal(_ctx: CallContext) -> rpc.Incoming:
    return RESULT


async def _per_call(label: str, addons: list[Any], calls: int) -> float:
    chain = Hooks(addons).call_chain(_terminal)
    best = float("inf")
    for rep in range(5):
        t0 = time.process_time()
        for i in range(calls):
            args = {"seq": i, "tag": "b", "nonce": f"{label}-{rep}-{i}"}
            ctx = CallContext(
                "tools/call",
                {"name": "echo", "arguments": args},
                Route("mock", "echo"),
                "mock__echo",
                None,  # type: ignore[arg-type]
                None,
            )
            await chain(ctx)
        best = min(best, (time.process_time() - t0) / calls * 1e6)
    return best


async def main(calls: int) -> dict[str, float]:
    cfg = parse_config(
        {
            "upstreams": {
                "mock": {
                    "command": "mock",
                    "resilience": {
                        "retry": {"enabled": True},
                        "breaker": {"enabled": True},
                        "cache": {"enabled": True},
                        "tools": {"echo": {"retry": True, "cache": True}},
                    },
                }
            }
        }
    )
    host = _Host(cfg)
    host.catalog.set_items("mock", "tools", [{"name": "echo", "inputSchema": {"type": "object"}}])
    policy = Policy(host)
    c, b, r = cache.build(host, policy), breaker.build(host, policy), retry.build(host, policy)
    out = {
        "chain_off_us": await _per_call("chain_off_us", [], calls),
        "cache_us": await _per_call("cache_us", [c], calls),
        "breaker_us": await _per_call("breaker_us", [b], calls),
        "retry_us": await _per_call("retry_us", [r], calls),
        "chain_on_us": await _per_call("chain_on_us", [c, b, r], calls),
    }
    out["overhead_us"] = out["chain_on_us"] - out["chain_off_us"]
    return {k: round(v, 2) for k, v in out.items()}


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--calls", type=int, default=50_000)
    print(json.dumps(asyncio.run(main(p.parse_args().calls))))
