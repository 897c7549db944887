"""HTTP header values mirrored from MCP request bodies (2026-07-28 Streamable HTTP).

`Mcp-Name` and `Mcp-Param-*` carry values from the body; a value that is not plain printable
ASCII travels as `=?base64?<payload>?=`. Tool parameters marked `x-mcp-header` in the tool's
`inputSchema` (only on properties reachable through plain `properties` chains, of type string,
integer or boolean, with a unique RFC 9110 token) are mirrored as `Mcp-Param-<token>`.
Kept here rather than imported from the SDK so the gateway process does not load the SDK.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

from manifold.protocol.schema import positions

X_MCP_HEADER = "x-mcp-header"
PARAM_PREFIX = "Mcp-Param-"
# Whole-value matches (`fullmatch`): `$` would also match before a trailing newline.
_SENTINEL = re.compile(r"=\?base64\?(.*)\?=")
_SAFE = re.compile(r"[\x20-\x7E]*")
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
HeaderMap = dict[tuple[str, ...], str]


def encode_value(value: str) -> str:
    if _SAFE.fullmatch(value) and value == value.strip() and not _SENTINEL.fullmatch(value):
        return value
    return "=?base64?" + base64.b64encode(value.encode()).decode() + "?="


def decode_value(value: str | None) -> str | None:
    """The header's value; None for a malformed sentinel (so it never matches by accident)."""
    if value is None:
        return None
    m = _SENTINEL.fullmatch(value)
    if m is None:
        return value
    try:
        raw = base64.b64decode(m.group(1), validate=True)
    except binascii.Error:
        return None
    if base64.b64encode(raw).decode() != m.group(1):
        return None
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return None


_positions = positions  # the walk is shared; it follows no `$ref`, as the spec says


def invalid_annotation(schema: Any) -> str | None:
    """Why the schema's `x-mcp-header` annotations are invalid, or None."""
    seen: dict[str, str] = {}
    for path, node in _positions(schema):
        if X_MCP_HEADER not in node:
            continue
        if not path:
            return f"{X_MCP_HEADER} outside a plain `properties` chain"
        where = ".".join(path)
        token = node[X_MCP_HEADER]
        if not isinstance(token, str) or not _TOKEN.match(token):
            return f"property {where!r}: {X_MCP_HEADER} is not an RFC 9110 token"
        if node.get("type") not in ("string", "integer", "boolean"):
            return f"property {where!r}: {X_MCP_HEADER} needs type string, integer or boolean"
        if token.lower() in seen:
            return f"{X_MCP_HEADER} {token!r} on {where!r} duplicates {seen[token.lower()]!r}"
        seen[token.lower()] = where
    return None


def header_map(schema: Any) -> HeaderMap:
    """Property path -> header token, for a schema `invalid_annotation` accepted."""
    return {
        path: node[X_MCP_HEADER]
        for path, node in _positions(schema)
        if path and isinstance(node.get(X_MCP_HEADER), str)
    }


def _render(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        try:
            return str(value)
        except ValueError:  # an int past Python's int-to-str digit limit has no rendering
            return None
    return None


def param_headers(hmap: HeaderMap, arguments: Mapping[str, Any]) -> dict[str, str]:
    """The `Mcp-Param-*` headers a `tools/call` with these arguments carries."""
    out: dict[str, str] = {}
    for path, token in hmap.items():
        node: Any = arguments
        for key in path:
            node = node.get(key) if isinstance(node, Mapping) else None
        rendered = _render(node) if node is not None else None
        if rendered is not None:
            out[PARAM_PREFIX + token] = encode_value(rendered)
    return out
