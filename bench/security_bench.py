"""The injection guard's figures: detection on the labelled corpora, and what a scan costs.

    .venv/bin/python -m bench.security_bench [--corpus FILE ...] [--heldout] [--no-classifier]
        [--out FILE]

Detection: each case goes through the guard's addon with the default config, as the gateway
runs it: a result text as a `tools/call` result (the `call` hook), a description as a tool's
description and a parameter text as a parameter's description (the `catalog` hook). Printed
per family: blocked (refused or hidden), quarantined (marked), and for benign texts the same.

Cost: clean results (no trigger: the common case) of 1 KB, 5 KB and 5 MB through the `call`
hook (prefilter over the raw bytes, result relayed undecoded), and the same sizes of a text
that fires the prefilter and is scanned in full (MB/s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import msgspec
import orjson

from manifold.catalog import Route
from manifold.config import GuardConfig
from manifold.hooks import CatalogEvent
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security.guard import Guard

DATA = Path(__file__).resolve().parents[1] / "tests" / "security" / "data"


def _ctx(method: str = "tools/call") -> CallContext:
    return CallContext(method, {"name": "t"}, Route("up", "t"), "up__t", None, None)  # type: ignore[arg-type]


def _result(text: str) -> rpc.Incoming:
    body = orjson.dumps({"content": [{"type": "text", "text": text}]})
    return rpc.Incoming(id=1, result=msgspec.Raw(body))


async def _outcome(g: Guard, case: dict[str, Any]) -> str:
    text, surface = case["text"], case.get("surface", "result")
    if surface in ("description", "param"):
        tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
        if surface == "description":
            tool["description"] = text
        else:
            tool["description"] = "A tool."
            tool["inputSchema"]["properties"] = {"x": {"type": "string", "description": text}}
        items = g.catalog(CatalogEvent("up", "tools", [tool]))
        if not items:
            return "blocked"
        return "quarantined" if items[0] is not tool else "passed"
    res = _result(text)

    async def nxt(_c: CallContext) -> rpc.Incoming:
        return res

    out = await g.call(_ctx(), nxt)
    if out is res:
        return "passed"
    return "blocked" if b'"isError":true' in bytes(out.result) else "quarantined"


def load(paths: list[Path]) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            cases.extend(json.loads(line) for line in f if line.strip())
    return cases


def detection(cases: list[dict[str, Any]], classifier: bool = True) -> list[str]:
    g = Guard(GuardConfig(classifier=classifier))
    rows: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    missed: list[str] = []
    for c in cases:
        o = asyncio.run(_outcome(g, c))
        key = (c["label"], c["family"] if c["label"] == "injection" else "benign")
        rows[key][o] += 1
        rows[key]["n"] += 1
        if (c["label"] == "injection") != (o == "blocked"):
            missed.append(f"{c['label']}/{o}: {c['text'][:110]!r}")
    lines = [
        "| label | family | cases | blocked | quarantined | passed |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    tot: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for (label, fam), r in sorted(rows.items()):
        n = r["n"]
        lines.append(
            f"| {label} | {fam} | {n} | {r['blocked']} ({100 * r['blocked'] / n:.1f}%) | "
            f"{r['quarantined']} | {r['passed']} |"
        )
        for k, x in r.items():
            tot[label][k] += x
    for label, r in sorted(tot.items()):
        n = r["n"]
        lines.append(
            f"| **{label}** | all | {n} | **{r['blocked']} ({100 * r['blocked'] / n:.1f}%)** | "
            f"{r['quarantined']} ({100 * r['quarantined'] / n:.1f}%) | {r['passed']} |"
        )
    return [*lines, "", *missed]


def _clean(size: int) -> bytes:
    row = '{"id": 1234, "name": "widget-7", "price": 19.99, "tags": ["a", "b"], "ok": true}, '
    body = (row * (size // len(row) + 1))[:size]
    return orjson.dumps({"content": [{"type": "text", "text": body}]})


def _prose(size: int) -> bytes:
    para = (
        "The quarterly report shows revenue grew by four percent. The assistant manager will "
        "review the numbers and send the summary to the team before the meeting. "
    )
    body = (para * (size // len(para) + 1))[:size]
    return orjson.dumps({"content": [{"type": "text", "text": body}]})


def cost(classifier: bool = True) -> list[str]:
    g = Guard(GuardConfig(classifier=classifier))
    lines = [
        "| result | size | per result (median) | throughput |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, make in (
        ("clean JSON (no trigger)", _clean),
        ("prose firing the prefilter", _prose),
    ):
        for size in (1024, 5 * 1024, 5 * 1024 * 1024):
            body = make(size)
            res = rpc.Incoming(id=1, result=msgspec.Raw(body))

            async def nxt(_c: CallContext, res: rpc.Incoming = res) -> rpc.Incoming:
                return res

            async def run(n: int) -> list[float]:
                ctx = _ctx()
                out = []
                for _ in range(n):
                    t0 = time.perf_counter()
                    await g.call(ctx, nxt)
                    out.append(time.perf_counter() - t0)
                return out

            n = 2000 if size < 100_000 else 10
            ts = asyncio.run(run(n))
            med = statistics.median(ts)
            unit = f"{med * 1e6:.1f} us" if med < 1e-3 else f"{med * 1e3:.2f} ms"
            lines.append(
                f"| {label} | {size // 1024} KB | {unit} | {len(body) / med / 1e6:.0f} MB/s |"
            )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, action="append")
    ap.add_argument("--heldout", action="store_true", help="the held-out corpus only")
    ap.add_argument("--no-cost", action="store_true")
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--no-classifier", action="store_true", help="the rules alone")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    logging.getLogger("manifold.security.guard").setLevel(logging.ERROR)
    paths = a.corpus or [DATA / ("guard_heldout.jsonl" if a.heldout else "guard_corpus.jsonl")]
    det = detection(load(paths), not a.no_classifier)
    table = [line for line in det if line.startswith("|")]
    misses = [line for line in det if line and not line.startswith("|")]
    out = [f"Corpus: {', '.join(p.name for p in paths)}", "", *table]
    if not a.no_cost:
        out += ["", *cost(not a.no_classifier)]
    text = "\n".join(out)
    print(text)
    if a.show_misses:
        print("\n".join(misses))
    if a.out:
        a.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
