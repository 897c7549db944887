"""Tools generated from pydantic models (`$defs`/`$ref` in their schemas) through the router of
the real gateway: `list_tools` shows their real parameter types, `search_tools` finds them by
nested parameter names, and `invoke_tool` passes nested arguments through."""

from __future__ import annotations

from pathlib import Path

from mcp import Client, StdioServerParameters

from tests.support import MANIFOLD, stdio_upstream, test_env, write_config


async def test_pydantic_tools_through_the_router(tmp_path: Path) -> None:
    ups = {
        "models": stdio_upstream("models_server.py"),
        "basic": stdio_upstream("basic_server.py", "--name", "basic"),
    }
    cfg = write_config(tmp_path / "m.yaml", ups, exposure={"mode": "router"})
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(cfg)], env=test_env()
    )
    async with Client(params) as c:
        listed = await c.call_tool("list_tools", {"server": "models"})
        lines = listed.content[0].text.splitlines()  # type: ignore[union-attr]
        assert sorted(lines) == [
            "file_issue(repo*: {owner*: {login*: str, id*: int}, name*: str, "
            "labels: [{name*: str, color: str|null = null}] = []}, title*: str, "
            "assignee: {login*: str, id*: int}|null = null, milestone: int|null = null): "
            "File an issue.",
            "plant(root*: Node{name*: str, children: [Node] = []}): "
            "Plant a tree and count its nodes.",
        ]

        # Words that only the nested models' parameters carry find the tools.
        found = await c.call_tool("search_tools", {"query": "owner login", "k": 3})
        text = found.content[0].text  # type: ignore[union-attr]
        assert text.splitlines()[0] == "models file_issue(repo*,title*,assignee,milestone)"
        found = await c.call_tool("search_tools", {"query": "children", "k": 3})
        first = found.content[0].text.splitlines()[0]  # type: ignore[union-attr]
        assert first == "models plant(root*): Plant a tree and count its nodes"

        args = {
            "repo": {
                "owner": {"login": "ada", "id": 1},
                "name": "engine",
                "labels": [{"name": "x"}],
            },
            "title": "Overflow",
            "assignee": {"login": "bob", "id": 2},
        }
        res = await c.call_tool(
            "invoke_tool", {"server": "models", "tool": "file_issue", "arguments": args}
        )
        assert res.content[0].text == "ada/engine: Overflow (for bob, 1 labels)"  # type: ignore[union-attr]
