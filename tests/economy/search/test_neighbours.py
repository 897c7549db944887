"""Words close in meaning (``neighbours.txt.gz``): a query word that no tool uses still finds
the tool that uses a word near it in meaning, more weakly than the word itself would."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from bench.search_neighbours import build_table, write_table
from manifold.economy.search import RankerConfig, ToolEntry, ToolIndex, stem
from manifold.economy.search.neighbours import (
    TABLE_PATH,
    NeighbourTableError,
    expansions_for,
    parse_line,
)

FLEET = [
    ToolEntry("fleet", "list_routes", "List the routes of the fleet."),
    ToolEntry("fleet", "list_vehicles", "List the vehicles of the fleet."),
    ToolEntry("media", "search_movies", "Search movies by title."),
    ToolEntry("home", "set_thermostat", "Set the target temperature of the heating."),
]


def test_packaged_table_is_general_and_bounded() -> None:
    assert TABLE_PATH.stat().st_size < 512 * 1024
    with gzip.open(TABLE_PATH, "rt", encoding="utf-8") as fh:
        rows = [parse_line(line, n) for n, line in enumerate(fh, start=1)]
    # Thousands of general words, each with a few neighbours, never itself.
    assert len(rows) > 10_000
    keys = [k for k, _ in rows]
    assert len(set(keys)) == len(keys)
    for key, pairs in rows:
        assert 1 <= len(pairs) <= 8
        assert key not in {w for w, _ in pairs}
        assert all(0.5 <= c <= 1.0 for _, c in pairs)
        cosines = [c for _, c in pairs]
        assert cosines == sorted(cosines, reverse=True)
    table = dict(rows)
    assert stem("vehicle") in {w for w, _ in table[stem("car")]}
    assert stem("movie") in {w for w, _ in table[stem("film")]}


def test_a_word_no_tool_uses_finds_the_tool_with_its_neighbour() -> None:
    idx = ToolIndex.build(FLEET)
    top = idx.search("list the cars of the fleet", k=2)
    assert [h.tool for h in top] == ["list_vehicles", "list_routes"]
    assert idx.search("films about space", k=1)[0].tool == "search_movies"
    # Off, the same queries find only what shares their words (or nothing).
    off = ToolIndex.build(FLEET, RankerConfig(neighbour_weight=0.0))
    assert off.search("list the cars of the fleet", k=1)[0].tool == "list_routes"
    assert off.search("films about space", k=1) == []


def test_the_word_itself_outranks_its_neighbour() -> None:
    idx = ToolIndex.build(
        [
            ToolEntry("media", "search_movies", "Search movies by title."),
            ToolEntry("media", "search_films", "Search films by title."),
        ]
    )
    hits = idx.search("find a film by its title", k=2)
    assert [h.tool for h in hits] == ["search_films", "search_movies"]
    assert hits[0].score > hits[1].score
    hits = idx.search("find a movie by its title", k=2)
    assert [h.tool for h in hits] == ["search_movies", "search_films"]


def test_nonsense_still_finds_nothing() -> None:
    idx = ToolIndex.build(FLEET)
    assert idx.search("zzqx blorptangle") == []
    assert idx.search("the of and to") == []


def test_an_index_keeps_only_neighbours_it_can_score(tmp_path: Path) -> None:
    path = tmp_path / "t.txt.gz"
    rows = build_table(
        [("car", "vehicle", 0.88), ("car", "driver", 0.71), ("film", "movie", 0.87)], keep=8
    )
    # Both ways, by stem, closest first.
    assert dict(rows)[stem("vehicle")] == [(stem("car"), 0.88)]
    assert dict(rows)[stem("car")] == [(stem("vehicle"), 0.88), (stem("driver"), 0.71)]
    write_table(rows, path)
    vocab = {stem("vehicle"), stem("car")}
    assert expansions_for(vocab, 4, path) == {
        stem("car"): ((stem("vehicle"), 0.88),),
        stem("vehicle"): ((stem("car"), 0.88),),
        stem("driver"): ((stem("car"), 0.71),),
    }
    assert expansions_for(vocab, 0, path) == {}


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("car vehicle:88", "expected 'stem<TAB>pairs'"),
        ("car\t", "expected 'stem<TAB>pairs'"),
        ("car\tvehicle", "bad pair 'vehicle'"),
        ("car\tvehicle:x", "bad pair 'vehicle:x'"),
        ("car\tvehicle:101", "bad pair 'vehicle:101'"),
    ],
)
def test_a_malformed_table_names_its_line(tmp_path: Path, line: str, why: str) -> None:
    path = tmp_path / "bad.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("film\tmovie:87\n" + line + "\n")
    with pytest.raises(NeighbourTableError, match=f"line 2: {why}"):
        expansions_for({"car", "movi"}, 4, path)


def test_a_word_some_tool_has_outweighs_its_neighbours_elsewhere() -> None:
    # "login" is a parameter of one tool; its neighbour "log" names another. The word the
    # user wrote, where it is, wins over a neighbour in a stronger field.
    schema = {"type": "object", "properties": {"owner": {"type": "object"}, "login": {}}}
    entries = [
        ToolEntry("chat", "log_messages", "Log three messages."),
        ToolEntry("code", "file_issue", "File an issue.", schema),
    ]
    idx = ToolIndex.build(entries)
    assert [h.tool for h in idx.search("owner login", k=2)] == ["file_issue", "log_messages"]
    # An unknown word's neighbours count in full: "signup" is no tool's word.
    assert idx.search("my signup details", k=1)[0].tool == "file_issue"
