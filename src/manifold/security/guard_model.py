"""The guard's learned stage: a small linear model over hashed features (standard library only).

A logistic regression trained by `bench/guard_train.py` (fixed seed) and shipped as
`data/guard_model.bin`: a header (magic, JSON settings) and the weights, float32 in an
`array("f")`. It reads **windows**, not whole texts: a text is cut into units (its sentences,
a short one joined to the next, a long one cut at `_UNIT_MAX` characters), and around each unit
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
stored in the model file). The model only adds: it never lowers the rules' score (an earlier
version cleared the rules' unsure decisions when it was sure, and lifted injections the rules
had right on long pages).
"""

from __future__ import annotations

import json
import math
import re
import struct
import unicodedata
import zlib
from array import array
from collections.abc import Callable, Iterator
from importlib import resources
from itertools import pairwise
from typing import Final

from manifold.security.guard import _CONFUSABLE, _STRIP, Verdict

MAGIC: Final = b"MGM2"
_WORD: Final = re.compile(r"\w+")
_SPACE: Final = re.compile(r"\s+")
# Units of a text: sentences (a line break, or an end mark before a space or after CJK text)
_SEP: Final = re.compile(r"(?<=[.!?;])\s+|(?<=[\u3002\uff01\uff1f\uff1b])|\s*\n\s*")
_CHAR_N: Final = 4
_UNIT_MIN: Final = 40  # a shorter unit is read with the next one (a header, "Hi Bob,")
_UNIT_MAX: Final = 400  # a longer one is cut
_WINDOW_MAX: Final = 700  # a window: two consecutive units, at most this many characters
_MAX_WINDOWS: Final = 24  # windows read per text (the cost of one text is bounded)
_CONTEXT: Final = 200  # characters of context read on each side of a window
_MAX_UNITS: Final = 20_000  # units looked at per text (the prefilter runs on each)


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
        end = m.start()
        if end - start >= _UNIT_MIN:
            while end - start > _UNIT_MAX:
                yield start, start + _UNIT_MAX
                start += _UNIT_MAX
            yield start, end
            start = m.end()
            n += 1
            if n >= _MAX_UNITS:
                return
    if start < len(text):
        end = len(text)
        while end - start > _UNIT_MAX:
            yield start, start + _UNIT_MAX
            start += _UNIT_MAX
        yield start, end


def windows(text: str, suspicious: Callable[[str], bool]) -> list[tuple[int, int, int, int]]:
    """The windows the model reads, as (start, end, context start, context end): around each
    unit the prefilter fires on, that unit with the one before it and with the one after it
    (an order and its addressee are often two sentences), at most `_MAX_WINDOWS`, each of at
    least 2 words and 15 distinct characters (a run of one character, a bare number or token
    is left to the rules). The context is the unit on each side of the window (up to
    `_CONTEXT` characters each): what frames the window ("the report quotes: ...")."""
    us = list(units(text))
    out: list[tuple[int, int, int, int]] = []
    seen: set[int] = set()
    for i, (s, e) in enumerate(us):
        if not suspicious(text[s:e]):
            continue
        for j in (i - 1, i):
            if j < 0 or j in seen:
                continue
            seen.add(j)
            ws = us[j][0]
            we = us[j + 1][1] if j + 1 < len(us) else us[j][1]
            we = min(we, ws + _WINDOW_MAX)
            t = text[ws:we]
            if len(set(t)) < 15 or len(_WORD.findall(t)) < 2:
                continue
            cs = max(us[j - 1][0], ws - _CONTEXT) if j > 0 else ws
            ce = min(us[j + 2][1], we + _CONTEXT) if j + 2 < len(us) else we
            out.append((ws, we, cs, ce))
            if len(out) >= _MAX_WINDOWS:
                return out
    return out


def features(folded: str, context: str, bits: int) -> dict[int, float]:
    """Slot -> value for one (folded) window and its (folded) context: the window's words,
    word pairs and character 4-grams, each set scaled to unit length, the context's words
    (scaled to half a unit), and a bias."""
    mask = (1 << bits) - 1
    crc = zlib.crc32
    text = _SPACE.sub(" ", folded).strip()
    words = _WORD.findall(text)
    grams: set[int] = {crc(b"w" + w.encode()) & mask for w in words}
    grams.update(crc(f"b{a} {b}".encode()) & mask for a, b in pairwise(words))
    out: dict[int, float] = {}
    if grams:
        x = 1.0 / math.sqrt(len(grams))
        for g in grams:
            out[g] = x
    raw = text.encode()
    chars = {crc(raw[i : i + _CHAR_N]) & mask for i in range(len(raw) - _CHAR_N + 1)}
    if chars:
        x = 1.0 / math.sqrt(len(chars))
        for g in chars:
            out[g] = out.get(g, 0.0) + x
    ctx = {crc(b"x" + w.encode()) & mask for w in _WORD.findall(context)}
    if ctx:
        x = 0.5 / math.sqrt(len(ctx))
        for g in ctx:
            out[g] = out.get(g, 0.0) + x
    g = crc(b"bias") & mask
    out[g] = out.get(g, 0.0) + 1.0
    return out


def read(text: str, win: tuple[int, int, int, int]) -> tuple[str, str]:
    """The folded window and its folded context."""
    ws, we, cs, ce = win
    return fold(text[ws:we]), fold(text[cs:ws] + " " + text[we:ce])


def dump(path: str, weights: array, settings: dict[str, float | int]) -> None:  # type: ignore[type-arg]
    head = json.dumps(settings, sort_keys=True).encode()
    with open(path, "wb") as f:
        f.write(MAGIC + struct.pack("<I", len(head)) + head)
        w = array("f", weights)
        if w.itemsize != 4:  # pragma: no cover - every CPython platform has 4-byte floats
            raise ValueError("float32 weights expected")
        f.write(w.tobytes())


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
        w = array("f")
        w.frombytes(blob[8 + n :])
        if len(w) != 1 << self.bits:
            raise ValueError(f"guard model: {len(w)} weights, {1 << self.bits} expected")
        self.weights = w

    @classmethod
    def load(cls) -> Model:
        ref = resources.files("manifold.security").joinpath("data/guard_model.bin")
        return cls(ref.read_bytes())

    def prob(self, text: str, suspicious: Callable[[str], bool]) -> float | None:
        """The highest probability, over the windows the model reads, that a window is an
        order to the AI reader (None: no window to read)."""
        best: float | None = None
        for win in windows(text, suspicious):
            p = self.window_prob(*read(text, win))
            if best is None or p > best:
                best = p
        return best

    def window_prob(self, folded: str, context: str) -> float:
        w = self.weights
        z = sum(w[i] * x for i, x in features(folded, context, self.bits).items())
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def weight(self, p: float) -> float:
        """What probability `p` adds as the reason `classifier` (0 below the quarantine line)."""
        tq, tb = self.t_quarantine, self.t_block
        if p < tq:
            return 0.0
        if p < tb:
            return 0.5 + 0.2 * (p - tq) / max(tb - tq, 1e-6)
        return min(0.95, 0.7 + 0.25 * (p - tb) / max(1.0 - tb, 1e-6))

    def combine(self, rule_score: float, p: float) -> tuple[float, float]:
        """(the reason's weight, the score) for a rule score and a probability. The model only
        adds: it never lowers what the rules found."""
        w = self.weight(p)
        return w, round(1.0 - (1.0 - rule_score) * (1.0 - w), 3)

    def apply(self, text: str, v: Verdict, suspicious: Callable[[str], bool]) -> None:
        """Adds the reason `classifier` to a finished verdict (and its probability)."""
        p = self.prob(text, suspicious)
        if p is None:
            return
        v.classifier = round(p, 3)
        w, score = self.combine(v.score, p)
        if w > 0.0:
            v.add("classifier", w)
            v.score = score


__all__ = ["Model", "dump", "features", "fold", "read", "units", "windows"]
