"""The resilience settings an upstream ends up with, and what a tool's annotations and the
config's tool globs make of it (safe to retry, cacheable, a breaker of its own)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from manifold.catalog import Catalog
from manifold.config import ConfigError, GatewayConfig, parse_config
from manifold.protocol import jsonrpc as rpc
from manifold.resilience.policy import Policy, transient
from manifold.upstream import errors
from manifold.upstream.session import UpstreamError


class Host:
    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.catalog = Catalog(config)


def config(**top: Any) -> GatewayConfig:
    ups = top.pop("upstreams", {"a": {"command": "x"}})
    return parse_config({"upstreams": ups, **top})


def tool(name: str, **annotations: Any) -> dict[str, Any]:
    t: dict[str, Any] = {"name": name, "inputSchema": {"type": "object"}}
    if annotations:
        t["annotations"] = annotations
    return t


def test_an_upstream_overrides_the_defaults_key_by_key() -> None:
    cfg = config(
        resilience={"retry": {"enabled": True, "attempts": 4}, "breaker": {"enabled": True}},
        upstreams={
            "a": {"command": "x", "resilience": {"retry": {"attempts": 2}}},
            "b": {"command": "x", "resilience": {"breaker": {"enabled": False}}},
            "c": {"command": "x"},
        },
    )
    p = Policy(Host(cfg))
    assert (p.settings["a"].retry.enabled, p.settings["a"].retry.attempts) == (True, 2)
    assert p.settings["a"].breaker.enabled
    assert p.settings["b"].retry.attempts == 4 and not p.settings["b"].breaker.enabled
    assert p.settings["c"].retry.attempts == 4 and p.settings["c"].breaker.enabled
    assert p.any_on("retry") and not p.any_on("cache")


def test_annotations_and_tool_globs_decide_what_is_safe() -> None:
    cfg = config(
        upstreams={
            "a": {
                "command": "x",
                "resilience": {
                    "tools": {
                        "get_secret": {"cache": False},
                        "get_*": {"cache_ttl": 5, "breaker": True},
                        "put_*": {"retry": True},
                        "search": {"retry": False},
                    }
                },
            }
        }
    )
    host = Host(cfg)
    host.catalog.set_items(
        "a",
        "tools",
        [
            tool("get_user", readOnlyHint=True),
            tool("get_secret", readOnlyHint=True),
            tool("put_file"),
            tool("delete", idempotentHint=True),
            tool("search", readOnlyHint=True),
            tool("create"),
            tool("odd", readOnlyHint="yes"),
        ],
    )
    p = Policy(host)
    f = p.facts("a", "tools/call", "get_user")
    assert (f.retry_safe, f.cacheable, f.cache_ttl, f.own_breaker) == (True, True, 5, True)
    f = p.facts("a", "tools/call", "get_secret")  # the first matching glob wins
    assert (f.retry_safe, f.cacheable, f.cache_ttl, f.own_breaker) == (True, False, None, False)
    assert p.facts("a", "tools/call", "put_file").retry_safe
    assert not p.facts("a", "tools/call", "put_file").cacheable
    f = p.facts("a", "tools/call", "delete")  # idempotent: repeatable, but it writes
    assert f.retry_safe and not f.cacheable
    f = p.facts("a", "tools/call", "search")
    assert not f.retry_safe and f.cacheable
    assert not p.facts("a", "tools/call", "create").retry_safe
    assert not p.facts("a", "tools/call", "odd").retry_safe  # only a real true counts
    assert not p.facts("a", "tools/call", "unknown").retry_safe
    for method in ("resources/read", "prompts/get", "completion/complete"):
        assert p.facts("a", method, "x").retry_safe
    # New annotations after a catalog change are read again.
    host.catalog.set_items("a", "tools", [tool("create", readOnlyHint=True)])
    assert p.facts("a", "tools/call", "create").retry_safe


def test_which_failures_are_transient() -> None:
    assert transient(errors.timed_out("a", "slow"))
    assert transient(errors.unavailable("a", "down"))
    assert not transient(errors.busy("a", "full"))
    assert transient(UpstreamError(rpc.INTERNAL_ERROR, "boom"))
    assert transient(UpstreamError(-32050, "server error"))
    assert not transient(UpstreamError(rpc.INVALID_PARAMS, "bad arguments"))
    assert not transient(rpc.RpcError(rpc.INVALID_PARAMS, "bad"))


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"resilience": {"retry": {"atempts": 3}}}, "resilience.retry.atempts: unknown key"),
        ({"resilience": {"retry": {"attempts": 0}}}, "resilience.retry.attempts"),
        ({"resilience": {"breaker": {"failure_ratio": 2}}}, "resilience.breaker.failure_ratio"),
        ({"resilience": {"cache": {"max_bytes": 10}}}, "resilience.cache.max_bytes"),
        (
            {"upstreams": {"a": {"command": "x", "resilience": {"tools": {"t": {"retry": 3}}}}}},
            "upstreams.a.resilience.tools.t.retry",
        ),
        (
            {"upstreams": {"a": {"url": "http://h/mcp", "count": 2}}},
            "upstreams.a: 'count' runs identical stdio processes",
        ),
        (
            {"upstreams": {"a": {"command": "x", "replicas": [{"url": "http://h/mcp"}]}}},
            "upstreams.a: replicas[0]: url does not fit a stdio upstream",
        ),
        ({"upstreams": {"a": {"command": "x", "count": 0}}}, "upstreams.a.count"),
        ({"resilience": {"replicas": {"balance": "random"}}}, "resilience.replicas.balance"),
    ],
)
def test_a_bad_setting_is_an_error_naming_the_key(data: dict[str, Any], where: str) -> None:
    data.setdefault("upstreams", {"a": {"command": "x"}})
    with pytest.raises(ConfigError, match=re.escape(where)):
        parse_config(data)


def test_unknown_resilience_key_suggests_the_right_one() -> None:
    with pytest.raises(ConfigError, match="did you mean 'attempts'"):
        parse_config({"resilience": {"retry": {"atempts": 3}}})


def test_replicas_take_the_upstream_config_with_the_keys_that_differ(tmp_path: Any) -> None:
    from manifold.config import load_config

    path = tmp_path / "m.yaml"
    path.write_text(
        "upstreams:\n"
        "  a: {command: srv, args: [--port, '1'], cwd: work, timeout: 5, count: 1,\n"
        "      replicas: [{args: [--port, '2']}, {cwd: other}]}\n"
        "  b: {command: srv, count: 3}\n"
    )
    cfg = load_config(path)
    reps = dict(cfg.upstreams["a"].replica_configs("a"))
    assert list(reps) == ["a#2", "a#3"]
    assert reps["a#2"].args == ["--port", "2"] and reps["a#2"].timeout == 5
    assert reps["a#2"].cwd == str(tmp_path.resolve() / "work")
    assert reps["a#3"].cwd == str(tmp_path.resolve() / "other")
    assert reps["a#3"].args == ["--port", "1"] and not reps["a#3"].replicas
    assert [n for n, _ in cfg.upstreams["b"].replica_configs("b")] == ["b#2", "b#3"]
