"""Tool overrides on a real gateway (no upstream started): the catalog hook's rewrite as the
merged catalog shows it, and the call hook's mapping back and injection in front of a terminal
that records what would go upstream."""

from __future__ import annotations

import logging
from typing import Any

import msgspec
import pytest

from manifold.catalog import Route
from manifold.config import ConfigError, parse_config
from manifold.gateway import Gateway
from manifold.middleware.overrides import Overrides
from manifold.pipeline import CallContext
from manifold.protocol.jsonrpc import Incoming
from tests.middleware.support import ctx

ISSUE = {
    "name": "create_issue",
    "description": "Create an issue.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "owner": {"type": "string"},
            "repo": {"type": "string"},
            "title": {"type": "string"},
            "body": {"type": "string"},
        },
        "required": ["owner", "repo", "title", "body"],
    },
    "annotations": {"readOnlyHint": False, "title": "Issue"},
}
OTHER = {"name": "list_issues", "description": "List.", "inputSchema": {"type": "object"}}


def gateway(overrides: dict[str, Any], **up: Any) -> Gateway:
    cfg = parse_config(
        {
            "state": {"path": ""},
            "upstreams": {"gh": {"command": "never-started", "overrides": overrides, **up}},
        }
    )
    return Gateway(cfg)


def addon(gw: Gateway) -> Overrides:
    found = [a for a in gw.hooks.addons if isinstance(a, Overrides)]
    assert len(found) == 1
    return found[0]


def arrive(gw: Gateway, *tools: dict[str, Any]) -> dict[str, dict[str, Any]]:
    items = gw.hooks.catalog("gh", "tools", [dict(t) for t in tools])
    gw.catalog.set_items("gh", "tools", items)
    return {t["name"]: t for t in gw.catalog.tools}


async def call(gw: Gateway, name: str, args: Any) -> tuple[str, Any, str]:
    seen: list[CallContext] = []

    async def terminal(c: CallContext) -> Incoming:
        seen.append(c)
        return Incoming(result=msgspec.Raw(b"{}"))

    route = gw.catalog.tool_routes[name]
    c = ctx(route.name, upstream="gh")
    c.params = {"name": route.name, "arguments": args}
    await addon(gw).call(c, terminal)
    return seen[0].params["name"], seen[0].params["arguments"], seen[0].route.name


def test_off_when_no_upstream_has_overrides() -> None:
    gw = gateway({})
    assert not [a for a in gw.hooks.addons if isinstance(a, Overrides)]


async def test_rename_schema_and_injection() -> None:
    gw = gateway(
        {
            "create_issue": {
                "rename": "new_issue",
                "description_append": "Goes to acme.",
                "annotations": {"destructiveHint": False, "title": None},
                "hide_params": ["body"],
                "fixed_args": {"owner": "acme"},
                "default_args": {"repo": "widgets", "body": "(none)"},
            }
        }
    )
    tools = arrive(gw, ISSUE, OTHER)
    assert set(tools) == {"gh__new_issue", "gh__list_issues"}
    t = tools["gh__new_issue"]
    assert t["description"] == "Create an issue.\n\nGoes to acme."
    assert t["annotations"] == {"readOnlyHint": False, "destructiveHint": False}
    assert t["inputSchema"]["properties"] == {
        "repo": {"type": "string", "default": "widgets"},
        "title": {"type": "string"},
    }
    assert t["inputSchema"]["required"] == ["title"]
    assert tools["gh__list_issues"] == {**OTHER, "name": "gh__list_issues"}
    # The upstream's own definition is not changed in place.
    assert ISSUE["inputSchema"]["required"] == ["owner", "repo", "title", "body"]

    name, args, route = await call(gw, "gh__new_issue", {"title": "t", "owner": "x", "body": "b"})
    assert (name, route) == ("create_issue", "create_issue")
    assert args == {"repo": "widgets", "body": "(none)", "title": "t", "owner": "acme"}
    _, args, _ = await call(gw, "gh__new_issue", {"title": "t", "repo": "gears"})
    assert args == {"repo": "gears", "body": "(none)", "title": "t", "owner": "acme"}
    _, args, _ = await call(gw, "gh__new_issue", None)
    assert args == {"repo": "widgets", "body": "(none)", "owner": "acme"}
    # A tool without a call plan passes untouched.
    name, args, _ = await call(gw, "gh__list_issues", {"x": 1})
    assert (name, args) == ("list_issues", {"x": 1})


def test_description_replaced_and_filters_use_the_upstream_name() -> None:
    gw = gateway(
        {"create_issue": {"rename": "file_bug", "description": "File a bug."}},
        tools={"allow": ["create_issue"]},
    )
    tools = arrive(gw, ISSUE, OTHER)
    assert list(tools) == ["gh__file_bug"]
    assert tools["gh__file_bug"]["description"] == "File a bug."


def test_problems_are_warnings_not_crashes(caplog: pytest.LogCaptureFixture) -> None:
    gw = gateway(
        {
            "create_issue": {"rename": "list_issues", "fixed_args": {"nope": 1}},
            "missing": {"description": "x"},
            "list_issues": {"hide_params": ["q"]},
        }
    )
    with caplog.at_level(logging.WARNING, "manifold.overrides"):
        tools = arrive(gw, ISSUE, OTHER)
    text = caplog.text
    assert "overrides for 'missing': it has no such tool" in text
    assert "cannot rename 'create_issue' to 'list_issues': it has a tool of that name" in text
    assert "fixed_args names 'nope', which its schema does not have" in text
    assert "tool 'list_issues' has no schema properties to override" in text
    assert {"gh__create_issue", "gh__list_issues"} == set(tools)


def test_hidden_required_without_value_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    gw = gateway({"create_issue": {"hide_params": ["body"]}})
    with caplog.at_level(logging.WARNING, "manifold.overrides"):
        arrive(gw, ISSUE)
    assert "hidden parameter 'body' is required and has no value" in caplog.text


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"a": {"rename": "x"}, "b": {"rename": "x"}},
            "'a' and 'b' are both renamed to 'x'",
        ),
        ({"a": {"fixed_args": {"k": 1}, "default_args": {"k": 2}}}, "k: both fixed_args"),
        ({"a": {"rename": "bad name"}}, "upstreams.gh.overrides.a.rename"),
        ({"a": {"renmae": "x"}}, "unknown key (did you mean 'rename'?)"),
    ],
)
def test_bad_override_config_names_the_key(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=None) as e:
        gateway(overrides)
    assert message in str(e.value)


def test_renamed_tool_keeps_its_header_map_under_its_own_name() -> None:
    """`x-mcp-header` parameters are mirrored as headers by the router, which sees the
    upstream's own name once the call hook has mapped it back."""
    tool = {
        "name": "get",
        "inputSchema": {
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
        },
    }
    gw = gateway({"get": {"rename": "fetch"}})
    arrive(gw, tool)
    assert gw.catalog.upstream_header_maps[Route("gh", "get")] == {("region",): "Region"}
