"""HTTP headers as the parser hands them over, decoded only when asked for.

A request carries a dozen headers and the gateway reads a handful; decoding and lower-casing
every one of them showed up as the largest single cost of the HTTP front end.
"""

from __future__ import annotations

from typing import overload


class Headers:
    __slots__ = ("_map", "_raw")

    def __init__(self) -> None:
        self._raw: list[tuple[bytes, bytes]] = []
        self._map: dict[bytes, bytes] | None = None

    def add(self, name: bytes, value: bytes) -> None:
        self._raw.append((name, value))

    def count(self) -> int:
        """Fields as received (a repeated name counts each time)."""
        return len(self._raw)

    def _index(self) -> dict[bytes, bytes]:
        m = self._map
        if m is None:
            m = {}
            for name, value in self._raw:
                key = name.lower()
                # Repeated fields join with ", " (RFC 9110 5.3).
                m[key] = m[key] + b", " + value if key in m else value
            self._map = m
        return m

    @overload
    def get(self, name: str) -> str | None: ...

    @overload
    def get(self, name: str, default: str) -> str: ...

    def get(self, name: str, default: str | None = None) -> str | None:
        raw = self._index().get(name.lower().encode("latin-1"))
        if raw is None:
            return default
        return raw.decode("latin-1").strip(" \t")  # optional whitespace is not part of it

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower().encode("latin-1") in self._index()

    def __getitem__(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value
