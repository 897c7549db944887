"""Inbound authentication of `manifold serve`: OAuth 2.1 resource server with real RS256 and
ES256 JWTs from a real JWKS endpoint, static API keys, the protected-resource metadata, and
bad input. The client is the official `mcp` client (with its Authorization header) or raw
HTTP; the upstream is a real Streamable HTTP server that reports the headers it received.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import http.client
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.identity.issuer import ISSUER, Issuer
from tests.support import PY, SERVERS, free_port, gateway_http, http_server, write_config

API_KEY = "mf_test_key_for_ops_0123456789"
LEGACY = "2025-11-25"


def raw(
    url: str, method: str = "POST", body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request; (status, lower-cased headers, body)."""
    u = httpx2.URL(url)
    conn = http.client.HTTPConnection(u.host, u.port, timeout=20)
    data = json.dumps(body).encode() if body is not None else None
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update(headers or {})
    target = u.raw_path.decode()
    conn.request(method, target, body=data, headers=h)
    r = conn.getresponse()
    out = r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    conn.close()
    return out


def initialize(url: str, token: str | None) -> tuple[int, dict[str, str], bytes]:
    msg = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t"}},
    }
    return raw(url, body=msg, headers={"Authorization": f"Bearer {token}"} if token else {})


def client(url: str, token: str, mode: str = "auto") -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return Client(streamable_http_client(url, http_client=http), mode=mode, cache=None)


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    iss = Issuer()
    iss.add_key("RS256", "rsa-1")
    iss.add_key("ES256", "ec-1")
    with iss.serve():
        yield iss


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = tmp_path_factory.mktemp("up") / "headers.log"
    cmd = [PY, str(SERVERS / "headers_server.py"), "--port", str(port)]
    with http_server(cmd, url, log):
        yield url


@pytest.fixture(scope="module")
def gateway(
    issuer: Issuer, upstream: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    tmp = tmp_path_factory.mktemp("gw")
    cfg = write_config(
        tmp / "gw.yaml",
        {"hdr": {"url": upstream}},
        auth={
            "oauth": {
                "issuer": ISSUER,
                "jwks_url": issuer.url,
                "required_scopes": ["mcp"],
                "jwks_min_refetch": 1,
            },
            "keys": [{"sha256": hashlib.sha256(API_KEY.encode()).hexdigest(), "tenant": "ops"}],
        },
    )
    log = tmp / "gw.log"
    with gateway_http(cfg, log) as url:
        yield url, log


def _error_of(body: bytes) -> dict[str, Any]:
    err: dict[str, Any] = json.loads(body)["error"]
    return err


@pytest.mark.parametrize("kid", ["rsa-1", "ec-1"])
async def test_valid_token_reaches_tools_and_never_the_upstream(
    issuer: Issuer, gateway: tuple[str, Path], kid: str
) -> None:
    url, _ = gateway
    key = next(k for k in issuer.keys if k.kid == kid)
    token = issuer.token(key, url)
    for mode in ("legacy", "2026-07-28"):
        async with asyncio.timeout(30), client(url, token, mode) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert {"hdr__seen_headers", "hdr__echo"} <= names
            res = await c.call_tool("hdr__seen_headers", {})
            seen = json.loads(res.content[0].text)  # type: ignore[union-attr]
            assert seen, "the upstream reported no headers"
            assert "authorization" not in seen
            assert token not in json.dumps(seen)


def test_api_key_is_accepted_and_a_wrong_one_refused(gateway: tuple[str, Path]) -> None:
    url, _ = gateway
    status, headers, _ = initialize(url, API_KEY)
    assert status == 200 and "mcp-session-id" in headers
    status, headers, body = initialize(url, API_KEY + "x")
    assert status == 401
    assert 'error="invalid_token"' in headers["www-authenticate"]
    assert _error_of(body)["data"]["reason"] == "unauthorized"


def test_no_token_gets_401_pointing_at_the_metadata(gateway: tuple[str, Path]) -> None:
    url, _ = gateway
    status, headers, _ = initialize(url, None)
    assert status == 401
    challenge = headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert 'scope="mcp"' in challenge  # what to ask the authorization server for
    meta_url = challenge.split('resource_metadata="')[1].split('"')[0]
    assert meta_url == url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    for where in (meta_url, url.replace("/mcp", "/.well-known/oauth-protected-resource")):
        status, _, body = raw(where, "GET")
        assert status == 200
        doc = json.loads(body)
        assert doc["resource"] == url
        assert doc["authorization_servers"] == [ISSUER]
        assert doc["bearer_methods_supported"] == ["header"]


def _refused(url: str, token: str, status: int = 401) -> str:
    got, headers, body = initialize(url, token)
    assert got == status, body
    return headers["www-authenticate"] + " | " + _error_of(body)["message"]


def test_bad_tokens_are_refused(issuer: Issuer, gateway: tuple[str, Path]) -> None:
    url, log = gateway
    rsa, ec = issuer.keys[0], issuer.keys[1]
    assert "audience" in _refused(url, issuer.token(rsa, "https://elsewhere.test/mcp"))
    assert "issuer" in _refused(url, issuer.token(ec, url, issuer="https://evil.test"))
    assert "expired" in _refused(url, issuer.token(rsa, url, lifetime=-120))
    assert "not valid yet" in _refused(url, issuer.token(ec, url, not_before=600))
    # Signed by another key that claims the issuer's kid.
    other = Issuer().add_key("RS256", "rsa-1")
    assert "signature" in _refused(url, Issuer().token(other, url))
    # alg none: header and payload as a real token has them, no signature.
    good = issuer.token(rsa, url)
    payload = good.split(".")[1]
    none_header = base64.urlsafe_b64encode(b'{"alg":"none","typ":"JWT"}').rstrip(b"=").decode()
    assert "'none' is not accepted" in _refused(url, f"{none_header}.{payload}.")
    # An HS256 token signed with the public key as the secret (algorithm confusion).
    import jwt as pyjwt

    hs = pyjwt.encode({"iss": ISSUER, "aud": url, "exp": int(time.time()) + 60}, "k" * 32)
    assert "'HS256' is not accepted" in _refused(url, hs)
    # Missing scope: 403 insufficient_scope, naming the scope.
    challenge = _refused(url, issuer.token(rsa, url, scope="other"), 403)
    assert 'error="insufficient_scope"' in challenge and 'scope="mcp"' in challenge
    assert "refused POST /mcp" in log.read_text()


def test_unknown_kid_refetches_once_then_refuses(issuer: Issuer, gateway: tuple[str, Path]) -> None:
    url, _ = gateway
    rsa = issuer.keys[0]
    assert initialize(url, issuer.token(rsa, url))[0] == 200  # the set is fetched by now
    time.sleep(1.1)  # past jwks_min_refetch
    before = issuer.fetches
    assert "no key 'nope'" in _refused(url, issuer.token(rsa, url, kid="nope"))
    assert issuer.fetches == before + 1
    assert "no key 'nope2'" in _refused(url, issuer.token(rsa, url, kid="nope2"))
    assert issuer.fetches == before + 1, "a second unknown kid at once must not refetch"
    # A rotation: a new key published, past the refetch interval: the new kid is fetched.
    time.sleep(1.1)
    new = issuer.add_key("ES256", "ec-2")
    assert initialize(url, issuer.token(new, url))[0] == 200
    assert issuer.fetches == before + 2


def test_tokens_in_the_query_string_are_refused(issuer: Issuer, gateway: tuple[str, Path]) -> None:
    url, _ = gateway
    token = issuer.token(issuer.keys[0], url)
    msg = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    status, headers, body = raw(f"{url}?access_token={token}", body=msg)
    assert status == 400
    assert 'error="invalid_request"' in headers["www-authenticate"]
    assert "query string" in _error_of(body)["message"]
    # Even beside a valid header.
    status, _, _ = raw(
        f"{url}?access_token={token}", body=msg, headers={"Authorization": f"Bearer {token}"}
    )
    assert status == 400


def test_malformed_headers_and_huge_tokens(issuer: Issuer, gateway: tuple[str, Path]) -> None:
    url, _ = gateway
    msg = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for value in ("Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer a b", "bearer", "Token x"):
        status, headers, body = raw(url, body=msg, headers={"Authorization": value})
        assert status == 401, value
        assert "www-authenticate" in headers
        assert _error_of(body)["data"]["reason"] == "unauthorized"
    status, _, body = raw(url, body=msg, headers={"Authorization": "Bearer " + "a" * 20_000})
    assert status == 401 and b"longer than" in body
    status, _, body = raw(url, body=msg, headers={"Authorization": "Bearer " + "a.b.c" * 3000})
    assert status == 401
    # A 1 MB token is refused by the header limits before anyone parses it.
    status, _, _ = raw(url, body=msg, headers={"Authorization": "Bearer " + "x" * 1_000_000})
    assert status == 431
    # The gateway still serves.
    status, _, _ = initialize(url, issuer.token(issuer.keys[1], url))
    assert status == 200


def test_sessions_are_bound_to_their_principal(issuer: Issuer, gateway: tuple[str, Path]) -> None:
    url, _ = gateway
    alice = issuer.token(issuer.keys[0], url, sub="alice")
    bob = issuer.token(issuer.keys[0], url, sub="bob")
    status, headers, _ = initialize(url, alice)
    sid = headers["mcp-session-id"]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    status, _, _ = raw(
        url, body=ping, headers={"Authorization": f"Bearer {alice}", "Mcp-Session-Id": sid}
    )
    assert status == 200
    for method, body in (("POST", ping), ("GET", None), ("DELETE", None)):
        status, _, _ = raw(
            url,
            method,
            body=body,
            headers={
                "Authorization": f"Bearer {bob}",
                "Mcp-Session-Id": sid,
                "Accept": "application/json, text/event-stream",
            },
        )
        assert status == 404, method
    status, _, _ = raw(
        url, body=ping, headers={"Authorization": f"Bearer {alice}", "Mcp-Session-Id": sid}
    )
    assert status == 200, "the owner's session survived the other's DELETE"


@pytest.mark.parametrize("mode", ["hang", "garbage"])
def test_a_broken_jwks_fails_closed_and_fast(mode: str, upstream: str, tmp_path: Path) -> None:
    iss = Issuer()
    key = iss.add_key("RS256", "rsa-1")
    iss.mode = mode
    with iss.serve() as jwks_url:
        cfg = write_config(
            tmp_path / "gw.yaml",
            {"hdr": {"url": upstream}},
            auth={
                "oauth": {"issuer": ISSUER, "jwks_url": jwks_url, "jwks_timeout": 1},
                "keys": [{"sha256": hashlib.sha256(API_KEY.encode()).hexdigest(), "tenant": "ops"}],
            },
        )
        with gateway_http(cfg, tmp_path / "gw.log") as url:
            t0 = time.monotonic()
            status, _, body = initialize(url, iss.token(key, url))
            first = time.monotonic() - t0
            assert status == 401
            message = _error_of(body)["message"]
            assert "cannot verify the token" in message
            assert ("within 1 s" in message) if mode == "hang" else ("not JSON" in message)
            assert first < 10
            t0 = time.monotonic()
            status, _, _ = initialize(url, iss.token(key, url))
            assert status == 401
            assert iss.fetches == 1, "no refetch before jwks_min_refetch"
            assert time.monotonic() - t0 < first + 1
            # The gateway keeps serving: health, and a client with an API key.
            health = url.replace("/mcp", "/health")
            assert raw(health, "GET")[0] == 200
            assert initialize(url, API_KEY)[0] == 200
        assert "JWKS fetch failed" in (tmp_path / "gw.log").read_text()


def test_serve_beyond_loopback_needs_auth_or_the_flag(tmp_path: Path) -> None:
    import subprocess

    from tests.support import MANIFOLD, test_env

    cfg = write_config(tmp_path / "gw.yaml", {}, http={"allowed_hosts": ["gw.internal"]})
    cmd = [MANIFOLD, "serve", "--config", str(cfg), "--host", "0.0.0.0", "--port", str(free_port())]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=30, env=test_env())
    assert out.returncode == 2
    assert "with no authentication" in out.stderr and "--allow-unauthenticated" in out.stderr


def test_health_names_upstreams_only_to_a_caller_with_credentials(
    issuer: Issuer, gateway: tuple[str, Path]
) -> None:
    url, _ = gateway
    health = url.replace("/mcp", "/health")
    status, _, body = raw(health, "GET")
    assert status == 200 and json.loads(body) == {"status": "ok"}
    status, _, body = raw(health, "GET", headers={"Authorization": "Bearer wrong"})
    assert status == 200 and json.loads(body) == {"status": "ok"}
    status, _, body = raw(health, "GET", headers={"Authorization": f"Bearer {API_KEY}"})
    assert status == 200 and "hdr" in json.loads(body)["upstreams"]


def test_a_flood_of_refusals_is_logged_once_per_kind_and_source(tmp_path: Path) -> None:
    """Every refused request used to write its own WARNING line: a flood of bad keys flooded
    the log. Now the first of each kind from an address is logged (the first one visible at
    once), the rest are counted into one summary line per interval, every refusal is still
    answered 401, and a good key is served throughout."""
    cfg = write_config(
        tmp_path / "gw.yaml",
        {},
        auth={
            "keys": [{"sha256": hashlib.sha256(API_KEY.encode()).hexdigest(), "tenant": "ops"}],
            "refusal_log_interval": 2,
        },
    )
    log = tmp_path / "gw.log"
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    bad, missing = 300, 50
    with gateway_http(cfg, log) as url, httpx2.Client(timeout=20) as http:
        first = http.post(url, json=ping, headers={"Authorization": "Bearer mf_wrong_0"})
        assert first.status_code == 401
        deadline = time.monotonic() + 10
        while "refused POST /mcp" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        for i in range(1, bad):
            r = http.post(url, json=ping, headers={"Authorization": f"Bearer mf_wrong_{i}"})
            assert r.status_code == 401
            if i == bad // 2:  # a good key meanwhile
                assert initialize(url, API_KEY)[0] == 200
        for _ in range(missing):
            assert http.post(url, json=ping).status_code == 401
        # Each refusal is either logged on its own line or counted in a summary line.
        summary = re.compile(
            r"(\d+) more refused requests in the last \d+ s, not logged one by one"
        )
        deadline = time.monotonic() + 20
        while True:
            text = log.read_text()
            lines = [x for x in text.splitlines() if "refused POST /mcp" in x]
            counted = sum(int(n) for n in summary.findall(text))
            if len(lines) + counted == bad + missing or time.monotonic() > deadline:
                break
            time.sleep(0.1)
    assert len(lines) + counted == bad + missing, text
    # At most one line per kind (a bad key, no key) per interval of 2 s; the run took a few.
    assert 2 <= len(lines) <= 20, lines
    assert "from 127.0.0.1: unknown API key or token (401)" in lines[0]
    assert any("authentication required" in x for x in lines)
    sums = [x for x in text.splitlines() if summary.search(x)]
    assert sums and all("from 127.0.0.1)" in x for x in sums), sums
