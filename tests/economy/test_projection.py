"""Field projection: path pattern semantics, packs, keep lists, whole results."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from manifold.economy.projection import (
    PACKS,
    Dropper,
    Keeper,
    PatternError,
    compile_drop,
    project_result,
)
from tests.servers.large_server import issues_json


def drop(patterns: list[str], value: Any) -> Any:
    return Dropper(patterns).apply(value)[0]


def test_paths_are_anchored_at_the_top() -> None:
    v = {"id": 1, "a": {"id": 2, "b": {"id": 3}}}
    assert drop(["id"], v) == {"a": {"id": 2, "b": {"id": 3}}}
    assert drop(["a.id"], v) == {"id": 1, "a": {"b": {"id": 3}}}
    assert drop(["*.id"], v) == {"id": 1, "a": {"b": {"id": 3}}}
    assert drop(["*.*.id"], v) == {"id": 1, "a": {"id": 2, "b": {}}}
    assert drop(["**.id"], v) == {"a": {"b": {}}}
    assert drop(["a.**.id"], v) == {"id": 1, "a": {"b": {}}}


def test_arrays_are_transparent() -> None:
    v = {"items": [{"repository": {"owner": {"login": "o"}, "name": "r"}}, 5, [{"x": 1}]]}
    want = {"items": [{"repository": {"name": "r"}}, 5, [{"x": 1}]]}
    assert drop(["items[*].repository.owner"], v) == want
    assert drop(["items.repository.owner"], v) == want
    assert drop(["[*].a"], [{"a": 1, "b": 2}, {"a": 3}]) == [{"b": 2}, {}]
    assert drop(["a"], [{"a": 1, "b": 2}, {"a": 3}]) == [{"b": 2}, {}]


def test_globs_and_exceptions() -> None:
    v = {"html_url": "h", "avatar_url": "a", "url": "u", "user": {"events_url": "e", "x": 1}}
    assert drop(["**.*_url"], v) == {"url": "u", "user": {"x": 1}}
    assert drop(["**.*_url", "!**.html_url"], v) == {"html_url": "h", "url": "u", "user": {"x": 1}}
    assert drop(["?rl"], v) == {k: v[k] for k in v if k != "url"}


def test_keys_with_dots_and_unusual_characters_are_literal() -> None:
    assert drop(["a+b"], {"a+b": 1, "ab": 2}) == {"ab": 2}
    assert drop(["(x)"], {"(x)": 1, "x": 2}) == {"x": 2}


def test_drop_counts_and_returns_the_same_data_when_nothing_matches() -> None:
    d = Dropper(["**.gone"])
    v = {"a": [1, {"b": 2}]}
    assert d.apply(v) == (v, 0)
    assert d.apply({"gone": 1, "a": {"gone": 2}}) == ({"a": {}}, 2)


@pytest.mark.parametrize("bad", ["", "a..b", ".a", "a.", "a.**", "**"])
def test_bad_patterns(bad: str) -> None:
    with pytest.raises(PatternError):
        Dropper([bad])
    with pytest.raises(PatternError):
        Dropper(["!x"])  # exceptions alone drop nothing


def test_packs() -> None:
    assert set(PACKS) >= {"github", "jira", "urls"}
    with pytest.raises(PatternError, match="unknown drop pack"):
        compile_drop([], ["nope"])
    assert compile_drop([], []) is None
    gh = compile_drop([], ["github"])
    assert gh is not None
    issue = json.loads(issues_json(1))[0]
    out = gh.apply(issue)[0]
    assert out["html_url"] and out["number"] == 1 and out["user"]["login"] == "dev1"
    assert not [k for k in _keys(out) if k.endswith("_url") and k != "html_url"]
    assert "node_id" not in _keys(out) and "gravatar_id" not in _keys(out)
    jira = compile_drop([], ["jira"])
    assert jira is not None
    jira_issue = {
        "expand": "renderedFields,names",
        "id": "10001",
        "self": "https://x.atlassian.net/rest/api/3/issue/10001",
        "key": "PROJ-1",
        "fields": {
            "summary": "Broken",
            "status": {
                "self": "https://x/status/1",
                "iconUrl": "https://x/i.png",
                "name": "Open",
                "statusCategory": {"self": "s", "key": "new", "colorName": "blue-gray"},
            },
            "assignee": {
                "self": "https://x/user",
                "accountId": "abc",
                "avatarUrls": {"48x48": "https://x/a.png"},
                "displayName": "Ann",
                "accountType": "atlassian",
                "timeZone": "UTC",
            },
        },
    }
    assert jira.apply(jira_issue)[0] == {
        "id": "10001",
        "key": "PROJ-1",
        "fields": {
            "summary": "Broken",
            "status": {"name": "Open", "statusCategory": {"key": "new"}},
            "assignee": {"accountId": "abc", "displayName": "Ann"},
        },
    }
    urls = compile_drop([], ["urls"])
    assert urls is not None
    assert urls.apply({"url": 1, "homeUrl": 2, "_links": 3, "name": 4})[0] == {"name": 4}


def _keys(v: Any) -> list[str]:
    if isinstance(v, dict):
        return [*v, *(k for c in v.values() for k in _keys(c))]
    if isinstance(v, list):
        return [k for c in v for k in _keys(c)]
    return []


def test_keep_fields() -> None:
    issues = json.loads(issues_json(3))
    k = Keeper(["number", "title", "user.login", "labels.name"])
    out, matched = k.apply(issues)
    assert matched
    assert out[0] == {
        "number": 1,
        "title": issues[0]["title"],
        "user": {"login": "dev1"},
        "labels": [{"name": "bug"}],
    }
    # Not found at the top: found at any depth (a search result's items).
    out, matched = Keeper(["number"]).apply({"total_count": 3, "items": issues})
    assert matched and out == {"items": [{"number": 1}, {"number": 2}, {"number": 3}]}
    # Nothing matches: the value is left whole.
    assert Keeper(["nope"]).apply(issues) == (issues, False)
    assert Keeper(["a..b"]).apply(issues) == (issues, False)
    assert Keeper(["x"]).apply("scalar") == ("scalar", False)


def test_project_result_text_and_mirrored_structured_content() -> None:
    text = issues_json(2)
    result = {
        "content": [{"type": "text", "text": text}, {"type": "text", "text": "not json"}],
        "structuredContent": {"result": text},
        "isError": False,
    }
    out = project_result(result, compile_drop([], ["github"]), Keeper(["number", "title"]))
    assert out is not None
    projected = out["content"][0]["text"]
    assert json.loads(projected) == [
        {"number": 1, "title": json.loads(text)[0]["title"]},
        {"number": 2, "title": json.loads(text)[1]["title"]},
    ]
    assert out["content"][1]["text"] == "not json"
    assert out["structuredContent"] == {"result": projected}
    assert out["isError"] is False
    assert result["content"][0]["text"] == text  # the input is not changed


def test_project_result_structured_object_and_no_change() -> None:
    sc = {"rows": [{"id": 1, "node_id": "x"}]}
    result = {"content": [{"type": "text", "text": "a table"}], "structuredContent": sc}
    out = project_result(result, Dropper(["**.node_id"]), None)
    assert out is not None and out["structuredContent"] == {"rows": [{"id": 1}]}
    compact = {"content": [{"type": "text", "text": '{"a":1}'}]}
    assert project_result(compact, Dropper(["b"]), None) is None  # nothing smaller
    assert project_result({"content": "nope"}, Dropper(["b"]), None) is None
    bad = {"content": [{"type": "text", "text": '{"a": 1, oops'}]}
    assert project_result(bad, Dropper(["a"]), None) is None


def test_project_result_compacts_pretty_json() -> None:
    pretty = json.dumps({"a": [1, 2], "b": {"c": "d"}}, indent=4)
    out = project_result({"content": [{"type": "text", "text": pretty}]}, Dropper(["zz"]), None)
    assert out is not None and out["content"][0]["text"] == '{"a":[1,2],"b":{"c":"d"}}'


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["a", "b", "node_id", "x_url", "k"]), children, max_size=4
        )
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(value=JSON)
def test_deep_drop_leaves_no_matching_key(value: Any) -> None:
    out, n = Dropper(["**.node_id", "**.*_url"]).apply(value)
    keys = _keys(out)
    assert "node_id" not in keys and "x_url" not in keys
    assert len(_keys(value)) - len(keys) >= n  # dropped keys (and their subtrees) are gone
    if n == 0:
        assert out == value


@settings(max_examples=200, deadline=None)
@given(value=JSON)
def test_keep_gives_a_subset(value: Any) -> None:
    out, matched = Keeper(["a", "b.k"]).apply(value)
    if not matched:
        assert out == value
        return
    assert set(_keys(out)) <= {"a", "b", "k", "node_id", "x_url"} | set(_keys(value))
    assert orjson.dumps(out) != b"" and len(orjson.dumps(out)) <= len(orjson.dumps(value))
