"""search_tools through the real gateway finds a tool by a word close in meaning to its own
("bed" for a tool that sleeps), and `search: {neighbour_weight: 0}` turns that off."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from manifold.config import ConfigError, parse_config
from tests.support import MANIFOLD, stdio_upstream, test_env, write_config


async def _search(tmp_path: Path, query: str, **search: object) -> str:
    ups = {"alpha": stdio_upstream("basic_server.py", "--name", "alpha")}
    top: dict[str, object] = {"exposure": {"mode": "router"}}
    if search:
        top["search"] = search
    cfg = write_config(tmp_path / "m.yaml", ups, **top)
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(cfg)], env=test_env()
    )
    async with Client(params) as c:
        found = await c.call_tool("search_tools", {"query": query, "k": 1})
        assert not found.is_error
        return str(found.content[0].text)  # type: ignore[union-attr]


async def test_a_word_near_in_meaning_finds_the_tool(tmp_path: Path) -> None:
    text = await _search(tmp_path, "go to bed for a while")
    assert text.startswith("alpha sleep(seconds*)"), text


async def test_neighbour_weight_zero_turns_it_off(tmp_path: Path) -> None:
    text = await _search(tmp_path, "go to bed for a while", neighbour_weight=0)
    assert "sleep" not in text and "list_tools" in text, text


def test_neighbour_weight_is_checked() -> None:
    assert parse_config({}).search.neighbour_weight == 0.7
    for bad in (-0.1, 1.5, "lots"):
        with pytest.raises(ConfigError, match=r"search\.neighbour_weight"):
            parse_config({"search": {"neighbour_weight": bad}})
