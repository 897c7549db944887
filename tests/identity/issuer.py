"""A real token issuer for tests: RSA and EC keys made here, a JWKS served over real HTTP (in a
thread of the test process), and JWTs signed with those keys by PyJWT.

The JWKS endpoint counts its fetches and can be told to hang or to answer garbage, so tests
see how the gateway fetches, caches, refetches and fails.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

ISSUER = "https://issuer.test"


class SigningKey:
    def __init__(self, kind: str, kid: str) -> None:
        self.kid = kid
        if kind == "RS256":
            self.private: Any = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            jwk = RSAAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        else:
            self.private = ec.generate_private_key(ec.SECP256R1())
            jwk = ECAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        self.alg = kind
        self.jwk = {**jwk, "kid": kid, "alg": kind, "use": "sig"}


class Issuer:
    """Keys, their JWKS over HTTP, and tokens."""

    def __init__(self) -> None:
        self.keys: list[SigningKey] = []
        self.fetches = 0
        self.mode = "ok"  # ok | hang | garbage
        self.url = ""

    def add_key(self, kind: str, kid: str) -> SigningKey:
        k = SigningKey(kind, kid)
        self.keys.append(k)
        return k

    def jwks(self) -> bytes:
        return json.dumps({"keys": [k.jwk for k in self.keys]}).encode()

    def token(
        self,
        key: SigningKey,
        audience: str,
        *,
        sub: str = "alice",
        scope: str = "mcp",
        issuer: str = ISSUER,
        lifetime: float = 300,
        not_before: float | None = None,
        kid: str | None = None,
        **claims: Any,
    ) -> str:
        now = int(time.time())
        payload: dict[str, Any] = {
            "iss": issuer,
            "aud": audience,
            "sub": sub,
            "scope": scope,
            "iat": now,
            "exp": int(now + lifetime),
            **claims,
        }
        if not_before is not None:
            payload["nbf"] = int(now + not_before)
        return jwt.encode(payload, key.private, algorithm=key.alg, headers={"kid": kid or key.kid})

    @contextlib.contextmanager
    def serve(self) -> Iterator[str]:
        issuer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                issuer.fetches += 1
                if issuer.mode == "hang":
                    time.sleep(30)
                    return
                body = b"<html>not a key set" if issuer.mode == "garbage" else issuer.jwks()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(OSError):
                    self.wfile.write(body)

            def log_message(self, *a: Any) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        t = threading.Thread(target=server.serve_forever, daemon=True)
        t.start()
        self.url = f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
        try:
            yield self.url
        finally:
            server.shutdown()
            server.server_close()
