"""HTTP headers as the parser hands them over, decoded only when asked for.

A request carries a dozen headers and the gateway reads a handful; decoding every one of them
showed up as the largest single cost of the HTTP front end. Names are lower-cased as bytes
when they arrive (cheaper than a list of pairs indexed later), a value is decoded only when it
is read, and the names the code asks for are turned into their byte keys once per process.
"""

from __future__ import annotations

from typing import overload

# The byte key of each name asked for (`get("content-type")` -> b"content-type"): code asks
# for a few fixed names, and `Mcp-Param-*` names come from the catalog. Bounded: past the
# bound a name is converted each time instead of being kept.
_KEYS: dict[str, bytes] = {}
_MAX_KEYS = 512


def _key(name: str) -> bytes:
    key = _KEYS.get(name)
    if key is None:
        key = name.lower().encode("latin-1")
        if len(_KEYS) < _MAX_KEYS:
            _KEYS[name] = key
    return key


class Headers:
    __slots__ = ("_count", "_map")

    def __init__(self) -> None:
        self._map: dict[bytes, bytes] = {}
        self._count = 0

    def add(self, name: bytes, value: bytes) -> None:
        self._count += 1
        key = name.lower()
        m = self._map
        old = m.get(key)
        # Repeated fields join with ", " (RFC 9110 5.3).
        m[key] = value if old is None else old + b", " + value

    def count(self) -> int:
        """Fields as received (a repeated name counts each time)."""
        return self._count

    def raw(self, key: bytes) -> bytes | None:
        """The value as received, by lower-case byte name (no decoding, no trimming)."""
        return self._map.get(key)

    @overload
    def get(self, name: str) -> str | None: ...

    @overload
    def get(self, name: str, default: str) -> str: ...

    def get(self, name: str, default: str | None = None) -> str | None:
        raw = self._map.get(_key(name))
        if raw is None:
            return default
        return raw.decode("latin-1").strip(" \t")  # optional whitespace is not part of it

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and _key(name) in self._map

    def __getitem__(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value
