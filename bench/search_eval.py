"""Evaluation helpers for tool search: labelled intents and recall@k (bench and tests only)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from manifold.economy.search import ToolEntry, ToolIndex

__all__ = [
    "Intent",
    "entries_from_catalog",
    "evaluate",
    "intents_from_json",
    "load_catalog",
    "load_intents",
    "rank_of",
    "recall_at",
]


@dataclass(frozen=True, slots=True)
class Intent:
    """A labelled query: the tool a user with this request needs."""

    query: str
    server: str
    tool: str


def entries_from_catalog(catalog: Mapping[str, Any]) -> list[ToolEntry]:
    """Entries of a catalog shaped ``{"servers": [{"name", "tools": [tool, ...]}]}``
    where each tool is an MCP tool descriptor (name, description, inputSchema)."""
    out: list[ToolEntry] = []
    for server in catalog.get("servers", []):
        sname = str(server["name"])
        for tool in server.get("tools", []):
            schema = tool.get("inputSchema")
            out.append(
                ToolEntry(
                    server=sname,
                    tool=str(tool["name"]),
                    description=str(tool.get("description") or ""),
                    input_schema=schema if isinstance(schema, Mapping) else None,
                )
            )
    return out


def load_catalog(path: str | Path) -> list[ToolEntry]:
    """Read a catalog JSON file (see :func:`entries_from_catalog`)."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return entries_from_catalog(data)


def intents_from_json(data: Mapping[str, Any] | Sequence[Any]) -> list[Intent]:
    """Intents from ``{"intents": [{"query", "server", "tool"}, ...]}`` or a bare list."""
    rows = data.get("intents", []) if isinstance(data, Mapping) else data
    return [Intent(str(r["query"]), str(r["server"]), str(r["tool"])) for r in rows]


def load_intents(path: str | Path) -> list[Intent]:
    """Read an intents JSON file (see :func:`intents_from_json`)."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return intents_from_json(data)


def rank_of(index: ToolIndex, intent: Intent, k: int = 5) -> int | None:
    """1-based rank of the intent's gold tool in the top ``k``, or None."""
    for i, hit in enumerate(index.search(intent.query, k=k), start=1):
        if hit.server == intent.server and hit.tool == intent.tool:
            return i
    return None


def recall_at(index: ToolIndex, intents: Iterable[Intent], k: int) -> float:
    """Fraction of intents whose gold tool is in the top ``k`` results."""
    items = list(intents)
    if not items:
        return 0.0
    found = sum(1 for it in items if rank_of(index, it, k) is not None)
    return found / len(items)


def evaluate(
    index: ToolIndex, intents: Iterable[Intent], ks: Sequence[int] = (1, 5)
) -> dict[str, Any]:
    """Recall at each k plus the misses at the largest k (for reports)."""
    items = list(intents)
    kmax = max(ks)
    ranks = [rank_of(index, it, kmax) for it in items]
    n = len(items)
    out: dict[str, Any] = {"n": n}
    for k in ks:
        hits = sum(1 for r in ranks if r is not None and r <= k)
        out[f"recall@{k}"] = round(hits / n, 4) if n else 0.0
    out["misses"] = [
        {"query": it.query, "want": f"{it.server}/{it.tool}", "rank": r}
        for it, r in zip(items, ranks, strict=True)
        if r is None or r > 1
    ]
    return out
