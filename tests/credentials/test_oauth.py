"""The OAuth client against the real test authorization server: discovery from the upstream's
401, PKCE, the login flow through the loopback listener (with its `state` check), refresh, and
the refusals (no S256, a revoked refresh token)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from manifold.config import UpstreamConfig, UpstreamOAuthConfig
from manifold.credentials import oauth
from manifold.credentials.login import LoginError, login
from manifold.credentials.tokenstore import TokenSet, TokenStore, load_key
from tests.credentials.conftest import run_server


def state(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/_test/state", timeout=10) as r:
        data: dict[str, Any] = json.loads(r.read())
    return data


def follow(text: str) -> None:
    """What a browser does with the printed URL (the test server approves at once)."""
    for line in text.splitlines():
        if "/authorize?" in line or "/device?user_code=" in line:
            threading.Thread(target=_get, args=(line.strip(),), daemon=True).start()


def _get(url: str) -> None:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            r.read()
    except urllib.error.HTTPError:
        pass


def do_login(base: str, tmp: Path) -> tuple[TokenSet, TokenStore]:
    store = TokenStore(tmp / "tokens.db", load_key(tmp / "token.key", env={}))
    cfg = UpstreamConfig(url=f"{base}/mcp", oauth=UpstreamOAuthConfig())
    return login("prot", cfg, store, browser=False, wait=20, say=follow), store


def test_pkce_pair_is_s256() -> None:
    verifier, challenge = oauth.pkce_pair()
    assert 43 <= len(verifier) <= 128
    digest = hashlib.sha256(verifier.encode()).digest()
    assert challenge == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert oauth.pkce_pair()[0] != verifier


def test_challenge_parameters_and_well_known_order() -> None:
    p = oauth.challenge_params('Bearer resource_metadata="http://a/x", scope="a b", error=x')
    assert p == {"resource_metadata": "http://a/x", "scope": "a b", "error": "x"}
    assert oauth._well_known("https://h:8/t/mcp", "oauth-protected-resource") == [
        "https://h:8/.well-known/oauth-protected-resource/t/mcp",
        "https://h:8/.well-known/oauth-protected-resource",
    ]


def test_discovery_from_the_upstream(auth_server: str) -> None:
    meta = oauth.discover(f"{auth_server}/mcp", UpstreamOAuthConfig())
    assert meta.resource == f"{auth_server}/mcp"
    assert meta.issuer == auth_server
    assert meta.token_endpoint == f"{auth_server}/token"
    assert meta.registration_endpoint == f"{auth_server}/register"
    assert meta.scopes == ["tools"]  # from the protected-resource metadata


def test_login_refresh_and_revocation(auth_server: str, tmp_path: Path) -> None:
    tokens, store = do_login(auth_server, tmp_path)
    assert tokens.access_token in state(auth_server)["issued"]["access"]
    assert store.get("prot") == tokens
    fresh = oauth.refresh(tokens, 10)
    assert fresh.access_token != tokens.access_token
    assert fresh.refresh_token != tokens.refresh_token  # the server rotates it
    with pytest.raises(oauth.OAuthError) as err:  # the old refresh token was used up
        oauth.refresh(tokens, 10)
    assert err.value.error == "invalid_grant"
    store.close()


def test_a_callback_with_the_wrong_state_is_refused(auth_server: str, tmp_path: Path) -> None:
    seen: list[int] = []

    def forge(text: str) -> None:
        for line in text.splitlines():
            if "/authorize?" in line:
                q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(line.strip()).query))
                bad = q["redirect_uri"] + "?code=forged&state=not-the-one"
                try:
                    urllib.request.urlopen(bad, timeout=5)
                except urllib.error.HTTPError as e:
                    seen.append(e.code)

    store = TokenStore(tmp_path / "tokens.db", load_key(tmp_path / "token.key", env={}))
    cfg = UpstreamConfig(url=f"{auth_server}/mcp", oauth=UpstreamOAuthConfig())
    with pytest.raises(LoginError, match="no answer from the browser within 1 s"):
        login("prot", cfg, store, browser=False, wait=1, say=forge)
    assert seen == [400]
    assert store.get("prot") is None
    store.close()


def test_device_flow(auth_server: str, tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.db", load_key(tmp_path / "token.key", env={}))
    cfg = UpstreamConfig(url=f"{auth_server}/mcp", oauth=UpstreamOAuthConfig())
    said: list[str] = []

    def say(text: str) -> None:
        said.append(text)
        follow(text)

    tokens = login("prot", cfg, store, device=True, wait=20, say=say)
    assert any("and enter the code" in s for s in said)
    assert tokens.access_token in state(auth_server)["issued"]["access"]
    assert store.get("prot") == tokens
    store.close()


def test_device_flow_gives_up_when_not_approved(auth_server: str, tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.db", load_key(tmp_path / "token.key", env={}))
    cfg = UpstreamConfig(url=f"{auth_server}/mcp", oauth=UpstreamOAuthConfig())
    with pytest.raises(LoginError, match="not approved within 2 s"):
        login("prot", cfg, store, device=True, wait=2, say=lambda _t: None)
    assert store.get("prot") is None
    store.close()


@pytest.fixture(scope="module")
def no_pkce_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from run_server(tmp_path_factory.mktemp("nopkce"), "--no-pkce")


def test_a_server_without_s256_is_refused(no_pkce_server: str) -> None:
    with pytest.raises(oauth.OAuthError, match="does not offer PKCE with S256"):
        oauth.discover(f"{no_pkce_server}/mcp", UpstreamOAuthConfig())


def _redirect(base: str, path: str, to: str) -> None:
    query = urllib.parse.urlencode({"at": path, "to": to})
    req = urllib.request.Request(f"{base}/_test/redirect?{query}", data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        r.read()


def test_discovery_follows_only_a_few_same_origin_redirects(auth_server: str) -> None:
    """A discovery GET carries no credentials: a redirect within the server's origin is
    followed, one to another origin (a `localhost` alias included) or a loop is not."""
    well_known = "/.well-known/oauth-authorization-server"
    other = auth_server.replace("127.0.0.1", "localhost")
    try:
        _redirect(auth_server, well_known, f"{auth_server}/_test/asm")
        meta = oauth.discover(f"{auth_server}/mcp", UpstreamOAuthConfig())
        assert meta.token_endpoint == f"{auth_server}/token"
        _redirect(auth_server, well_known, f"{other}/_test/asm")
        with pytest.raises(oauth.OAuthError, match="redirects to another origin"):
            oauth.discover(f"{auth_server}/mcp", UpstreamOAuthConfig())
        _redirect(auth_server, well_known, well_known)  # a loop
        with pytest.raises(oauth.OAuthError, match="redirects more than 3 times"):
            oauth.discover(f"{auth_server}/mcp", UpstreamOAuthConfig())
    finally:
        _redirect(auth_server, well_known, "")


def test_a_redirected_registration_or_token_request_is_not_followed(auth_server: str) -> None:
    """A POST to the authorization server carries credentials (a client secret in HTTP Basic,
    a refresh token, a code verifier): a 3xx answer is an error naming the endpoint, and
    nothing reaches where the redirect points."""
    meta = oauth.discover(f"{auth_server}/mcp", UpstreamOAuthConfig())
    sink = f"{auth_server}/_test/sink"
    try:
        _redirect(auth_server, "/register", sink)
        with pytest.raises(oauth.OAuthError, match=r"registration endpoint .* redirect"):
            oauth.register(meta, "http://127.0.0.1:1/callback", 10)
        _redirect(auth_server, "/token", sink)
        form = {"grant_type": "refresh_token", "refresh_token": "rt-secret"}
        with pytest.raises(
            oauth.OAuthError, match=re.escape(f"token endpoint {meta.token_endpoint} answered")
        ):
            oauth.token_request(meta.token_endpoint, form, "cid", "client-secret", 10)
    finally:
        _redirect(auth_server, "/register", "")
        _redirect(auth_server, "/token", "")
    assert state(auth_server)["sink"] == []


@pytest.fixture(scope="module")
def openid_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from run_server(tmp_path_factory.mktemp("as"), "--openid-only")


def test_openid_discovery_with_its_own_issuer(openid_server: str) -> None:
    meta = oauth.discover(f"{openid_server}/mcp", UpstreamOAuthConfig())
    assert meta.issuer == openid_server
    assert meta.token_endpoint == f"{openid_server}/token"
