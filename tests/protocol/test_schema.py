"""The shared JSON Schema walker: local `$ref` resolution, cycles, bounds, remote references
refused (nothing fetched), malformed schemas, and the header walk that resolves nothing."""

from __future__ import annotations

import copy
import socket
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from manifold.protocol.headers import header_map, invalid_annotation
from manifold.protocol.schema import SchemaView, positions

# What pydantic 2 (through the official SDK) emits for
# `def create_issue(repo: Repo, title: str, assignee: Owner | None = None,
#                   milestone: int | None = None, tree: Node | None = None)`.
PYDANTIC: dict[str, Any] = {
    "$defs": {
        "Label": {
            "properties": {
                "name": {"title": "Name", "type": "string"},
                "color": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "title": "Color",
                },
            },
            "required": ["name"],
            "title": "Label",
            "type": "object",
        },
        "Node": {
            "properties": {
                "name": {"title": "Name", "type": "string"},
                "children": {
                    "default": [],
                    "items": {"$ref": "#/$defs/Node"},
                    "title": "Children",
                    "type": "array",
                },
            },
            "required": ["name"],
            "title": "Node",
            "type": "object",
        },
        "Owner": {
            "properties": {
                "login": {"title": "Login", "type": "string"},
                "id": {"title": "Id", "type": "integer"},
            },
            "required": ["login", "id"],
            "title": "Owner",
            "type": "object",
        },
        "Repo": {
            "properties": {
                "owner": {"$ref": "#/$defs/Owner"},
                "name": {"description": "Repository name", "title": "Name", "type": "string"},
                "labels": {
                    "default": [],
                    "items": {"$ref": "#/$defs/Label"},
                    "title": "Labels",
                    "type": "array",
                },
            },
            "required": ["owner", "name"],
            "title": "Repo",
            "type": "object",
        },
    },
    "properties": {
        "repo": {"$ref": "#/$defs/Repo"},
        "title": {"title": "Title", "type": "string"},
        "assignee": {"anyOf": [{"$ref": "#/$defs/Owner"}, {"type": "null"}], "default": None},
        "milestone": {
            "anyOf": [{"type": "integer"}, {"type": "null"}],
            "default": None,
            "title": "Milestone",
        },
        "tree": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}], "default": None},
    },
    "required": ["repo", "title"],
    "title": "create_issueArguments",
    "type": "object",
}


def _types(schema: Any) -> dict[str, str]:
    view = SchemaView(schema)
    return {p.name: view.render(p.schema) for p in view.properties()}


def test_pydantic_refs_render_as_their_types() -> None:
    before = copy.deepcopy(PYDANTIC)
    view = SchemaView(PYDANTIC)
    params = view.properties()
    assert [(p.name, p.required) for p in params] == [
        ("repo", True),
        ("title", True),
        ("assignee", False),
        ("milestone", False),
        ("tree", False),
    ]
    assert _types(PYDANTIC) == {
        "repo": "{owner*: {login*: str, id*: int}, name*: str, "
        "labels: [{name*: str, color: str|null = null}] = []}",
        "title": "str",
        "assignee": "{login*: str, id*: int}|null",
        "milestone": "int|null",
        "tree": "Node{name*: str, children: [Node] = []}|null",
    }
    assert not view.truncated
    assert before == PYDANTIC  # nothing was written into the schema


def test_nested_params_follow_refs_items_and_unions_once() -> None:
    names = [n for n, _ in SchemaView(PYDANTIC).nested_params()]
    assert names[:2] == ["repo", "owner"]
    assert sorted(names) == sorted(
        [
            *("repo", "owner", "login", "id", "name", "labels", "name", "color", "title"),
            *("assignee", "login", "id", "milestone", "tree", "name", "children"),
        ]
    )
    resolved = list(SchemaView(PYDANTIC).nested_params())
    assert resolved[0][1]["title"] == "Repo"  # the $ref's target
    assert ("name", "Repository name") in [(n, s.get("description")) for n, s in resolved]


def test_draft7_definitions_chains_siblings_allof_anchor_and_id() -> None:
    schema: dict[str, Any] = {
        "$id": "https://example.test/tool.json",
        "definitions": {
            "Id": {"$ref": "#/definitions/Int"},
            "Int": {"type": "integer"},
            "Tag": {"$anchor": "tag", "type": "string"},
        },
        "type": "object",
        "properties": {
            "a": {"$ref": "#/definitions/Id"},  # a chain of two references
            "b": {"$ref": "#/definitions/Int", "description": "beside the ref"},
            "c": {"allOf": [{"$ref": "#/definitions/Int"}]},  # older pydantic
            "d": {"$ref": "#tag"},
            "e": {"$ref": "https://example.test/tool.json#/definitions/Int"},
            "f": {"type": "array", "items": {"$ref": "#/definitions/Tag"}},
        },
    }
    assert _types(schema) == {
        "a": "int",
        "b": "int",
        "c": "int",
        "d": "str",
        "e": "int",
        "f": "[str]",
    }
    assert SchemaView(schema).deref(schema["properties"]["b"]) == {
        "type": "integer",
        "description": "beside the ref",
    }


def test_a_root_ref_and_allof_members_give_the_properties() -> None:
    schema = {
        "$defs": {
            "Base": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
            "Args": {"allOf": [{"$ref": "#/$defs/Base"}, {"properties": {"y": {}}}]},
        },
        "$ref": "#/$defs/Args",
    }
    assert [(p.name, p.required) for p in SchemaView(schema).properties()] == [
        ("x", True),
        ("y", False),
    ]


def test_cycles_stop_where_a_type_refers_to_itself() -> None:
    mutual: dict[str, Any] = {
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}},
            "Loop": {"$ref": "#/$defs/Loop"},
            "Ping": {"$ref": "#/$defs/Pong"},
            "Pong": {"$ref": "#/$defs/Ping"},
        },
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A"},
            "loop": {"$ref": "#/$defs/Loop"},
            "ping": {"$ref": "#/$defs/Ping"},
            "odd": {"type": "object", "additionalProperties": {"$ref": "#/$defs/A"}},
        },
    }
    view = SchemaView(mutual)
    assert _types(mutual) == {
        "a": "A{b: {a: A}}",
        "loop": "any",
        "ping": "any",
        "odd": '{"type":"object","additionalProperties":'
        '{"type":"object","properties":{"b":{"type":"object","properties":'
        '{"a":{"$ref":"#/$defs/A"}}}}}}',
    }
    assert view.deref(mutual["properties"]["loop"]) is None
    names = [n for n, _ in SchemaView(mutual).nested_params(max_depth=10)]
    assert names == ["a", "b", "a", "loop", "ping", "odd"]


def test_remote_refs_are_refused_and_nothing_is_fetched() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        remote = f"http://127.0.0.1:{port}/defs.json"
        schema: dict[str, Any] = {
            "$id": f"http://127.0.0.1:{port}/tool.json",
            "type": "object",
            "properties": {
                "a": {"$ref": f"{remote}#/$defs/A"},
                "b": {"$ref": "defs.json#/$defs/B"},  # relative to $id: the same server
                "c": {"anyOf": [{"$ref": remote}, {"type": "null"}]},
            },
        }
        view = SchemaView(schema)
        assert _types(schema) == {"a": "any", "b": "any", "c": "any|null"}
        assert view.deref(schema["properties"]["a"]) is None
        assert [n for n, _ in view.nested_params()] == ["a", "b", "c"]
        # Another test on this machine may connect to a port it just saw free: only a request
        # for the schema's documents counts as a fetch.
        fetched = []
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                break
            with conn:
                conn.settimeout(0.5)
                try:
                    data = conn.recv(4096)
                except OSError:
                    data = b""
            if b"defs.json" in data or b"tool.json" in data:
                fetched.append(data)
        assert not fetched, f"a remote $ref was fetched: {fetched}"


def test_depth_and_size_are_bounded() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(50):
        deep = {"type": "object", "properties": {"k": deep}, "required": ["k"]}
    view = SchemaView({"type": "object", "properties": {"d": deep}})
    text = view.render(deep)
    assert text.startswith("{k*: {k*: {k*:") and text.endswith("{…}" + "}" * 6)
    assert view.truncated

    # Each type refers twice to the next one: fully expanded, 2**40 positions.
    defs = {
        f"T{i}": {"type": "object", "properties": {"l": {"$ref": f"#/$defs/T{i + 1}"},
                                                   "r": {"$ref": f"#/$defs/T{i + 1}"}}}
        for i in range(40)
    }  # fmt: skip
    defs["T40"] = {"type": "string"}
    wide: dict[str, Any] = {
        "$defs": defs,
        "type": "object",
        "properties": {"t": {"$ref": "#/$defs/T0"}},
    }
    small = SchemaView(wide, max_depth=100, max_nodes=300)
    out = small.render(wide["properties"]["t"])
    assert small.truncated and "…" in out and len(out) < 300 * 20
    names = list(SchemaView(wide, max_depth=100, max_nodes=300).nested_params(max_depth=100))
    assert 0 < len(names) <= 300 * 2


def _schemas() -> st.SearchStrategy[Any]:
    keywords = st.sampled_from(
        ["type", "properties", "items", "anyOf", "oneOf", "allOf", "$ref", "$defs", "required",
         "enum", "default", "definitions", "additionalProperties", "$id", "$schema", "$anchor",
         "description", "x-mcp-header", "not", "prefixItems"]
    )  # fmt: skip
    refs = st.sampled_from(
        ["#", "#/$defs/a", "#/$defs/a/properties/x", "#/definitions/b", "#/properties/x",
         "#/$defs/%zz", "#/items/0", "#anchor", "http://[::1", "urn:x", ":", "#/$defs/a/0"]
    )  # fmt: skip
    leaves = st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5),
        refs, st.sampled_from(["object", "string", "integer", "array", "null", "bogus"]),
    )  # fmt: skip
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(
                st.one_of(keywords, st.sampled_from(["a", "b", "x"])), inner, max_size=5
            ),
        ),
        max_leaves=40,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schemas())
def test_malformed_schemas_never_raise(schema: Any) -> None:
    view = SchemaView(schema)
    for p in view.properties():
        assert isinstance(view.render(p.schema), str)
    assert isinstance(view.render(schema), str)
    list(SchemaView(schema).nested_params())
    list(positions(schema))
    invalid_annotation(schema)


def test_odd_values_render() -> None:
    huge = {"type": "object", "properties": {"n": {"type": "integer", "default": 2**70}}}
    view = SchemaView(huge)
    assert view.render(huge) == "{n: int = 1180591620717411303424}"
    deep: Any = "x"
    for _ in range(3000):
        deep = {"anyOf": [deep]}
    assert SchemaView(deep).render(deep).endswith("…")
    assert list(SchemaView(deep).nested_params()) == []
    assert SchemaView({"$schema": "urn:unknown", "$ref": "#/$defs/a", "$defs": {"a": {}}})
    assert _types({"$schema": "urn:unknown", "properties": {"a": {"$ref": "#/$defs/s"}},
                   "$defs": {"s": {"type": "string"}}}) == {"a": "str"}  # fmt: skip
    bad: Any
    for bad in (None, [], "x", 3, {"properties": []}, {"properties": {"a": 1}, "required": "a"}):
        assert isinstance(_types(bad), dict)


def test_header_positions_do_not_follow_refs() -> None:
    """`x-mcp-header` lives only on plain `properties` chains: one behind a `$ref` is off the
    chain (and so an invalid annotation), exactly as before the walk was shared."""
    plain = {
        "type": "object",
        "properties": {"o": {"type": "object", "properties": {"r": {"type": "string",
                                                                    "x-mcp-header": "Region"}}}},
    }  # fmt: skip
    assert invalid_annotation(plain) is None
    assert header_map(plain) == {("o", "r"): "Region"}
    behind_ref = {
        "$defs": {"R": {"type": "string", "x-mcp-header": "Region"}},
        "type": "object",
        "properties": {"r": {"$ref": "#/$defs/R"}},
    }
    assert invalid_annotation(behind_ref) == "x-mcp-header outside a plain `properties` chain"
    walked = {path for path, _ in positions(behind_ref)}
    assert walked == {(), ("r",), None}
