"""Micro-benchmark of secret redaction (`manifold.security.redact`), in process.

    .venv/bin/python -m bench.redact_bench

Prints, for the default rule set: the cost of a clean 5 KB tool result (the prefilter alone:
nothing decoded), of a 5 KB result holding one secret, of a clean 5 MB result and of a 5 MB
result with secrets throughout (every fired rule run over the JSON text), and a 5 MB
structured result whose 50k rows each hold a benign candidate (`password: required`: the
rule runs and its check says no, 50k times), with the scan throughput in MB/s. Median of
several runs, in this process.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

import orjson

from manifold.config import RedactionConfig
from manifold.security.redact import Redactor

WORDS = [
    "the",
    "service",
    "returned",
    "rows",
    "for",
    "the",
    "north",
    "warehouse;",
    "quantity",
    "value",
    "report",
    "model",
    "widget",
    "passed",
    "basics",
    "token",
    "key",
    "Asia",
    "café",
    "日本語",
    "https://example.com/docs/page",
    "user@example.com",
    "commit",
    "3f786850e387550fdab836ed7e6dc881de23001b",
    "id",
    "123e4567-e89b-12d3-a456-426614174000",
]
SECRETS = (
    "AKIAQ7ZL4MBX2RTN6WPE",
    "DB_PASSWORD=p4ssW0rd-9x7",
    "postgres://app:S3cr3t-pw@db:5432/app",
    "Authorization: Bearer Zr8Kq2Lm5Np9Tx4Vw7Yb1Cd3",
    "sk_live_51HcQ2kLmN8pRsT4vWx7yZa9",
)


def _text(size: int, secret_every: int, rnd: random.Random) -> str:
    out: list[str] = []
    n = 0
    i = 0
    while n < size:
        w = (
            rnd.choice(SECRETS)
            if secret_every and i % secret_every == secret_every - 1
            else (rnd.choice(WORDS))
        )
        out.append(w)
        n += len(w) + 1
        i += 1
    return " ".join(out)[:size]


def _result(text: str) -> bytes:
    return orjson.dumps({"content": [{"type": "text", "text": text}], "isError": False})


def _median(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    rnd = random.Random(7)
    r = Redactor(RedactionConfig())
    cases = {
        "clean 5 KB": (_result(_text(5_000, 0, rnd)), 2000),
        "5 KB, one secret": (_result(_text(2_500, 0, rnd) + " " + SECRETS[0]), 2000),
        "clean 5 MB": (_result(_text(5_000_000, 0, rnd)), 7),
        "5 MB, a secret every 200 words": (_result(_text(5_000_000, 200, rnd)), 7),
    }
    rows = [
        {
            "sku": f"SKU-{i:05d}",
            "name": f"Widget {i} café",
            "qty": i % 101,
            "note": "password: required",
        }
        for i in range(50_000)
    ]
    rows[100]["note"] = "DB_PASSWORD=s3cr3t-Value AKIAQ7ZL4MBX2RTN6WPE"
    structured = orjson.dumps({"content": [], "structuredContent": {"rows": rows}})
    cases["5 MB structured, a benign candidate in each of 50k rows"] = (structured, 5)
    for name, (raw, runs) in cases.items():
        r.raw_result(raw)  # warm the DFA
        t = _median(lambda raw=raw: r.raw_result(raw), runs)  # type: ignore[misc]
        size = len(raw)
        unit = f"{t * 1e6:.1f} us" if t < 1e-3 else f"{t * 1e3:.1f} ms"
        print(f"{name:56} {size:>9} B  {unit:>10}  {size / t / 1e6:8.0f} MB/s")
    print("markers written:", sum(r.counts.values()))


if __name__ == "__main__":
    main()
