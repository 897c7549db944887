"""The gateway's own opaque, integrity-protected list cursors (never an upstream's)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

from manifold.protocol import jsonrpc as rpc


class Cursors:
    def __init__(self, key: bytes | None = None) -> None:
        self._key = key or os.urandom(32)

    def make(self, kind: str, offset: int) -> str:
        body = f"{kind}:{offset}"
        mac = hmac.new(self._key, body.encode(), hashlib.sha256).digest()[:12]
        return base64.urlsafe_b64encode(body.encode() + b"|" + mac).decode().rstrip("=")

    def read(self, kind: str, cursor: object) -> int:
        bad = rpc.RpcError(rpc.INVALID_PARAMS, "invalid cursor")
        if not isinstance(cursor, str):
            raise bad
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        except ValueError:
            raise bad from None
        # The MAC is the last 12 bytes; it is random, so it may itself contain b"|".
        body, sep, mac = raw[:-13], raw[-13:-12], raw[-12:]
        if sep != b"|" or len(mac) != 12:
            raise bad
        want = hmac.new(self._key, body, hashlib.sha256).digest()[:12]
        if not hmac.compare_digest(mac, want):
            raise bad
        k, _, off = body.decode().partition(":")
        if k != kind or not off.isdigit():
            raise bad
        return int(off)
