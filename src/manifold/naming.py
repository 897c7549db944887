"""Namespacing: `<upstream><sep><name>`, valid for every client, reversible through a route map.

Names exposed to clients must match `^[A-Za-z0-9_-]{1,64}$`. Characters outside that set
become `_`; a name longer than 64 keeps its first 55 characters and gains `_` plus 8 hex digits
of its SHA-1, so shortening is stable across restarts. Reversal never parses a name: the
catalog keeps a map from every exposed name to its upstream and original name, and a
collision after sanitizing or shortening gets the hash suffix too.
"""

from __future__ import annotations

import hashlib
import re

MAX_LEN = 64
_BAD = re.compile(r"[^A-Za-z0-9_-]")


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:8]


def exposed_name(upstream: str, name: str, separator: str, prefix: bool) -> str:
    """The name a client sees for `name` of `upstream` (before collision handling)."""
    full = f"{upstream}{separator}{name}" if prefix else name
    clean = _BAD.sub("_", full) or "_"
    if len(clean) > MAX_LEN:
        clean = f"{clean[:55]}_{_digest(full)}"
    return clean


def disambiguate(name: str, origin: str) -> str:
    """A collision-free variant of `name`, stable for the same `origin`."""
    return f"{name[:55]}_{_digest(origin)}"
