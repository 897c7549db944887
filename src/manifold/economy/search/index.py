"""The search index: BM25F postings and per-tool features, computed once per catalog.

Each tool is a document with four fields: its name (split on ``_``, ``-``, ``.``,
camelCase and digit boundaries), its description, its parameters (names, descriptions,
enum values) and the name of the server that exposes it. Everything that depends only on
the catalog is computed here, so that ranking (:mod:`.rank`) touches only precomputed
postings.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from manifold.economy.search.analyzer import (
    GENERIC_NAME_TERMS,
    STOP_WORDS,
    bigrams,
    content_seq,
    joints,
    split_identifier,
    stem,
    tokenize,
    tool_action,
    tool_extra_actions,
)
from manifold.economy.search.neighbours import Expansions, expansions_for
from manifold.economy.search.records import EntryLike, RankerConfig, ToolEntry, as_entry
from manifold.protocol.schema import SchemaView

__all__ = ["CatalogIndex", "build_index", "split_compound"]

_FIELD_NAME: Final = 0
_FIELD_DESC: Final = 1
_FIELD_PARAMS: Final = 2
_FIELD_SERVER: Final = 3
_N_FIELDS: Final = 4


@dataclass(frozen=True, slots=True)
class CatalogIndex:
    """Precomputed statistics of one catalog (documents in (server, tool) order)."""

    entries: list[ToolEntry]
    postings: dict[str, dict[int, float]]
    """term -> {document: BM25F impact}"""
    bigram_postings: dict[str, dict[int, float]]
    """"a b" -> {document: impact} for adjacent terms in names and descriptions"""
    name_terms: list[frozenset[str]]
    """content stems of each name, without generic verbs and the server's own words"""
    name_surface: list[frozenset[str]]
    """the same as lowercase word forms"""
    actions: list[int | None]
    extra_actions: list[frozenset[int]]
    vocab: list[str]
    """sorted terms (for prefix matches)"""
    vocab_set: frozenset[str]
    config: RankerConfig
    neighbours: Expansions
    """query stem -> indexed terms close in meaning (see .neighbours)"""


def _schema_text(schema: Mapping[str, Any] | None) -> tuple[list[str], list[str]]:
    """Parameter names and parameter descriptions/enum values of a JSON schema, nested ones
    included (through `$ref`, `items` and unions; see `SchemaView.nested_params`)."""
    names: list[str] = []
    texts: list[str] = []
    if not isinstance(schema, Mapping):
        return names, texts
    for name, pschema in SchemaView(schema).nested_params(max_depth=3):
        names.append(name)
        if isinstance(pschema, Mapping):
            desc = pschema.get("description")
            if isinstance(desc, str):
                texts.append(desc)
            enum = pschema.get("enum")
            if isinstance(enum, list):
                texts.extend(str(e) for e in enum if isinstance(e, str | int | float))
    return names, texts


def build_index(entries: Iterable[EntryLike], config: RankerConfig | None = None) -> CatalogIndex:
    """Index ``entries``; a later entry with the same (server, tool) replaces an earlier one."""
    cfg = config or RankerConfig()
    by_key: dict[tuple[str, str], ToolEntry] = {}
    for raw in entries:
        e = as_entry(raw)
        by_key[(e.server, e.tool)] = e
    docs = sorted(by_key.values(), key=lambda e: (e.server, e.tool))
    n_docs = len(docs)

    # Per document, per field: term -> tf; plus bigram tf.
    field_tfs: list[list[dict[str, float]]] = []
    field_lens: list[list[float]] = []
    bigram_tfs: list[dict[str, float]] = []
    name_terms: list[frozenset[str]] = []
    name_surface: list[frozenset[str]] = []
    for e in docs:
        server_words = split_identifier(e.server)
        name_words = [w for w in split_identifier(e.tool) if not w.isdigit()]
        param_names, param_texts = _schema_text(e.input_schema)
        name_tokens = [stem(w) for w in name_words if len(w) > 1]
        name_tokens += [stem(w) for w in joints(e.tool)]
        fields: list[list[str]] = [
            name_tokens,
            tokenize(e.description),
            [t for p in param_names for t in tokenize(p)] + tokenize(" ".join(param_texts)),
            [stem(w) for w in server_words],
        ]
        tfs: list[dict[str, float]] = []
        lens: list[float] = []
        for toks in fields:
            tf: dict[str, float] = {}
            for t in toks:
                tf[t] = tf.get(t, 0.0) + 1.0
            tfs.append(tf)
            lens.append(float(len(toks)))
        field_tfs.append(tfs)
        field_lens.append(lens)
        content_name = [stem(w) for w in name_words if w not in STOP_WORDS and len(w) > 1]
        bg: dict[str, float] = {}
        for b in bigrams(content_name):
            bg[b] = bg.get(b, 0.0) + 2.0
        for b in bigrams(content_seq(e.description)):
            bg[b] = bg.get(b, 0.0) + 1.0
        bigram_tfs.append(bg)
        own_server = {stem(w) for w in server_words}
        name_terms.append(
            frozenset(
                t for t in content_name if t not in GENERIC_NAME_TERMS and t not in own_server
            )
        )
        name_surface.append(
            frozenset(
                w
                for w in name_words
                if w.isalpha()
                and w not in STOP_WORDS
                and w not in server_words
                and stem(w) not in GENERIC_NAME_TERMS
            )
        )

    # Compound splitting: a long token made of two vocabulary words also counts
    # (at half weight) as those words: "worklog" -> "work" + "log".
    vocab: set[str] = set()
    for tfs in field_tfs:
        for tf in tfs:
            vocab.update(tf)
    for tfs in field_tfs:
        for f in (_FIELD_NAME, _FIELD_DESC):
            tf = tfs[f]
            for t in list(tf):
                parts = split_compound(t, vocab)
                if parts is not None:
                    for p in parts:
                        tf[p] = tf.get(p, 0.0) + 0.5 * tf[t]

    # BM25F.
    avg = [
        max(1e-9, sum(lens[f] for lens in field_lens) / max(1, n_docs)) for f in range(_N_FIELDS)
    ]
    pseudo: dict[str, dict[int, float]] = {}
    for d, (tfs, lens) in enumerate(zip(field_tfs, field_lens, strict=True)):
        for f in range(_N_FIELDS):
            wf = cfg.field_weights[f]
            if wf == 0.0:
                continue
            norm = 1.0 - cfg.field_b[f] + cfg.field_b[f] * lens[f] / avg[f]
            for t, count in tfs[f].items():
                acc = pseudo.setdefault(t, {})
                acc[d] = acc.get(d, 0.0) + wf * count / norm
    postings = {t: _impacts(per_doc, n_docs, cfg.k1) for t, per_doc in pseudo.items()}

    bg_pseudo: dict[str, dict[int, float]] = {}
    for d, bg in enumerate(bigram_tfs):
        for b, count in bg.items():
            bg_pseudo.setdefault(b, {})[d] = count
    bigram_postings = {b: _impacts(per_doc, n_docs, cfg.k1) for b, per_doc in bg_pseudo.items()}
    actions = [tool_action(e.tool, e.server, e.description) for e in docs]
    extra = [tool_extra_actions(e.description) for e in docs]
    vocab_set = frozenset(postings)
    neighbours = (
        expansions_for(vocab_set, cfg.neighbours_per_term) if cfg.neighbour_weight > 0.0 else {}
    )
    return CatalogIndex(
        entries=docs,
        postings=postings,
        bigram_postings=bigram_postings,
        name_terms=name_terms,
        name_surface=name_surface,
        actions=actions,
        extra_actions=extra,
        vocab=sorted(postings),
        vocab_set=vocab_set,
        config=cfg,
        neighbours=neighbours,
    )


def split_compound(token: str, vocab: set[str] | frozenset[str]) -> tuple[str, str] | None:
    """Two vocabulary terms that make up ``token`` ("worklog" -> "work", "log"), if any."""
    if len(token) < 6 or not token.isalpha():
        return None
    for i in range(3, len(token) - 2):
        a, b = token[:i], token[i:]
        if a in vocab and b in vocab and len(b) >= 3:
            return (a, b)
        sb = stem(b)
        if a in vocab and sb in vocab and len(sb) >= 3:
            return (a, sb)
    return None


def _impacts(per_doc: dict[int, float], n_docs: int, k1: float) -> dict[int, float]:
    """BM25 impact of one term in each document it occurs in (doc order)."""
    df = len(per_doc)
    idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
    return {d: idf * per_doc[d] * (k1 + 1.0) / (per_doc[d] + k1) for d in sorted(per_doc)}
