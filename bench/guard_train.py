"""Trains the guard's learned stage and writes `src/manifold/security/data/guard_model.bin`.

    .venv/bin/python -m bench.guard_train [--seed 7] [--bits 16] [--iters 300] [--chunks 3000]
    .venv/bin/python -m bench.guard_train --holdout heldout2     # leave one corpus out, measure

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
- short direct injections of `bench/guard_directdata.build_direct` (overrides, requests for the
  system prompt, persona and developer-mode jailbreaks, fake updates, completion tricks, tool
  orders, false statements, markdown exfiltration, poisoned descriptions; 18 languages) and
  benign texts with the same words, bare or in a carrier;
- the labelled corpora, written by other authors (`REAL`: the tuning corpus, held-out 1,
  held-out 2, both halves of held-out 3 (its test half measured blind first) and the
  development half of held-out 4, all in `tests/security/data/`; they are
  training data now, not measures): a benign text's windows are benign, a short injection's
  (600 characters or fewer) are injections; in a long one, the windows that touch the lines
  no benign text of the same corpus has (what differs from a benign version of the carrier)
  when those are a minority of its lines, else the windows the rules give a signal of their
  own, the others left out (`_real_labels`). Their windows weigh `--real-share` (0.5) of the
  generated windows in all, so that a few thousand count against tens of thousands;
- real text chunks of installed packages' docs and sources, from the quarter of the files
  `bench.guard_benign_scale.training_file` sets apart (the benign-at-scale evaluation reads the
  other three quarters): every window benign. Their sentences are also the long carriers'
  English filler.

`--holdout NAME` leaves one labelled corpus out (and every text, generated or not, that shares
a word 8-gram with it), trains as usual, then measures the rules alone and with the model on
it: whether the model generalises to an author it has not read (it writes no model unless
`--out` is given). A fifth of the texts (not windows) is the validation split; the model's
`quarantine` and `block` thresholds are chosen on it as the whole guard decides (the rules'
score combined with the model's highest window probability): the lowest probabilities from
which the model adds at most `--budget` points (0.3) of benign texts blocked and twice that
flagged, over the rules alone. The model: logistic regression, full-batch Adam, L2, classes
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
from bench.guard_directdata import build_direct
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


REAL = {
    "corpus": "guard_corpus.jsonl",
    "heldout": "guard_heldout.jsonl",
    "heldout2": "guard_heldout2.jsonl",
    "heldout3_dev": "guard_heldout3_dev.jsonl",
    "heldout3_test": "guard_heldout3_test.jsonl",
    "heldout4_dev": "guard_heldout4_dev.jsonl",
}
_SHORT = 600


def _norm(line: str) -> str:
    return " ".join(line.split()).casefold()


def _lines(text: str) -> set[str]:
    """The lines of a text of at least 3 words, normalised (spaces, case)."""
    return {_norm(x) for x in text.splitlines() if len(x.split()) >= 3}


def _real_labels(
    r: dict[str, Any],
    wins: list[tuple[int, int, Slots]],
    benign_lines: set[str],
    rules: Scanner,
) -> tuple[list[int | None], str]:
    """Per-window labels of a labelled corpus's text (which has no marked span), and how they
    were found: a benign text's windows are benign; a short injection's (600 characters or
    fewer) are all injections; in a long one, when a minority of its lines are in no benign
    text of the same corpus (what differs from a benign version of the same carrier), the
    windows that touch those lines are injections and the others benign; else the windows the
    rules give a signal of their own (0.25) are injections and the others left out."""
    text = r["text"]
    if r["label"] != "injection":
        return [0] * len(wins), "benign"
    if len(text) <= _SHORT:
        return [1] * len(wins), "short"
    spans: list[tuple[int, int]] = []
    n = 0
    pos = 0
    for line in text.splitlines(keepends=True):
        if len(line.split()) >= 3:
            n += 1
            if _norm(line) not in benign_lines:
                spans.append((pos, pos + len(line.rstrip("\r\n"))))  # not its line break
        pos += len(line)
    if 0 < len(spans) <= n // 2:
        return [1 if any(s < we and ws < e for s, e in spans) else 0 for ws, we, _ in wins], "diff"
    fire = [rules.score(text[ws:we]).score >= 0.25 for ws, we, _ in wins]
    if any(fire):
        return [1 if f else None for f in fire], "rules"
    return [None] * len(wins), "none"


def _decide(score: float) -> str:
    return "block" if score >= 0.7 else "quarantine" if score >= 0.5 else "pass"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--bits", type=int, default=16)
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--chunks", type=int, default=3000)
    ap.add_argument("--out", type=Path, default=None, help=f"default: {OUT.name} in the package")
    ap.add_argument(
        "--budget",
        type=float,
        default=0.3,
        help="points of validation benign texts the model may add to the blocked (twice that "
        "to the flagged)",
    )
    ap.add_argument(
        "--holdout",
        choices=sorted(REAL),
        help="leave this labelled corpus out (and every text sharing a word 8-gram with it), "
        "then measure on it; the model is written only with --out",
    )
    ap.add_argument(
        "--real-share",
        type=float,
        default=0.5,
        help="the labelled corpora's windows weigh this share of the generated ones, in all",
    )
    a = ap.parse_args()
    out_path: Path | None = a.out if a.out is not None or a.holdout else OUT
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
    recs = build(a.seed) + build_long(a.seed, prose) + build_direct(a.seed)
    recs += [{"label": "benign", "family": "package", "text": t} for t in pkg]
    for r in recs:
        r["source"] = "generated"
    corpora = {name: _jsonl(DATA / file) for name, file in REAL.items()}
    for name, rs in corpora.items():
        if name != a.holdout:
            recs += [dict(r, source=name) for r in rs]
    kept = recs
    if a.holdout:
        held: set[tuple[str, ...]] = set()
        for r in corpora[a.holdout]:
            held |= _grams(r["text"])
        kept = [r for r in recs if not (_grams(r["text"]) & held)]
    print(
        f"{len(recs)} texts ({len(prose)} prose sentences), {len(recs) - len(kept)} dropped for "
        f"sharing a word {_N}-gram with the held-out corpus ({a.holdout or 'none'})"
    )
    rules = Scanner(classifier=False)
    benign_lines: dict[str, set[str]] = {}
    for r in kept:
        if r["source"] != "generated" and r["label"] != "injection":
            benign_lines.setdefault(r["source"], set()).update(_lines(r["text"]))
    rnd.shuffle(kept)
    val = [r for i, r in enumerate(kept) if i % 5 == 0]
    train = [r for i, r in enumerate(kept) if i % 5 != 0]

    rows: list[dict[int, float]] = []
    ys: list[int] = []
    real: list[bool] = []
    how: dict[str, int] = {}
    for r in train:
        wins = windows(r["text"], rules.suspicious, a.bits)
        if r["source"] == "generated":
            labels = _labels(r, wins)
        else:
            labels, k = _real_labels(r, wins, benign_lines.get(r["source"], set()), rules)
            how[k] = how.get(k, 0) + 1
        for (_, _, slots), lab in zip(wins, labels, strict=True):
            if lab is None:
                continue
            rows.append(features(slots, a.bits))
            ys.append(lab)
            real.append(r["source"] != "generated")
    n_pos = sum(ys)
    n_real = sum(real)
    print(
        f"{len(rows)} training windows: {n_pos} injections, {len(rows) - n_pos} benign; "
        f"{n_real} of the labelled corpora (texts labelled by: "
        + ", ".join(f"{k} {v}" for k, v in sorted(how.items()))
        + ")"
    )

    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(x) for x in rows])
    idx = np.fromiter((i for x in rows for i in x), dtype=np.int64, count=int(ptr[-1]))
    val_x = np.fromiter((v for x in rows for v in x.values()), dtype=np.float64, count=int(ptr[-1]))
    row = np.repeat(np.arange(len(rows)), np.diff(ptr))
    y = np.array(ys, dtype=np.float64)
    # Sample weights: the labelled corpora's windows weigh `--real-share` of the generated
    # ones in all (a few thousand windows against tens of thousands), then classes equally.
    is_real = np.array(real, dtype=bool)
    sw = np.ones(len(y))
    if n_real:
        sw[is_real] = a.real_share * (len(y) - n_real) / n_real
    pos_w, neg_w = float(sw[y == 1].sum()), float(sw[y == 0].sum())
    tot = pos_w + neg_w
    sw *= np.where(y == 1, tot / (2 * max(pos_w, 1e-9)), tot / (2 * max(neg_w, 1e-9)))
    cw = sw * len(y) / sw.sum()
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
        scored.append((r["label"] == "injection", vr.score, pr, r["source"] != "generated"))

    def rates(tq: float, tb: float, part: bool | None = None) -> tuple[float, float, float, float]:
        """Benign blocked, benign flagged, injections blocked, injections flagged (`part`:
        the labelled corpora's texts only, the generated ones only, or all)."""
        model.t_quarantine, model.t_block = tq, tb

        def out(s: float, p: float | None) -> str:
            return _decide(s if p is None else max(s, model.combine(s, p)[1]))

        ben = [(s, p) for i, s, p, x in scored if not i and part in (None, x)]
        inj = [(s, p) for i, s, p, x in scored if i and part in (None, x)]
        bb = sum(out(s, p) == "block" for s, p in ben) / max(len(ben), 1)
        bf = sum(out(s, p) != "pass" for s, p in ben) / max(len(ben), 1)
        ib = sum(out(s, p) == "block" for s, p in inj) / max(len(inj), 1)
        iflag = sum(out(s, p) != "pass" for s, p in inj) / max(len(inj), 1)
        return bb, bf, ib, iflag

    grid = [round(0.5 + 0.0025 * i, 4) for i in range(200)]
    rb, rf, ri, rif = rates(2.0, 2.0)  # the rules alone
    alone = {x: rates(2.0, 2.0, x) for x in (False, True)}
    for t in (0.6, 0.7, 0.8, 0.85, 0.9, 0.95):
        b = rates(t, t)
        print(f"  at {t}: injections blocked {b[2]:.1%}, benign blocked {b[0]:.1%}")
    budget = a.budget / 100

    def within(tq: float, tb: float) -> bool:
        """The budget holds on the generated texts and on the labelled corpora's, each (the
        other authors' texts are a few hundred among thousands: their own budget keeps the
        generated set from hiding what the model adds there)."""
        for x, (b0, f0, _, _) in alone.items():
            bb, bf, _, _ = rates(tq, tb, x)
            if bb - b0 > budget or bf - f0 > 2 * budget:
                return False
        return True

    tb = next(
        (
            t
            for t in grid
            if t >= 0.7 and all(rates(t, t, x)[0] - alone[x][0] <= budget for x in (False, True))
        ),
        0.9975,
    )
    tq = next((t for t in grid if 0.6 <= t <= tb and within(t, tb)), tb)
    bb, bf, ib, iflag = rates(tq, tb)
    n_vi = sum(i for i, _, _, _ in scored)
    print(f"validation: {n_vi} injections, {len(scored) - n_vi} benign texts")
    for x, name in ((True, "the labelled corpora"), (False, "generated")):
        r0, r1 = alone[x], rates(tq, tb, x)
        print(
            f"  {name}: rules only {r0[2]:.1%} / {r0[0]:.1%} (injections / benign blocked), "
            f"with the model {r1[2]:.1%} / {r1[0]:.1%}"
        )
    print(
        f"  rules only: injections blocked {ri:.1%} (flagged {rif:.1%}), benign blocked "
        f"{rb:.1%}, flagged {rf:.1%}"
    )
    print(
        f"  with the model (quarantine {tq}, block {tb}): injections blocked {ib:.1%} (flagged "
        f"{iflag:.1%}), benign blocked {bb:.1%}, flagged {bf:.1%}"
    )
    if a.holdout:
        rs = corpora[a.holdout]
        model.t_quarantine, model.t_block = tq, tb
        res = {"rules": [0, 0, 0, 0], "stage": [0, 0, 0, 0]}
        for r in rs:
            vr = rules.score(r["text"])
            pr = model.prob(r["text"], rules.suspicious) if rules.suspicious(r["text"]) else None
            s2 = vr.score if pr is None else max(vr.score, model.combine(vr.score, pr)[1])
            col = 0 if r["label"] == "injection" else 2
            for name, sc in (("rules", vr.score), ("stage", s2)):
                res[name][col] += _decide(sc) == "block"
                res[name][col + 1] += _decide(sc) != "pass"
        n_i = sum(r["label"] == "injection" for r in rs)
        n_b = len(rs) - n_i
        print(f"held out {a.holdout}: {n_i} injections, {n_b} benign texts")
        for name, (ib2, if2, bb2, bf2) in res.items():
            print(
                f"  {name}: injections blocked {ib2} ({ib2 / max(n_i, 1):.1%}), flagged {if2}; "
                f"benign blocked {bb2} ({bb2 / max(n_b, 1):.1%}), flagged {bf2}"
            )
    if out_path is None:
        return
    dump(
        str(out_path),
        weights,
        {"bits": a.bits, "block": tb, "quarantine": tq, "seed": a.seed, "n_train": len(rows)},
    )
    print(f"{out_path}: {out_path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
