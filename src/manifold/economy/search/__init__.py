"""Tool search for the ``search_tools`` router tool.

A small retrieval engine over MCP tool descriptors, in five parts:

* :mod:`.analyzer`: words, stems, identifiers and what a query means;
* :mod:`.lexicon` (with ``lexicon.json``): the generic vocabulary, as data, read once;
* :mod:`.neighbours` (with ``neighbours.txt.gz``): words close in meaning, distilled offline;
* :mod:`.index`: BM25F postings and per-tool features, built once per catalog;
* :mod:`.rank`: scoring a query against an index.

:class:`ToolIndex` is the entry point: build it from a catalog, then search it. The
search does no I/O and touches only precomputed postings; it is deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable

from manifold.economy.search.analyzer import analyze_query, split_identifier, stem, tokenize
from manifold.economy.search.index import CatalogIndex, build_index
from manifold.economy.search.rank import search as _search
from manifold.economy.search.records import EntryLike, Hit, RankerConfig, ToolEntry

__all__ = [
    "EntryLike",
    "Hit",
    "RankerConfig",
    "ToolEntry",
    "ToolIndex",
    "analyze_query",
    "split_identifier",
    "stem",
    "tokenize",
]


class ToolIndex:
    """An immutable search index over a tool catalog. Build with :meth:`build`."""

    __slots__ = ("_index",)

    def __init__(self, index: CatalogIndex) -> None:
        self._index = index

    @classmethod
    def build(cls, entries: Iterable[EntryLike], config: RankerConfig | None = None) -> ToolIndex:
        """Index ``entries`` (``ToolEntry`` or ``(server, tool, description, schema)``).

        A later entry with the same (server, tool) replaces an earlier one.
        """
        return cls(build_index(entries, config))

    def __len__(self) -> int:
        return len(self._index.entries)

    @property
    def entries(self) -> tuple[ToolEntry, ...]:
        """The indexed tools, sorted by (server, tool)."""
        return tuple(self._index.entries)

    def search(self, query: str, k: int = 5, min_score: float = 0.0) -> list[Hit]:
        """The best ``k`` tools for ``query``, best first.

        Returns ``[]`` when no query term (nor any of its expansions) matches any
        tool, or when nothing scores above ``min_score``. Ties are broken by server
        then tool name, so results are deterministic.
        """
        return _search(self._index, query, k, min_score)
