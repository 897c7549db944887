"""Hot reload: what changed between two configs, and the reloader that reads the file again.

`diff_configs` compares two validated configs. Upstreams are compared by name and by their
config: an upstream that is new is *added*, one that is gone (or disabled) is *removed*, one
whose connection settings changed is *changed* (it is restarted), and one where only settings
read per call or per list changed (`LIVE_UPSTREAM_KEYS`) is *retuned*: its process and sessions
stay, its lists are fetched again. Every other upstream is untouched. At the top level only
`upstreams` and `max_processes` apply live; any other key that changed is named in
`needs_restart` (the running gateway keeps its old value, and says so in its log).

`Reloader` is what `manifold run` and `manifold serve` use: SIGHUP, or a change of the config
file, reads and validates the whole file first; a broken file is refused with the error logged
and the running config kept. The file is watched by an asyncio poll of its `stat` (inode,
device, size, mtime and ctime in nanoseconds) every `reload.poll_interval` seconds: no thread,
no dependency, one system call a second by default; an editor's save by rename is a new inode.
A change is read once the file has been quiet for `reload.debounce` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from manifold.config import ConfigError, GatewayConfig, UpstreamConfig

log = logging.getLogger("manifold.reload")

# Upstream settings read per call or per list: changing them keeps the upstream's process.
LIVE_UPSTREAM_KEYS = frozenset(
    {"overrides", "tools", "timeout", "tool_timeouts", "idle_timeout", "restart_after_timeouts"}
)
# Top-level settings a running gateway applies at once; every other one needs a restart.
LIVE_KEYS = frozenset({"upstreams", "max_processes"})


@dataclass(slots=True)
class ConfigDiff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # restarted
    retuned: list[str] = field(default_factory=list)  # kept running, new per-call settings
    unchanged: list[str] = field(default_factory=list)
    needs_restart: list[str] = field(default_factory=list)  # top-level keys
    live: list[str] = field(default_factory=list)  # top-level keys applied besides upstreams

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.retuned or self.live)

    def summary(self) -> str:
        parts = [
            f"{what} {', '.join(names)}"
            for what, names in (
                ("added", self.added),
                ("removed", self.removed),
                ("restarted", self.changed),
                ("retuned", self.retuned),
            )
            if names
        ]
        parts.extend(f"{k} applied" for k in self.live)
        return "; ".join(parts) or "no change"


def _connection(cfg: UpstreamConfig) -> dict[str, object]:
    return cfg.to_dict(exclude=LIVE_UPSTREAM_KEYS)


def diff_configs(old: GatewayConfig, new: GatewayConfig) -> ConfigDiff:
    d = ConfigDiff()
    before, after = old.enabled_upstreams, new.enabled_upstreams
    for name, cfg in after.items():
        was = before.get(name)
        if was is None:
            d.added.append(name)
        elif was == cfg:
            d.unchanged.append(name)
        elif _connection(was) == _connection(cfg):
            d.retuned.append(name)
        else:
            d.changed.append(name)
    d.removed = [n for n in before if n not in after]
    for key in GatewayConfig.__struct_fields__:
        if key == "upstreams" or getattr(old, key) == getattr(new, key):
            continue
        (d.live if key in LIVE_KEYS else d.needs_restart).append(key)
    return d


class Reloadable(Protocol):
    async def reload(self, config: GatewayConfig) -> ConfigDiff: ...


class Reloader:
    """Reads the config again on request (SIGHUP) or when its file changes; one at a time."""

    def __init__(self, target: Reloadable, load: Callable[[], GatewayConfig], path: str) -> None:
        self.target = target
        self.load = load
        self.path = Path(path)
        self.reloads = 0
        self.refused = 0
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[ConfigDiff | None]] = set()
        self._watch: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    def trigger(self, why: str = "SIGHUP") -> None:
        task = asyncio.ensure_future(self.reload(why))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def reload(self, why: str) -> ConfigDiff | None:
        async with self._lock:
            try:
                cfg = await asyncio.to_thread(self.load)
            except ConfigError as e:
                self.refused += 1
                log.error("config reload (%s) refused, the running config is kept: %s", why, e)
                return None
            try:
                diff = await self.target.reload(cfg)
            except Exception:
                self.refused += 1
                log.exception("config reload (%s) failed part way", why)
                return None
            self.reloads += 1
            return diff

    def watch(self, debounce: float, poll_interval: float = 1.0) -> None:
        """Reload when the config file changes (polled: see the module's docstring)."""
        self._watch = asyncio.ensure_future(self._watch_loop(debounce, poll_interval))

    def _signature(self) -> tuple[int, ...] | None:
        """What tells one version of the file from another; None while it is missing."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    async def _watch_loop(self, debounce: float, poll_interval: float) -> None:
        seen = self._signature()
        while not self._stop.is_set():
            await asyncio.sleep(poll_interval)
            now = self._signature()
            if now == seen:
                continue
            # Changed: wait for the writes to settle (a file written in several steps, or
            # removed and written again, is read once, whole).
            while True:
                await asyncio.sleep(debounce)
                settled = self._signature()
                if settled == now:
                    break
                now = settled
            seen = now
            if now is None:  # gone: the running config stays; its return is a change
                log.warning("config file %s is gone; the running config is kept", self.path)
                continue
            await self.reload("file changed")

    async def close(self) -> None:
        self._stop.set()
        for t in [*self._tasks, *([self._watch] if self._watch else [])]:
            t.cancel()
        for t in [*self._tasks, *([self._watch] if self._watch else [])]:
            try:
                await t
            except (asyncio.CancelledError, Exception):
                pass
