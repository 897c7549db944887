"""JSON-RPC 2.0 envelopes for MCP: decoding, validation and encoding.

The gateway's edge validates every downstream frame itself (the SDK transports do not answer
bad input the way the spec asks), and encodes responses by splicing already-encoded result
bytes, so a result that nothing needs to look at is relayed without being decoded twice.
This module does no I/O.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec
import orjson

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
# Legacy-era resource-not-found (2025-11-25); the modern era uses INVALID_PARAMS.
RESOURCE_NOT_FOUND_LEGACY: Final = -32002
URL_ELICITATION_REQUIRED: Final = -32042
# Modern era (2026-07-28).
HEADER_MISMATCH: Final = -32020
MISSING_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
# Gateway-specific server errors live in the legacy implementation-defined range.
UPSTREAM_UNAVAILABLE: Final = -32001
REQUEST_TIMEOUT: Final = -32001

JsonObj = dict[str, Any]
RequestId = int | str


class RpcError(Exception):
    """An error that becomes a JSON-RPC error response."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_obj(self) -> JsonObj:
        err: JsonObj = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


class Incoming(msgspec.Struct, omit_defaults=True):
    """An upstream frame. `result` stays raw bytes: most results are relayed, not read."""

    jsonrpc: Any = None
    id: Any = None
    method: Any = None
    params: Any = None
    result: msgspec.Raw = msgspec.Raw(b"")  # empty when the frame has no result
    error: Any = None


_incoming_decoder = msgspec.json.Decoder(Incoming)


def decode_incoming(line: bytes) -> Incoming:
    """Decode one upstream frame; raises msgspec.DecodeError / ValidationError on garbage."""
    return _incoming_decoder.decode(line)


dumps = orjson.dumps
loads = orjson.loads


def load_raw(raw: msgspec.Raw | bytes) -> Any:
    """Decode a kept-raw result (orjson reads the buffer without a copy)."""
    return orjson.loads(memoryview(raw))


def encode_request(rid: RequestId, method: str, params: JsonObj | None) -> bytes:
    msg: JsonObj = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return orjson.dumps(msg)


def encode_notification(method: str, params: JsonObj | None) -> bytes:
    msg: JsonObj = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return orjson.dumps(msg)


def encode_result(rid: Any, result: JsonObj) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "result": result})


def encode_raw_result(rid: Any, raw: bytes) -> bytes:
    """A response around result bytes that are already JSON (spliced, not re-encoded)."""
    return b'{"jsonrpc":"2.0","id":' + orjson.dumps(rid) + b',"result":' + raw + b"}"


def encode_error(rid: Any, code: int, message: str, data: Any = None) -> bytes:
    err: JsonObj = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "error": err})


def validate_request_shape(msg: Any) -> str | None:
    """Return why `msg` is not a valid JSON-RPC message, or None when it is."""
    if not isinstance(msg, dict):
        return "message must be a JSON object (batches are not supported)"
    if msg.get("jsonrpc") != "2.0":
        return 'missing or wrong "jsonrpc" member (must be "2.0")'
    if "method" in msg:
        if not isinstance(msg["method"], str):
            return '"method" must be a string'
        if "id" in msg:
            rid = msg["id"]
            if rid is None or isinstance(rid, bool) or not isinstance(rid, int | str):
                return '"id" must be a string or an integer'
        params = msg.get("params")
        if params is not None and not isinstance(params, dict):
            return '"params" must be an object'
        return None
    if "result" in msg or "error" in msg:
        if "id" not in msg:
            return 'a response must carry an "id"'
        return None
    return 'a message needs a "method" (request or notification) or a "result"/"error"'
