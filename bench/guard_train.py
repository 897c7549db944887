"""Trains the guard's learned stage and writes `src/manifold/security/data/guard_model.bin`.

    .venv/bin/python -m bench.guard_train [--seed 7] [--bits 16] [--epochs 8] [--chunks 3000]

Standard library only (no numpy needed), fixed seed, so a run on one environment writes the
same file. The training set:

- the tuning corpus (`tests/security/data/guard_corpus.jsonl`);
- the generated set of `bench/guard_traindata.py` (injections by goal, carrier and language;
  benign texts from the same carriers and vocabulary);
- real text chunks of installed packages' docs and sources, from the quarter of the files
  `bench.guard_benign_scale.training_file` sets apart (the benign-at-scale evaluation reads
  the other three quarters), labelled benign.

Texts that share word 8-grams with the held-out corpora are dropped (a text is dropped when
any of its 8-grams occurs in a held-out text: no held-out text or near copy is trained on);
the count is printed. Only texts the prefilter fires on are used (the model never sees the
others at run time). A stratified fifth is the validation split: the model's `quarantine`
and `block` thresholds are chosen on it (the lowest probabilities at which the model adds
at most 0.5 points to the benign texts blocked and 1 point to those flagged, over the rules
alone, and not below 0.7 and 0.85), and its `clear` threshold (the highest probability
under which lifting the rules' unsure decisions loses at most 0.5 points of the validation
injections blocked), never on the held-outs. The model: logistic regression, AdaGrad, L2.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import random
import re
from array import array
from pathlib import Path
from typing import Any

from bench.guard_benign_scale import chunks
from bench.guard_traindata import build
from manifold.security.guard import Scanner, Verdict
from manifold.security.guard_model import Model, dump, features, fold, short

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


def _sig(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def _decide(m: Model, v: Verdict, p: float) -> str:
    s = m.combine(v.score, p)[1]
    return "block" if s >= 0.7 else "quarantine" if s >= 0.5 else "pass"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--bits", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--chunks", type=int, default=3000)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    logging.getLogger("manifold.security.guard").setLevel(logging.ERROR)
    rnd = random.Random(a.seed)

    recs = _jsonl(DATA / "guard_corpus.jsonl") + build(a.seed)
    recs += [
        {"label": "benign", "family": "package", "surface": "result", "text": t}
        for _, t in chunks(a.chunks, 2000, part="train")
    ]
    held: set[tuple[str, ...]] = set()
    for name in ("guard_heldout.jsonl", "guard_heldout2.jsonl"):
        for r in _jsonl(DATA / name):
            held |= _grams(r["text"])
    kept = [r for r in recs if not (_grams(r["text"]) & held)]
    print(
        f"{len(recs)} texts, {len(recs) - len(kept)} dropped for sharing a word {_N}-gram "
        f"with a held-out text"
    )
    rules = Scanner(classifier=False)
    rows: list[tuple[dict[int, float], int, Verdict, bool]] = []
    for r in kept:
        text, surface = r["text"], r.get("surface", "result")
        if not rules.suspicious(text):
            continue
        v = rules.score(text, "description" if surface in ("description", "param") else "result")
        x = features(fold(text[:4000]), v.reasons, v.score, a.bits)
        rows.append((x, int(r["label"] == "injection"), v, short(text)))
    n_pos = sum(r[1] for r in rows)
    print(f"{len(rows)} fire the prefilter: {n_pos} injections, {len(rows) - n_pos} benign")
    rnd.shuffle(rows)
    val = [r for i, r in enumerate(rows) if i % 5 == 0]
    train = [r for i, r in enumerate(rows) if i % 5 != 0]

    dim = 1 << a.bits
    w = [0.0] * dim
    g2 = [1e-8] * dim
    lr, l2 = 0.3, 1e-6
    pos = sum(r[1] for r in train)
    cw = {1: len(train) / (2 * max(pos, 1)), 0: len(train) / (2 * max(len(train) - pos, 1))}
    for ep in range(a.epochs):
        rnd.shuffle(train)
        loss = 0.0
        for x, y, _, _ in train:
            p = _sig(sum(w[i] * v for i, v in x.items()))
            loss -= cw[y] * math.log(max(p if y else 1.0 - p, 1e-12))
            err = cw[y] * (p - y)
            for i, v in x.items():
                g = err * v + l2 * w[i]
                g2[i] += g * g
                w[i] -= lr * g / math.sqrt(g2[i])
        print(f"epoch {ep + 1}: loss {loss / len(train):.4f}")

    weights = array("f", w)
    # a short text is left to the rules at run time: its probability counts as none (0.5,
    # between the clearing and the quarantine thresholds: it neither adds nor clears)
    probs = [
        (0.5 if sh else _sig(sum(weights[i] * v for i, v in x.items())), y, vr)
        for x, y, vr, sh in val
    ]
    ben = [(p, vr) for p, y, vr in probs if not y]
    inj = [(p, vr) for p, y, vr in probs if y]

    def rates(tq: float, tb: float, tc: float = 0.0) -> tuple[float, float, float]:
        m = Model.__new__(Model)
        m.t_quarantine, m.t_block, m.t_clear = tq, tb, tc
        bb = sum(_decide(m, vr, p) == "block" for p, vr in ben) / max(len(ben), 1)
        bf = sum(_decide(m, vr, p) != "pass" for p, vr in ben) / max(len(ben), 1)
        ib = sum(_decide(m, vr, p) == "block" for p, vr in inj) / max(len(inj), 1)
        return bb, bf, ib

    grid = [round(0.5 + 0.005 * i, 3) for i in range(100)]
    rb, rf, ri = rates(2.0, 2.0)  # the rules alone
    tb = next((t for t in grid if t >= 0.85 and rates(t, t)[0] - rb <= 0.005), 0.995)
    tq = next((t for t in grid if 0.7 <= t <= tb and rates(t, tb)[1] - rf <= 0.01), tb)
    # clearing: the highest probability under which the rules' unsure blocks are lifted while
    # at most 0.5 points of the validation injections blocked are lost
    ib0 = rates(tq, tb)[2]
    tc = 0.0
    for t in (0.001, 0.002, 0.005, 0.01, 0.02, 0.05):  # no higher: the split is in-distribution
        if ib0 - rates(tq, tb, t)[2] <= 0.005:
            tc = t
    bb, bf, ib = rates(tq, tb, tc)
    print(f"validation: {len(inj)} injections, {len(ben)} benign")
    print(f"  rules only: injections blocked {ri:.1%}, benign blocked {rb:.1%}, flagged {rf:.1%}")
    print(
        f"  with the model (quarantine {tq}, block {tb}, clear {tc}): injections blocked {ib:.1%}, "
        f"benign blocked {bb:.1%}, flagged {bf:.1%}"
    )
    dump(
        str(a.out),
        weights,
        {
            "bits": a.bits,
            "block": tb,
            "quarantine": tq,
            "clear": tc,
            "seed": a.seed,
            "n_train": len(train),
        },
    )
    print(f"{a.out}: {a.out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
