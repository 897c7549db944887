"""Tool overrides through the real `manifold run`, driven by the official `mcp` client.

The upstream (`recorder_server.py --issue-tool`) records every call it receives, so the test sees
what reached it: the upstream's own tool name and the injected arguments. What a user must see:
the renamed, re-described, re-annotated tool with its hidden and fixed parameters gone from the
schema, the same tool in `search_tools`, and calls that reach the upstream under its own name
with the fixed value (whatever the client sent) and the default (when the client sent none).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from tests.support import MANIFOLD, stdio_upstream, test_env, write_config

pytestmark = pytest.mark.timeout(120)


def _text(res: Any) -> str:
    return "\n".join(c.text for c in res.content if isinstance(c, types.TextContent))


def _config(tmp_path: Path) -> Path:
    gh = stdio_upstream(
        "recorder_server.py",
        "--name",
        "gh",
        "--issue-tool",
        # Filters name the upstream's own tools: `hold` stays visible under its new name.
        tools={"allow": ["create_issue", "echo", "stats", "hold"]},
        overrides={
            "create_issue": {
                "rename": "new_issue",
                "description_append": "Issues always go to acme.",
                "annotations": {"destructiveHint": False, "openWorldHint": None},
                "hide_params": ["body"],
                "fixed_args": {"owner": "acme"},
                "default_args": {"repo": "widgets"},
            },
            "echo": {"description": "Say it back."},
            "hold": {"rename": "wait", "fixed_args": {"no_such_param": 1}},
            "no_such_tool": {"description": "never shown"},
        },
    )
    return write_config(tmp_path / "gw.yaml", {"gh": gh}, exposure={"mode": "hybrid"})


async def test_overrides_in_list_search_and_calls(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    log = tmp_path / "gw.log"
    params = StdioServerParameters(
        command=MANIFOLD,
        args=["run", "--config", str(cfg), "--log-level", "info"],
        env=test_env(),
    )
    with log.open("w") as errlog:
        async with asyncio.timeout(90), Client(stdio_client(params, errlog=errlog)) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert "gh__create_issue" not in tools and "gh__hold" not in tools
            assert "gh__noisy" not in tools  # still filtered by its own name
            issue = tools["gh__new_issue"]
            assert (
                issue.description == "Create an issue in a repository.\n\nIssues always go to acme."
            )
            ann = (
                issue.annotations.model_dump(by_alias=True, exclude_none=True)
                if issue.annotations
                else {}
            )
            assert ann == {"readOnlyHint": False, "destructiveHint": False}
            schema = issue.input_schema
            assert set(schema["properties"]) == {"repo", "title", "labels"}
            assert schema["properties"]["repo"]["default"] == "widgets"
            assert schema["required"] == ["title"]
            assert tools["gh__echo"].description == "Say it back."
            assert "gh__wait" in tools

            found = _text(await c.call_tool("search_tools", {"query": "create a new issue"}))
            assert "new_issue" in found and "create_issue" not in found, found

            # The client tries to set the fixed owner and the hidden body: neither gets through.
            res = await c.call_tool(
                "gh__new_issue", {"title": "bug", "owner": "evil", "body": "secret"}
            )
            assert _text(res) == "issue acme/widgets: bug"
            res = await c.call_tool("gh__new_issue", {"title": "two", "repo": "gears"})
            assert _text(res) == "issue acme/gears: two"
            assert _text(await c.call_tool("gh__wait", {"seconds": 0})) == "gh held 0.0"
            stats = json.loads(_text(await c.call_tool("gh__stats", {})))
            seen = [x for x in stats["calls"] if x["name"] != "stats"]
            assert seen == [
                {
                    "name": "create_issue",
                    "arguments": {"repo": "widgets", "title": "bug", "owner": "acme"},
                },
                {
                    "name": "create_issue",
                    "arguments": {"repo": "gears", "title": "two", "owner": "acme"},
                },
                {"name": "hold", "arguments": {"seconds": 0, "no_such_param": 1}},
            ]
    text = log.read_text()
    assert "overrides for 'no_such_tool': it has no such tool" in text
    assert "fixed_args names 'no_such_param', which its schema does not have" in text


async def test_overrides_through_the_router_tools(tmp_path: Path) -> None:
    """In router exposure the model sees the tool through list_tools and calls it through
    invoke_tool: the same name, schema and injected arguments."""
    cfg = _config(tmp_path)
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(cfg), "--exposure", "router"], env=test_env()
    )
    async with asyncio.timeout(90), Client(params) as c:
        listed = _text(await c.call_tool("list_tools", {"server": "gh"}))
        line = next(ln for ln in listed.splitlines() if ln.startswith("new_issue("))
        assert "owner" not in line and "body" not in line and "title*" in line, line
        assert "Issues always go to acme." in line
        assert "create_issue" not in listed
        call = {"server": "gh", "tool": "new_issue", "arguments": {"title": "r", "owner": "x"}}
        assert _text(await c.call_tool("invoke_tool", call)) == "issue acme/widgets: r"
        old = await c.call_tool("invoke_tool", {"server": "gh", "tool": "create_issue"})
        assert old.is_error and "No tool 'create_issue'" in _text(old)


async def test_validation_checks_what_the_upstream_will_receive(tmp_path: Path) -> None:
    """Argument validation (on by default) of an overridden tool: a call that omits a required
    parameter the override fixes or defaults is valid (the client's schema does not have it), and
    a renamed tool's arguments are checked against its upstream's schema like any other's."""
    gh = stdio_upstream(
        "recorder_server.py",
        "--name",
        "gh",
        "--issue-tool",
        overrides={
            "create_issue": {"fixed_args": {"owner": "acme"}, "default_args": {"repo": "w"}},
            "echo": {"rename": "say"},
        },
    )
    cfg = write_config(tmp_path / "gw.yaml", {"gh": gh})
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(cfg)], env=test_env()
    )
    async with asyncio.timeout(90), Client(params) as c:
        res = await c.call_tool("gh__create_issue", {"title": "bug"})
        assert _text(res) == "issue acme/w: bug"
        for bad in ({"text": 5}, {"text": ["x"]}):
            with pytest.raises(MCPError) as err:
                await c.call_tool("gh__say", bad)
            assert err.value.code == types.INVALID_PARAMS and "validation" in str(err.value)
        assert _text(await c.call_tool("gh__say", {"text": "hi"})) == "gh:hi"
        stats = json.loads(_text(await c.call_tool("gh__stats", {})))
        assert [x["name"] for x in stats["calls"] if x["name"] != "stats"] == [
            "create_issue",
            "echo",
        ]
