"""The config diff of a hot reload: which upstreams are added, removed, restarted, retuned or
left alone, and which top-level settings apply live or need a restart."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from manifold.config import GatewayConfig, parse_config
from manifold.reload import ConfigDiff, Reloader, diff_configs


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


class _Target:
    """Counts the configs the reloader applies (the reload logic itself is tested e2e)."""

    def __init__(self) -> None:
        self.applied: list[GatewayConfig] = []

    async def reload(self, config: GatewayConfig) -> ConfigDiff:
        self.applied.append(config)
        return ConfigDiff()


async def _until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        await asyncio.sleep(0.02)


def _threads() -> list[str]:
    """Threads besides the loop's executor (which reads the file on a reload)."""
    return [t.name for t in threading.enumerate() if not t.name.startswith("asyncio_")]


async def test_file_watch_polls_without_a_thread(tmp_path: Path) -> None:
    """The watch sees an in-place write of the same size, a replace by rename, and a file
    removed then written again (once, when settled); it starts no thread."""
    path = tmp_path / "manifold.yaml"
    path.write_text("name: a\n")
    target = _Target()
    reloader = Reloader(target, lambda: cfg({}), str(path))
    threads = _threads()
    reloader.watch(debounce=0.1, poll_interval=0.05)
    try:
        await asyncio.sleep(0.3)
        assert target.applied == []  # nothing changed, nothing read
        assert _threads() == threads
        path.write_text("name: b\n")  # same size, in place
        await _until(lambda: len(target.applied) == 1)
        tmp = tmp_path / "new.yaml"
        tmp.write_text("name: c\n")
        os.replace(tmp, path)  # an editor's save: a new inode
        await _until(lambda: len(target.applied) == 2)
        path.unlink()
        await asyncio.sleep(0.3)
        assert len(target.applied) == 2  # gone: the running config stays
        path.write_text("name: d\n")
        await _until(lambda: len(target.applied) == 3)
        await asyncio.sleep(0.3)
        assert len(target.applied) == 3 and reloader.reloads == 3
        assert _threads() == threads
    finally:
        await reloader.close()
