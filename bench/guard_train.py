"""Trains the guard's learned stage and writes `src/manifold/security/data/guard_model.bin`.

    .venv/bin/python -m bench.guard_train [--seed 7] [--bits 16] [--iters 300] [--chunks 3000]

Needs numpy (the `embed` extra) to train; the model it writes is read with the standard
library. Fixed seed, so a run on one environment writes the same file.

The model scores windows of a text (`guard_model.windows`: two consecutive sentences around
each sentence the prefilter fires on), so it is trained on windows, labelled one by one:

- long carriers of `bench/guard_traindata.build_long` (web pages, mail threads, issues, chat
  exports, search-results JSON, CSV, PDF text, runbooks, source files; nine languages) with a
  composed payload at a random place: the windows that hold the payload are injections, the
  windows of the same page that do not touch it are benign (those that hold a part of it are
  left out); benign pages of the same carriers, dense with the attack vocabulary (orders to
  people, reports quoting payloads, text about assistants), real prose as filler;
- the short generated set of `bench/guard_traindata.build` (payload span marked the same way);
- the tuning corpus (`tests/security/data/guard_corpus.jsonl`): a benign text's windows are
  benign, a short injection's (600 characters or fewer) are injections;
- real text chunks of installed packages' docs and sources, from the quarter of the files
  `bench.guard_benign_scale.training_file` sets apart (the benign-at-scale evaluation reads the
  other three quarters): every window benign. Their sentences are also the long carriers'
  English filler.

A text that shares a word 8-gram with a held-out corpus is dropped (the count is printed): no
held-out text or near copy is trained on. A fifth of the texts (not windows) is the validation
split; the model's `quarantine` and `block` thresholds are chosen on it as the whole guard
decides (the rules' score combined with the model's highest window probability): the lowest
probabilities from which the model adds at most `--budget` points (0.3) of benign texts
blocked and twice that flagged, over the rules alone. The held-out corpora are never read
except for the 8-gram check. The model: logistic regression, full-batch Adam, L2, classes
weighed equally.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import zlib
from array import array
from pathlib import Path
from typing import Any

import numpy as np

from bench.guard_benign_scale import chunks
from bench.guard_traindata import build, build_long
from manifold.security.guard import Scanner
from manifold.security.guard_model import Model, Slots, dump, features, units, windows

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "security" / "data"
OUT = ROOT / "src" / "manifold" / "security" / "data" / "guard_model.bin"
_WORDS = re.compile(r"\w+")
_N = 8


def _grams(text: str) -> set[tuple[str, ...]]:
    w = _WORDS.findall(text.casefold())
    return {tuple(w[i : i + _N]) for i in range(len(w) - _N + 1)}


def _jsonl(p: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line]


def _labels(r: dict[str, Any], wins: list[tuple[int, int, Slots]]) -> list[int | None]:
    """Per window: 1 (holds the payload), 0 (benign), None (left out: holds a part of it)."""
    if r["label"] != "injection":
        return [0] * len(wins)
    span = r.get("span")
    if span is None:  # an injection without a marked span: short ones are all payload
        return [1 if len(r["text"]) <= 600 else None] * len(wins)
    s, e = span
    out: list[int | None] = []
    for ws, we, _ in wins:
        ov = max(0, min(we, e) - max(ws, s))
        if ov == 0:
            out.append(0)
        elif ov >= 0.5 * min(e - s, we - ws):
            out.append(1)
        else:
            out.append(None)
    return out


def _decide(score: float) -> str:
    return "block" if score >= 0.7 else "quarantine" if score >= 0.5 else "pass"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--bits", type=int, default=16)
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--chunks", type=int, default=3000)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--budget",
        type=float,
        default=0.3,
        help="points of validation benign texts the model may add to the blocked (twice that "
        "to the flagged)",
    )
    a = ap.parse_args()
    logging.getLogger("manifold.security.guard").setLevel(logging.ERROR)
    rnd = random.Random(a.seed)

    pkg = [t for _, t in chunks(a.chunks, 2000, part="train")]
    prose = sorted(
        {
            " ".join(t[s:e].split())
            for t in pkg
            for s, e in units(t)
            if 40 <= e - s <= 300 and t[s:e].count(" ") >= 5
        }
    )
    recs = _jsonl(DATA / "guard_corpus.jsonl") + build(a.seed) + build_long(a.seed, prose)
    recs += [{"label": "benign", "family": "package", "text": t} for t in pkg]
    held: set[tuple[str, ...]] = set()
    for name in ("guard_heldout.jsonl", "guard_heldout2.jsonl"):
        for r in _jsonl(DATA / name):
            held |= _grams(r["text"])
    kept = [r for r in recs if not (_grams(r["text"]) & held)]
    print(
        f"{len(recs)} texts ({len(prose)} prose sentences), {len(recs) - len(kept)} dropped for "
        f"sharing a word {_N}-gram with a held-out text"
    )
    rules = Scanner(classifier=False)
    rnd.shuffle(kept)
    val = [r for i, r in enumerate(kept) if i % 5 == 0]
    train = [r for i, r in enumerate(kept) if i % 5 != 0]

    rows: list[dict[int, float]] = []
    ys: list[int] = []
    for r in train:
        wins = windows(r["text"], rules.suspicious, a.bits)
        for (_, _, slots), y in zip(wins, _labels(r, wins), strict=True):
            if y is None:
                continue
            rows.append(features(slots, a.bits))
            ys.append(y)
    n_pos = sum(ys)
    print(f"{len(rows)} training windows: {n_pos} injections, {len(rows) - n_pos} benign")

    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(x) for x in rows])
    idx = np.fromiter((i for x in rows for i in x), dtype=np.int64, count=int(ptr[-1]))
    val_x = np.fromiter((v for x in rows for v in x.values()), dtype=np.float64, count=int(ptr[-1]))
    row = np.repeat(np.arange(len(rows)), np.diff(ptr))
    y = np.array(ys, dtype=np.float64)
    cw = np.where(y == 1, len(y) / (2 * max(n_pos, 1)), len(y) / (2 * max(len(y) - n_pos, 1)))
    dim = 1 << a.bits
    w = np.zeros(dim)
    m = np.zeros(dim)
    v2 = np.zeros(dim)
    lr, l2, b1, b2 = 0.05, 1e-5, 0.9, 0.999
    for it in range(1, a.iters + 1):
        z = np.bincount(row, weights=w[idx] * val_x, minlength=len(rows))
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        err = cw * (p - y) / len(y)
        g = np.bincount(idx, weights=err[row] * val_x, minlength=dim) + l2 * w
        m = b1 * m + (1 - b1) * g
        v2 = b2 * v2 + (1 - b2) * g * g
        w -= lr * (m / (1 - b1**it)) / (np.sqrt(v2 / (1 - b2**it)) + 1e-8)
        if it % 50 == 0 or it == 1:
            loss = -np.mean(cw * (y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)))
            acc = np.mean((p > 0.5) == (y == 1))
            print(f"iter {it}: loss {loss:.4f}, train accuracy {acc:.4f}")

    weights = array("f", w.astype(np.float32).tobytes())
    model = Model.__new__(Model)
    model.bits, model.weights = a.bits, weights
    model.bias = zlib.crc32(b"bias") & (dim - 1)
    scored = []
    for r in val:
        vr = rules.score(r["text"])
        pr = model.prob(r["text"], rules.suspicious) if rules.suspicious(r["text"]) else None
        scored.append((r["label"] == "injection", vr.score, pr))
    ben = [(s, p) for inj, s, p in scored if not inj]
    inj = [(s, p) for inj, s, p in scored if inj]

    def rates(tq: float, tb: float) -> tuple[float, float, float, float]:
        model.t_quarantine, model.t_block = tq, tb

        def out(s: float, p: float | None) -> str:
            return _decide(s if p is None else max(s, model.combine(s, p)[1]))

        bb = sum(out(s, p) == "block" for s, p in ben) / max(len(ben), 1)
        bf = sum(out(s, p) != "pass" for s, p in ben) / max(len(ben), 1)
        ib = sum(out(s, p) == "block" for s, p in inj) / max(len(inj), 1)
        iflag = sum(out(s, p) != "pass" for s, p in inj) / max(len(inj), 1)
        return bb, bf, ib, iflag

    grid = [round(0.5 + 0.0025 * i, 4) for i in range(200)]
    rb, rf, ri, rif = rates(2.0, 2.0)  # the rules alone
    for t in (0.6, 0.7, 0.8, 0.85, 0.9, 0.95):
        b = rates(t, t)
        print(f"  at {t}: injections blocked {b[2]:.1%}, benign blocked {b[0]:.1%}")
    budget = a.budget / 100
    tb = next((t for t in grid if t >= 0.7 and rates(t, t)[0] - rb <= budget), 0.9975)
    tq = next(
        (
            t
            for t in grid
            if 0.6 <= t <= tb
            and rates(t, tb)[0] - rb <= budget
            and rates(t, tb)[1] - rf <= 2 * budget
        ),
        tb,
    )
    bb, bf, ib, iflag = rates(tq, tb)
    print(f"validation: {len(inj)} injections, {len(ben)} benign texts")
    print(
        f"  rules only: injections blocked {ri:.1%} (flagged {rif:.1%}), benign blocked "
        f"{rb:.1%}, flagged {rf:.1%}"
    )
    print(
        f"  with the model (quarantine {tq}, block {tb}): injections blocked {ib:.1%} (flagged "
        f"{iflag:.1%}), benign blocked {bb:.1%}, flagged {bf:.1%}"
    )
    dump(
        str(a.out),
        weights,
        {"bits": a.bits, "block": tb, "quarantine": tq, "seed": a.seed, "n_train": len(rows)},
    )
    print(f"{a.out}: {a.out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
