"""RFC 8693 token exchange, end to end: `manifold serve` with inbound OAuth (JWTs the test
authorization server signs), and an upstream (the MCP server that authorization server protects,
`tests/servers/oauth_server.py`) reached with `oauth.token_exchange`. The clients are the official
`mcp` client with their own access tokens; the gateway's own login (`manifold auth login`) reads
the catalog.

Each user reaches the upstream as themselves (the `sub` the upstream reports), the upstream never
sees a client's own token, an exchanged token is reused for the same client token (counted at the
authorization server) and concurrent calls share one exchange, an expired client token is refused
before any exchange, and a refused exchange (or a client without a token) gets the documented
error and an audit line while the gateway keeps serving the others.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import Implementation

from tests.e2e.test_upstream_oauth import as_state, audit_entries, login
from tests.support import (
    MANIFOLD,
    PY,
    SERVERS,
    free_port,
    gateway_http,
    http_server,
    stdio_upstream,
    write_config,
)

API_KEY = "mf_key_client_without_a_token_0123"
EXCHANGE_CLIENT = "gateway-exchange"
EXCHANGE_SECRET = "s3cret-of-the-gateway-client"


def as_post(base: str, path: str, **query: Any) -> dict[str, Any]:
    url = f"{base}/_test/{path}?{urllib.parse.urlencode(query)}"
    req = urllib.request.Request(url, data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        data: dict[str, Any] = json.loads(r.read())
    return data


def user_token(base: str, gateway_url: str, sub: str, ttl: float = 300) -> str:
    token: str = as_post(base, "user_token", sub=sub, aud=gateway_url, ttl=ttl)["access_token"]
    return token


def client(url: str, token: str, name: str = "mcp") -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    info = Implementation(name=name, version="1")
    return Client(streamable_http_client(url, http_client=http), cache=None, client_info=info)


async def claims(c: Client) -> dict[str, str]:
    res = await c.call_tool("prot__whoami_claims", {})
    assert not res.is_error, res
    seen: dict[str, str] = json.loads(res.content[0].text)  # type: ignore[union-attr]
    return seen


def gw_config(tmp: Path, base: str, prot: bool = True, **top: Any) -> Path:
    upstreams: dict[str, Any] = {"local": stdio_upstream("basic_server.py")}
    if prot:
        upstreams["prot"] = {
            "url": f"{base}/mcp",
            "oauth": {
                "token_exchange": {
                    "client_id": EXCHANGE_CLIENT,
                    "client_secret": EXCHANGE_SECRET,
                    "scopes": ["tools"],
                }
            },
        }
    return write_config(
        tmp / "gw.yaml",
        upstreams,
        state={"path": str(tmp / "state" / "state.db")},
        exposure={"mode": "passthrough", "clients": {"router-client": "router"}},
        # `whoami_claims` answers with the Authorization header it received; redaction
        # (on by default) would rightly hide it from the client.
        security={"audit": {"path": str(tmp / "audit.jsonl")}, "redaction": {"enabled": False}},
        auth={
            "oauth": {
                "issuer": base,
                "jwks_url": f"{base}/jwks.json",
                "required_scopes": ["mcp"],
            },
            "keys": [{"sha256": hashlib.sha256(API_KEY.encode()).hexdigest(), "tenant": "k"}],
        },
        **top,
    )


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    """(authorization server base URL, gateway /mcp URL, temp dir)."""
    tmp = tmp_path_factory.mktemp("tokex")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    exchange_client = f"{EXCHANGE_CLIENT}:{EXCHANGE_SECRET}"
    cmd = [PY, str(SERVERS / "oauth_server.py"), "--port", str(port)]
    cmd += ["--exchange-client", exchange_client]
    with http_server(cmd, f"{base}/_test/state", tmp / "as.log"):
        config = gw_config(tmp, base)
        login(config, tmp / "login.log")  # the gateway's own login reads the catalog
        with gateway_http(config, tmp / "gw.log") as url:
            yield base, url, tmp


async def test_each_user_reaches_the_upstream_as_themselves(
    setup: tuple[str, str, Path],
) -> None:
    base, url, tmp = setup
    alice, bob = user_token(base, url, "alice"), user_token(base, url, "bob")
    before = as_state(base)["exchanges"]
    async with asyncio.timeout(60):
        async with client(url, alice) as a, client(url, bob) as b:
            seen_a, seen_b = await claims(a), await claims(b)
        assert seen_a["sub"] == "alice" and seen_b["sub"] == "bob"
        assert seen_a["aud"] == seen_b["aud"] == f"{base}/mcp"
        # The upstream got exchanged tokens, never the clients' own.
        assert seen_a["authorization"].startswith("Bearer xt-")
        assert seen_b["authorization"].startswith("Bearer xt-")
        assert seen_a["authorization"] != seen_b["authorization"]
        state = as_state(base)
        for token in (alice, bob):
            assert token not in state["seen"]
            assert token not in json.dumps([seen_a, seen_b])
            assert token in state["subject_tokens"]  # what the gateway presented to exchange
        assert state["exchanges"] == before + 2

        # The same client token later, on a new connection: the cached exchange is reused.
        async with client(url, alice) as a:
            again = await claims(a)
        assert again["authorization"] == seen_a["authorization"]
        assert as_state(base)["exchanges"] == before + 2
    log = (tmp / "gw.log").read_text()
    assert alice not in log and bob not in log
    assert alice not in (tmp / "audit.jsonl").read_text()


async def test_invoke_tool_hands_the_token_on(setup: tuple[str, str, Path]) -> None:
    """A router client's `invoke_tool` reaches the upstream as its user too."""
    base, url, _ = setup
    frank = user_token(base, url, "frank")
    async with asyncio.timeout(60), client(url, frank, "router-client") as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert "invoke_tool" in names and "prot__whoami_claims" not in names
        res = await c.call_tool("invoke_tool", {"server": "prot", "tool": "whoami_claims"})
        assert not res.is_error, res
        text: str = res.content[0].text  # type: ignore[union-attr]
    seen = json.loads(text)
    assert seen["sub"] == "frank" and seen["authorization"].startswith("Bearer xt-")
    assert frank not in as_state(base)["seen"]


async def test_concurrent_calls_share_one_exchange(setup: tuple[str, str, Path]) -> None:
    base, url, _ = setup
    carol = user_token(base, url, "carol")
    as_post(base, "exchange_delay", seconds=0.5)
    try:
        before = as_state(base)["exchange_requests"]
        async with asyncio.timeout(60), client(url, carol) as c:
            seen = await asyncio.gather(*(claims(c) for _ in range(6)))
        assert {s["sub"] for s in seen} == {"carol"}
        assert len({s["authorization"] for s in seen}) == 1
        assert as_state(base)["exchange_requests"] == before + 1
    finally:
        as_post(base, "exchange_delay", seconds=0)


async def test_expired_client_token_is_refused_before_any_exchange(
    setup: tuple[str, str, Path],
) -> None:
    base, url, _ = setup
    before = as_state(base)["exchange_requests"]
    # Expired 5 s ago: still within the front's leeway (30 s), but never exchanged.
    dave = user_token(base, url, "dave", ttl=-5)
    async with asyncio.timeout(60), client(url, dave) as c:
        with pytest.raises(MCPError) as err:
            await claims(c)
    assert "expired" in err.value.error.message
    data = err.value.error.data
    assert isinstance(data, dict) and data["reason"] == "token_exchange"
    assert data["upstream"] == "prot" and data["error"] == "expired_token"
    # Expired long ago: the front refuses it (401) and nothing reaches the upstream either.
    old = user_token(base, url, "dave", ttl=-600)
    with pytest.raises(Exception):  # noqa: B017 - the client cannot connect: 401
        async with asyncio.timeout(30), client(url, old) as c:
            await claims(c)
    state = as_state(base)
    assert state["exchange_requests"] == before
    assert dave not in state["subject_tokens"] and old not in state["subject_tokens"]


async def test_refused_exchange_gives_the_documented_error(setup: tuple[str, str, Path]) -> None:
    base, url, tmp = setup
    as_post(base, "deny", sub="mallory")
    mallory, erin = user_token(base, url, "mallory"), user_token(base, url, "erin")
    before = as_state(base)["exchange_requests"]
    async with asyncio.timeout(60):
        async with client(url, mallory) as c:
            with pytest.raises(MCPError) as err:
                await claims(c)
            msg = err.value.error.message
            assert "'prot'" in msg and "refused to exchange" in msg, msg
            data = err.value.error.data
            assert isinstance(data, dict) and data["reason"] == "token_exchange"
            assert data["error"] == "invalid_grant"
            # The gateway keeps serving: another user is let through meanwhile.
            async with client(url, erin) as e:
                assert (await claims(e))["sub"] == "erin"
        assert as_state(base)["exchange_requests"] == before + 2
        # A client with no access token (an API key) cannot reach it either.
        async with client(url, API_KEY) as k:
            with pytest.raises(MCPError) as err:
                await claims(k)
        data = err.value.error.data
        assert isinstance(data, dict) and data["reason"] == "token_exchange"
        assert data["error"] == "no_subject_token"
    failed = [
        e
        for e in audit_entries(tmp / "audit.jsonl")
        if e.get("event") == "upstream_auth_failed" and e.get("mechanism") == "token_exchange"
    ]
    assert any(e.get("subject") == "mallory" and "refused" in e["detail"] for e in failed), failed
    assert mallory not in json.dumps(failed)


async def test_a_redirected_token_endpoint_is_not_followed(setup: tuple[str, str, Path]) -> None:
    """A token exchange answered with a redirect is not followed: following it would carry the
    gateway's client secret (HTTP Basic) to wherever it points. The call fails with an error
    naming the endpoint, nothing reaches the redirect's target, and the next call, once the
    endpoint answers again, goes through."""
    base, url, _ = setup
    grace = user_token(base, url, "grace")
    redirect = {"at": "/token", "to": f"{base}/_test/sink"}
    as_post(base, "redirect", **redirect)
    try:
        async with asyncio.timeout(60), client(url, grace) as c:
            with pytest.raises(MCPError) as err:
                await claims(c)
    finally:
        as_post(base, "redirect", **{**redirect, "to": ""})
    sink = as_state(base)["sink"]
    assert sink == [], sink  # neither the secret nor the user's token went anywhere
    msg = err.value.error.message
    assert f"token endpoint {base}/token answered with a redirect" in msg, msg
    data = err.value.error.data
    assert isinstance(data, dict) and data["reason"] == "token_exchange"
    async with asyncio.timeout(60), client(url, grace) as c:
        assert (await claims(c))["sub"] == "grace"


async def test_an_exchanged_token_the_upstream_refuses_is_exchanged_anew(
    setup: tuple[str, str, Path],
) -> None:
    base, url, _ = setup
    gina = user_token(base, url, "gina")
    async with asyncio.timeout(60), client(url, gina) as c:
        first = await claims(c)
        before = as_state(base)["exchanges"]
        as_post(base, "expire")  # every token issued so far stops working at the upstream
        second = await claims(c)  # refused (401): forgotten, exchanged again, called again
        assert second["sub"] == "gina"
        assert second["authorization"] != first["authorization"]
        assert as_state(base)["exchanges"] == before + 1
        assert (await claims(c))["authorization"] == second["authorization"]  # cached again


async def test_an_upstream_a_reload_adds_exchanges_too(
    setup: tuple[str, str, Path], tmp_path: Path
) -> None:
    base, _, _ = setup
    login(gw_config(tmp_path, base), tmp_path / "login.log")  # the new gateway's own login
    config = gw_config(tmp_path, base, prot=False, reload={"watch": False})
    port = free_port()
    cmd = [MANIFOLD, "serve", "--config", str(config), "--port", str(port), "--log-level", "info"]
    url = f"http://127.0.0.1:{port}/mcp"
    log = tmp_path / "gw.log"
    with http_server(cmd, f"http://127.0.0.1:{port}/health", log) as proc:
        hank = user_token(base, url, "hank")
        gw_config(tmp_path, base, reload={"watch": False})
        os.kill(proc.pid, signal.SIGHUP)
        deadline = time.monotonic() + 30
        while "config reloaded" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.1)
        async with asyncio.timeout(60), client(url, hank) as c:
            while True:
                try:
                    seen = await claims(c)
                    break
                except MCPError as e:  # until the new upstream is connected
                    assert "Unknown tool" in e.error.message, e.error.message
                    assert time.monotonic() < deadline, log.read_text()
                    await asyncio.sleep(0.2)
        assert seen["sub"] == "hank" and seen["authorization"].startswith("Bearer xt-")
