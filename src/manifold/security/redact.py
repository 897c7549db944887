"""Placeholder: built in its own change. `build()` returns the addon, or None when it is off."""

from __future__ import annotations

from typing import Any


def build(gw: Any) -> object | None:
    return None
