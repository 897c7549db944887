"""Words close in meaning, for damped query expansion (no model at run time).

``neighbours.txt.gz`` (shipped in the package) maps the stems of the most frequent English
words to the stems of the few words nearest to them in meaning, with a cosine. It is
distilled offline from the sentence-embedding model of the ``embed`` extra over a general
word-frequency list (``python -m bench.search_neighbours`` rebuilds it; see there); it
holds no catalog's words by choice.

An index keeps only the part of the table that leads to its own terms
(:func:`expansions_for`): a query word's neighbours that no tool uses cannot score, so
they are dropped when the index is built, and the table itself is not kept in memory.
The table is symmetric (each pair is written both ways), so an index reads only the lines
of its own terms.
The ranker adds each remaining neighbour to its word's slot as a weaker alternative (see
``RankerConfig.neighbour_weight``): a tool that has the word itself still scores more.

Each line is ``stem<TAB>neighbour:cosine*100 ...``; a malformed line that is read fails
with :class:`NeighbourTableError` naming the line (the tests read every line of the
packaged table).
"""

from __future__ import annotations

import gzip
from collections.abc import Container
from pathlib import Path
from typing import Final

__all__ = [
    "TABLE_PATH",
    "Expansions",
    "NeighbourTableError",
    "expansions_for",
    "parse_line",
]

TABLE_PATH: Final = Path(__file__).with_name("neighbours.txt.gz")

Expansions = dict[str, tuple[tuple[str, float], ...]]
"""stem -> ((neighbour stem, cosine), ...), closest first."""


class NeighbourTableError(ValueError):
    """The packaged neighbour table is malformed."""


def parse_line(line: str, lineno: int) -> tuple[str, list[tuple[str, float]]]:
    """One table line as (stem, [(neighbour, cosine), ...])."""
    key, sep, rest = line.rstrip("\n").partition("\t")
    if not sep or not key or not rest:
        raise NeighbourTableError(f"neighbour table line {lineno}: expected 'stem<TAB>pairs'")
    out: list[tuple[str, float]] = []
    for pair in rest.split(" "):
        word, sep, num = pair.rpartition(":")
        if not sep or not word or not num.isdigit() or int(num) > 100:
            raise NeighbourTableError(
                f"neighbour table line {lineno}: bad pair {pair!r} (want word:0-100)"
            )
        out.append((word, int(num) / 100.0))
    return key, out


def expansions_for(
    vocab: Container[str], max_per_term: int, path: Path | None = None
) -> Expansions:
    """The table (the packaged one unless ``path``) turned towards ``vocab``: for each term
    of ``vocab`` that the table knows, its neighbours lead to it. The table holds each pair
    both ways, so only the lines of ``vocab``'s own terms are parsed (tens of milliseconds at
    most, once per catalog). A query word keeps its ``max_per_term`` closest terms, so the
    result holds at most ``max_per_term`` entries for each stem of the table."""
    out: dict[str, list[tuple[str, float]]] = {}
    if max_per_term <= 0:
        return {}
    # One pass over the text without splitting it into a list of lines: only the lines of
    # ``vocab`` become strings, so building an index leaves no trace in memory.
    text = gzip.decompress((path or TABLE_PATH).read_bytes()).decode("utf-8")
    pos, lineno, size = 0, 0, len(text)
    while pos < size:
        lineno += 1
        end = text.find("\n", pos)
        if end < 0:
            end = size
        tab = text.find("\t", pos, end)
        if tab < 0 or text[pos:tab] in vocab:
            key, pairs = parse_line(text[pos:end], lineno)
            for word, cosine in pairs:
                out.setdefault(word, []).append((key, cosine))
        pos = end + 1
    return {
        word: tuple(sorted(pairs, key=lambda p: (-p[1], p[0]))[:max_per_term])
        for word, pairs in out.items()
    }
