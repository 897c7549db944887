"""What the search index reads from a tool's `inputSchema`: parameter names nested behind
`$ref` (models in `$defs`, as pydantic emits them) count like any other parameter name."""

from __future__ import annotations

from typing import Any

from manifold.economy.search import ToolEntry, ToolIndex

MODEL_SCHEMA: dict[str, Any] = {
    "$defs": {
        "Owner": {
            "type": "object",
            "properties": {"login": {"type": "string"}, "id": {"type": "integer"}},
            "required": ["login", "id"],
        },
        "Repo": {
            "type": "object",
            "properties": {
                "owner": {"$ref": "#/$defs/Owner"},
                "visibility": {"enum": ["public", "private"], "description": "Who sees it"},
            },
        },
    },
    "type": "object",
    "properties": {
        "repo": {"$ref": "#/$defs/Repo"},
        "assignee": {"anyOf": [{"$ref": "#/$defs/Owner"}, {"type": "null"}]},
    },
    "required": ["repo"],
}


def test_parameter_names_behind_refs_are_indexed() -> None:
    index = ToolIndex.build(
        [
            ToolEntry("tracker", "file_issue", "File an issue.", MODEL_SCHEMA),
            ToolEntry("chat", "post_message", "Post a message.", {"type": "object"}),
        ]
    )
    for query in ("owner login", "private visibility", "who sees it"):
        hits = index.search(query, 3)
        assert [h.tool for h in hits] == ["file_issue"], query
