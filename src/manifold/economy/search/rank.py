"""Ranking: BM25F over the precomputed postings plus small bonuses.

A query's slots (see :func:`.analyzer.parse_query`) are resolved against the index's
vocabulary and scored BM25F (one saturation per term, per-field weights). The best
candidates are then re-scored with:

* adjacent-term (bigram) matches against names and descriptions,
* the share of the tool's name the query covers (by stem and by exact word form),
* agreement between the action the query asks for (read one / list / search /
  create / update / delete / run / send) and the tool's leading verb.

Words the index does not know fall back to a person for a capitalised name, the verb
behind a "re-" prefix, compound splits and prefix matches. On big catalogs, terms with
very long postings only score documents found by rarer terms (see
``RankerConfig.full_scan_postings``), which keeps a query well under 2 ms on 10,000 tools.
"""

from __future__ import annotations

from bisect import bisect_left

from manifold.economy.search.analyzer import (
    PERSON_ALTS,
    READ_CLASSES,
    Alternatives,
    Slot,
    bigrams,
    parse_query,
    stem,
)
from manifold.economy.search.index import CatalogIndex, split_compound
from manifold.economy.search.records import Hit

__all__ = ["search"]


def search(index: CatalogIndex, query: str, k: int = 5, min_score: float = 0.0) -> list[Hit]:
    """The best ``k`` tools of ``index`` for ``query``, best first (see ``ToolIndex.search``)."""
    if k <= 0 or not index.entries:
        return []
    parsed = parse_query(query)
    if not parsed.slots:
        return []
    cfg = index.config
    postings = index.postings

    # Resolve slots against the vocabulary; note which terms the query matched
    # (for name coverage) and the query's primary term sequence (for bigrams).
    plans: list[Alternatives] = []
    matched_terms: dict[str, float] = {}
    primary_seq: list[str] = []
    internal_bigrams: list[tuple[str, float]] = []
    content_matched = False
    for slot in parsed.slots:
        alts = _resolve(index, slot)
        if slot.primary:
            primary_seq.extend(slot.primary)
        elif primary_seq and primary_seq[-1]:
            primary_seq.append("")  # concept slots break bigram chains
        if not alts:
            continue
        if slot.weight >= 0.5:
            content_matched = True
        sw = slot.weight
        weighted = tuple((terms, sw * w) for terms, w in alts)
        for terms, f in weighted:
            for t in terms:
                if f > matched_terms.get(t, 0.0):
                    matched_terms[t] = f
            if len(terms) > 1:
                internal_bigrams.extend((bg, f) for bg in bigrams(terms))
        plans.append(weighted)
    if not content_matched:
        return []

    # Candidates: documents containing at least one selective term. Terms with
    # long postings (generic verbs on a big catalog) only score those candidates;
    # scoring of the candidates themselves is exact. When every term is generic,
    # the documents of the rarest one are the candidates.
    cutoff = max(cfg.full_scan_postings, len(index.entries) // 16)
    selective = {t for t in matched_terms if len(postings[t]) <= cutoff}
    cands: set[int] | None
    if len(selective) == len(matched_terms):
        cands = None
    else:
        cands = set()
        for t in selective:
            cands.update(postings[t])
        if not cands:
            rarest = min(matched_terms, key=lambda t: (len(postings[t]), t))
            selective = {rarest}
            cands.update(postings[rarest])
    acc: dict[int, float] = {}
    for weighted in plans:
        _add_slot(index, acc, weighted, cands, selective)
    if not acc:
        return []

    # Adjacent-term bonus (only for documents that are already candidates).
    bgw = cfg.bigram_weight
    if bgw > 0.0:
        seen: set[str] = set()
        pairs = [(bg, 1.0) for bg in bigrams(primary_seq) if not bg.startswith(" ")]
        pairs = [(bg, f) for bg, f in pairs if not bg.endswith(" ")]
        for bg, f in (*pairs, *internal_bigrams):
            if bg in seen:
                continue
            seen.add(bg)
            pl = index.bigram_postings.get(bg)
            if pl is None:
                continue
            g = bgw * f
            if len(pl) <= len(acc):
                for d, v in pl.items():
                    if d in acc:
                        acc[d] += g * v
            else:
                for d in acc:
                    bv = pl.get(d)
                    if bv is not None:
                        acc[d] += g * bv

    # Re-score the best candidates: name coverage and action agreement. Bonuses are
    # non-negative and only given to these, so the final top-k is among them.
    n_cands = max(cfg.rescore_candidates, k)
    if len(acc) > n_cands:
        threshold = sorted(acc.values(), reverse=True)[n_cands - 1]
        best_docs = [d for d, v in acc.items() if v >= threshold]
    else:
        best_docs = list(acc)
    cw = cfg.coverage_weight
    qa = parsed.action
    q_read = qa in READ_CLASSES
    name_terms = index.name_terms
    name_surface = index.name_surface
    q_surface = parsed.surface
    sfw = cfg.surface_weight
    actions = index.actions
    extra_actions = index.extra_actions
    entries = index.entries
    scored: list[tuple[float, str, str]] = []
    for d in best_docs:
        score = acc[d]
        names = name_terms[d]
        if cw > 0.0 and names:
            cov = 0.0
            for t in names:
                m = matched_terms.get(t)
                if m is not None:
                    cov += m if m < 1.0 else 1.0
            score += cw * cov / len(names)
        surf = name_surface[d]
        if sfw > 0.0 and surf:
            same = len(surf & q_surface)
            if same:
                score += sfw * same / len(surf)
        if qa is not None:
            ta = actions[d]
            if ta is not None:
                if ta == qa or qa in extra_actions[d]:
                    score += cfg.action_match
                elif (ta in READ_CLASSES) == q_read:
                    score += cfg.action_family
        score = round(score, 9)  # reported scores are what ties and min_score see
        if score > min_score:
            e = entries[d]
            scored.append((-score, e.server, e.tool))
    scored.sort()
    return [Hit(server, tool, -neg) for neg, server, tool in scored[:k]]


def _add_slot(
    index: CatalogIndex,
    acc: dict[int, float],
    weighted: Alternatives,
    cands: set[int] | None,
    selective: set[str],
) -> None:
    """Add one slot (the best of its alternatives) to ``acc``. With ``cands``, only
    those documents are scored; the postings of ``selective`` terms are all in it."""
    postings = index.postings
    best: dict[int, float] = {}
    single = len(weighted) == 1
    for terms, f in weighted:
        if len(terms) == 1 and (cands is None or terms[0] in selective):
            part = postings[terms[0]]
        else:
            part = {}
            pget = part.get
            for t in terms:
                pl = postings[t]
                if cands is None or t in selective:
                    for d, v in pl.items():
                        part[d] = pget(d, 0.0) + v
                elif len(pl) <= len(cands):
                    for d, v in pl.items():
                        if d in cands:
                            part[d] = pget(d, 0.0) + v
                else:
                    plget = pl.get
                    for d in cands:
                        cv = plget(d)
                        if cv is not None:
                            part[d] = pget(d, 0.0) + cv
        if single:
            get = acc.get
            for d, v in part.items():
                acc[d] = get(d, 0.0) + f * v
            return
        bget = best.get
        for d, v in part.items():
            v *= f
            if v > bget(d, 0.0):
                best[d] = v
    get = acc.get
    for d, v in best.items():
        acc[d] = get(d, 0.0) + v


def _resolve(index: CatalogIndex, slot: Slot) -> Alternatives:
    """Alternatives of ``slot`` restricted to indexed terms, with fallbacks for words
    the index does not know: a person for an unknown capitalised name, the verb
    behind a "re-" prefix ("reassign"), compound splits and prefix matches; then the
    word's neighbours in meaning, damped (see :mod:`.neighbours`)."""
    vocab = index.vocab_set
    out: list[tuple[tuple[str, ...], float]] = []
    for terms, w in slot.alts:
        known = tuple(t for t in terms if t in vocab)
        if known and len(known) == len(terms):
            out.append((known, w))
        elif known and len(terms) > 1:
            out.append((known, w * len(known) / len(terms)))
    if not slot.primary or len(slot.primary) != 1:
        return tuple(out)
    word = slot.primary[0]
    if slot.proper and not out:
        return tuple((terms, w) for terms, w in PERSON_ALTS if terms[0] in vocab)
    cfg = index.config
    if not out:
        if word.startswith("re") and len(word) >= 5:
            base = stem(word[2:])
            if base in vocab:
                out.append(((base,), cfg.prefix_weight + 0.2))
        if len(word) >= 4:
            parts = split_compound(word, vocab)
            if parts is not None:
                out.append((parts, cfg.compound_weight))
            lo = bisect_left(index.vocab, word)
            hi = lo
            while hi < len(index.vocab) and hi - lo < 8 and index.vocab[hi].startswith(word):
                hi += 1
            for t in index.vocab[lo:hi]:
                out.append(((t,), cfg.prefix_weight))
    near = index.neighbours.get(word)
    if near and not slot.proper:
        # A word that some tool uses is evidence already: its neighbours add less, so a
        # neighbour in a tool's name cannot outweigh the word itself in another's parameters.
        nw = cfg.neighbour_weight * (cfg.known_word_neighbours if word in vocab else 1.0)
        have = {terms[0] for terms, _ in out if len(terms) == 1}
        for t, c in near:
            if t not in have:
                out.append(((t,), nw * c))
    return tuple(out)
