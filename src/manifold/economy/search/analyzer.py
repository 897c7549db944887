"""Lexical analysis for tool search: words, stems, identifiers, query meaning, actions.

Queries go through a light English analyser: stop words, a suffix stripper, multi-word
phrases, generic software/productivity synonyms and abbreviations, pattern concepts
(tracker keys such as ``ABC-12``, ``#channel``, ``@user``, clock times, file names,
units), the verb sense of an ambiguous first word ("open a ticket") and the action the
query asks for. Tool names and descriptions go through the same word analysis, so that
terms agree on both sides. The vocabulary itself is data (see :mod:`.lexicon`); it is
compiled here once, at import.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from manifold.economy.search.lexicon import ACTION_CLASSES, LEXICON, ObjectSense, Weighted

__all__ = [
    "CREATE",
    "DELETE",
    "GENERIC_NAME_TERMS",
    "LIST",
    "PERSON_ALTS",
    "READ",
    "READ_CLASSES",
    "RUN",
    "SEARCH",
    "SEND",
    "STOP_WORDS",
    "UPDATE",
    "Alternatives",
    "ParsedQuery",
    "Slot",
    "analyze_query",
    "bigrams",
    "content_seq",
    "joints",
    "parse_query",
    "split_identifier",
    "stem",
    "tokenize",
    "tool_action",
    "tool_extra_actions",
]

Alternatives = tuple[tuple[tuple[str, ...], float], ...]
"""Weighted alternatives of analysed term sequences."""

STOP_WORDS: Final = LEXICON.stop_words
_IRREGULAR: Final = LEXICON.irregular

_VOWELS: Final[frozenset[str]] = frozenset("aeiouy")


def _has_vowel(s: str) -> bool:
    return any(c in _VOWELS for c in s)


def _undouble(s: str) -> str:
    if len(s) >= 4 and s[-1] == s[-2] and s[-1] not in "lsz" and s[-1] not in _VOWELS:
        return s[:-1]
    return s


_STEM_CACHE: dict[str, str] = {}


def stem(word: str) -> str:
    """A light English suffix stripper.

    It conflates plural, ``-ing``, ``-ed``, ``-ly``, ``-ness``, ``-ability``, ``-ation``
    and ``-ion`` forms and normalises a final ``e``/``y``, so that "replies" ~ "reply",
    "running" ~ "runs", "predicted" ~ "predictions", "readiness" ~ "ready". It is
    deliberately conservative: stems only need to agree between queries and tool
    descriptions, not to be linguistic roots.
    """
    cached = _STEM_CACHE.get(word)
    if cached is not None:
        return cached
    result = _stem(word)
    if len(_STEM_CACHE) < 200_000:
        _STEM_CACHE[word] = result
    return result


def _stem(word: str) -> str:
    w = _IRREGULAR.get(word, word)
    if len(w) <= 3 or not w.isalpha():
        return w
    # Step 1: plurals and third person.
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses") or w.endswith(("xes", "ches", "shes", "zzes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    # Step 2: verbal / adjectival endings (one of them).
    if w.endswith("ing") and len(w) - 3 >= 3 and _has_vowel(w[:-3]):
        w = _undouble(w[:-3])
    elif w.endswith("ed") and not w.endswith("eed") and len(w) - 2 >= 3 and _has_vowel(w[:-2]):
        w = _undouble(w[:-2])
    elif w.endswith("ness") and len(w) - 4 >= 3:
        w = w[:-4]
    elif w.endswith("ication") and len(w) - 7 >= 3:
        w = w[:-7] + "y"
    elif w.endswith(("ability", "ibility")) and len(w) - 7 >= 4:
        w = w[:-5] + "l"  # availability ~ available
    elif w.endswith("ation") and len(w) - 5 >= 4:
        w = w[:-5] + "ate"
    elif w.endswith(("tion", "sion")) and len(w) - 3 >= 4:
        w = w[:-3]
    elif (w.endswith("ly") and not w.endswith("ply") and len(w) - 2 >= 4) or (
        w.endswith("ee") and len(w) - 2 >= 4
    ):
        w = w[:-2]
    # Step 3: normalise the tail.
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 2 and w.endswith("y") and w[-2] not in _VOWELS:
        w = w[:-1] + "i"
    return w


# Raw words of a text: letters/digits runs. Apostrophe suffixes ("morning's") dropped.
_RAW_WORD_RE: Final = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")
_CAMEL_RE: Final = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def split_identifier(word: str) -> list[str]:
    """Split one identifier-like word on camelCase and digit boundaries (lowercased).

    ``"getPRStatus"`` -> ``["get", "pr", "status"]``; ``"spo2"`` -> ``["spo", "2"]``;
    ``"list_issues"`` -> ``["list", "issues"]`` (separators are honoured too).
    """
    out: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", word):
        if chunk:
            out.extend(p.lower() for p in _CAMEL_RE.findall(chunk))
    return out


def _word_parts(raw: str) -> tuple[list[str], str | None]:
    """Parts of one raw word and, if it had several parts, its joined lowercase form.

    Digit parts of a mixed word are dropped (``vo2`` -> ``vo`` + joint ``vo2``);
    single letters are dropped (``5k`` -> joint ``5k`` only).
    """
    if "'" in raw:
        raw = raw.split("'", 1)[0]
    parts = _CAMEL_RE.findall(raw)
    if len(parts) <= 1:
        low = raw.lower()
        return ([low] if len(low) > 1 or low.isdigit() else []), None
    kept = [p.lower() for p in parts if p.isalpha() and len(p) > 1]
    return kept, raw.lower()


def tokenize(text: str) -> list[str]:
    """Stemmed content tokens of a free text or identifier, in order."""
    out: list[str] = []
    for raw in _RAW_WORD_RE.findall(text):
        parts, joint = _word_parts(raw)
        for p in parts:
            if p not in STOP_WORDS and not p.isdigit():
                out.append(stem(p))
        if joint is not None:
            out.append(joint)
    return out


# --------------------------------------------------------------------------------------
# Vocabulary: abbreviations, synonyms, phrases, pattern concepts.
#
# Generic software / productivity / personal-data vocabulary only. Keys and values
# are plain words; they go through the same analyser as queries and documents.


def bigrams(tokens: Sequence[str]) -> list[str]:
    """Adjacent pairs of distinct terms, as ``"a b"`` strings."""
    return [f"{a} {b}" for a, b in itertools.pairwise(tokens) if a != b]


def content_seq(text: str) -> list[str]:
    """Stemmed content tokens without joint forms, for bigrams."""
    out: list[str] = []
    for raw in _RAW_WORD_RE.findall(text):
        parts, _joint = _word_parts(raw)
        for p in parts:
            if p not in STOP_WORDS and not p.isdigit():
                out.append(stem(p))
    return out


def joints(identifier: str) -> list[str]:
    """Joined lowercase forms of mixed words in an identifier ("spo2", "vo2max")."""
    out: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", identifier):
        if chunk and len(_CAMEL_RE.findall(chunk)) > 1:
            out.append(chunk.lower())
    return out


GENERIC_NAME_TERMS: Final = frozenset(stem(w) for w in LEXICON.generic_name_words)
"""Name terms too generic to count towards name coverage."""

_LEADING_VERBS: Final = LEXICON.leading_verbs
_PREAMBLE: Final = LEXICON.preamble
_PATTERN_CONCEPTS: Final = LEXICON.patterns
_MANY_RE: Final = LEXICON.many_pattern
_MANY_CONCEPT: Final = LEXICON.many_concept
_DB_DATA_WORDS: Final = LEXICON.db_data_words
_DB_PLACE_WORDS: Final = LEXICON.db_place_words
_DB_DML_WORDS: Final = LEXICON.db_dml_words
_DB_READ_CONCEPT: Final = LEXICON.db_read_concept
_DB_WRITE_CONCEPT: Final = LEXICON.db_write_concept

# Action classes (codes in the order of ``lexicon.ACTION_CLASSES``). Tool names are
# overwhelmingly ``verb_object``; queries are either imperative ("delete the row") or
# questions ("which tables ..."). When the query's action agrees with the tool's verb
# the tool gets a bonus (see ``RankerConfig``).
READ, LIST, SEARCH, CREATE, UPDATE, DELETE, RUN, SEND = range(len(ACTION_CLASSES))
READ_CLASSES: Final[frozenset[int]] = frozenset({READ, LIST, SEARCH})

# Looked up by stem, so that "Gets", "Lists", "Creates" in descriptions count too.
_VERB_CLASS: Final[dict[str, int]] = {stem(w): c for w, c in LEXICON.actions.items()}
_QUESTION_WORDS: Final = LEXICON.question_words
_READ_OBJECTS: Final = LEXICON.read_objects
_PHRASAL_ACTIONS: Final = LEXICON.phrasal_actions
_COLLECTIVE: Final = LEXICON.collective
_OBJECT_PRONOUNS: Final = LEXICON.object_pronouns
_OBJECT_SENSES: Final = LEXICON.object_senses


def _is_plural(word: str) -> bool:
    """A rough English plural test for lowercase nouns ("issues", not "status")."""
    return (
        len(word) > 3
        and word.isalpha()
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is"))
        and word not in STOP_WORDS
    )


# Leading words that are also adjectives: "open issues" lists issues in a state,
# "open an issue" creates one.
_ADJECTIVAL_VERBS: Final = LEXICON.adjectival_verbs


def _adjectival(lowered: Sequence[str], i: int) -> bool:
    """Whether ``lowered[i]`` modifies a following plural noun rather than being a verb."""
    return lowered[i] in _ADJECTIVAL_VERBS and i + 1 < len(lowered) and _is_plural(lowered[i + 1])


def _query_action(lowered: Sequence[str], lead: int) -> int | None:
    """The action class the query asks for, or None when it does not say.

    Reads are split into asking for one thing (``READ``) and for a collection
    (``LIST``: the query says "list", "all"/"every", or names a plural noun without
    naming one numbered item).
    """
    if lead >= len(lowered):
        return None
    first = lowered[lead]
    nxt = lowered[lead + 1] if lead + 1 < len(lowered) else ""
    cls: int | None
    if first in _QUESTION_WORDS or (first in ("tell", "give", "show") and nxt in _READ_OBJECTS):
        cls = READ
    elif (first, nxt) in _PHRASAL_ACTIONS:
        cls = _PHRASAL_ACTIONS[(first, nxt)]
    elif _adjectival(lowered, lead):
        cls = READ
    else:
        cls = _VERB_CLASS.get(stem(first))
    if cls == READ:
        rest = lowered[lead + 1 :]
        # A plural asks for a collection, unless the query names one numbered item
        # ("what labels does issue 31 have": the labels of one issue).
        one = any(w.isdigit() and i > 0 and not rest[i - 1].isdigit() for i, w in enumerate(rest))
        if any(w in _COLLECTIVE for w in rest) or (not one and any(map(_is_plural, rest))):
            cls = LIST
    return cls


def tool_action(tool: str, server: str, description: str) -> int | None:
    """The action class of a tool.

    The description's leading verb is preferred (descriptions conventionally start
    with an imperative: "Run a read-only SQL query" for a tool named ``query``);
    otherwise the first verb of the name. A read whose name has a plural object
    ("get_activities") reads a collection.
    """
    server_words = set(split_identifier(server))
    name_words = [w for w in split_identifier(tool) if w not in server_words]
    cls: int | None = None
    desc_words = _RAW_WORD_RE.findall(description)
    if desc_words:
        cls = _VERB_CLASS.get(stem(desc_words[0].lower()))
    if cls is None:
        for w in name_words:
            cls = _VERB_CLASS.get(stem(w))
            if cls is not None:
                break
    if cls == READ and any(_is_plural(w) for w in name_words):
        cls = LIST
    return cls


_READ_ONLY_RE: Final = re.compile(r"\bread[- ]only\b", re.IGNORECASE)


def tool_extra_actions(description: str) -> frozenset[int]:
    """Further actions a generic executor says it performs.

    A description that names the kinds of command it runs in capitals ("modifies
    data (INSERT, UPDATE, DELETE)") or calls itself read-only performs those actions
    too, whatever its leading verb ("Run", "Execute").
    """
    out: set[int] = set()
    for w in _RAW_WORD_RE.findall(description):
        if len(w) >= 3 and w.isupper() and w.isalpha():
            c = _VERB_CLASS.get(stem(w.lower()))
            if c is not None:
                out.add(c)
    if _READ_ONLY_RE.search(description):
        out.add(READ)
    if READ in out:
        out.add(LIST)
    return frozenset(out)


def _analyse_phrase(text: str) -> tuple[str, ...]:
    """Terms of a vocabulary value. A single word is kept even if it is a stop word
    ("me" as in a tool called ``get_me``)."""
    terms = tokenize(text)
    if not terms and text.strip():
        terms = [stem(w) for w in text.lower().split()]
    return tuple(terms)


def _compile_abbreviations() -> dict[str, tuple[str, ...]]:
    return {k: _analyse_phrase(v) for k, v in LEXICON.abbreviations.items()}


def _compile_synonyms() -> tuple[
    dict[str, Alternatives],
    dict[tuple[str, ...], Alternatives],
]:
    """Split the synonym table into single-word entries (keyed by stem) and phrases
    (keyed by their lowercase raw words)."""
    single: dict[str, list[tuple[tuple[str, ...], float]]] = {}
    phrases: dict[tuple[str, ...], Alternatives] = {}
    for key, alts in LEXICON.synonyms.items():
        compiled = [(_analyse_phrase(v), w) for v, w in alts]
        compiled = [(terms, w) for terms, w in compiled if terms]
        words = tuple(key.split())
        if len(words) > 1:
            phrases[words] = tuple(compiled)
            continue
        k = stem(key)
        single.setdefault(k, []).extend(compiled)
    return {k: tuple(v) for k, v in single.items()}, phrases


_ABBREV_TERMS: Final = _compile_abbreviations()
_SYN_SINGLE, _SYN_PHRASES = _compile_synonyms()
_MAX_PHRASE_LEN: Final = max(len(p) for p in _SYN_PHRASES)


@dataclass(frozen=True, slots=True)
class Slot:
    """One unit of query meaning: alternatives of term sequences with weights.

    The slot contributes the best of its alternatives to a document's score.
    ``primary`` is the term sequence used to form query bigrams.
    """

    alts: Alternatives
    weight: float
    primary: tuple[str, ...]
    proper: bool = False


def analyze_query(query: str) -> list[Alternatives]:
    """The query's slots as ``[(alternative terms, weight), ...]`` lists (for debugging)."""
    return [tuple((t, w * s.weight) for t, w in s.alts) for s in parse_query(query).slots]


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    slots: list[Slot]
    action: int | None
    surface: frozenset[str]


def _dedupe_expansions(slots: list[Slot]) -> list[Slot]:
    """Keep expansions from re-counting a word the query already states.

    An expansion (an alternative weighted below 1) is dropped when its terms are the
    query's own words in another slot: in "main branch", "main" -> branch is redundant.
    """
    own: list[set[str]] = []
    for slot in slots:
        own.append({t for terms, w in slot.alts if w >= 1.0 for t in terms})
    out: list[Slot] = []
    for i, slot in enumerate(slots):
        others: set[str] = set()
        for j, terms_j in enumerate(own):
            if j != i:
                others |= terms_j
        kept = tuple((terms, w) for terms, w in slot.alts if w >= 1.0 or not set(terms) <= others)
        if kept or slot.primary:
            out.append(Slot(kept, slot.weight, slot.primary, slot.proper))
    return out


_MAX_QUERY_CHARS: Final = 1000
"""Longer queries are cut: a search query is a sentence or two, and the cut bounds
the work one call can cause."""


def parse_query(query: str) -> ParsedQuery:
    slots: list[Slot] = []
    query = query[:_MAX_QUERY_CHARS]
    text = query
    for pattern, concept in _PATTERN_CONCEPTS:
        if pattern.search(text) is None:
            continue
        n = len(pattern.findall(text))
        text = pattern.sub(" ", text)
        alts = _phrase_alts(concept)
        for _ in range(min(n, 2)):
            slots.append(Slot(alts=alts, weight=1.0, primary=()))
    if _MANY_RE.search(text) is not None:
        slots.append(Slot(alts=_phrase_alts(_MANY_CONCEPT), weight=1.0, primary=()))

    matches = list(_RAW_WORD_RE.finditer(text))
    raw_words = [m.group(0) for m in matches]
    lowered = [w.split("'", 1)[0].lower() for w in raw_words]
    _join_particles(raw_words, lowered)
    lead = _skip_preamble(lowered, 0)
    if not _asks(lowered, lead, query):
        lead = _request_clause(text, matches, lowered, lead)
    sense = _object_sense(lowered, lead)
    action = _query_action(lowered, lead) if sense is None else sense.action
    if query.rstrip().endswith("?") and action is None:
        action = READ
    if (action is None or action in READ_CLASSES) and _asks_existence(lowered, lead):
        action = SEARCH
        slots.append(Slot(alts=_phrase_alts(_EXISTENCE_CONCEPT), weight=1.0, primary=()))
    db_concept = _database_concept(lowered, action)
    weak: frozenset[str] = frozenset()
    if db_concept is not None:
        slots.append(Slot(alts=_phrase_alts(db_concept), weight=1.0, primary=()))
        if _DB_DATA_WORDS.intersection(lowered):
            # "the rows of the orders table": the table is where the data is, not
            # what the request is about; the SQL concept stands for both words.
            weak = _DB_DATA_WORDS | _DB_PLACE_WORDS
    i = 0
    n_words = len(raw_words)
    while i < n_words:
        # Longest multi-word phrase first (phrasal verbs such as "set up" included),
        # then the verb sense of an ambiguous leading word.
        matched = False
        for length in range(min(_MAX_PHRASE_LEN, n_words - i), 1, -1):
            key = tuple(lowered[i : i + length])
            phrase_alts = _SYN_PHRASES.get(key)
            if phrase_alts is not None:
                # The phrase's own words count, weakly: in an idiom they mean little
                # alone ("kick off", "job title"); entries that are noun compounds list
                # themselves at full weight ("body fat").
                own = tuple(tokenize(" ".join(key)))
                all_alts = _dedupe(((own, 0.5), *phrase_alts)) if own else phrase_alts
                slots.append(Slot(alts=all_alts, weight=1.0, primary=phrase_alts[0][0]))
                i += length
                matched = True
                break
        if matched:
            continue
        if i == lead and sense is not None:
            sense_alts = _phrase_alts(sense.sense)
            slots.append(Slot(alts=sense_alts, weight=1.0, primary=(stem(lowered[i]),)))
            i += 1
            continue
        if i == lead and lowered[i] in _LEADING_VERBS and not _adjectival(lowered, i):
            verb_alts = _phrase_alts(_LEADING_VERBS[lowered[i]])
            slots.append(Slot(alts=verb_alts, weight=1.0, primary=(stem(lowered[i]),)))
            i += 1
            continue
        raw = raw_words[i]
        i += 1
        low = lowered[i - 1]
        abbrev = _ABBREV_TERMS.get(low)
        if abbrev is not None:
            own_stem = stem(low)
            alts2: list[tuple[tuple[str, ...], float]] = [(abbrev, 1.0), ((own_stem,), 1.0)]
            for t in abbrev:
                alts2.extend(_SYN_SINGLE.get(t, ()))
            slots.append(Slot(alts=_dedupe(alts2), weight=1.0, primary=abbrev))
            continue
        parts, joint = _word_parts(raw)
        content = [p for p in parts if p not in STOP_WORDS and not p.isdigit()]
        if len(content) == 1 and i - 1 > lead and _is_event_verb(lowered, i - 1, lead):
            # "who logged time", "has anyone filed an issue": a past action the query
            # asks about, not the action it asks for. Its word still names the subject
            # (a log, a commit) but forms no bigram with its neighbours, so a tool that
            # performs the action ("Log time spent") does not win on the phrase.
            s = stem(content[0])
            ev_alts = _dedupe((((s,), 1.0), *_SYN_SINGLE.get(s, ())))
            slots.append(Slot(alts=ev_alts, weight=1.0, primary=()))
            continue
        # A capitalised word inside the query ("add Bob", "Maria's title") may be a
        # name; if the index does not know it, it stands for a person (see _resolve).
        proper = (
            i - 1 > lead
            and len(content) == 1
            and raw[:1].isupper()
            and raw[1:2].islower()
            and raw.split("'", 1)[0][1:].islower()
        )
        for p in content:
            s = stem(p)
            alts3: list[tuple[tuple[str, ...], float]] = [((s,), 1.0)]
            alts3.extend(_SYN_SINGLE.get(s, ()))
            sw = 0.5 if p in weak else 1.0
            slots.append(Slot(alts=_dedupe(alts3), weight=sw, primary=(s,), proper=proper))
        if joint is not None and not joint.isdigit():
            w = 0.6 if content else 1.0
            slots.append(Slot(alts=(((joint,), 1.0),), weight=w, primary=()))
        elif not content and low in STOP_WORDS and stem(low) in _SYN_SINGLE:
            # Stop words with a meaning of their own ("who", "give") are weak slots,
            # except before "me"/"us" ("tell me ...", "give us ..." just ask to read).
            nxt = lowered[i] if i < n_words else ""
            if nxt not in _READ_OBJECTS:
                slots.append(Slot(alts=_SYN_SINGLE[stem(low)], weight=0.5, primary=()))
    surface = frozenset(
        p.lower()
        for raw in raw_words
        for p in _CAMEL_RE.findall(raw.split("'", 1)[0])
        if p.isalpha() and p.lower() not in STOP_WORDS
    )
    return ParsedQuery(_dedupe_expansions(slots), action, surface)


def _skip_preamble(lowered: Sequence[str], i: int) -> int:
    while i < len(lowered) and lowered[i] in _PREAMBLE:
        i += 1
    return i


def _is_verb(lowered: Sequence[str], i: int) -> bool:
    """Whether ``lowered[i]`` is a verb the lexicon knows the action or sense of."""
    w = lowered[i]
    nxt = lowered[i + 1] if i + 1 < len(lowered) else ""
    return (
        stem(w) in _VERB_CLASS
        or w in _LEADING_VERBS
        or (w, nxt) in _PHRASAL_ACTIONS
        or any(w in e.verbs for e in _OBJECT_SENSES)
    )


def _asks(lowered: Sequence[str], lead: int, query: str) -> bool:
    """Whether the first clause is itself the request: an imperative verb, or a
    question (a question word with a question mark)."""
    if lead >= len(lowered):
        return True
    if lowered[lead] in _QUESTION_WORDS:
        return query.rstrip().endswith("?")
    return _is_verb(lowered, lead) and not _adjectival(lowered, lead)


_CLAUSE_BREAK_RE: Final = re.compile(r"[,;:]|\s-+\s")


def _request_clause(
    text: str, matches: Sequence[re.Match[str]], lowered: Sequence[str], lead: int
) -> int:
    """The lead of the request when the query first states a fact and then asks in a
    later clause ("the branch is ready, open a PR"): the first clause after a comma,
    semicolon or dash that starts with a verb. Otherwise ``lead`` itself."""
    for i in range(lead + 1, len(matches)):
        gap = text[matches[i - 1].end() : matches[i].start()]
        if _CLAUSE_BREAK_RE.search(gap) is None:
            continue
        j = _skip_preamble(lowered, i)
        if j < len(lowered) and _is_verb(lowered, j) and not _adjectival(lowered, j):
            return j
    return lead


_EXISTENCE_LEADS: Final = LEXICON.existence_leads
_EXISTENCE_SUBJECTS: Final = LEXICON.existence_subjects
_TOPIC_WORDS: Final = LEXICON.topic_words
_EXISTENCE_CONCEPT: Final = LEXICON.existence_concept


def _asks_existence(lowered: Sequence[str], lead: int) -> bool:
    """Whether the query asks if something about a topic exists ("is there a page
    about ...", "has anyone mentioned ... about ...", "any reports about ..."): a
    search, whatever its verb."""
    if lead >= len(lowered) or not _TOPIC_WORDS.intersection(lowered[lead + 1 :]):
        return False
    first = lowered[lead]
    if first in _EXISTENCE_LEADS:
        return True
    nxt = lowered[lead + 1] if lead + 1 < len(lowered) else ""
    return first in _QUESTION_WORDS and nxt in _EXISTENCE_SUBJECTS


_PARTICLE_PAIRS: Final[frozenset[tuple[str, str]]] = frozenset(
    {k for k in _SYN_PHRASES if len(k) == 2} | set(_PHRASAL_ACTIONS)
)


def _join_particles(raw_words: list[str], lowered: list[str]) -> None:
    """Put a phrasal verb's particle back next to it when a pronoun object separates
    them ("kick it off" -> "kick off it", "look it up"), in place."""
    for i in range(len(lowered) - 2):
        if lowered[i + 1] in _OBJECT_PRONOUNS and (lowered[i], lowered[i + 2]) in _PARTICLE_PAIRS:
            lowered[i + 1], lowered[i + 2] = lowered[i + 2], lowered[i + 1]
            raw_words[i + 1], raw_words[i + 2] = raw_words[i + 2], raw_words[i + 1]


def _object_sense(lowered: Sequence[str], lead: int) -> ObjectSense | None:
    """The sense the leading verb takes with its object, when the lexicon has one: the
    first content word within the next three words decides ("drop a note in ...")."""
    if lead >= len(lowered):
        return None
    verb = lowered[lead]
    for entry in _OBJECT_SENSES:
        if verb not in entry.verbs:
            continue
        for w in lowered[lead + 1 : lead + 4]:
            if w in entry.objects or stem(w) in entry.objects:
                return entry
            if w not in STOP_WORDS:
                break
    return None


_AUX_PAST: Final = frozenset({"did", "didn", "has", "have", "had", "was", "were", "been"})


def _is_event_verb(lowered: Sequence[str], i: int, lead: int) -> bool:
    """Whether ``lowered[i]`` (after the lead word) is an action verb in the past:
    an ``-ed`` form or irregular past ("filed", "sent"), or a verb after a past
    auxiliary ("did someone close it"). Reads ("found", "checked") do not count."""
    word = lowered[i]
    base = _IRREGULAR.get(word)
    if base is not None and base != word:
        cls = _VERB_CLASS.get(stem(base))
    elif (word.endswith("ed") and len(word) > 4) or _AUX_PAST.intersection(
        lowered[max(lead, i - 3) : i]
    ):
        cls = _VERB_CLASS.get(stem(word))
    else:
        return False
    return cls is not None and cls not in READ_CLASSES


def _database_concept(lowered: Sequence[str], action: int | None) -> Weighted | None:
    """The SQL concept of a request for data in a database (see ``_DB_DATA_WORDS``)."""
    words = set(lowered)
    dml = bool(words & _DB_DML_WORDS)
    place = bool(words & _DB_PLACE_WORDS)
    data = bool(words & _DB_DATA_WORDS)
    if "row" in words or "rows" in words:
        place = True  # rows live in a table
    writes = action in (CREATE, UPDATE, DELETE)
    if action == RUN and ("select" in words or "selects" in words):
        return _DB_READ_CONCEPT  # "run a SELECT"
    if not (dml or (place and (data or writes))):
        return None
    if writes or dml:
        return _DB_WRITE_CONCEPT
    return _DB_READ_CONCEPT


def _phrase_alts(alts: Weighted) -> Alternatives:
    return tuple((_analyse_phrase(t), w) for t, w in alts)


PERSON_ALTS: Final[Alternatives] = _phrase_alts(LEXICON.person)
"""What an unknown capitalised name in a query stands for."""


def _dedupe(
    alts: Iterable[tuple[tuple[str, ...], float]],
) -> Alternatives:
    best: dict[tuple[str, ...], float] = {}
    for terms, w in alts:
        if terms and w > best.get(terms, 0.0):
            best[terms] = w
    return tuple(best.items())
