"""The config diff of a hot reload: which upstreams are added, removed, restarted, retuned or
left alone, and which top-level settings apply live or need a restart."""

from __future__ import annotations

from typing import Any

from manifold.config import GatewayConfig, parse_config
from manifold.reload import diff_configs


def cfg(upstreams: dict[str, Any], **top: Any) -> GatewayConfig:
    return parse_config({"state": {"path": ""}, **top, "upstreams": upstreams})


def up(*args: str, **kw: Any) -> dict[str, Any]:
    return {"command": "srv", "args": list(args), **kw}


def test_added_removed_changed_unchanged() -> None:
    old = cfg({"keep": up("k"), "gone": up("g"), "chg": up("c"), "off": up(enabled=False)})
    new = cfg({"keep": up("k"), "chg": up("c2"), "new": up("n"), "off": up("o")})
    d = diff_configs(old, new)
    assert (d.added, d.removed, d.changed, d.retuned, d.unchanged) == (
        ["new", "off"],
        ["gone"],
        ["chg"],
        [],
        ["keep"],
    )
    assert d.summary() == "added new, off; removed gone; restarted chg"
    assert not d.needs_restart and not d.empty


def test_live_upstream_settings_keep_the_process() -> None:
    old = cfg({"a": up("a"), "b": up("b")})
    new = cfg(
        {
            "a": up("a", timeout=5, overrides={"t": {"rename": "u"}}, tools={"deny": ["x"]}),
            "b": up("b", env={"K": "v"}),
        }
    )
    d = diff_configs(old, new)
    assert d.retuned == ["a"] and d.changed == ["b"]


def test_top_level_keys_live_or_after_restart() -> None:
    old = cfg({"a": up("a")})
    new = cfg({"a": up("a")}, max_processes=3, http={"port": 9}, page_size=7)
    d = diff_configs(old, new)
    assert d.live == ["max_processes"]
    assert sorted(d.needs_restart) == ["http", "page_size"]
    assert not d.empty and d.unchanged == ["a"]
    same = diff_configs(old, cfg({"a": up("a")}, http={"port": 9}))
    assert same.empty and same.needs_restart == ["http"]
    assert same.summary() == "no change"
