"""The guard's learned stage: a small linear model over hashed features (standard library only).

A logistic regression trained by `bench/guard_train.py` (fixed seed) and shipped as
`data/guard_model.bin`: a header (magic, JSON settings) and the weights as 16-bit integers
with one scale (`dump`), read into an `array("h")`. It reads **windows**, not whole texts: a
text is cut into units (its sentences, a short one joined to the next, a long one cut at
`_UNIT_MAX` characters), and around each unit
the prefilter fires on, the model reads that unit with the one before and with the one after
(at most `_MAX_WINDOWS` windows a text, each at most `_WINDOW_MAX` characters; a window of
fewer than 2 words or 15 distinct characters, such as a run of one character, is not read).
The text's probability is the highest of its windows': one order to the AI reader in a long
page is not diluted by the page. Features of a window, hashed (CRC-32) into `2**bits` slots:
its words and word pairs after the guard's own normalisation (invisible characters stripped,
NFKC, case folded, look-alikes folded to Latin) and its character 4-grams (of the UTF-8 bytes:
obfuscations, scripts without spaces), each set scaled to unit length.

The probability becomes the reason `classifier`, weighed like any other signal: below the
model's `quarantine` threshold it adds nothing; from there to its `block` threshold it adds
0.5 to 0.7; above, 0.7 to 0.95 (thresholds chosen on a validation split of the training set,
stored in the model file). Alone, with no rule signal of at least 0.25, it adds at most 0.6:
it marks the text but does not refuse it; with one, the two decide together. The model
only adds: it never lowers the rules' score (an earlier version cleared the rules' unsure
decisions when it was sure, and lifted injections the rules had right on long pages).
"""

from __future__ import annotations

import functools
import json
import math
import re
import struct
import sys
import unicodedata
import zlib
from array import array
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from itertools import combinations, pairwise
from typing import Final

from manifold.security.guard import _CONFUSABLE, _STRIP, Verdict, data_file

MAGIC: Final = b"MGM3"
# The model alone marks (quarantine) but does not refuse: its false positives on ordinary
# text (a meeting mail in French, news about an attack, an honest `IMPORTANT:` note in a
# description) had no rule signal at all; the injections it rescues mostly have one.
PAIRED: Final = 0.25
ALONE: Final = 0.6
# A refusal that rests on one rule signal (one reason of at least `SIGNAL`; the others, if
# any, weaker) is doubted when the model's probability is below `DOUBT` and the text is long
# enough for the model to judge: such a text is marked, not refused (`Verdict.doubted`). On
# four authors the model was not trained on, 8 of the 70 benign texts refused were such, and
# 1 of the 663 injections refused (on all 52 corpora: 45 benign texts freed, 12 injections
# marked instead of refused). The honest texts one pattern refuses alone (a support macro's
# "agent, tell the customer", a FAQ's "can the bot give me admin") are where the rules are
# least sure; a short request ("only the first letter of the password") is where the model is.
SIGNAL: Final = 0.3
DOUBT: Final = 0.5
DOUBT_CHARS: Final = 150  # a shorter text keeps its refusal: too few words for the model
SURE: Final = 0.9  # a signal this strong (a chat template's own tokens) is never doubted
# A refusal on several rule signals is doubted the same way when none of them is one the
# model cannot read (hidden text, an encoded payload, look-alike letters: the model reads the
# visible words). What is left are refusals the model can judge from the words it reads: a
# poisoned definition's markers, secrecy, a link that carries data, a claim of approval, an
# order to the model in a phrasing the rules know and the model doubts. On six authors no rule
# and no model line was written from (3,660 texts, out-of-author probabilities), this freed
# 0.6 points of benign texts for 0.1 points of injections (79.4% / 3.3% to 79.3% / 2.7%) against
# the set before, which also kept orders to the model (`directive`, `assistant-order`) and
# other languages' phrases (`multilingual`).
KEPT: Final = frozenset(  # reasons that keep a refusal of several signals
    {"hidden-carrier", "hidden-order", "encoded", "encoded-order", "encoded-cue", "homoglyph"}
)
# A refusal with an instruction override among its signals ("ignore all previous
# instructions") is never doubted: the model, which reads a window of three sentences, gives
# the bare order in a long report as little as 0.44 (its honest quotations, in articles and
# defensive rules, are damped by the rules themselves: `_docref`, quotations).
UNDOUBTED: Final = frozenset({"override"})
_WORD: Final = re.compile(r"\w+")
_SPACE: Final = re.compile(r"\s+")
# Units of a text: sentences (a line break, or an end mark before a space or after CJK text)
_SEP: Final = re.compile(r"[.!?;](?=\s)|[\u3002\uff01\uff1f\uff1b]|\n")
_CHAR_N: Final = 4
_UNIT_MIN: Final = 40  # a shorter unit is read with the next one (a header, "Hi Bob,")
_UNIT_MAX: Final = 400  # a longer one is cut
_MAX_WINDOWS: Final = 12  # windows read per text (the cost of one text is bounded)
_BLOCK: Final = 8192  # the prefilter runs on blocks of this many characters, then on units
_MAX_UNITS: Final = 20_000  # units looked at per text (the prefilter runs on each)
_BIG: Final = sys.byteorder == "big"
_SCALES: Final = (1.0, 1.0, 0.5, 1.0)  # words and pairs, 4-grams, context words, concepts

Slots = tuple[set[int], set[int], set[int], set[int]]


def fold(text: str) -> str:
    """The guard's normalisation (as `Scanner._scan` folds a text before matching)."""
    norm = unicodedata.normalize("NFKC", text.translate(_STRIP)).casefold()
    if "\\" in norm:
        norm = norm.replace("\\r\\n", "\n").replace("\\n", "\n").replace('\\"', '"')
    return norm.translate(_CONFUSABLE)


def units(text: str) -> Iterator[tuple[int, int]]:
    """The (start, end) of each unit of `text`: its sentences, short ones joined to the next,
    long ones cut (so that a window holds about one order, whatever the carrier)."""
    start = 0
    n = 0
    for m in _SEP.finditer(text):
        end = m.end()
        if end - start >= _UNIT_MIN:
            while end - start > _UNIT_MAX:
                yield start, start + _UNIT_MAX
                start += _UNIT_MAX
            yield start, end
            start = end
            n += 1
            if n >= _MAX_UNITS:
                return
    if start < len(text):
        end = len(text)
        while end - start > _UNIT_MAX:
            yield start, start + _UNIT_MAX
            start += _UNIT_MAX
        yield start, end


@functools.cache
def _prime_below(n: int) -> int:
    p = n - 1
    while any(p % d == 0 for d in range(2, math.isqrt(p) + 1)):
        p -= 1
    return p


class Lexicon:
    """Words of many languages mapped onto a few concepts (`data/guard_concepts.json`: the AI
    reader, an obligation, the user, secrecy, telling, sending, changing, approving, paying,
    secrets, ignoring, what came before, instructions, now, negation, deleting, addresses), so
    that what the model learns from "the assistant must change the account and not tell the
    user" in one language it also reads in another ("der Assistent soll das Konto ändern und
    den Nutzer nicht informieren": AI MUST CHANGE PAY NEG TELL USER in both). Its words are
    folded as a text is (`fold`). Words of scripts written without spaces (Thai, Chinese,
    Japanese; Korean's particles) are also found inside a longer token (`concepts`)."""

    __slots__ = ("inner", "longest", "words")

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.words: dict[str, str] = {}
        self.inner: dict[str, str] = {}
        for concept, words in table.items():
            if concept.startswith("_"):
                continue
            for w in words:
                f = fold(w).strip()
                if not f or " " in f:
                    continue
                self.words.setdefault(f, concept)
                if _INNER.match(f) is not None:
                    self.inner.setdefault(f, concept)
        self.longest = max((len(w) for w in self.inner), default=0)

    @classmethod
    @functools.cache
    def load(cls) -> Lexicon:
        return cls(json.loads(data_file("guard_concepts.json")))

    def concepts(self, words: list[str]) -> list[str]:
        """The concepts of `words`, in order (a word of no concept is skipped)."""
        out: list[str] = []
        get = self.words.get
        for w in words:
            c = get(w)
            if c is not None:
                out.append(c)
            elif self.inner and _INNER.match(w) is not None and len(w) > 1:
                out.extend(self._inside(w))
        return out

    def _inside(self, w: str) -> Iterator[str]:
        """Concepts of the lexicon's words inside a token written without spaces (longest
        first, left to right; at most `_INNER_MAX` characters of it looked at)."""
        get = self.inner.get
        i, n = 0, min(len(w), _INNER_MAX)
        while i < n:
            for k in range(min(self.longest, n - i), 1, -1):
                c = get(w[i : i + k])
                if c is not None:
                    yield c
                    i += k
                    break
            else:
                i += 1


# Scripts written without spaces between words (Thai, CJK, kana, Hangul): the lexicon's words
# of these are also looked for inside a token.
_INNER: Final = re.compile(r"[\u0e00-\u0eff\u1100-\u11ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_INNER_MAX: Final = 64


class _Unit:
    """One unit, folded and hashed once (a unit is in up to two windows and two contexts)."""

    __slots__ = ("chars", "concepts", "ctx", "first", "grams", "last", "letters", "words")

    def __init__(self, folded: str, bits: int, lexicon: Lexicon | None = None) -> None:
        mask = (1 << bits) - 1
        crc = zlib.crc32
        text = _SPACE.sub(" ", folded).strip()
        words = _WORD.findall(text)
        self.words = set(words)
        self.first = words[0] if words else ""
        self.last = words[-1] if words else ""
        self.letters = set(text)
        self.grams = {crc(w.encode(), 1) & mask for w in self.words}
        self.grams.update(crc(f"{a} {b}".encode(), 2) & mask for a, b in pairwise(words))
        self.concepts: frozenset[str] = (
            frozenset(lexicon.concepts(words)) if lexicon is not None else frozenset()
        )
        self.ctx = {crc(w.encode(), 3) & mask for w in self.words}
        raw = text.encode()
        slot = _prime_below(1 << bits).__rmod__  # a 4-gram's 32 bits -> its slot (in C: `map`)
        self.chars: set[int] = set()
        for k in range(min(_CHAR_N, len(raw) - _CHAR_N + 1)):
            ints = array("I")
            ints.frombytes(raw[k : k + (len(raw) - k) // 4 * 4])
            if _BIG:  # pragma: no cover - the same slots on a big-endian machine
                ints.byteswap()
            self.chars.update(map(slot, ints))


def windows(
    text: str, suspicious: Callable[[str], bool], bits: int, lexicon: Lexicon | None = None
) -> list[tuple[int, int, Slots]]:
    """The windows the model reads, as (start, end, slots): around each unit the prefilter
    fires on, that unit with the one before it and with the one after it (an order and its
    addressee are often two sentences), at most `_MAX_WINDOWS` (past that, the first half and
    the last half of them: a page's head and tail), each of at least 2 distinct
    words and 15 distinct characters (a run of one character, a bare number or token is left
    to the rules). A window's slots, hashed into `2**bits`: its words and word pairs (CRC-32),
    its character 4-grams within each unit (of the UTF-8 bytes, read four at a time as
    integers by `array`, modulo the largest prime under the table's size), and the words of
    the unit on each side (its context: what frames it, "the report quotes: ..."); with a
    `lexicon`, the distinct concepts of the window's words (`Lexicon`), alone, in pairs and in
    threes, in any order (a slot group of their own)."""
    us = list(units(text))
    cache: dict[int, _Unit] = {}

    def unit(j: int) -> _Unit:
        u = cache.get(j)
        if u is None:
            s, e = us[j]
            u = cache[j] = _Unit(fold(text[s:e]), bits, lexicon)
        return u

    # The prefilter runs on blocks first (each with the length of a unit past its end, so a
    # unit that starts in a block lies in it whole), then on the units of a block it fired
    # on; the units are looked at from the head until half the windows are found, then from
    # the tail: the first half and the last half of all the windows, without looking at all.
    fired = [suspicious(text[b : b + _BLOCK + _UNIT_MAX]) for b in range(0, len(text), _BLOCK)]

    def fires(i: int) -> bool:
        s, e = us[i]
        return fired[s // _BLOCK] and suspicious(text[s:e])

    half = _MAX_WINDOWS // 2
    head: list[int] = []  # the first unit of each window, in order
    last = -1
    for i in range(len(us)):
        if len(head) >= half:
            break
        last = i
        if fires(i):
            head.extend(j for j in (i - 1, i) if j >= 0 and (not head or head[-1] < j))
    tail: list[int] = []
    for i in range(len(us) - 1, last, -1):
        if len(tail) >= _MAX_WINDOWS - half:
            break
        if fires(i):
            tail.extend(j for j in (i, i - 1) if j > (head[-1] if head else -1) and j not in tail)
    starts = head + sorted(tail)
    if len(starts) > _MAX_WINDOWS:
        starts = head[:half] + sorted(tail)[-(_MAX_WINDOWS - half) :]
    mask = (1 << bits) - 1
    out: list[tuple[int, int, Slots]] = []
    for j in starts:
        a = unit(j)
        b = unit(j + 1) if j + 1 < len(us) else None
        words = a.words | b.words if b is not None else a.words
        letters = a.letters | b.letters if b is not None else a.letters
        if len(letters) < 15 or len(words) < 2:
            continue
        grams = set(a.grams)
        chars = set(a.chars)
        ctx = set(unit(j - 1).ctx) if j > 0 else set()
        if b is not None:
            grams |= b.grams
            grams.add(zlib.crc32(f"{a.last} {b.first}".encode(), 2) & mask)
            chars |= b.chars
            if j + 2 < len(us):
                ctx |= unit(j + 2).ctx
        end = us[j + 1][1] if b is not None else us[j][1]
        cs = _kept(a.concepts | b.concepts if b is not None else a.concepts)
        concepts = _concept_slots(cs, mask) if cs else set()
        out.append((us[j][0], end, (grams, chars, ctx, concepts)))
    return out


_MAX_CONCEPTS: Final = 10  # distinct concepts of a window read (the first in `_PRIORITY`)
# Which concepts a window that holds more than `_MAX_CONCEPTS` keeps: who is addressed and what
# it is told to do before the circumstances (when, how, where).
_ORDER: Final = """AI IGNORE PREVIOUS INSTRUCTION HIDE SECRET SEND MUST USER TELL URL CHANGE PAY
APPROVE DELETE NOW NEG"""
_PRIORITY: Final = {c: i for i, c in enumerate(_ORDER.split())}


def _kept(cs: frozenset[str]) -> list[str]:
    """A window's concepts as its slots read them: in name order, at most `_MAX_CONCEPTS`."""
    if len(cs) > _MAX_CONCEPTS:
        return sorted(sorted(cs, key=lambda c: _PRIORITY.get(c, len(_PRIORITY)))[:_MAX_CONCEPTS])
    return sorted(cs)


def _concept_slots(cs: list[str], mask: int) -> set[int]:
    """A window's distinct concepts, alone, in pairs and in threes, in any order (a language
    orders "the assistant must change the account" its own way)."""
    crc = zlib.crc32
    out = {crc(c.encode(), 4) & mask for c in cs}
    out.update(crc(f"{a} {b}".encode(), 5) & mask for a, b in combinations(cs, 2))
    out.update(crc(f"{a} {b} {c}".encode(), 6) & mask for a, b, c in combinations(cs, 3))
    return out


def features(slots: Slots, bits: int) -> dict[int, float]:
    """Slot -> value for one window: each set of slots scaled to unit length (the context to
    half a unit), and a bias (what `Model.window_prob` sums, as a vector)."""
    out: dict[int, float] = {}
    for group, scale in zip(slots, _SCALES, strict=True):
        if group:
            x = scale / math.sqrt(len(group))
            for g in group:
                out[g] = out.get(g, 0.0) + x
    g = zlib.crc32(b"bias") & ((1 << bits) - 1)
    out[g] = out.get(g, 0.0) + 1.0
    return out


def dump(path: str, weights: array, settings: dict[str, float | int]) -> None:  # type: ignore[type-arg]
    """Writes the model: a header (magic, JSON settings with the weights' `scale`) and the
    weights as 16-bit integers (each `round(w / scale)`, `scale` the largest magnitude over
    32,767): half the bytes of float32, read back into an `array("h")`."""
    top = max((abs(float(x)) for x in weights), default=0.0)
    scale = top / 32767.0 if top > 0.0 else 1.0
    q = array("h", (max(-32767, min(32767, round(float(x) / scale))) for x in weights))
    if _BIG:  # pragma: no cover - the file is little-endian
        q.byteswap()
    head = json.dumps({**settings, "scale": scale}, sort_keys=True).encode()
    with open(path, "wb") as f:
        f.write(MAGIC + struct.pack("<I", len(head)) + head)
        f.write(q.tobytes())


class Model:
    """The weights and thresholds, loaded once from the package's data file."""

    def __init__(self, blob: bytes) -> None:
        if blob[:4] != MAGIC:
            raise ValueError("not a guard model file")
        (n,) = struct.unpack("<I", blob[4:8])
        self.settings: dict[str, float | int] = json.loads(blob[8 : 8 + n])
        self.bits = int(self.settings["bits"])
        self.t_block = float(self.settings["block"])
        self.t_quarantine = float(self.settings["quarantine"])
        # From this probability the model refuses a text alone (no rule signal); absent, never.
        self.t_alone = float(self.settings.get("alone", 2.0))
        # The weights as 16-bit integers times `scale` (128 KiB held for 65,536 of them).
        self.scale = float(self.settings["scale"])
        w = array("h")
        w.frombytes(blob[8 + n :])
        if _BIG:  # pragma: no cover - the file is little-endian
            w.byteswap()
        if len(w) != 1 << self.bits:
            raise ValueError(f"guard model: {len(w)} weights, {1 << self.bits} expected")
        self.weights: array[int] | array[float] = w
        self.bias = zlib.crc32(b"bias") & ((1 << self.bits) - 1)
        # The model was trained on the lexicon's concepts too (`Lexicon`).
        self.lexicon = Lexicon.load() if self.settings.get("concepts") else None

    @classmethod
    def load(cls) -> Model:
        return cls(data_file("guard_model.bin"))

    def prob(self, text: str, suspicious: Callable[[str], bool]) -> float | None:
        """The highest probability, over the windows the model reads, that a window is an
        order to the AI reader (None: no window to read)."""
        best: float | None = None
        for _, _, slots in windows(text, suspicious, self.bits, self.lexicon):
            p = self.window_prob(slots)
            if best is None or p > best:
                best = p
        return best

    def window_prob(self, slots: Slots) -> float:
        """The probability of one window (the sum of `features`, without building it)."""
        at = self.weights.__getitem__
        z = float(at(self.bias))
        for group, scale in zip(slots, _SCALES, strict=True):
            if group:
                z += scale / math.sqrt(len(group)) * sum(map(at, group))
        z *= self.scale
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def weight(self, p: float) -> float:
        """What probability `p` adds as the reason `classifier` (0 below the quarantine line)."""
        tq, tb = self.t_quarantine, self.t_block
        if p < tq:
            return 0.0
        if p < tb:
            return 0.5 + 0.2 * (p - tq) / max(tb - tq, 1e-6)
        return min(0.95, 0.7 + 0.25 * (p - tb) / max(1.0 - tb, 1e-6))

    def combine(self, rule_score: float, p: float, definition: bool = False) -> tuple[float, float]:
        """(the reason's weight, the score) for a rule score and a probability. The model only
        adds: it never lowers what the rules found. Alone (no rule signal of at least
        `PAIRED`), it marks a text but does not refuse it (its weight is capped at `ALONE`,
        between the gateway's default quarantine and block lines) unless its probability
        reaches the model's `alone` threshold, chosen on authors the model was not trained on
        (`bench/guard_train.py`). A tool's definition (`definition`) it does not mark alone
        below that threshold: a marked definition is one the client reads changed, and a
        one-line honest description ("Request an automated Copilot code review for a pull
        request.") is where the model alone is least sure."""
        w = self.weight(p)
        if rule_score < PAIRED and p < self.t_alone:
            w = 0.0 if definition else min(w, ALONE)
        return w, round(1.0 - (1.0 - rule_score) * (1.0 - w), 3)

    def apply(
        self,
        text: str,
        v: Verdict,
        suspicious: Callable[[str], bool],
        prob: Future[float | None] | None = None,
        surface: str = "result",
    ) -> None:
        """Adds the reason `classifier` to a finished verdict (and its probability); `prob`:
        `prob(text, suspicious)` when the caller had it computed meanwhile; `surface`: result
        or description, as `Scanner.score` reads it."""
        p = self.prob(text, suspicious) if prob is None else prob.result()
        if p is None:
            return
        v.classifier = round(p, 3)
        w, score = self.combine(v.score, p, surface == "description")
        if w > 0.0:
            v.add("classifier", w)
            v.score = score
        elif (
            v.reasons
            and p < DOUBT
            and len(text) >= DOUBT_CHARS
            and max(v.reasons.values()) < SURE
            and not any(v.reasons.get(r, 0.0) >= SIGNAL for r in UNDOUBTED)
            and (
                sum(1 for x in v.reasons.values() if x >= SIGNAL) == 1
                or not any(r in KEPT for r, x in v.reasons.items() if x > 0.0)
            )
        ):
            v.doubted = True


__all__ = ["Lexicon", "Model", "Slots", "dump", "features", "fold", "units", "windows"]
