"""Build the word-neighbour table of tool search (``economy/search/neighbours.txt.gz``) offline.

The table gives, for each of the most frequent English words, the few other words closest in
meaning. It is distilled from the sentence-embedding model of the ``embed`` extra
(all-MiniLM-L6-v2, int8 ONNX, shipped in a package): every word of the list is embedded once,
alone, and its nearest neighbours by cosine among the same list are kept. The vocabulary is a
general resource, not chosen by hand: the ``top`` most frequent English words of the
``wordfreq`` package (written words of three letters or more). Nothing of a catalog or of a
labelled query takes part. At run time no model is loaded: the search reads this table (see
``manifold.economy.search.neighbours``).

Needs the ``embed`` and ``neighbours`` extras
(``pip install 'manifold-gateway[embed,neighbours]'``); deterministic for a given model and
word list::

    python -m bench.search_neighbours            # writes the packaged table
    python -m bench.search_neighbours --top 20000 --min-cosine 0.55 --out table.txt.gz
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from pathlib import Path
from typing import Any

from manifold.economy.search import stem
from manifold.economy.search.neighbours import TABLE_PATH

__all__ = ["build_table", "main", "vocabulary", "word_neighbours", "write_table"]

_WORD = re.compile(r"[a-z]{3,}")


def vocabulary(top: int) -> list[str]:
    """The ``top`` most frequent English words (wordfreq), lowercase letters only, 3+ long."""
    try:
        from wordfreq import top_n_list
    except ImportError as e:  # pragma: no cover - a build-time tool
        raise SystemExit(
            "needs the 'neighbours' extra: pip install 'manifold-gateway[neighbours]'"
        ) from e
    return [w for w in top_n_list("en", top) if _WORD.fullmatch(w)]


def word_neighbours(words: list[str], k: int, min_cosine: float) -> list[tuple[str, str, float]]:
    """(word, neighbour, cosine) for each word's ``k`` nearest other words (cosine at least
    ``min_cosine``), leaving out the words that share its stem (the stemmer joins those)."""
    import numpy as np

    from manifold.economy.embed import Embedder

    vectors: Any = Embedder(threads=2).encode(words)
    stems = [stem(w) for w in words]
    out: list[tuple[str, str, float]] = []
    chunk = 512
    for start in range(0, len(words), chunk):
        sims = vectors[start : start + chunk] @ vectors.T
        for row in range(sims.shape[0]):
            i = start + row
            cos = sims[row]
            top = np.argpartition(-cos, k * 4)[: k * 4 + 1]
            ranked = sorted((int(j) for j in top), key=lambda j: (-float(cos[j]), words[j]))
            seen = {stems[i]}
            for j in ranked:
                c = float(cos[j])
                if c < min_cosine or len(seen) > k:
                    break
                if stems[j] in seen:
                    continue
                seen.add(stems[j])
                out.append((words[i], words[j], c))
    return out


def build_table(
    pairs: list[tuple[str, str, float]], keep: int
) -> list[tuple[str, list[tuple[str, float]]]]:
    """The table by stem, both ways (a word's neighbour has the word as a neighbour too),
    the best cosine of each stem pair, the ``keep`` closest per stem."""
    best: dict[str, dict[str, float]] = {}
    for w, n, c in pairs:
        a, b = stem(w), stem(n)
        if a == b:
            continue
        for x, y in ((a, b), (b, a)):
            row = best.setdefault(x, {})
            if c > row.get(y, 0.0):
                row[y] = c
    out = []
    for key in sorted(best):
        ranked = sorted(best[key].items(), key=lambda kv: (-kv[1], kv[0]))[:keep]
        out.append((key, ranked))
    return out


def write_table(rows: list[tuple[str, list[tuple[str, float]]]], path: Path) -> None:
    """One line per stem: ``stem<TAB>neighbour:cosine*100 ...``, gzip-compressed (mtime 0,
    so the same table gives the same bytes)."""
    lines = [f"{w}\t{' '.join(f'{n}:{round(c * 100)}' for n, c in nbrs)}\n" for w, nbrs in rows]
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as fh,
    ):
        fh.write("".join(lines).encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--top", type=int, default=30000, help="words of the frequency list")
    ap.add_argument("--k", type=int, default=8, help="neighbours kept per word")
    ap.add_argument("--min-cosine", type=float, default=0.6, help="weakest neighbour kept")
    ap.add_argument("--keep", type=int, default=8, help="neighbours per stem, both ways")
    ap.add_argument("--out", type=Path, default=TABLE_PATH)
    args = ap.parse_args(argv)
    words = vocabulary(args.top)
    rows = build_table(word_neighbours(words, args.k, args.min_cosine), args.keep)
    write_table(rows, args.out)
    pairs = sum(len(n) for _, n in rows)
    print(
        f"{len(words)} words, {len(rows)} with neighbours, {pairs} pairs -> {args.out} "
        f"({args.out.stat().st_size} bytes)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
