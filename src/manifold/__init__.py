"""Manifold: an MCP gateway in front of many MCP servers."""

import os as _os
import sys as _sys
import types as _types

__version__ = "0.1.0"


def _no_pydantic_plugins() -> None:
    """pydantic looks for plugins (an entry point group) the first time a model is built, and
    importing `importlib.metadata` for that pulls in the `email` and `zipfile` packages: 1.5
    MiB resident for a lookup the gateway has no use for (it uses no pydantic plugin). Its
    loader is replaced by one that finds none, unless `MANIFOLD_PYDANTIC_PLUGINS` is set or
    pydantic already loaded it (then nothing changes)."""
    name = "pydantic.plugin._loader"
    if _os.environ.get("MANIFOLD_PYDANTIC_PLUGINS") or name in _sys.modules:
        return
    loader = _types.ModuleType(name, "No pydantic plugins (see manifold._no_pydantic_plugins).")
    loader.get_plugins = tuple  # type: ignore[attr-defined]
    _sys.modules[name] = loader


_no_pydantic_plugins()
