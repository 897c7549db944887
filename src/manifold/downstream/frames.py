"""Turning one downstream frame into work: parse, validate, answer bad input, dispatch.

Shared by the stdio and HTTP front ends so both answer malformed JSON (-32700), invalid
requests (-32600), unknown methods (-32601) and bad params (-32602) the same way, with a log
line, and keep serving.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson

from manifold.protocol import jsonrpc as rpc

log = logging.getLogger("manifold.downstream")

MAX_FRAME = 32 * 1024 * 1024


class BadFrame(Exception):
    def __init__(self, rid: Any, code: int, message: str) -> None:
        super().__init__(message)
        self.rid = rid
        self.code = code
        self.message = message

    def frame(self) -> bytes:
        return rpc.encode_error(self.rid, self.code, self.message)


# The parser accepts 1,024 levels, but the gateway writes a message on (to the upstream, the
# audit log, redaction's scan) with orjson, which stops at 254: refuse what it cannot write.
MAX_NESTING = 254


def _too_deep(msg: Any) -> str | None:
    try:
        orjson.dumps(msg)
    except orjson.JSONEncodeError:
        return f"nested deeper than {MAX_NESTING} levels"
    return None


def parse_frame(data: bytes) -> dict[str, Any]:
    """A validated JSON-RPC message, or BadFrame with the error to answer."""
    if len(data) > MAX_FRAME:
        log.warning("rejected a %d-byte frame (limit %d)", len(data), MAX_FRAME)
        raise BadFrame(
            None, rpc.INVALID_REQUEST, f"message too large ({len(data)} bytes; limit {MAX_FRAME})"
        )
    try:
        msg = rpc.loads(data)
    except ValueError as e:
        log.warning("parse error on a downstream frame: %s", e)
        raise BadFrame(None, rpc.PARSE_ERROR, f"Parse error: {e}") from None
    why = rpc.validate_request_shape(msg)
    if why is None and data.count(b"{") + data.count(b"[") > MAX_NESTING:
        why = _too_deep(msg)  # only a frame with that many brackets can nest that deep
    if why is not None:
        rid = msg.get("id") if isinstance(msg, dict) else None
        if isinstance(rid, bool) or not isinstance(rid, int | str):
            rid = None
        log.warning("invalid downstream message: %s", why)
        raise BadFrame(rid, rpc.INVALID_REQUEST, f"Invalid Request: {why}")
    assert isinstance(msg, dict)
    return msg
