"""The search vocabulary, read once at import from ``lexicon.json`` (shipped in the package).

The file holds generic software, productivity and personal-data vocabulary only; there is
no per-catalog knowledge in it. Its sections:

* ``stop_words``: words with no retrieval signal on their own ("give" and "tell" are
  there because users say "give me" / "tell me" for any read; a stop word that has a
  synonym entry still counts, weakly).
* ``preamble``: politeness before the imperative ("please", "can you").
* ``question_words``, ``read_objects`` ("tell me ..."), ``collective`` ("all", "every"):
  how a query says it wants to read one thing or a collection.
* ``generic_name_words``: name words too generic to count towards "how much of the
  tool's name did the query cover" (verbs present in half of any catalog).
* ``irregular``: word forms the suffix stripper cannot reach ("ran" -> "run").
* ``abbreviations``: rewrites (the expansion is what the word means; the word is kept).
* ``synonyms``: a query word or phrase -> weighted alternatives.
* ``leading_verbs``: the verb sense of an ambiguous first word ("open a ticket" creates,
  "log 2 hours" adds a record).
* ``actions``: verbs by action class (read, list, search, create, update, delete, run,
  send), for agreement between what a query asks and what a tool does;
  ``phrasal_actions`` ("look up" searches) and ``adjectival_verbs`` ("open issues" lists).
* ``patterns``: regular expressions recognising concepts in the raw query (tracker keys,
  ``#channel``, ``@user``, clock times, file names, units); ``many``: a count above one
  ("three files") asks for a bulk tool.
* ``database``: requests that name data ("rows") or where it lives ("table") also ask for
  SQL of the matching kind.
* ``person``: what an unknown capitalised name stands for.
* ``existence``: a question whether something exists about a topic ("is there an issue
  about ...", "has anyone mentioned ...", "any reports about ...") asks for a search.
* ``object_pronouns``: pronouns that split a phrasal verb from its particle ("kick it
  off", "look it up"); the analyser joins the two again.
* ``object_senses``: the sense a leading verb takes when its object is of a kind
  ("drop a note" posts a message, "drop a table" deletes).

Word lists are space-separated strings; weighted alternatives are ``[text, weight]`` pairs,
a weight below 1 being weaker evidence than the word itself. A malformed file fails the
import with :class:`LexiconError` naming the section.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "ACTION_CLASSES",
    "LEXICON",
    "Lexicon",
    "LexiconError",
    "ObjectSense",
    "Weighted",
    "load",
    "parse",
    "parse_text",
]

Weighted = tuple[tuple[str, float], ...]
"""Alternatives of a vocabulary entry: (text, weight) pairs."""

ACTION_CLASSES: Final = ("read", "list", "search", "create", "update", "delete", "run", "send")
"""The action classes, in the order of their numeric codes in the analyser."""


class LexiconError(ValueError):
    """The lexicon file does not have the expected shape."""


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The vocabulary, as plain data (the analyser compiles it)."""

    stop_words: frozenset[str]
    preamble: frozenset[str]
    question_words: frozenset[str]
    read_objects: frozenset[str]
    collective: frozenset[str]
    generic_name_words: tuple[str, ...]
    irregular: Mapping[str, str]
    abbreviations: Mapping[str, str]
    synonyms: Mapping[str, Weighted]
    leading_verbs: Mapping[str, Weighted]
    actions: Mapping[str, int]
    phrasal_actions: Mapping[tuple[str, str], int]
    adjectival_verbs: frozenset[str]
    patterns: tuple[tuple[re.Pattern[str], Weighted], ...]
    many_pattern: re.Pattern[str]
    many_concept: Weighted
    db_data_words: frozenset[str]
    db_place_words: frozenset[str]
    db_dml_words: frozenset[str]
    db_read_concept: Weighted
    db_write_concept: Weighted
    person: Weighted
    existence_leads: frozenset[str]
    existence_subjects: frozenset[str]
    topic_words: frozenset[str]
    existence_concept: Weighted
    object_pronouns: frozenset[str]
    object_senses: tuple[ObjectSense, ...]


@dataclass(frozen=True, slots=True)
class ObjectSense:
    """A sense a leading verb takes with a kind of object ("drop a note" sends)."""

    verbs: frozenset[str]
    objects: frozenset[str]
    sense: Weighted
    action: int


def _object_sense(entry: Any, where: str) -> ObjectSense:
    if not isinstance(entry, dict) or set(entry) != {"verbs", "objects", "sense", "action"}:
        raise LexiconError(f"lexicon: {where} must be {{verbs, objects, sense, action}}")
    return ObjectSense(
        verbs=frozenset(_words(entry, "verbs")),
        objects=frozenset(_words(entry, "objects")),
        sense=_weighted(entry["sense"], f"{where}.sense"),
        action=_action(entry["action"], f"{where}.action"),
    )


def _section(data: Mapping[str, Any], key: str, kind: type) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise LexiconError(f"lexicon: {key!r} must be a {kind.__name__}")
    return value


def _words(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    return tuple(_section(data, key, str).split())


def _weighted(value: Any, where: str) -> Weighted:
    if not isinstance(value, list):
        raise LexiconError(f"lexicon: {where} must be a list of [text, weight] pairs")
    out: list[tuple[str, float]] = []
    for pair in value:
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not isinstance(pair[0], str)
            or not isinstance(pair[1], int | float)
            or isinstance(pair[1], bool)
            or not 0.0 < pair[1] <= 1.0
        ):
            raise LexiconError(f"lexicon: {where}: {pair!r} is not a [text, weight in (0, 1]]")
        out.append((pair[0], float(pair[1])))
    return tuple(out)


def _weighted_map(data: Mapping[str, Any], key: str) -> dict[str, Weighted]:
    section = _section(data, key, dict)
    return {str(k): _weighted(v, f"{key}.{k}") for k, v in section.items()}


def _str_map(data: Mapping[str, Any], key: str) -> dict[str, str]:
    section = _section(data, key, dict)
    if not all(isinstance(v, str) for v in section.values()):
        raise LexiconError(f"lexicon: {key!r} must map words to words")
    return dict(section)


def _action(name: Any, where: str) -> int:
    if name not in ACTION_CLASSES:
        raise LexiconError(f"lexicon: {where}: unknown action class {name!r}")
    return ACTION_CLASSES.index(name)


def _pattern(entry: Any, where: str) -> tuple[re.Pattern[str], Weighted]:
    if not isinstance(entry, dict) or not isinstance(entry.get("regex"), str):
        raise LexiconError(f"lexicon: {where} must be {{regex, ignore_case, concept}}")
    flags = re.IGNORECASE if entry.get("ignore_case") is True else 0
    try:
        compiled = re.compile(entry["regex"], flags)
    except re.error as exc:
        raise LexiconError(f"lexicon: {where}: bad regex: {exc}") from None
    return compiled, _weighted(entry.get("concept"), f"{where}.concept")


_SECTIONS: Final = frozenset(
    {
        "about",
        "stop_words",
        "preamble",
        "question_words",
        "read_objects",
        "collective",
        "generic_name_words",
        "irregular",
        "abbreviations",
        "synonyms",
        "leading_verbs",
        "actions",
        "phrasal_actions",
        "adjectival_verbs",
        "patterns",
        "many",
        "database",
        "person",
        "existence",
        "object_pronouns",
        "object_senses",
    }
)
"""Top-level keys of the file ("about" is its description)."""


def parse(data: Mapping[str, Any]) -> Lexicon:
    """Check and convert the decoded lexicon file."""
    actions: dict[str, int] = {}
    action_lists = _section(data, "actions", dict)
    for cls in action_lists:
        code = _action(cls, "actions")
        for w in _words(action_lists, cls):
            if w in actions:
                raise LexiconError(f"lexicon: actions: {w!r} is in two action classes")
            actions[w] = code
    phrasal: dict[tuple[str, str], int] = {}
    for row in _section(data, "phrasal_actions", list):
        if not (isinstance(row, list) and len(row) == 3 and all(isinstance(x, str) for x in row)):
            raise LexiconError(f"lexicon: phrasal_actions: {row!r} is not [word, word, action]")
        phrasal[(row[0], row[1])] = _action(row[2], "phrasal_actions")
    unknown = set(data) - _SECTIONS
    if unknown:
        raise LexiconError(f"lexicon: unknown sections {sorted(unknown)}")
    many_pattern, many_concept = _pattern(_section(data, "many", dict), "many")
    db = _section(data, "database", dict)
    existence = _section(data, "existence", dict)
    return Lexicon(
        stop_words=frozenset(_words(data, "stop_words")),
        preamble=frozenset(_words(data, "preamble")),
        question_words=frozenset(_words(data, "question_words")),
        read_objects=frozenset(_words(data, "read_objects")),
        collective=frozenset(_words(data, "collective")),
        generic_name_words=_words(data, "generic_name_words"),
        irregular=_str_map(data, "irregular"),
        abbreviations=_str_map(data, "abbreviations"),
        synonyms=_weighted_map(data, "synonyms"),
        leading_verbs=_weighted_map(data, "leading_verbs"),
        actions=actions,
        phrasal_actions=phrasal,
        adjectival_verbs=frozenset(_words(data, "adjectival_verbs")),
        patterns=tuple(
            _pattern(p, f"patterns[{i}]") for i, p in enumerate(_section(data, "patterns", list))
        ),
        many_pattern=many_pattern,
        many_concept=many_concept,
        db_data_words=frozenset(_words(db, "data_words")),
        db_place_words=frozenset(_words(db, "place_words")),
        db_dml_words=frozenset(_words(db, "dml_words")),
        db_read_concept=_weighted(db.get("read_concept"), "database.read_concept"),
        db_write_concept=_weighted(db.get("write_concept"), "database.write_concept"),
        person=_weighted(data.get("person"), "person"),
        existence_leads=frozenset(_words(existence, "leads")),
        existence_subjects=frozenset(_words(existence, "subjects")),
        topic_words=frozenset(_words(existence, "topic_words")),
        existence_concept=_weighted(existence.get("concept"), "existence.concept"),
        object_pronouns=frozenset(_words(data, "object_pronouns")),
        object_senses=tuple(
            _object_sense(e, f"object_senses[{i}]")
            for i, e in enumerate(_section(data, "object_senses", list))
        ),
    )


def load() -> Lexicon:
    """Read and check the packaged ``lexicon.json``."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lexicon.json")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    return parse_text(text)


def parse_text(text: str) -> Lexicon:
    """Decode, check and convert a lexicon file's text."""
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise LexiconError(f"lexicon: not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise LexiconError("lexicon: the file must hold an object")
    return parse(data)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (the second would silently win)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise LexiconError(f"lexicon: key {key!r} appears twice in one object")
        out[key] = value
    return out


LEXICON: Final = load()
"""The packaged vocabulary, read once."""
