"""A client's validated access token, held in memory for RFC 8693 token exchange.

The HTTP front makes one only when an upstream is configured for token exchange, and the
dispatcher puts it on a call's context only when the call goes to such an upstream, where
`exchange.py` presents it to the authorization server. Its `repr` and `str` show no token, so
a log line, an audit record or a traceback that names it shows nothing of it; it is never
written anywhere.
"""

from __future__ import annotations


class ClientToken:
    __slots__ = ("_secret", "digest", "exp")

    def __init__(self, secret: str, digest: bytes, exp: float) -> None:
        self._secret = secret
        self.digest = digest  # SHA-256 of the token: the key of its exchanged tokens
        self.exp = exp  # its `exp` (time.time()); 0: none

    def secret(self) -> str:
        """The token itself, for the token endpoint alone."""
        return self._secret

    def __repr__(self) -> str:
        return "<ClientToken>"

    __str__ = __repr__

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a client token is not serialised")
