"""`downstream/dispatch.py`: what a downstream request gets back, driven through a real
in-process `Gateway` over a real stdio upstream: the modern envelope checks (with their HTTP
status), unknown methods, `initialize` validation, list pages under the gateway's own cursors,
the modern `_meta` keys kept from the upstream, `tools/call` checks, and the reason a call to an
upstream that is down gets."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from manifold.config import parse_config
from manifold.downstream.dispatch import _strip_modern_meta
from manifold.downstream.session import DownstreamSession
from manifold.gateway import Gateway
from manifold.protocol.eras import (
    LATEST_LEGACY,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    MODERN_VERSION,
)
from tests.support import stdio_upstream

WIRE_TOOLS = {f"w__{n}" for n in ("seen", "progress", "echo", "stray", "hold", "exit")}


class Client:
    """One downstream client session talking to the gateway's dispatcher."""

    def __init__(self, gw: Gateway) -> None:
        self.gw = gw
        self.session = DownstreamSession()
        self.sent: list[bytes] = []  # side traffic (progress, server-to-client requests)
        self._ids = 0

    async def ask(
        self, method: str, params: dict[str, Any] | None = None, rid: Any = None
    ) -> tuple[dict[str, Any], int]:
        self._ids += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self._ids if rid is None else rid}
        msg["method"] = method
        if params is not None:
            msg["params"] = params
        frame, status = await self.gw.dispatcher.handle(self.session, msg, self.sent.append)
        answer: dict[str, Any] = orjson.loads(frame)
        assert answer["id"] == msg["id"]  # always the client's own id back
        return answer, status

    async def error(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        answer, status = await self.ask(method, params)
        assert "error" in answer, answer
        err: dict[str, Any] = answer["error"]
        err["status"] = status
        return err


def modern(**meta: Any) -> dict[str, Any]:
    """A modern request's `_meta` (valid unless changed)."""
    m: dict[str, Any] = {META_PROTOCOL_VERSION: MODERN_VERSION, META_CLIENT_CAPABILITIES: {}}
    m.update(meta)
    return {k: v for k, v in m.items() if v is not None}


@pytest.fixture
async def gateway(tmp_path: Path) -> AsyncIterator[Gateway]:
    down = stdio_upstream(
        "faulty_server.py",
        "--starts",
        str(tmp_path / "starts"),
        "--fail-starts",
        "1000",
        restart_backoff_initial=30.0,
        health_interval=0,
    )
    cfg = parse_config(
        {
            "state": {"path": ""},
            "exposure": {"mode": "passthrough"},
            "page_size": 2,
            "upstreams": {
                "w": stdio_upstream("wire_server.py", health_interval=0),
                "down": down,
            },
        },
        env={},
    )
    gw = Gateway(cfg)
    await gw.start()
    try:
        yield gw
    finally:
        await gw.stop()


@pytest.fixture
def client(gateway: Gateway) -> Client:
    return Client(gateway)


@pytest.mark.parametrize(
    ("meta", "code", "words"),
    [
        (modern(**{META_PROTOCOL_VERSION: 20260728}), -32602, "protocolVersion must be a string"),
        (modern(**{META_PROTOCOL_VERSION: "1999-01-01"}), -32022, "Unsupported protocol version"),
        (modern(**{META_CLIENT_CAPABILITIES: None}), -32602, "clientCapabilities"),
        (modern(**{META_CLIENT_CAPABILITIES: []}), -32602, "clientCapabilities"),
        (modern(**{META_CLIENT_INFO: "me"}), -32602, "clientInfo must be an object"),
        (modern(**{META_LOG_LEVEL: "loud"}), -32602, "invalid logLevel"),
    ],
)
async def test_a_bad_modern_envelope_is_refused_with_400(
    client: Client, meta: dict[str, Any], code: int, words: str
) -> None:
    err = await client.error("tools/list", {"_meta": meta})
    assert (err["code"], err["status"]) == (code, 400)
    assert words in err["message"]
    if code == -32022:
        assert MODERN_VERSION in err["data"]["supported"]
        assert err["data"]["requested"] == "1999-01-01"


@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel"])
async def test_a_method_removed_in_the_modern_era_is_404(client: Client, method: str) -> None:
    err = await client.error(method, {"_meta": modern()})
    assert (err["code"], err["status"]) == (-32601, 404)
    assert f"removed in {MODERN_VERSION}" in err["message"]


async def test_an_unknown_method_is_method_not_found_in_both_eras(client: Client) -> None:
    err = await client.error("tools/frobnicate", {})
    assert (err["code"], err["status"]) == (-32601, 200)
    assert "tools/frobnicate" in err["message"]
    err = await client.error("tools/frobnicate", {"_meta": modern()})
    assert (err["code"], err["status"]) == (-32601, 404)
    # A modern request that is fine gets its answer and says it is complete.
    ok, status = await client.ask("tools/list", {"_meta": modern()})
    assert status == 200 and ok["result"]["resultType"] == "complete"


async def test_initialize_checks_its_params_and_negotiates(client: Client) -> None:
    err = await client.error("initialize", {"protocolVersion": 2025, "capabilities": {}})
    assert err["code"] == -32602 and "protocolVersion must be a string" in err["message"]
    err = await client.error("initialize", {"protocolVersion": "2025-06-18", "capabilities": 1})
    assert err["code"] == -32602 and "capabilities must be an object" in err["message"]
    assert not client.session.handshake
    params = {
        "protocolVersion": "2025-06-18",
        "capabilities": {"sampling": {}},
        "clientInfo": {"name": "tester"},
    }
    ok, _ = await client.ask("initialize", params)
    assert ok["result"]["protocolVersion"] == "2025-06-18"  # a version it knows: echoed
    assert ok["result"]["serverInfo"]["name"]
    assert "tools" in ok["result"]["capabilities"]
    assert client.session.handshake and client.session.client_info == {"name": "tester"}
    assert client.session.capabilities == {"sampling": {}}
    other = Client(client.gw)
    ok, _ = await other.ask("initialize", {"protocolVersion": "1999-01-01"})
    assert ok["result"]["protocolVersion"] == LATEST_LEGACY  # one it does not: its latest


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_lists_come_in_pages_under_the_gateways_cursors(client: Client, era: str) -> None:
    base: dict[str, Any] = {"_meta": modern()} if era == "modern" else {}
    names: list[str] = []
    cursor = None
    for _ in range(10):  # bounded: 6 tools in pages of 2
        params = dict(base)
        if cursor is not None:
            params["cursor"] = cursor
        ok, status = await client.ask("tools/list", params)
        assert status == 200
        page = ok["result"]["tools"]
        assert 1 <= len(page) <= 2
        names += [t["name"] for t in page]
        cursor = ok["result"].get("nextCursor")
        if cursor is None:
            break
        assert isinstance(cursor, str) and cursor != "2"  # opaque, not an offset
    assert sorted(names) == sorted(WIRE_TOOLS) and len(names) == len(WIRE_TOOLS)
    if era == "modern":
        assert ok["result"]["cacheScope"] == "private" and "ttlMs" in ok["result"]
    # A cursor the gateway did not make is refused.
    for bad in ("Mg", "not-a-cursor", 2):
        err = await client.error("tools/list", {**base, "cursor": bad})
        assert err["code"] == -32602 and "invalid cursor" in err["message"]


def test_strip_modern_meta_keeps_only_what_is_not_the_protocols() -> None:
    progress = {"progressToken": "p", "vendor/key": 1}
    params = {"name": "t", "_meta": {**modern(**{META_LOG_LEVEL: "info"}), **progress}}
    assert _strip_modern_meta(params) == {"name": "t", "_meta": progress}
    assert params["_meta"][META_PROTOCOL_VERSION] == MODERN_VERSION  # the input is not changed
    # Only protocol keys: no `_meta` left at all.
    assert _strip_modern_meta({"name": "t", "_meta": modern()}) == {"name": "t"}
    # Nothing to strip: the very same object (no copy on the hot path).
    for same in ({"name": "t"}, {"name": "t", "_meta": progress}, {"_meta": "odd"}):
        assert _strip_modern_meta(same) is same


async def test_a_modern_call_reaches_the_upstream_without_the_protocol_meta(
    client: Client,
) -> None:
    meta = {**modern(), "progressToken": "client-token"}
    params = {"name": "w__echo", "arguments": {"text": "hi"}, "_meta": meta}
    ok, status = await client.ask("tools/call", params, rid="client-id")
    assert status == 200
    assert ok["result"]["content"][0]["text"] == "hi"
    assert ok["result"]["resultType"] == "complete"
    seen, _ = await client.ask("tools/call", {"name": "w__seen", "arguments": {}})
    frames = json.loads(seen["result"]["content"][0]["text"])
    echo = next(f for f in frames if f.get("params", {}).get("name") == "echo")
    assert isinstance(echo["id"], int)  # the gateway's id, not "client-id"
    up_meta = echo["params"]["_meta"]
    assert set(up_meta) == {"progressToken"}  # no io.modelcontextprotocol/ keys forwarded
    assert up_meta["progressToken"] != "client-token"


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({}, "'name' must be a string"),
        ({"name": 7}, "'name' must be a string"),
        ({"name": "w__echo", "arguments": ["hi"]}, "'arguments' must be an object"),
        ({"name": "w__echo", "arguments": "hi"}, "'arguments' must be an object"),
        ({"name": "w__nope", "arguments": {}}, "Unknown tool: w__nope"),
        ({"name": "nope", "arguments": {}}, "Unknown tool: nope"),
    ],
)
async def test_tools_call_checks_name_and_arguments(
    client: Client, params: dict[str, Any], words: str
) -> None:
    err = await client.error("tools/call", params)
    assert err["code"] == -32602 and words in err["message"]
    # The gateway keeps serving.
    ok, _ = await client.ask("tools/call", {"name": "w__echo", "arguments": {"text": "ok"}})
    assert ok["result"]["content"][0]["text"] == "ok"


async def test_a_call_to_an_upstream_that_is_down_gets_the_reason(client: Client) -> None:
    err = await client.error("tools/call", {"name": "down__pid", "arguments": {}})
    assert err["code"] == -32001
    assert err["data"]["reason"] == "upstream_unavailable" and err["data"]["upstream"] == "down"
    assert "upstream 'down' is unavailable" in err["message"]
    assert "exited with code 2" in err["message"]  # why: its exit and its last stderr
    assert "planned failures" in err["message"]
    assert 0 < err["data"]["retry_after"] <= 36  # the next attempt, within the backoff
