"""Argument validation (security/validate.py): the addon's catalog and call hooks, driven through
the hook registry as the gateway drives them, around a terminal that counts what would leave."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import msgspec
import pytest
from pydantic import BaseModel

from manifold.catalog import Catalog, Route
from manifold.config import (
    ConfigError,
    GatewayConfig,
    SecurityConfig,
    ValidationConfig,
    parse_config,
)
from manifold.hooks import Hooks
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security import validate
from manifold.security.validate import ArgumentValidator
from tests.middleware.support import Sink

OK = b'{"content":[{"type":"text","text":"ok"}]}'

WRITE = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "mode": {"enum": ["w", "a"]},
        "opts": {
            "type": "object",
            "properties": {"lines": {"type": "integer", "minimum": 0}},
            "required": ["lines"],
        },
    },
    "required": ["path"],
    "additionalProperties": False,
}


class Rig:
    """A validator registered in a `Hooks`, a terminal that records the arguments it gets."""

    def __init__(self, tools: list[dict[str, Any]], max_validators: int = 4096) -> None:
        self.addon = ArgumentValidator(ValidationConfig(max_validators=max_validators))
        self.hooks = Hooks([self.addon])
        self.sent: list[Any] = []
        self.chain = self.hooks.call_chain(self.terminal)
        self.list(tools)

    def list(self, tools: list[dict[str, Any]], upstream: str = "up") -> None:
        self.hooks.catalog(upstream, "tools", tools)

    async def terminal(self, ctx: CallContext) -> rpc.Incoming:
        self.sent.append(ctx.params.get("arguments"))
        return rpc.Incoming(result=msgspec.Raw(OK))

    def call(self, tool: str, args: Any = None, upstream: str = "up", omit: bool = False) -> Any:
        params: dict[str, Any] = {"name": tool}
        if not omit:
            params["arguments"] = args
        ctx = CallContext(
            "tools/call", params, Route(upstream, tool), f"{upstream}__{tool}", Sink(), None
        )
        return bytes(memoryview(asyncio.run(self.chain(ctx)).result))

    def refused(self, tool: str, args: Any = None, **kw: Any) -> rpc.RpcError:
        n = len(self.sent)
        with pytest.raises(rpc.RpcError) as info:
            self.call(tool, args, **kw)
        assert len(self.sent) == n, "a refused call left the gateway"
        err = info.value
        assert err.code == rpc.INVALID_PARAMS
        assert err.message.startswith("validation: invalid arguments for tool ")
        assert err.data["mechanism"] == "validation"
        return err


def tool(name: str, schema: Any) -> dict[str, Any]:
    return {"name": name, "description": name, "inputSchema": schema}


def test_valid_call_passes_unchanged() -> None:
    rig = Rig([tool("write", WRITE)])
    args = {"path": "/tmp/a", "mode": "a", "opts": {"lines": 3}}
    assert rig.call("write", args) == OK
    assert rig.sent == [args]


def test_wrong_type_is_refused_with_path_and_message() -> None:
    rig = Rig([tool("write", WRITE)])
    err = rig.refused("write", {"path": 12})
    assert 'at /path: 12 is not of type "string"' in err.message
    assert err.data["errors"] == [{"path": "/path", "message": '12 is not of type "string"'}]
    assert err.data["tool"] == "up__write"


def test_missing_required_and_missing_arguments() -> None:
    rig = Rig([tool("write", WRITE)])
    err = rig.refused("write", {"mode": "w"})
    assert 'at (root): "path" is a required property' in err.message
    # No `arguments` at all validates as {}: still missing `path`.
    assert "required" in rig.refused("write", omit=True).message
    # A tool that needs nothing accepts a call without arguments.
    rig.list([tool("ping", {"type": "object", "properties": {}})])
    assert rig.call("ping", omit=True) == OK


def test_additional_properties_enum_nested() -> None:
    rig = Rig([tool("write", WRITE)])
    assert "'extra' was unexpected" in rig.refused("write", {"path": "p", "extra": 1}).message
    assert "/mode" in rig.refused("write", {"path": "p", "mode": "x"}).message
    err = rig.refused("write", {"path": "p", "opts": {"lines": -1}})
    assert err.data["errors"][0]["path"] == "/opts/lines"
    assert "/opts" in rig.refused("write", {"path": "p", "opts": {}}).message
    assert rig.sent == []


def test_arguments_that_are_not_an_object() -> None:
    rig = Rig([tool("write", WRITE)])
    assert 'is not of type "object"' in rig.refused("write", ["p"]).message


def test_several_errors_are_reported_up_to_the_bound() -> None:
    many = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(10)}}
    rig = Rig([tool("many", many)])
    err = rig.refused("many", {f"p{i}": "x" for i in range(10)})
    assert len(err.data["errors"]) == validate.MAX_ERRORS


def test_long_instance_is_cut_in_the_message() -> None:
    rig = Rig([tool("write", WRITE)])
    err = rig.refused("write", {"path": ["x" * 5000]})
    assert len(err.message) < 400
    assert len(err.data["errors"][0]["message"]) <= validate.MAX_ERROR_CHARS


class Address(BaseModel):
    street: str
    zip: int


class Person(BaseModel):
    name: str
    home: Address
    others: list[Address] = []


def test_ref_and_defs_from_a_pydantic_schema() -> None:
    schema = Person.model_json_schema()
    assert "$defs" in schema and "$ref" in str(schema)
    rig = Rig([tool("person", schema)])
    ok = {"name": "a", "home": {"street": "s", "zip": 1}, "others": [{"street": "t", "zip": 2}]}
    assert rig.call("person", ok) == OK
    err = rig.refused("person", {**ok, "others": [{"street": "t", "zip": "two"}]})
    assert err.data["errors"][0]["path"] == "/others/0/zip"


def test_draft_07_when_schema_says_so() -> None:
    # Draft-07's array form of `items` validates positions; 2020-12 has no such form.
    d7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}
        },
        "definitions": {"n": {"type": "number"}},
        "dependencies": {"pair": ["n"]},
    }
    rig = Rig([tool("d7", d7)])
    assert rig.call("d7", {"pair": ["a", 1], "n": 2}) == OK
    assert rig.refused("d7", {"pair": ["a", "b"], "n": 2}).data["errors"][0]["path"] == "/pair/1"
    assert "n" in rig.refused("d7", {"pair": ["a", 1]}).message  # draft-07 `dependencies`


def test_default_draft_is_2020_12() -> None:
    schema = {
        "type": "object",
        "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}]}},
    }
    rig = Rig([tool("t", schema)])
    assert rig.refused("t", {"pair": [1]}).data["errors"][0]["path"] == "/pair/0"


def test_uncompilable_schema_passes_unvalidated_and_is_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bad = {"type": "object", "properties": {"a": {"type": "no-such-type"}}}
    remote = {"type": "object", "properties": {"a": {"$ref": "https://example.invalid/s.json"}}}
    dangling = {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}
    rig = Rig(
        [
            tool("bad", bad),
            tool("remote", remote),
            tool("dangling", dangling),
            tool("list", ["not", "an", "object"]),
            tool("write", WRITE),
        ]
    )
    with caplog.at_level(logging.WARNING, "manifold.security.validate"):
        for _ in range(3):
            assert rig.call("bad", {"a": 1}) == OK
            assert rig.call("remote", {"a": 1}) == OK
            assert rig.call("dangling", {"a": 1}) == OK
            assert rig.call("list", {"a": 1}) == OK
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 4, warnings
    assert "up/bad" in warnings[0] and "unvalidated" in warnings[0]
    assert "up/remote" in warnings[1] and "up/dangling" in warnings[2]
    assert "up/list" in warnings[3] and "not an object" in warnings[3]
    rig.refused("write", {})  # the other tools of the list are still checked


def test_unknown_tool_and_other_methods_pass() -> None:
    rig = Rig([tool("write", WRITE)])
    assert rig.call("nope", {"path": 1}) == OK  # the upstream answers unknown tools
    ctx = CallContext("prompts/get", {"name": "write"}, Route("up", "write"), "w", Sink(), None)
    assert bytes(memoryview(asyncio.run(rig.chain(ctx)).result)) == OK


def test_a_new_definition_replaces_the_old_validator() -> None:
    rig = Rig([tool("write", WRITE)])
    rig.refused("write", {"path": "p", "extra": 1})
    rig.list([tool("write", {**WRITE, "additionalProperties": True})])
    assert rig.call("write", {"path": "p", "extra": 1}) == OK
    # Another upstream's list leaves this one's alone.
    rig.list([tool("write", {"type": "object", "properties": {}})], upstream="other")
    rig.refused("write", {})
    # A tool that is gone is no longer validated (the upstream answers for it).
    rig.list([])
    assert rig.call("write", {}) == OK


def test_an_unchanged_list_keeps_its_compiled_validators() -> None:
    rig = Rig([tool("write", WRITE)])
    v = rig.addon.validator(Route("up", "write"))
    rig.list([tool("write", dict(WRITE))])  # the same definition, arrived again
    assert rig.addon.validator(Route("up", "write")) is v


def test_the_cache_is_bounded() -> None:
    tools = [tool(f"t{i}", {"type": "object", "required": ["x"]}) for i in range(10)]
    rig = Rig(tools, max_validators=3)
    for i in range(10):
        rig.refused(f"t{i}", {})
        assert len(rig.addon._cache) <= 3
    rig.refused("t0", {})  # evicted, compiled again


def test_build_follows_the_config() -> None:
    class Host:
        def __init__(self, enabled: bool) -> None:
            self.config = GatewayConfig(
                security=SecurityConfig(validation=ValidationConfig(enabled=enabled))
            )
            self.catalog = Catalog(self.config)

    assert isinstance(validate.build(Host(True)), ArgumentValidator)
    assert validate.build(Host(False)) is None
    assert GatewayConfig().security.validation.enabled is True  # on by default


def test_config_bounds_are_checked() -> None:
    with pytest.raises(ValueError, match="max_validators"):
        ValidationConfig(max_validators=0)
    with pytest.raises(ValueError, match="pattern_backtrack_limit"):
        ValidationConfig(pattern_backtrack_limit=10**9)
    with pytest.raises(ValueError, match="max_validator"):
        SecurityConfig.from_data({"validation": {"max_validator": 5}})  # a typo: refused


def test_format_is_not_asserted_in_any_draft() -> None:
    d7 = {"$schema": "http://json-schema.org/draft-07/schema#", "format": "email"}
    rig = Rig([tool("d7", {**d7, "type": "object"}), tool("d12", {"format": "email"})])
    assert rig.call("d7", {}) == OK
    rig.list([tool("mail", {**d7, "properties": {"to": {"type": "string", "format": "email"}}})])
    assert rig.call("mail", {"to": "not an address"}) == OK  # the upstream decides


def test_a_backtracking_pattern_is_cut_off_and_the_value_refused() -> None:
    # Lookahead needs the backtracking engine; nested alternation makes it exponential.
    hostile = {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": "^(a|a)*(?=b)$"}},
    }
    lookahead = {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": "^(?=.*\\d)\\w+$"}},
    }
    rig = Rig([tool("hostile", hostile), tool("lookahead", lookahead)])
    err = rig.refused("hostile", {"s": "a" * 5000 + "!"})
    assert err.data["errors"][0]["path"] == "/s"
    assert "backtracking" in err.data["errors"][0]["message"]
    assert rig.call("lookahead", {"s": "abc1"}) == OK
    assert "/s" in rig.refused("lookahead", {"s": "abc"}).message


def test_config_errors_name_the_key() -> None:
    ups = {"a": {"command": "server"}}
    with pytest.raises(ConfigError, match=r"security\.validation\.max_validators"):
        parse_config({"security": {"validation": {"max_validators": 0}}, "upstreams": ups})
    with pytest.raises(ConfigError, match=r"security\.validation\.enable"):
        parse_config({"security": {"validation": {"enable": False}}, "upstreams": ups})
    cfg = parse_config({"security": {"validation": {"enabled": False}}, "upstreams": ups})
    assert cfg.security.validation.enabled is False


FLAT = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "where"},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "tags": {"type": ["array", "null"]},
        "any": {"description": "anything"},
    },
    "required": ["path"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("args", "where"),
    [
        ({"path": 12}, "/path"),
        ({"count": 1}, "(root)"),  # required `path` missing
        ({"path": "a", "count": True}, "/count"),  # a bool is not an integer
        ({"path": "a", "count": 1.5}, "/count"),
        ({"path": "a", "ratio": "1"}, "/ratio"),
        ({"path": "a", "tags": "x"}, "/tags"),
        ({"path": "a", "other": 1}, "(root)"),  # additionalProperties: false
        ([1], "(root)"),
    ],
)
def test_a_flat_schema_still_refuses_what_does_not_match(args: Any, where: str) -> None:
    """The fast path for flat schemas only ever passes a call: everything else is decided (and
    worded) by the compiled validator."""
    rig = Rig([tool("flat", FLAT)])
    err = rig.refused("flat", args)
    assert err.data["errors"][0]["path"] == where


def test_a_flat_schema_passes_plainly_valid_calls_and_integral_floats() -> None:
    rig = Rig([tool("flat", FLAT)])
    for args in (
        {"path": "a"},
        {"path": "a", "count": 3, "ratio": 0.5, "tags": None, "any": {"x": [1]}},
        {"path": "a", "count": 2.0},  # JSON Schema: 2.0 is an integer (the library says so)
        {"path": "a", "tags": ["x"]},
    ):
        assert rig.call("flat", args) == OK
    assert len(rig.sent) == 4


def test_plainly_valid_calls_never_load_the_schema_library() -> None:
    """The validation library costs memory: a gateway whose tools have flat schemas and get
    valid calls never imports it; the first call that needs it does."""
    import subprocess
    import sys
    from pathlib import Path

    code = """
import sys
from tests.security.test_validate import Rig, tool, FLAT, OK
rig = Rig([tool("flat", FLAT), tool("open", {"type": "object", "additionalProperties": True})])
for i in range(100):
    assert rig.call("flat", {"path": str(i), "count": i}) == OK
    assert rig.call("open", {"anything": [i]}) == OK
assert "jsonschema_rs" not in sys.modules, "loaded for plainly valid calls"
rig.refused("flat", {"path": 1})
assert "jsonschema_rs" in sys.modules
"""
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
