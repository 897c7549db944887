"""Exposure modes: which tools a client sees.

- `passthrough`: every upstream tool, namespaced.
- `router`: only the gateway's router tools (search, list, invoke, read), a few hundred tokens
  instead of every schema.
- `hybrid`: every tool plus `search_tools` and `read_result`.
- `auto` (default): passthrough for clients that already defer tool loading themselves (they
  search on their own, so a router would only add a hop), router for every other client, but
  passthrough while the whole native tool list is small (`auto_router_min_tokens`): a router
  would then cost more than it saves.

A client is known by its self-reported `clientInfo.name`; that is a display choice, never a
security decision.
"""

from __future__ import annotations

import fnmatch
from typing import Literal

from manifold.config import ExposureConfig

Mode = Literal["router", "passthrough", "hybrid"]

# Clients known to load MCP tool definitions on demand themselves (matched case-insensitively,
# as globs on clientInfo.name).
DEFERRING_CLIENTS: tuple[str, ...] = (
    "claude-code",  # Claude Code: MCP tool search defers tool definitions
    "claude-code-*",
    "visual studio code",  # VS Code groups large tool sets into virtual tools
    "visual-studio-code",
)


class Exposure:
    def __init__(self, cfg: ExposureConfig, override: str | None = None) -> None:
        self.cfg = cfg
        self.override = override if override and override != "auto" else None
        self._deferring = [p.lower() for p in (*DEFERRING_CLIENTS, *cfg.deferring_clients)]
        self._cache: dict[str | None, Mode] = {}

    def mode_for(self, client_name: str | None, native_tokens: int | None = None) -> Mode:
        """The client's mode; `native_tokens` (the passthrough list's size) lets `auto` keep a
        small catalog in passthrough."""
        mode = self._cache.get(client_name)
        if mode is None:
            mode = self._decide(client_name)
            if len(self._cache) < 1024:
                self._cache[client_name] = mode
        if (
            mode == "router"
            and native_tokens is not None
            and native_tokens < self.cfg.auto_router_min_tokens
            and self._auto(client_name)
        ):
            return "passthrough"
        return mode

    def _auto(self, client_name: str | None) -> bool:
        """Whether the client's mode was chosen by `auto` (not asked for by name or config)."""
        if self.override is not None:
            return False
        name = (client_name or "").lower()
        if any(fnmatch.fnmatchcase(name, p.lower()) for p in self.cfg.clients):
            return False
        return self.cfg.mode == "auto"

    def _decide(self, client_name: str | None) -> Mode:
        if self.override is not None:
            return self.override  # type: ignore[return-value]
        name = (client_name or "").lower()
        for pattern, mode in self.cfg.clients.items():
            if fnmatch.fnmatchcase(name, pattern.lower()) and mode != "auto":
                return mode
        if self.cfg.mode != "auto":
            return self.cfg.mode
        if name and any(fnmatch.fnmatchcase(name, p) for p in self._deferring):
            return "passthrough"
        return "router"
