"""Exposure modes through the real gateway, chosen by the client's name, the config and the
--exposure override; and the router flow a model follows (search, invoke, list)."""

from __future__ import annotations

from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from tests.support import MANIFOLD, stdio_upstream, test_env, write_config

ROUTER = {"search_tools", "list_servers", "list_tools", "invoke_tool", "read_result"}


def _config(tmp_path: Path, **exposure: object) -> Path:
    ups = {
        "alpha": stdio_upstream("basic_server.py", "--name", "alpha"),
        "beta": stdio_upstream("basic_server.py", "--name", "beta"),
    }
    return write_config(tmp_path / "m.yaml", ups, exposure=exposure or {"mode": "auto"})


async def _tool_names(cfg: Path, client: str, *extra: str) -> set[str]:
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(cfg), *extra], env=test_env()
    )
    async with Client(params, client_info=Implementation(name=client, version="1")) as c:
        return {t.name for t in (await c.list_tools()).tools}


async def test_deferring_client_gets_passthrough_others_the_router(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    native = await _tool_names(cfg, "claude-code")
    assert {"alpha__echo", "beta__add"} <= native and not (ROUTER & native)
    assert await _tool_names(cfg, "some-agent") == ROUTER


async def test_config_by_client_name_and_override_win(tmp_path: Path) -> None:
    cfg = _config(tmp_path, mode="auto", clients={"my-ide*": "hybrid"})
    hybrid = await _tool_names(cfg, "my-ide-pro")
    assert {"alpha__echo", "search_tools", "read_result"} <= hybrid
    assert "invoke_tool" not in hybrid
    # The command-line override beats the client table and the config.
    overridden = await _tool_names(cfg, "claude-code", "--exposure", "router")
    assert overridden == ROUTER
    assert "alpha__echo" in await _tool_names(cfg, "some-agent", "--exposure", "passthrough")


async def test_router_flow_search_invoke_list(tmp_path: Path) -> None:
    cfg = _config(tmp_path, mode="router")
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(cfg)], env=test_env()
    )
    async with Client(params) as c:
        found = (await c.call_tool("search_tools", {"query": "add two integers"})).content
        text = found[0].text  # type: ignore[union-attr]
        assert "alpha add(a*,b*)" in text or "beta add(a*,b*)" in text
        res = await c.call_tool(
            "invoke_tool", {"server": "beta", "tool": "add", "arguments": {"a": 20, "b": 22}}
        )
        assert res.content[0].text == "42"  # type: ignore[union-attr]
        servers = (await c.call_tool("list_servers", {})).content[0].text  # type: ignore[union-attr]
        assert "alpha: 9 tools" in servers and "beta: 9 tools" in servers
        listed = (await c.call_tool("list_tools", {"server": "alpha"})).content[0].text  # type: ignore[union-attr]
        assert "add(a*: int, b*: int): Add two integers." in listed.splitlines()
        missing = await c.call_tool("invoke_tool", {"server": "alpha", "tool": "nope"})
        assert missing.is_error and "search_tools" in missing.content[0].text  # type: ignore[union-attr]
        nothing = (await c.call_tool("search_tools", {"query": "zzzqqq"})).content[0].text  # type: ignore[union-attr]
        assert "list_tools" in nothing
        # A repeated identical result through invoke_tool is a short note in the router's terms.
        long = {"server": "alpha", "tool": "echo", "arguments": {"text": "x" * 2000}}
        await c.call_tool("invoke_tool", long)
        again = (await c.call_tool("invoke_tool", long)).content[0].text  # type: ignore[union-attr]
        assert again.startswith("Identical") and "alpha echo" in again, again
        # A namespaced name still works when called directly.
        direct = await c.call_tool("alpha__echo", {"text": "hi"})
        assert direct.content[0].text == "alpha:hi"  # type: ignore[union-attr]


async def test_auto_keeps_a_small_catalog_in_passthrough(tmp_path: Path) -> None:
    # One small server: its whole list costs less than a router would; auto passes it through.
    small = write_config(
        tmp_path / "small.yaml",
        {"only": stdio_upstream("hang_server.py")},
        exposure={"mode": "auto"},
    )
    assert await _tool_names(small, "some-agent") == {"only__pid", "only__freeze"}
    # Asked for explicitly, the router is used whatever the size.
    assert await _tool_names(small, "some-agent", "--exposure", "router") == ROUTER
