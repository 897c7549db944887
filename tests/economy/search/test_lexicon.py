"""The search vocabulary is data (``lexicon.json``): it loads once and is checked on load."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from manifold.economy import search
from manifold.economy.search import lexicon
from manifold.economy.search.analyzer import (
    CREATE,
    DELETE,
    LIST,
    READ,
    RUN,
    SEARCH,
    SEND,
    UPDATE,
    tokenize,
)
from manifold.economy.search.lexicon import LEXICON, LexiconError, parse_text

RAW = (Path(lexicon.__file__).parent / "lexicon.json").read_text(encoding="utf-8")


def test_packaged_lexicon_has_every_section() -> None:
    assert len(LEXICON.synonyms) > 400
    assert len(LEXICON.abbreviations) > 80
    assert {"the", "a", "please"} <= LEXICON.stop_words
    assert LEXICON.actions["delete"] == lexicon.ACTION_CLASSES.index("delete")
    assert LEXICON.phrasal_actions[("look", "up")] == lexicon.ACTION_CLASSES.index("search")
    assert LEXICON.patterns and all(concept for _, concept in LEXICON.patterns)
    assert LEXICON.many_pattern.search("close three tickets")


def test_action_codes_follow_the_lexicon_classes() -> None:
    codes = (READ, LIST, SEARCH, CREATE, UPDATE, DELETE, RUN, SEND)
    assert [lexicon.ACTION_CLASSES[c] for c in codes] == [
        "read",
        "list",
        "search",
        "create",
        "update",
        "delete",
        "run",
        "send",
    ]


def test_every_expansion_has_terms() -> None:
    """An entry whose text analyses to nothing would be dead vocabulary."""
    dead = [k for k, v in LEXICON.abbreviations.items() if not tokenize(v)]
    for table in (LEXICON.synonyms, LEXICON.leading_verbs):
        dead += [
            f"{k} -> {t}"
            for k, alts in table.items()
            for t, _ in alts
            if not tokenize(t) and len(t.split()) != 1  # a lone stop word is kept as is
        ]
    assert dead == []


def _edit(change: Callable[[dict[str, Any]], None]) -> str:
    data = json.loads(RAW)
    change(data)
    return json.dumps(data)


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("{not json", "not JSON", id="not-json"),
        pytest.param("[]", "must hold an object", id="not-an-object"),
        pytest.param(
            _edit(_set(("synonyms", "create"), [["new", 1.5]])),
            "synonyms.create",
            id="weight-above-1",
        ),
        pytest.param(
            _edit(_set(("synonyms", "create"), [["new"]])), "synonyms.create", id="not-a-pair"
        ),
        pytest.param(
            _edit(lambda d: d["patterns"][0].update(regex="([")), "patterns[0]", id="bad-regex"
        ),
        pytest.param(
            _edit(_set(("actions", "teleport"), "beam")), "unknown action class", id="bad-class"
        ),
        pytest.param(
            _edit(_set(("actions", "run"), "run delete")),
            "'delete' is in two action classes",
            id="verb-in-two-classes",
        ),
        pytest.param(
            _edit(lambda d: d.pop("stop_words")), "'stop_words' must be a str", id="missing"
        ),
        pytest.param(_edit(_set(("synonym",), {})), "unknown sections", id="typo-section"),
        pytest.param(
            _edit(_set(("existence", "concept"), [["search", 0]])),
            "existence.concept",
            id="existence-bad-weight",
        ),
        pytest.param(
            _edit(lambda d: d["object_senses"][0].pop("objects")),
            "object_senses[0] must be",
            id="object-sense-missing-key",
        ),
        pytest.param(
            _edit(lambda d: d["object_senses"][0].update(action="teleport")),
            "object_senses[0].action: unknown action class",
            id="object-sense-bad-action",
        ),
        pytest.param(
            _edit(lambda d: d["object_senses"][0].update(sense=[["post", 2]])),
            "object_senses[0].sense",
            id="object-sense-bad-weight",
        ),
        pytest.param(
            RAW.replace('"synonyms": {', '"synonyms": {\n  "make": [["new", 0.1]],', 1),
            "'make' appears twice",
            id="duplicate-key",
        ),
    ],
)
def test_malformed_lexicon_is_refused_with_the_place_named(text: str, message: str) -> None:
    with pytest.raises(LexiconError, match=message.replace("[", r"\[")):
        parse_text(text)


def test_the_packaged_text_parses_to_the_loaded_lexicon() -> None:
    assert parse_text(RAW) == LEXICON


def test_searches_never_reread_the_lexicon(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail() -> None:
        raise AssertionError("lexicon read again")

    monkeypatch.setattr(lexicon, "load", fail)
    monkeypatch.setattr(lexicon, "parse_text", fail)
    idx = search.ToolIndex.build([search.ToolEntry("tracker", "create_issue", "Create an issue.")])
    assert idx.search("open a ticket", k=1)[0].tool == "create_issue"
