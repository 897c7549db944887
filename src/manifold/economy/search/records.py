"""Value types of tool search: what is indexed, what a search returns, the ranking knobs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["EntryLike", "Hit", "RankerConfig", "ToolEntry", "as_entry"]


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: a tool of a server and its relevance score."""

    server: str
    tool: str
    score: float


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """What the index needs to know about one tool."""

    server: str
    tool: str
    description: str = ""
    input_schema: Mapping[str, Any] | None = None


EntryLike = ToolEntry | Sequence[Any]


@dataclass(frozen=True, slots=True)
class RankerConfig:
    """Ranking knobs. The defaults are the tuned values; tests pin them."""

    k1: float = 1.2
    field_weights: tuple[float, float, float, float] = (3.0, 1.0, 0.4, 1.5)
    field_b: tuple[float, float, float, float] = (0.3, 0.6, 0.5, 0.0)
    bigram_weight: float = 0.6
    coverage_weight: float = 1.0
    rescore_candidates: int = 50
    full_scan_postings: int = 512
    action_match: float = 1.5
    action_family: float = 0.75
    surface_weight: float = 0.5
    prefix_weight: float = 0.5
    compound_weight: float = 0.6
    # Damped expansion by words close in meaning (see .neighbours): a neighbour counts as
    # neighbour_weight x its cosine; 0 turns it off (the table is then not read).
    neighbour_weight: float = 0.7
    neighbours_per_term: int = 4
    known_word_neighbours: float = 0.5  # factor for the neighbours of a word the index has


def as_entry(e: EntryLike) -> ToolEntry:
    """A ``ToolEntry`` from itself or a ``(server, tool, description, schema)`` sequence."""
    if isinstance(e, ToolEntry):
        return e
    seq = list(e)
    server = str(seq[0])
    tool = str(seq[1])
    desc = str(seq[2]) if len(seq) > 2 and seq[2] is not None else ""
    schema = seq[3] if len(seq) > 3 and isinstance(seq[3], Mapping) else None
    return ToolEntry(server, tool, desc, schema)
