"""Property tests of the downstream edge: framing (`parse_frame`) and dispatch.

Whatever bytes arrive, `parse_frame` returns a valid JSON-RPC message or raises `BadFrame` whose
frame is a well-formed error; and a real in-process gateway (no upstreams) answers every
request that gets through with exactly one well-formed response carrying the same id, with an
integer error code from the JSON-RPC / MCP set, without raising, whatever the method, id and
params are.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from manifold.config import parse_config
from manifold.downstream.frames import BadFrame, parse_frame
from manifold.downstream.session import DownstreamSession
from manifold.gateway import Gateway
from manifold.protocol import jsonrpc as rpc

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Standard JSON-RPC codes, the MCP ones, and the gateway's own upstream-unavailable code.
ALLOWED_CODES = {-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32020, -32021, -32022}
# On the modern wire, -32002 and -32042 must not be emitted (2026-07-28 basic/index.mdx).
NOT_ON_MODERN = {-32002, -32042}

MODERN = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
}

# JSON values, as both ends of the wire see them (orjson reads 64-bit integers).
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
ids = st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.text(max_size=16)
# Values that trip type assumptions (unhashable, wrong type, near-valid) more often than chance.
AWKWARD: list[Any] = [None, True, False, 0, -1, 1.5, "", "x", "debug", "2026-07-28"]
AWKWARD += [[], [1], ["a"], {}, {"a": 1}, {"type": []}]
AWKWARD += [{"type": "ref/prompt", "name": []}, {"type": "ref/resource", "uri": {}}]
awkward = st.sampled_from(AWKWARD)
values = awkward | json_values

KNOWN_METHODS = [
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "tools/call",
    "prompts/get",
    "resources/read",
    "completion/complete",
    "resources/subscribe",
    "resources/unsubscribe",
    "logging/setLevel",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
    "tools/frobnicate",
    "",
]
# `subscriptions/listen` is left out on purpose: its answer comes only when the stream ends.
known = st.sampled_from(KNOWN_METHODS)
methods = st.one_of(known, known, known, st.text(max_size=24)).filter(
    lambda m: m != "subscriptions/listen"
)
PARAM_KEYS = [
    "name",
    "arguments",
    "uri",
    "cursor",
    "level",
    "protocolVersion",
    "capabilities",
    "clientInfo",
    "ref",
    "requestId",
    "progressToken",
    "requestState",
    "inputResponses",
    "x",
]
META_KEYS = [*MODERN, "io.modelcontextprotocol/logLevel", "progressToken"]
# A valid modern `_meta` with up to two members replaced, or anything at all.
metas = (
    st.builds(
        lambda extra: {**MODERN, **extra},
        st.dictionaries(st.sampled_from(META_KEYS), values, max_size=2),
    )
    | values
)
params = st.fixed_dictionaries(
    {}, optional={**{k: values for k in PARAM_KEYS}, "_meta": metas}
) | st.dictionaries(st.sampled_from(PARAM_KEYS), values, max_size=4)


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    """Mostly valid envelopes (so dispatch is reached), with arbitrary methods and params."""
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": draw(methods)}
    if draw(st.booleans()) or draw(st.booleans()):
        msg["id"] = draw(ids)
    if draw(st.booleans()) or draw(st.booleans()):
        msg["params"] = draw(params)
    return msg


# Arbitrary envelopes: any subset of the members, with any values.
envelopes = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", "", 2.0]) | json_values,
        "id": ids | json_values,
        "method": methods | json_values,
        "params": params | json_values,
        "result": json_values,
        "error": json_values,
    },
)


def _check_error_frame(frame: bytes, want_id: Any = "any") -> dict[str, Any]:
    assert b"\n" not in frame
    msg = json.loads(frame)
    assert isinstance(msg, dict) and set(msg) == {"jsonrpc", "id", "error"}, msg
    assert msg["jsonrpc"] == "2.0"
    rid = msg["id"]
    assert rid is None or (isinstance(rid, int | str) and not isinstance(rid, bool)), msg
    if want_id != "any":
        assert rid == want_id, msg
    err = msg["error"]
    assert isinstance(err, dict) and isinstance(err.get("message"), str), msg
    assert type(err.get("code")) is int and err["code"] in ALLOWED_CODES, msg
    return msg


def _check_parsed(msg: Any) -> None:
    assert isinstance(msg, dict) and msg.get("jsonrpc") == "2.0"
    assert rpc.validate_request_shape(msg) is None
    if "method" in msg:
        assert isinstance(msg["method"], str)
        if "id" in msg:
            rid = msg["id"]
            assert isinstance(rid, int | str) and not isinstance(rid, bool)
        assert msg.get("params") is None or isinstance(msg["params"], dict)
    else:
        assert "id" in msg and ("result" in msg or "error" in msg)


def _parse(data: bytes) -> dict[str, Any] | None:
    try:
        msg = parse_frame(data)
    except BadFrame as e:
        frame = _check_error_frame(e.frame())
        assert frame["error"]["code"] in (rpc.PARSE_ERROR, rpc.INVALID_REQUEST)
        if frame["error"]["code"] == rpc.PARSE_ERROR:
            assert frame["id"] is None
        return None
    _check_parsed(msg)
    return msg


@FUZZ
@given(st.binary(max_size=300))
def test_parse_frame_arbitrary_bytes(data: bytes) -> None:
    _parse(data)


@FUZZ
@given(json_values)
def test_parse_frame_arbitrary_json(value: Any) -> None:
    _parse(json.dumps(value).encode())


@FUZZ
@given(envelopes)
def test_parse_frame_arbitrary_envelopes(env: dict[str, Any]) -> None:
    msg = _parse(json.dumps(env).encode())
    valid_request = (
        env.get("jsonrpc") == "2.0"
        and isinstance(env.get("method"), str)
        and (
            "id" not in env
            or (isinstance(env["id"], int | str) and not isinstance(env["id"], bool))
        )
        and (env.get("params") is None or isinstance(env["params"], dict))
    )
    if valid_request:
        assert msg == env


@FUZZ
@given(st.binary(min_size=1, max_size=40))
def test_parse_frame_garbage_after_valid_json(tail: bytes) -> None:
    data = b'{"jsonrpc":"2.0","id":1,"method":"ping"}' + tail
    # Only JSON's own whitespace may follow the document (not \x0b or \x0c, which
    # bytes.strip() would also remove): anything else is a parse error.
    if not tail.strip(b" \t\r\n"):
        assert parse_frame(data)["id"] == 1
    else:
        _parse(data)


# --------------------------------------------------------------------------- dispatch


@pytest.fixture(scope="module")
def gateway() -> Iterator[tuple[asyncio.AbstractEventLoop, Gateway]]:
    loop = asyncio.new_event_loop()
    gw = Gateway(parse_config({"upstreams": {}}))
    loop.run_until_complete(gw.start())
    try:
        yield loop, gw
    finally:
        loop.run_until_complete(gw.stop())
        loop.close()


async def _exchange(gw: Gateway, batch: list[dict[str, Any]]) -> None:
    side: list[bytes] = []
    session = DownstreamSession(send=side.append)
    gw.sessions.add(session)
    try:
        for env in batch:
            msg = _parse(json.dumps(env).encode())
            if msg is None or "method" not in msg:
                continue  # refused at the edge (checked there), or a response
            if "id" not in msg:
                await asyncio.wait_for(gw.dispatcher.notification(session, msg), 5)
                continue
            frame, status = await asyncio.wait_for(
                gw.dispatcher.handle(session, msg, side.append), 5
            )
            assert status in (200, 400, 404)
            answer = json.loads(frame)
            assert isinstance(answer, dict) and answer.get("jsonrpc") == "2.0", answer
            assert answer["id"] == msg["id"], (msg, answer)
            assert ("result" in answer) != ("error" in answer), answer
            if "error" in answer:
                _check_error_frame(frame, msg["id"])
                meta = (msg.get("params") or {}).get("_meta")
                if isinstance(meta, dict) and "io.modelcontextprotocol/protocolVersion" in meta:
                    assert answer["error"]["code"] not in NOT_ON_MODERN, (msg, answer)
                elif status != 200:
                    pytest.fail(f"a legacy request got HTTP {status}: {msg} -> {answer}")
            else:
                assert isinstance(answer["result"], dict), answer
        for extra in side:  # side traffic (notifications) must be JSON-RPC too
            m = json.loads(extra)
            assert isinstance(m, dict) and m.get("jsonrpc") == "2.0" and "method" in m, m
    finally:
        session.close()
        gw.sessions.discard(session)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages() | envelopes, min_size=1, max_size=8))
def test_dispatch_answers_every_request_once(
    gateway: tuple[asyncio.AbstractEventLoop, Gateway], batch: list[dict[str, Any]]
) -> None:
    loop, gw = gateway
    loop.run_until_complete(_exchange(gw, batch))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(KNOWN_METHODS[:14]), ids, params)
def test_dispatch_modern_requests(
    gateway: tuple[asyncio.AbstractEventLoop, Gateway],
    method: str,
    rid: Any,
    p: dict[str, Any],
) -> None:
    """The same, with a valid modern `_meta` on every request (stateless, per-request era)."""
    loop, gw = gateway
    msg = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**p, "_meta": MODERN}}
    loop.run_until_complete(_exchange(gw, [msg]))
