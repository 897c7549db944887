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
            body, mac = raw[: raw.rindex(b"|")], raw[raw.rindex(b"|") + 1 :]
        except ValueError:
            raise bad from None
        want = hmac.new(self._key, body, hashlib.sha256).digest()[:12]
        if not hmac.compare_digest(mac, want):
            raise bad
        k, _, off = body.decode().partition(":")
        if k != kind or not off.isdigit():
            raise bad
        return int(off)
