import logging

import pytest

from manifold.economy.router_tools import signature, summary, tool_line, type_text


def test_summary_is_the_first_clause_cut_at_a_word() -> None:
    assert summary("Create an issue. Then more.") == "Create an issue"
    long = "Search the code of every repository the token can see with a query language"
    out = summary(long, 30)
    assert len(out) <= 30 and not out.endswith(" ")


def test_signature_stars_required_arguments() -> None:
    schema = {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"]}
    assert signature(schema) == "a*,b"
    assert signature(None) == ""


def test_type_text() -> None:
    assert type_text({"type": "string", "description": "x"}) == "str"
    assert type_text({"enum": ["open", "closed"]}) == "open|closed"
    assert type_text({"type": "array", "items": {"type": "integer"}}) == "[int]"
    nested = {"type": "object", "properties": {"k": {"type": "string", "title": "K"}}}
    assert type_text(nested) == "{k: str}"
    assert type_text({"anyOf": [{"type": "integer"}, {"type": "null"}]}) == "int|null"
    # What has no short form stays compact JSON Schema, without titles and descriptions.
    dated = {"type": "string", "format": "date-time", "title": "When"}
    assert type_text(dated) == '{"type":"string","format":"date-time"}'


def test_tool_line_keeps_what_a_model_needs() -> None:
    tool = {
        "name": "list_issues",
        "description": "List issues\n  of a repository.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "repo": {"type": "string", "description": "The repo parameter."},
                "state": {"enum": ["open", "closed"], "default": "open"},
                "limit": {"type": "integer", "description": "At most this many."},
            },
            "required": ["repo"],
        },
    }
    assert tool_line(tool) == (
        'list_issues(repo*: str, state: open|closed = "open", limit: int (At most this many.)): '
        "List issues of a repository."
    )


def test_tool_line_unfolds_refs_within_its_bounds(caplog: pytest.LogCaptureFixture) -> None:
    org = {"type": "object", "properties": {"name": {"type": "string"}}}
    owner = {
        "type": "object",
        "properties": {"login": {"type": "string"}, "org": {"$ref": "#/$defs/Org"}},
        "required": ["login"],
    }
    tool = {
        "name": "assign",
        "inputSchema": {
            "$defs": {"Owner": owner, "Org": org},
            "type": "object",
            "properties": {"who": {"$ref": "#/$defs/Owner", "description": "The assignee"}},
        },
    }
    assert tool_line(tool) == "assign(who: {login*: str, org: {name: str}} (The assignee))"
    with caplog.at_level(logging.INFO, "manifold"):
        assert tool_line(tool, max_depth=1) == "assign(who: {login*: str, org: {…}} (The assignee))"
        assert tool_line(tool, max_nodes=1) == "assign(who: … (The assignee))"
    assert [r.getMessage().count("cut short") for r in caplog.records] == [1, 1]
