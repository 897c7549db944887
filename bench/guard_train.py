"""Trains the guard's learned stage and writes `src/manifold/security/data/guard_model.bin`.

    .venv/bin/python -m bench.guard_train [--seed 7] [--bits 16] [--iters 300] [--chunks 3000]
        [--jobs 2]
    .venv/bin/python -m bench.guard_train --holdout heldout2     # leave one corpus out, measure

Needs numpy (the `embed` extra) to train; the model it writes is read with the standard
library. Fixed seed, so a run on one environment writes the same file.

The model scores windows of a text (`guard_model.windows`: two consecutive sentences around
each sentence the prefilter fires on; with `--concepts`, the default, also the concepts of
their words in the lexicon `data/guard_concepts.json`, `guard_model.Lexicon`), so it is
trained on windows, labelled one by one:

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
- the labelled corpora, written by sixty-three other authors (`REAL`, by author: the tuning
  corpus, held-out 1 to 16, 18, 20, 22 to 34, 36 and 38 to 67 (both halves of 3, 4, 5 and 11),
  all in `tests/security/data/`; the shipped model was trained on all but 65 to 67): a benign
  text's windows are benign, a short injection's (600 characters or fewer) are injections; in a
  long one, the windows that touch the lines no benign text of the same corpus has (what differs
  from a benign version of the carrier) when those are a minority of its lines, else the windows
  the rules give a signal of their own, the others left out (`_real_labels`).
  Their windows weigh `--real-share` (2.0) times the generated windows in all: fifty-four
  authors' real texts count for more than the generated ones (out of author, in 6 folds,
  with the lines each chose: 0.5 blocked 87.7% of injections, 1.0 88.3%, 2.0 88.8%, 4.0 88.9%,
  each at 2.2% of benign texts; 4.0 chose an `alone` line of 0.96, under which the model
  alone refused a study's appendix of quoted payloads that `tests/security/test_guard_fpa.py`
  keeps, so 2.0; with fifty-seven authors 2.0 chose 0.96 as well, and with sixty and the
  lexicon's concepts 0.965 refused it (0.966), so the alone line is held at `--alone-min` 0.97
  or more);
- real text chunks of installed packages' docs and sources, from the quarter of the files
  `bench.guard_benign_scale.training_file` sets apart (the benign-at-scale evaluation reads the
  other three quarters): every window benign. Their sentences are also the long carriers'
  English filler.

**Thresholds, out of author.** The guard meets text by authors the model never read, so its
thresholds are chosen on such text: for each author, a model is trained without that author's
corpora (and without every generated text that shares a word 8-gram with them) and scores
them (with `--groups K`, K models each trained without every K-th author: each author is still
scored by a model that never read it, for K trainings instead of one an author); on these
out-of-author probabilities, with the rules' scores, the model's `block` line (its
`quarantine` line the lowest at or under it) and its `alone` line (from which it refuses a
text that has no rule signal) are the ones that block the most injections while adding at
most `--budget` points (0.5) of benign texts blocked, and twice that flagged, over the rules
alone, the `alone` line at least `--alone-min`. The model written is then trained on every
text. (A random split of the same authors' texts chose lines the model passes on its own
authors and not on new ones.)

`--holdout NAME` leaves one author out of everything (the folds and the final model), then
measures the rules alone and with the model on that author's corpora (it writes no model
unless `--out` is given). The model: logistic regression, full-batch Adam, L2, classes
weighed equally.
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import os
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
from manifold.security.guard_model import (
    ALONE,
    PAIRED,
    Lexicon,
    Model,
    Slots,
    dump,
    features,
    units,
    windows,
)

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


# The labelled corpora, by author (each corpus was written by someone who had not seen the
# guard; the halves of one author's corpus are one author).
REAL = {
    "corpus": ["guard_corpus.jsonl"],
    "heldout": ["guard_heldout.jsonl"],
    "heldout2": ["guard_heldout2.jsonl"],
    "heldout3": ["guard_heldout3_dev.jsonl", "guard_heldout3_test.jsonl"],
    "heldout4": ["guard_heldout4_dev.jsonl", "guard_heldout4_test.jsonl"],
    "heldout5": ["guard_heldout5_dev.jsonl", "guard_heldout5_test.jsonl"],
    "heldout6": ["guard_heldout6.jsonl"],
    "heldout7": ["guard_heldout7.jsonl"],
    "heldout8": ["guard_heldout8.jsonl"],
    "heldout9": ["guard_heldout9.jsonl"],
    "heldout10": ["guard_heldout10.jsonl"],
    "heldout11": ["guard_heldout11_dev.jsonl", "guard_heldout11_test.jsonl"],
    "heldout12": ["guard_heldout12.jsonl"],
    "heldout13": ["guard_heldout13.jsonl"],
    "heldout14": ["guard_heldout14.jsonl"],
    "heldout15": ["guard_heldout15.jsonl"],
    "heldout16": ["guard_heldout16.jsonl"],
    "heldout18": ["guard_heldout18.jsonl"],
    "heldout20": ["guard_heldout20.jsonl"],
    "heldout22": ["guard_heldout22.jsonl"],
    "heldout23": ["guard_heldout23.jsonl"],
    "heldout24": ["guard_heldout24.jsonl"],
    "heldout25": ["guard_heldout25.jsonl"],
    "heldout26": ["guard_heldout26.jsonl"],
    "heldout27": ["guard_heldout27.jsonl"],
    "heldout28": ["guard_heldout28.jsonl"],
    "heldout29": ["guard_heldout29.jsonl"],
    "heldout30": ["guard_heldout30.jsonl"],
    "heldout31": ["guard_heldout31.jsonl"],
    "heldout32": ["guard_heldout32.jsonl"],
    "heldout33": ["guard_heldout33.jsonl"],
    "heldout34": ["guard_heldout34.jsonl"],
    "heldout36": ["guard_heldout36.jsonl"],
    "heldout38": ["guard_heldout38.jsonl"],
    "heldout39": ["guard_heldout39.jsonl"],
    "heldout40": ["guard_heldout40.jsonl"],
    "heldout41": ["guard_heldout41.jsonl"],
    "heldout42": ["guard_heldout42.jsonl"],
    "heldout43": ["guard_heldout43.jsonl"],
    "heldout44": ["guard_heldout44.jsonl"],
    "heldout45": ["guard_heldout45.jsonl"],
    "heldout46": ["guard_heldout46.jsonl"],
    "heldout47": ["guard_heldout47.jsonl"],
    "heldout48": ["guard_heldout48.jsonl"],
    "heldout49": ["guard_heldout49.jsonl"],
    "heldout50": ["guard_heldout50.jsonl"],
    "heldout51": ["guard_heldout51.jsonl"],
    "heldout52": ["guard_heldout52.jsonl"],
    "heldout53": ["guard_heldout53.jsonl"],
    "heldout54": ["guard_heldout54.jsonl"],
    "heldout55": ["guard_heldout55.jsonl"],
    "heldout56": ["guard_heldout56.jsonl"],
    "heldout57": ["guard_heldout57.jsonl"],
    "heldout58": ["guard_heldout58.jsonl"],
    "heldout59": ["guard_heldout59.jsonl"],
    "heldout60": ["guard_heldout60.jsonl"],
    "heldout61": ["guard_heldout61.jsonl"],
    "heldout62": ["guard_heldout62.jsonl"],
    "heldout63": ["guard_heldout63.jsonl"],
    "heldout64": ["guard_heldout64.jsonl"],
    "heldout65": ["guard_heldout65.jsonl"],
    "heldout66": ["guard_heldout66.jsonl"],
    "heldout67": ["guard_heldout67.jsonl"],
    "heldout68": ["guard_heldout68.jsonl"],
    "heldout69": ["guard_heldout69.jsonl"],
    "heldout70": ["guard_heldout70.jsonl"],
    "heldout71": ["guard_heldout71.jsonl"],
    "heldout72": ["guard_heldout72.jsonl"],
    "heldout73": ["guard_heldout73.jsonl"],
    "heldout74": ["guard_heldout74.jsonl"],
    "heldout75": ["guard_heldout75.jsonl"],
    "heldout76": ["guard_heldout76.jsonl"],
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


class _Text:
    """One training text: its source (an author's name or `generated`), its label, its
    surface, its windows' features and labels, and (for a labelled corpus's text) the
    rules' score."""

    __slots__ = ("feats", "grams", "inj", "labels", "rule", "slots", "source", "surface")

    def __init__(self, r: dict[str, Any]) -> None:
        self.source: str = r["source"]
        self.inj = r["label"] == "injection"
        self.surface = "description" if r.get("surface") in ("description", "param") else "result"
        self.slots: list[Slots] = []
        self.labels: list[int | None] = []
        self.feats: list[dict[int, float]] = []
        self.rule = 0.0
        self.grams: set[tuple[str, ...]] = set()


def _fit(texts: list[_Text], a: argparse.Namespace, quiet: bool = False) -> np.ndarray:
    """Logistic regression over the labelled windows of `texts` (full-batch Adam, L2, classes
    weighed equally; the labelled corpora's windows weigh `--real-share` of the generated)."""
    rows: list[dict[int, float]] = []
    ys: list[int] = []
    real: list[bool] = []
    for t in texts:
        for f, lab in zip(t.feats, t.labels, strict=True):
            if lab is not None:
                rows.append(f)
                ys.append(lab)
                real.append(t.source != "generated")
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(x) for x in rows])
    idx = np.fromiter((i for x in rows for i in x), dtype=np.int64, count=int(ptr[-1]))
    val_x = np.fromiter((v for x in rows for v in x.values()), dtype=np.float64, count=int(ptr[-1]))
    row = np.repeat(np.arange(len(rows)), np.diff(ptr))
    y = np.array(ys, dtype=np.float64)
    is_real = np.array(real, dtype=bool)
    n_real = int(is_real.sum())
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
        if not quiet and (it % 100 == 0 or it == 1):
            loss = -np.mean(cw * (y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)))
            acc = np.mean((p > 0.5) == (y == 1))
            print(f"iter {it}: loss {loss:.4f}, train accuracy {acc:.4f}")
    if not quiet:
        print(f"{len(rows)} windows: {int(y.sum())} injections, {n_real} of the labelled corpora")
    return w


def _model(w: np.ndarray, bits: int) -> Model:
    model = Model.__new__(Model)
    model.bits = bits
    model.weights = array("f", w.astype(np.float32).tobytes())
    model.scale = 1.0
    model.bias = zlib.crc32(b"bias") & ((1 << bits) - 1)
    model.t_quarantine = model.t_block = model.t_alone = 2.0
    model.lexicon = None  # the texts' slots are computed once, with or without it
    return model


def _prob(model: Model, t: _Text) -> float:
    """The text's probability (its highest window's), -1 when the model reads no window."""
    return max((model.window_prob(sl) for sl in t.slots), default=-1.0)


def _outcomes(
    s: np.ndarray, p: np.ndarray, tq: float, tb: float, ta: float
) -> tuple[np.ndarray, np.ndarray]:
    """(blocked, flagged) per text for rule scores `s` and probabilities `p` (-1: none), as
    `Model.combine` decides with these thresholds (vectorised)."""
    w = np.where(
        p < tq,
        0.0,
        np.where(
            p < tb,
            0.5 + 0.2 * (p - tq) / max(tb - tq, 1e-6),
            np.minimum(0.95, 0.7 + 0.25 * (p - tb) / max(1.0 - tb, 1e-6)),
        ),
    )
    w = np.where((s < PAIRED) & (p < ta), np.minimum(w, ALONE), w)
    score = np.maximum(s, np.round(1.0 - (1.0 - s) * (1.0 - w), 3))
    score = np.where(p < 0, s, score)
    return score >= 0.7, score >= 0.5


# What a fold needs (set in `main` before the workers fork): the texts, `without`, the ids of
# the texts in play, the arguments.
_FOLD: Any = None


def _select_lines(
    s: np.ndarray, p: np.ndarray, y: np.ndarray, budget_pts: float, alone_min: float
) -> tuple[float, float, float]:
    """The model's quarantine, block and alone lines, chosen on out-of-author probabilities
    `p` (with the rules' scores `s`, labels `y`): the block and alone lines (the alone line at
    least `alone_min`) that block the most injections while adding at most `budget_pts` points
    of benign texts blocked over the rules alone, then the lowest quarantine line at or under
    the block line that adds at most twice that flagged."""
    r_block = s >= 0.7
    r_flag = s >= 0.5
    n_b = int((~y).sum())
    b0, f0 = int(r_block[~y].sum()), int(r_flag[~y].sum())
    budget = budget_pts / 100 * n_b
    best = (int(r_block[y].sum()), 2.0, 2.0)
    grid = [round(0.5 + 0.005 * i, 4) for i in range(100)]
    for tb in grid:
        for ta in [*[x for x in grid if x >= max(tb, alone_min)], 2.0]:
            blocked, _ = _outcomes(s, p, tb, tb, ta)
            if int(blocked[~y].sum()) - b0 <= budget and int(blocked[y].sum()) > best[0]:
                best = (int(blocked[y].sum()), tb, ta)
    _, tb, ta = best
    tq = tb
    for line in grid:
        if line > tb:
            break
        blocked, flagged = _outcomes(s, p, line, tb, ta)
        if int(blocked[~y].sum()) - b0 <= budget and int(flagged[~y].sum()) - f0 <= 2 * budget:
            tq = line
            break
    return tq, tb, ta


def _fold(names: tuple[str, ...]) -> tuple[list[tuple[str, bool, float, float, int]], int]:
    """Out-of-author probabilities of the authors `names`: a model trained without them scores
    their texts (run in a worker)."""
    texts, without, kept, a = _FOLD
    train = [t for t in without(names) if id(t) in kept]
    model = _model(_fit(train, a, quiet=True), a.bits)
    own = [(i, t) for i, t in enumerate(texts) if t.source in names]
    return [(t.source, t.inj, t.rule, _prob(model, t), i) for i, t in own], len(train)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--bits", type=int, default=16)
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--chunks", type=int, default=3000)
    ap.add_argument(
        "--jobs",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="out-of-author folds trained at once (each worker holds a copy of the gradient "
        "state, about 1 GiB)",
    )
    ap.add_argument(
        "--groups",
        type=int,
        default=0,
        help="out-of-author folds of several authors each (K folds, every K-th author); "
        "0: one fold an author",
    )
    ap.add_argument("--out", type=Path, default=None, help=f"default: {OUT.name} in the package")
    ap.add_argument(
        "--budget",
        type=float,
        default=0.5,
        help="points of benign texts (of authors the model was not trained on) the model may "
        "add to the blocked (twice that to the flagged)",
    )
    ap.add_argument(
        "--alone-min",
        type=float,
        default=0.97,
        help="the lowest alone line the selection may choose (0.96 with fifty-seven authors, "
        "0.965 with sixty and the concepts, refused a study's appendix of quoted payloads that "
        "the tests keep)",
    )
    ap.add_argument(
        "--holdout",
        choices=sorted(REAL),
        help="leave this author's corpora out (and every text sharing a word 8-gram with them), "
        "then measure on them; the model is written only with --out",
    )
    ap.add_argument(
        "--dump-oof",
        type=Path,
        default=None,
        help="write each labelled text's out-of-author probability (JSON lines: source, label, "
        "rule score, p, surface, text), to study the stage's decisions on authors it never read",
    )
    ap.add_argument(
        "--real-share",
        type=float,
        default=2.0,
        help="the labelled corpora's windows weigh this many times the generated ones, in all",
    )
    ap.add_argument(
        "--concepts",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the lexicon's concepts as features too (guard_model.Lexicon)",
    )
    a = ap.parse_args()
    out_path: Path | None = a.out if a.out is not None or a.holdout else OUT
    logging.getLogger("manifold.security.guard").setLevel(logging.ERROR)

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
    corpora = {name: [r for f in files for r in _jsonl(DATA / f)] for name, files in REAL.items()}
    for name, rs in corpora.items():
        recs += [dict(r, source=name) for r in rs]
    rules = Scanner(classifier=False)
    lexicon = Lexicon.load() if a.concepts else None
    benign_lines: dict[str, set[str]] = {}
    for r in recs:
        if r["source"] != "generated" and r["label"] != "injection":
            benign_lines.setdefault(r["source"], set()).update(_lines(r["text"]))
    texts: list[_Text] = []
    how: dict[str, int] = {}
    for r in recs:
        t = _Text(r)
        wins = windows(r["text"], rules.suspicious, a.bits, lexicon)
        if t.source == "generated":
            t.labels = _labels(r, wins)
        else:
            t.labels, k = _real_labels(r, wins, benign_lines.get(t.source, set()), rules)
            how[k] = how.get(k, 0) + 1
            t.rule = rules.score(r["text"], t.surface).score
        t.slots = [sl for _, _, sl in wins]
        t.feats = [features(sl, a.bits) for sl in t.slots]
        t.grams = _grams(r["text"])
        texts.append(t)
    print(
        f"{len(texts)} texts ({len(prose)} prose sentences); the labelled corpora's long "
        "injections labelled by: " + ", ".join(f"{k} {v}" for k, v in sorted(how.items()))
    )

    def without(names: tuple[str, ...]) -> list[_Text]:
        """The texts a model that has not read the authors `names` trains on: not theirs, and
        no generated text that shares a word 8-gram with them."""
        held: set[tuple[str, ...]] = set()
        for t in texts:
            if t.source in names:
                held |= t.grams
        return [t for t in texts if t.source not in names and not (t.grams & held)]

    authors = [n for n in REAL if n != a.holdout]
    # Out-of-author probabilities: each author's texts scored by a model trained without them
    # (as the guard meets a new author's text). The thresholds are chosen on these.
    # (author, injection, rule score, p, index in `texts`)
    oof: list[tuple[str, bool, float, float, int]] = []
    # With --holdout, that author is out of everything: its texts and every generated text
    # sharing a word 8-gram with them.
    base = without((a.holdout,)) if a.holdout else texts
    kept = {id(t) for t in base}
    global _FOLD
    _FOLD = (texts, without, kept, a)
    # One fold an author, or with --groups K, K folds of every K-th author (each author's texts
    # are still scored by a model that read none of them: K times fewer models to train).
    k = min(a.groups, len(authors)) if a.groups else len(authors)
    folds = [tuple(authors[i::k]) for i in range(k)]
    jobs = max(1, min(a.jobs, len(folds)))
    if jobs > 1:
        # Folds are independent: forked workers share the texts (copy on write).
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = pool.map(_fold, folds, chunksize=1)
    else:
        results = [_fold(names) for names in folds]
    for names, (rows, n_train) in zip(folds, results, strict=True):
        oof += rows
        print(f"  fold {'+'.join(names)}: {len(rows)} texts scored by a model of {n_train} texts")
    if a.dump_oof is not None:
        with a.dump_oof.open("w", encoding="utf-8") as f:
            for o in oof:
                r = recs[o[4]]
                row = {"source": o[0], "label": r["label"], "rule": o[2], "p": o[3]}
                row |= {"surface": r.get("surface", "result"), "text": r["text"]}
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    au = np.array([o[0] for o in oof])
    y = np.array([o[1] for o in oof], dtype=bool)
    s = np.array([o[2] for o in oof])
    p = np.array([o[3] for o in oof])
    r_block = s >= 0.7
    r_flag = s >= 0.5
    n_b = int((~y).sum())
    tq, tb, ta = _select_lines(s, p, y, a.budget, a.alone_min)
    blocked, flagged = _outcomes(s, p, tq, tb, ta)
    print(
        f"out of author ({int(y.sum())} injections, {n_b} benign texts, {len(authors)} authors): "
        f"quarantine {tq}, block {tb}, alone {ta}"
    )
    print(
        f"  rules alone: injections blocked {r_block[y].mean():.1%}, benign blocked "
        f"{r_block[~y].mean():.1%} (flagged {r_flag[~y].mean():.1%})"
    )
    print(
        f"  with the model: injections blocked {blocked[y].mean():.1%}, benign blocked "
        f"{blocked[~y].mean():.1%} (flagged {flagged[~y].mean():.1%})"
    )
    for name in authors:
        k = au == name
        print(
            f"    {name}: rules {r_block[k & y].mean():.1%} / {r_block[k & ~y].mean():.1%}, "
            f"with the model {blocked[k & y].mean():.1%} / {blocked[k & ~y].mean():.1%}"
        )
    final = _model(_fit(base, a), a.bits)
    if a.holdout:
        final.t_quarantine, final.t_block, final.t_alone = tq, tb, ta
        own = [t for t in texts if t.source == a.holdout]
        hs = np.array([t.rule for t in own])
        hp = np.array([_prob(final, t) for t in own])
        hy = np.array([t.inj for t in own], dtype=bool)
        hb, hf = _outcomes(hs, hp, tq, tb, ta)
        print(f"held out {a.holdout}: {int(hy.sum())} injections, {int((~hy).sum())} benign texts")
        for name, (bl, fl) in (("rules", (hs >= 0.7, hs >= 0.5)), ("stage", (hb, hf))):
            print(
                f"  {name}: injections blocked {int(bl[hy].sum())} ({bl[hy].mean():.1%}), "
                f"flagged {int(fl[hy].sum())}; benign blocked {int(bl[~hy].sum())} "
                f"({bl[~hy].mean():.1%}), flagged {int(fl[~hy].sum())}"
            )
    if out_path is None:
        return
    dump(
        str(out_path),
        final.weights,
        {
            "bits": a.bits,
            "concepts": int(a.concepts),
            "block": tb,
            "quarantine": tq,
            "alone": ta,
            "seed": a.seed,
            "n_train": sum(len(t.labels) for t in base),
        },
    )
    print(f"{out_path}: {out_path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
