"""Benchmark: what inbound authentication adds to a request on the HTTP front.

Usage: ``python -m bench.auth_bench [--requests 3000] [--rounds 5]``

Prints one JSON object to stdout (times in microseconds):

- ``http``: the real ``manifold serve``, three times: without auth, with an API key, and as an
  OAuth resource server (an ES256 JWT from a JWKS served here over HTTP). Each serves sequential
  ``ping`` requests of a legacy session on one keep-alive connection (a ``ping`` is answered by
  the front and the dispatcher alone, so nothing else moves the figure); ``p50_us`` is the median
  of the rounds' medians, measured at the client, the gateways run interleaved round by round.
  ``overhead_us`` is each one's p50 minus the unauthenticated p50 (the target: <= 20 us for a
  JWT, whose verification is cached per token).
- ``inprocess``: ``Authenticator.authenticate`` alone (thread CPU per call, best of five): an API
  key, a cached JWT, and a JWT verified from scratch (cache cleared each time, RS256 and ES256);
  a JWT with a bad signature refused from the negative cache, and checked from scratch.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import http.server
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import yaml
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from manifold.config import AuthConfig
from manifold.identity.authn import Authenticator, AuthError

ISSUER = "https://issuer.bench"
API_KEY = "mf_bench_key_0123456789abcdef"
MANIFOLD = str(Path(sys.executable).parent / "manifold")


def _keys() -> dict[str, tuple[Any, dict[str, Any]]]:
    r = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    e = ec.generate_private_key(ec.SECP256R1())
    return {
        "RS256": (r, {**RSAAlgorithm.to_jwk(r.public_key(), as_dict=True), "kid": "r"}),
        "ES256": (e, {**ECAlgorithm.to_jwk(e.public_key(), as_dict=True), "kid": "e"}),
    }


def _token(keys: dict[str, tuple[Any, dict[str, Any]]], alg: str, aud: str) -> str:
    private, jwk = keys[alg]
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": aud, "sub": "bench", "exp": now + 3600, "iat": now}
    return jwt.encode(claims, private, algorithm=alg, headers={"kid": jwk["kid"]})


@contextlib.contextmanager
def _jwks(keys: dict[str, tuple[Any, dict[str, Any]]]) -> Iterator[str]:
    body = json.dumps({"keys": [jwk for _, jwk in keys.values()]}).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
    finally:
        server.shutdown()
        server.server_close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Gateway:
    """`manifold serve` with one config, and a raw keep-alive client with a legacy session."""

    def __init__(self, tmp: Path, name: str, auth: dict[str, Any] | None, token: str) -> None:
        self.port = _free_port()
        cfg: dict[str, Any] = {"state": {"path": ""}, "upstreams": {}}
        if auth:
            cfg["auth"] = auth
        path = tmp / f"{name}.yaml"
        path.write_text(yaml.safe_dump(cfg))
        self.log = (tmp / f"{name}.log").open("wb")
        self.proc = subprocess.Popen(
            [MANIFOLD, "serve", "-c", str(path), "--port", str(self.port), "--log-level", "error"],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.auth = f"Authorization: Bearer {token}\r\n" if token else ""
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.sock: socket.socket | None = None

    def connect(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"manifold serve on {self.port} did not start") from None
                time.sleep(0.05)
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}},
        }
        head, _ = self._post(json.dumps(init).encode(), "")
        sid = next(
            line.split(":", 1)[1].strip()
            for line in head.split("\r\n")
            if line.lower().startswith("mcp-session-id:")
        )
        self.ping = self._request(b'{"jsonrpc":"2.0","id":1,"method":"ping"}', sid)

    def _request(self, body: bytes, sid: str) -> bytes:
        extra = f"Mcp-Session-Id: {sid}\r\n" if sid else ""
        return (
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            f"{self.auth}{extra}Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body

    def _post(self, body: bytes, sid: str) -> tuple[str, bytes]:
        assert self.sock is not None
        self.sock.sendall(self._request(body, sid))
        return self._read()

    def _read(self) -> tuple[str, bytes]:
        assert self.sock is not None
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("connection closed")
            buf += chunk
        head, _, rest = buf.partition(b"\r\n\r\n")
        text = head.decode()
        if not text.startswith("HTTP/1.1 200"):
            raise RuntimeError(f"unexpected answer: {text.splitlines()[0]}")
        length = next(
            int(line.split(":", 1)[1])
            for line in text.split("\r\n")
            if line.lower().startswith("content-length:")
        )
        while len(rest) < length:
            rest += self.sock.recv(65536)
        return text, rest

    def round(self, n: int) -> float:
        """The median of `n` sequential pings, in microseconds."""
        assert self.sock is not None
        samples = []
        for _ in range(n):
            t0 = time.perf_counter()
            self.sock.sendall(self.ping)
            self._read()
            samples.append(time.perf_counter() - t0)
        return statistics.median(samples) * 1e6

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, 15)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait(timeout=10)
        self.log.close()


def _http(keys: dict[str, tuple[Any, dict[str, Any]]], requests: int, rounds: int) -> Any:
    with tempfile.TemporaryDirectory() as d, _jwks(keys) as jwks_url:
        tmp = Path(d)
        key_auth = {
            "keys": [{"sha256": hashlib.sha256(API_KEY.encode()).hexdigest(), "tenant": "b"}]
        }
        oauth = {"oauth": {"issuer": ISSUER, "jwks_url": jwks_url}}
        gws = {
            "none": _Gateway(tmp, "none", None, ""),
            "api_key": _Gateway(tmp, "key", key_auth, API_KEY),
        }
        jwt_gw = _Gateway(tmp, "jwt", oauth, "")
        jwt_gw.auth = f"Authorization: Bearer {_token(keys, 'ES256', jwt_gw.url)}\r\n"
        gws["jwt_es256"] = jwt_gw
        try:
            for g in gws.values():
                g.connect()
                g.round(200)  # warm
            p50s: dict[str, list[float]] = {k: [] for k in gws}
            for _ in range(rounds):
                for k, g in gws.items():
                    p50s[k].append(g.round(requests))
        finally:
            for g in gws.values():
                g.close()
    base = statistics.median(p50s["none"])
    return {
        k: {
            "p50_us": round(statistics.median(v), 1),
            "rounds_us": [round(x, 1) for x in v],
            "overhead_us": round(statistics.median(v) - base, 1),
        }
        for k, v in p50s.items()
    }


def _best(fn: Any, n: int) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.thread_time()
        for _ in range(n):
            fn()
        best = min(best, time.thread_time() - start)
    return best / n * 1e6


def _inprocess(keys: dict[str, tuple[Any, dict[str, Any]]], n: int) -> Any:
    aud = "https://gw.bench/mcp"
    out: dict[str, float] = {}
    with _jwks(keys) as jwks_url:
        cfg = AuthConfig.from_data(
            {
                "keys": [{"sha256": hashlib.sha256(API_KEY.encode()).hexdigest(), "tenant": "b"}],
                "oauth": {"issuer": ISSUER, "jwks_url": jwks_url},
            }
        )
        auth = Authenticator(cfg, aud)

        def run(header: str) -> None:
            coro = auth.authenticate(header, "")
            try:
                coro.send(None)
            except StopIteration:
                pass

        out["api_key_us"] = _best(lambda: run(f"Bearer {API_KEY}"), n)
        for alg in ("RS256", "ES256"):
            token = _token(keys, alg, aud)
            asyncio.run(auth.authenticate(f"Bearer {token}", ""))  # fetches the JWKS once
            out[f"jwt_cached_{alg.lower()}_us"] = _best(lambda t=token: run(f"Bearer {t}"), n)

            def cold(t: str = token) -> None:
                auth.cache.clear()
                run(f"Bearer {t}")

            out[f"jwt_verify_{alg.lower()}_us"] = _best(cold, max(1, n // 100))

            # A well-formed token with a bad signature (another key under the set's kid):
            # refused from the negative cache, and checked from scratch (cache cleared).
            forged = _token(_keys(), alg, aud)

            def refuse(t: str = forged) -> None:
                try:
                    run(f"Bearer {t}")
                except AuthError:
                    pass
                else:
                    raise AssertionError("a forged token was let in")

            out[f"jwt_refused_cached_{alg.lower()}_us"] = _best(refuse, n)

            def refuse_cold() -> None:
                auth.refused.clear()
                refuse()

            out[f"jwt_refused_check_{alg.lower()}_us"] = _best(refuse_cold, max(1, n // 100))
    return {k: round(v, 2) for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=100_000, help="in-process calls")
    a = ap.parse_args()
    keys = _keys()
    print(
        json.dumps(
            {"inprocess": _inprocess(keys, a.calls), "http": _http(keys, a.requests, a.rounds)},
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
