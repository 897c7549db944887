"""Benchmark for ``manifold.upstream.sse_parse``: the SSE decoder's work is linear in its input.

Usage: ``python bench/sse_bench.py [--mib 20] [--chunk 65536]``

Prints one JSON object to stdout: the thread CPU time (best of three) to decode one event of
``--mib`` MiB fed in ``--chunk``-byte chunks, the same for a tenth of that size (linear work
gives a ratio near 10; work that re-copies the partial line on every chunk gives about 100),
and the time per event for 100,000 small events (the usual answer stream).
"""

from __future__ import annotations

import argparse
import json
import time

from manifold.upstream.sse_parse import SseDecoder


def _best(stream: bytes, chunk: int, max_event: int) -> float:
    chunks = [stream[i : i + chunk] for i in range(0, len(stream), chunk)]
    best = float("inf")
    for _ in range(3):
        dec = SseDecoder(max_event)
        start = time.thread_time()
        n = 0
        for c in chunks:
            n += len(dec.feed(c))
        best = min(best, time.thread_time() - start)
        assert n >= 1
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", type=int, default=20)
    parser.add_argument("--chunk", type=int, default=65536)
    args = parser.parse_args()
    size = args.mib * 1024 * 1024
    limit = size + 1024
    big = b"data: " + b"x" * size + b"\r\n\r\n"
    tenth = b"data: " + b"x" * (size // 10) + b"\r\n\r\n"
    small = b"".join(b'data: {"jsonrpc":"2.0","id":%d,"result":{}}\n\n' % i for i in range(100_000))
    t_big = _best(big, args.chunk, limit)
    t_tenth = _best(tenth, args.chunk, limit)
    t_small = _best(small, args.chunk, limit)
    print(
        json.dumps(
            {
                "event_mib": args.mib,
                "chunk": args.chunk,
                "big_s": round(t_big, 4),
                "tenth_s": round(t_tenth, 4),
                "ratio": round(t_big / max(t_tenth, 1e-9), 1),
                "small_event_us": round(t_small / 100_000 * 1e6, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
