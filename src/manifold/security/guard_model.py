"""The guard's learned stage: a small linear model over hashed features (standard library only).

A logistic regression trained by `bench/guard_train.py` (fixed seed) and shipped as
`data/guard_model.bin`: a header (magic, JSON settings) and the weights, float32 in an
`array("f")`. Features, hashed (CRC-32) into `2**bits` slots: the words and word pairs of the
text after the guard's own normalisation (invisible characters stripped, NFKC, case folded,
look-alikes folded to Latin), its character 4-grams (obfuscations, scripts without spaces),
each set scaled to unit length, and the rule signals (each reason's weight, and the rule
score). It runs only on a text the prefilter fired on, of 12 distinct words or more (a
shorter one gives it too little to go on, and is left to the rules); a long text is read as
windows around what fired (at most `_MAX_WINDOWS`), and its probability is the highest of theirs.

The probability becomes the reason `classifier`, weighed like any other signal: below the
model's `quarantine` threshold it adds nothing; from there to its `block` threshold it adds
0.5 to 0.7; above, 0.7 to 0.95 (thresholds chosen on a validation split of the training set,
stored in the model file). With the gateway's default thresholds (0.5, 0.7), the model alone
can quarantine or block, and a medium rule signal with a medium probability decide together.
The other way, in the band the rules leave uncertain (a rule score below 0.9), a probability
under the model's `clear` threshold (also chosen on validation) lowers the score to 0.45: the
text passes, its reasons and probability still logged when it was decided on.
"""

from __future__ import annotations

import json
import math
import re
import struct
import unicodedata
import zlib
from array import array
from collections.abc import Callable, Mapping
from importlib import resources
from itertools import pairwise
from typing import Final

from manifold.security.guard import _CONFUSABLE, _STRIP, Verdict

MAGIC: Final = b"MGM1"
_WORD: Final = re.compile(r"\w+")
_SPACE: Final = re.compile(r"\s+")
_CHAR_N: Final = 4
_MAX_CHARS: Final = 4000  # characters of one window read by the model
_WINDOW: Final = 2000  # a longer text: windows of this size around what fired
_STEP: Final = 1500
_MAX_WINDOWS: Final = 32
_MIN_WORDS: Final = 12  # fewer distinct words: left to the rules (too little for the model)
_SURE: Final = 0.9  # a rule score from here is kept whatever the model says
_CLEARED: Final = 0.45  # what a rule score below `_SURE` becomes when the model clears it


def fold(text: str) -> str:
    """The guard's normalisation (as `Scanner._scan` folds a text before matching)."""
    norm = unicodedata.normalize("NFKC", text.translate(_STRIP)).casefold()
    if "\\" in norm:
        norm = norm.replace("\\r\\n", "\n").replace("\\n", "\n").replace('\\"', '"')
    return norm.translate(_CONFUSABLE)


def features(
    folded: str, reasons: Mapping[str, float], score: float, bits: int
) -> dict[int, float]:
    """Slot -> value for one (folded) text and its rule signals."""
    mask = (1 << bits) - 1
    crc = zlib.crc32
    text = _SPACE.sub(" ", folded[:_MAX_CHARS]).strip()
    words = _WORD.findall(text)
    grams: set[int] = {crc(b"w" + w.encode()) & mask for w in words}
    grams.update(crc(f"b{a} {b}".encode()) & mask for a, b in pairwise(words))
    out: dict[int, float] = {}
    if grams:
        x = 1.0 / math.sqrt(len(grams))
        for g in grams:
            out[g] = x
    chars = {crc(b"c" + text[i : i + _CHAR_N].encode()) & mask for i in range(len(text) - 3)}
    if chars:
        x = 1.0 / math.sqrt(len(chars))
        for g in chars:
            out[g] = out.get(g, 0.0) + x
    for r, w in reasons.items():
        g = crc(b"r" + r.encode()) & mask
        out[g] = out.get(g, 0.0) + w
    g = crc(b"score") & mask
    out[g] = out.get(g, 0.0) + score
    g = crc(b"bias") & mask
    out[g] = out.get(g, 0.0) + 1.0
    return out


def short(text: str) -> bool:
    """Whether a text is too short for the model (fewer than `_MIN_WORDS` distinct words: a
    result's text is often there twice, as content and as structured content)."""
    return len(text) < 80 * _MIN_WORDS and len(set(_WORD.findall(text.casefold()))) < _MIN_WORDS


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
        self.t_clear = float(self.settings.get("clear", 0.0))
        w = array("f")
        w.frombytes(blob[8 + n :])
        if len(w) != 1 << self.bits:
            raise ValueError(f"guard model: {len(w)} weights, {1 << self.bits} expected")
        self.weights = w

    @classmethod
    def load(cls) -> Model:
        ref = resources.files("manifold.security").joinpath("data/guard_model.bin")
        return cls(ref.read_bytes())

    def prob(self, text: str, v: Verdict, suspicious: Callable[[str], bool]) -> float:
        """The probability that `text` (with the rules' verdict `v`) is an injection."""
        if len(text) <= _MAX_CHARS:
            return self._prob(fold(text), v)
        best = 0.0
        n = 0
        for start in range(0, len(text), _STEP):
            win = text[start : start + _WINDOW]
            if not suspicious(win):
                continue
            best = max(best, self._prob(fold(win), v))
            n += 1
            if n >= _MAX_WINDOWS:
                break
        return best

    def _prob(self, folded: str, v: Verdict) -> float:
        w = self.weights
        z = sum(w[i] * x for i, x in features(folded, v.reasons, v.score, self.bits).items())
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
        """(the reason's weight, the score) for a rule score and a probability."""
        if p < self.t_clear and rule_score < _SURE:
            return 0.0, min(rule_score, _CLEARED)  # the rules were unsure; the model is sure
        w = self.weight(p)
        return w, round(1.0 - (1.0 - rule_score) * (1.0 - w), 3)

    def apply(self, text: str, v: Verdict, suspicious: Callable[[str], bool]) -> None:
        """Adds the reason `classifier` to a finished verdict (and its probability)."""
        if short(text):
            return
        p = self.prob(text, v, suspicious)
        v.classifier = round(p, 3)
        w, score = self.combine(v.score, p)
        if w > 0.0:
            v.add("classifier", w)
        v.score = score


__all__ = ["Model", "dump", "features", "fold"]
