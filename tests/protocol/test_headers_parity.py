"""The gateway's modern header codec (`protocol/headers.py`) is its own copy of the SDK's
(`mcp.shared.inbound`), kept so the gateway process does not load the SDK. A copy drifts: these
properties hold the two to the same answers on any input hypothesis can make (values, schemas,
arguments), so a client built on the SDK and the gateway always agree on a header.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.shared import inbound

from manifold.protocol import headers

# Values: printable ASCII (the verbatim case), edge whitespace, control characters, non-ASCII,
# and strings shaped like the base64 sentinel (valid, invalid, with a trailing newline).
_b64ish = st.builds(
    lambda body, tail: f"=?base64?{body}?={tail}",
    st.text(
        alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", max_size=12
    ),
    st.sampled_from(["", "\n", " ", "\r\n", "x"]),
)
values = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E)),
    _b64ish,
)


@given(values)
def test_encode_matches_sdk(value: str) -> None:
    assert headers.encode_value(value) == inbound.encode_header_value(value)


@given(st.one_of(st.none(), values))
def test_decode_matches_sdk(value: str | None) -> None:
    assert headers.decode_value(value) == inbound.decode_header_value(value)


@given(values)
def test_round_trip(value: str) -> None:
    assert headers.decode_value(headers.encode_value(value)) == value


# Schemas: trees of the keywords the walk knows (and some it must not enter), with x-mcp-header
# annotations of valid and invalid tokens on properties of every type.
_tokens = st.one_of(
    st.sampled_from(["Region", "region", "X-Tenant", "a.b", "bad token", "", "née"]),
    st.integers(),
    st.none(),
)
_types = st.sampled_from(["string", "integer", "boolean", "number", "object", ["string"], None])


def _leaf(draw_type: Any, token: Any, annotate: bool) -> dict[str, Any]:
    node: dict[str, Any] = {}
    if draw_type is not None:
        node["type"] = draw_type
    if annotate:
        node["x-mcp-header"] = token
    return node


leaves = st.builds(_leaf, _types, _tokens, st.booleans())


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    names = st.sampled_from(["a", "b", "region", "x-mcp-header", "items"])
    return st.one_of(
        st.dictionaries(names, children, max_size=3).map(
            lambda p: {"type": "object", "properties": p}
        ),
        st.builds(lambda c: {"items": c}, children),
        st.builds(lambda cs: {"anyOf": cs}, st.lists(children, max_size=2)),
        st.builds(lambda c: {"$defs": {"D": c}}, children),
        st.builds(lambda c: {"default": c, "examples": [c]}, children),  # data, never entered
        st.builds(lambda c: {"not": c, "$ref": "#/$defs/D"}, children),
    )


schemas = st.recursive(leaves, _extend, max_leaves=8)


@settings(max_examples=300)
@given(schemas)
def test_annotation_checks_match_sdk(schema: dict[str, Any]) -> None:
    ours = headers.invalid_annotation(schema)
    sdk = inbound.find_invalid_x_mcp_header(schema)
    # The wording may differ; whether the schema is refused may not.
    assert (ours is None) == (sdk is None), (ours, sdk)
    if ours is None:
        assert headers.header_map(schema) == inbound.x_mcp_header_map(schema)


def _huge_int() -> int:
    """Past Python's int-to-str digit limit: it has no header rendering (and must not crash)."""
    return 10**5000


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=True),
    values,
    st.lists(st.integers(), max_size=2),
    st.builds(_huge_int),
)
arguments = st.recursive(
    st.dictionaries(st.sampled_from(["a", "b", "region"]), scalars, max_size=3),
    lambda c: st.dictionaries(st.sampled_from(["a", "b", "region"]), c, max_size=3),
    max_leaves=6,
)
header_maps = st.dictionaries(
    st.lists(st.sampled_from(["a", "b", "region"]), min_size=1, max_size=3).map(tuple),
    st.sampled_from(["Region", "A", "B-Two"]),
    max_size=3,
)


@settings(max_examples=300)
@given(header_maps, arguments)
def test_param_headers_match_sdk(hmap: dict[tuple[str, ...], str], args: dict[str, Any]) -> None:
    assert headers.param_headers(hmap, args) == inbound.mcp_param_headers(hmap, args)
