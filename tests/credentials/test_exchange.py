"""RFC 8693 token exchange against the test authorization server (`tests/servers/oauth_server.py`,
with a confidential exchange client): the cache of exchanged tokens is bounded (least recently
used dropped), never used past the exchanged token's `expires_in` nor past the client token's
`exp`; an unreachable server is a clear error at once; the config refuses what cannot work."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from manifold.config import ConfigError, UpstreamOAuthConfig, parse_config
from manifold.credentials.client_token import ClientToken
from manifold.credentials.exchange import ExchangeFailed, TokenExchanger
from tests.credentials.conftest import run_server
from tests.support import free_port

CLIENT, SECRET = "gw", "gw-secret"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from run_server(tmp_path_factory.mktemp("as"), "--exchange-client", f"{CLIENT}:{SECRET}")


def post(base: str, path: str, **query: Any) -> dict[str, Any]:
    url = f"{base}/_test/{path}?{urllib.parse.urlencode(query)}"
    req = urllib.request.Request(url, data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        data: dict[str, Any] = json.loads(r.read())
    return data


def exchanges(base: str) -> int:
    with urllib.request.urlopen(f"{base}/_test/state", timeout=10) as r:
        n: int = json.loads(r.read())["exchange_requests"]
    return n


def client_token(base: str, sub: str, ttl: float = 300) -> ClientToken:
    """A user's access token as the front keeps it once validated."""
    raw = post(base, "user_token", sub=sub, aud="http://gateway.test/mcp", ttl=ttl)
    token: str = raw["access_token"]
    exp = float(json.loads(_payload(token))["exp"])
    return ClientToken(token, hashlib.sha256(token.encode()).digest(), exp)


def _payload(jwt: str) -> bytes:
    import base64

    part = jwt.split(".")[1]
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def exchanger(base: str, cache_size: int = 1000, **extra: Any) -> TokenExchanger:
    cfg = UpstreamOAuthConfig.from_data(
        {
            "timeout": 5,
            "token_exchange": {
                "client_id": CLIENT,
                "client_secret": SECRET,
                "cache_size": cache_size,
                **extra,
            },
        }
    )
    return TokenExchanger("prot", f"{base}/mcp", cfg, base)


async def test_cache_is_bounded_and_drops_the_least_recently_used(server: str) -> None:
    x = exchanger(server, cache_size=2)
    a, b, c = (client_token(server, s) for s in ("a", "b", "c"))
    before = exchanges(server)
    first_a = await x.header(a, "t", "a")
    await x.header(b, "t", "b")
    assert await x.header(a, "t", "a") == first_a  # a used again: b is now the oldest
    assert exchanges(server) == before + 2
    await x.header(c, "t", "c")
    assert len(x.cache) == 2
    await x.header(a, "t", "a")
    await x.header(c, "t", "c")
    assert exchanges(server) == before + 3  # a and c were kept
    await x.header(b, "t", "b")
    assert exchanges(server) == before + 4  # b was dropped: exchanged again
    assert len(x.cache) == 2


async def test_never_used_past_its_expires_in(server: str) -> None:
    post(server, "ttl", seconds=2)
    try:
        x = exchanger(server)
        tok = client_token(server, "short")
        before = exchanges(server)
        first = await x.header(tok, "t", "short")
        assert await x.header(tok, "t", "short") == first
        assert exchanges(server) == before + 1
        await asyncio.sleep(1.2)  # less than a second left: exchanged anew
        second = await x.header(tok, "t", "short")
        assert second != first
        assert exchanges(server) == before + 2
    finally:
        post(server, "ttl", seconds=3600)


async def test_never_used_past_the_client_tokens_exp(server: str) -> None:
    x = exchanger(server)
    tok = client_token(server, "brief", ttl=3)
    before = exchanges(server)
    await x.header(tok, "t", "brief")
    assert x.cache[tok.digest][1] <= tok.exp  # the server gave 3600 s: capped at the exp
    await asyncio.sleep(max(0.0, tok.exp - time.time()) + 0.1)
    with pytest.raises(ExchangeFailed) as err:
        await x.header(tok, "t", "brief")
    assert err.value.data == {
        "reason": "token_exchange",
        "upstream": "prot",
        "error": "expired_token",
    }
    assert exchanges(server) == before + 1  # refused without asking the server


async def test_unreachable_server_is_a_clear_fast_error(server: str) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    tok = client_token(server, "u")
    for x in (exchanger(server, token_endpoint=f"{dead}/token"), exchanger(dead)):
        started = time.monotonic()
        with pytest.raises(ExchangeFailed) as err:
            await x.header(tok, "t", "u")
        assert time.monotonic() - started < 4.0  # connection refused: not the 5 s timeout
        assert "cannot reach" in err.value.message and "'prot'" in err.value.message
        assert err.value.data == {"reason": "token_exchange", "upstream": "prot"}
        assert not x.cache


def test_the_client_token_never_shows() -> None:
    tok = ClientToken("eyJ.secret.token", b"\0" * 32, 0.0)
    assert "secret" not in repr(tok) and "secret" not in str(tok) and "secret" not in f"{tok!r}"
    with pytest.raises(TypeError):
        import pickle

        pickle.dumps(tok)


_UP = {"url": "http://127.0.0.1:9/mcp"}
_X = {"client_id": "gw", "client_secret": "s"}
_INBOUND = {"oauth": {"issuer": "https://as.test", "jwks_url": "https://as.test/jwks"}}


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (
            {"upstreams": {"p": {**_UP, "oauth": {"token_exchange": _X}}}},
            "upstreams.p.oauth.token_exchange: needs auth.oauth",
        ),
        (
            {
                "auth": _INBOUND,
                "tenants": {"default": "a", "profiles": {"a": {}}},
                "upstreams": {"p": {**_UP, "oauth": {"per_tenant": True, "token_exchange": _X}}},
            },
            "cannot be combined with per_tenant",
        ),
        (
            {"auth": _INBOUND, "upstreams": {"p": {**_UP, "oauth": {"token_exchange": {}}}}},
            "client_id",
        ),
        (
            {
                "auth": _INBOUND,
                "upstreams": {"p": {**_UP, "oauth": {"token_exchange": {**_X, "cache_size": 0}}}},
            },
            "cache_size",
        ),
        (
            {
                "auth": _INBOUND,
                "upstreams": {"p": {**_UP, "oauth": {"token_exchange": {**_X, "secret": "s"}}}},
            },
            "secret",
        ),
        (
            {
                "auth": _INBOUND,
                "upstreams": {
                    "p": {
                        **_UP,
                        "headers": {"Authorization": "Bearer x"},
                        "oauth": {"token_exchange": _X},
                    }
                },
            },
            "not both",
        ),
    ],
)
def test_config_errors_name_the_key(data: dict[str, Any], needle: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(data)
    assert needle in str(err.value)


def test_config_with_inbound_oauth_is_accepted() -> None:
    cfg = parse_config(
        {
            "auth": _INBOUND,
            "upstreams": {"p": {**_UP, "oauth": {"token_exchange": {**_X, "scopes": ["a"]}}}},
        }
    )
    x = cfg.upstreams["p"].oauth
    assert x is not None and x.token_exchange is not None
    assert x.token_exchange.cache_size == 1000 and x.token_exchange.token_endpoint is None
