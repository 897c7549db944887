"""The provider of an upstream's access token: concurrent 401s share one refresh, a token near
its expiry is refreshed before use and written back to the store, and a refused refresh is an
error naming the upstream and the login command, reported once per failure."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from manifold.config import UpstreamOAuthConfig
from manifold.credentials.provider import AuthFailed, OAuthProvider
from tests.credentials.test_oauth import do_login


def as_state(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/_test/state", timeout=10) as r:
        data: dict[str, Any] = json.loads(r.read())
    return data


def as_post(base: str, what: str) -> None:
    req = urllib.request.Request(f"{base}/_test/{what}", data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        r.read()


async def test_concurrent_401s_share_one_refresh(auth_server: str, tmp_path: Path) -> None:
    tokens, store = await asyncio.to_thread(do_login, auth_server, tmp_path)
    p = OAuthProvider("prot", UpstreamOAuthConfig(refresh_margin=0), store)
    sent = await p.header()
    assert sent == f"Bearer {tokens.access_token}"
    before = as_state(auth_server)["refreshes"]
    fresh = await asyncio.gather(*(p.after_401(sent) for _ in range(20)))
    assert len(set(fresh)) == 1 and fresh[0] != sent
    assert as_state(auth_server)["refreshes"] == before + 1
    # A request that still carried the old token takes the new one, without a refresh.
    assert await p.after_401(sent) == fresh[0]
    assert as_state(auth_server)["refreshes"] == before + 1
    stored = store.get("prot")  # written back for the next process
    assert stored is not None and f"Bearer {stored.access_token}" == fresh[0]
    store.close()


async def test_near_expiry_is_refreshed_before_use(auth_server: str, tmp_path: Path) -> None:
    tokens, store = await asyncio.to_thread(do_login, auth_server, tmp_path)
    tokens.expires_at = time.time() + 5  # within the margin below
    store.put("prot", tokens)
    p = OAuthProvider("prot", UpstreamOAuthConfig(refresh_margin=30), store)
    before = as_state(auth_server)["refreshes"]
    header = await p.header()
    assert header != f"Bearer {tokens.access_token}"
    assert as_state(auth_server)["refreshes"] == before + 1
    assert await p.header() == header  # a fresh token is used as it is
    store.close()


async def test_a_revoked_grant_names_the_login_command(auth_server: str, tmp_path: Path) -> None:
    _, store = await asyncio.to_thread(do_login, auth_server, tmp_path)
    failures: list[tuple[str, str, str]] = []
    p = OAuthProvider(
        "prot",
        UpstreamOAuthConfig(),
        store,
        on_failure=lambda *a: failures.append(a),
    )
    sent = await p.header()
    as_post(auth_server, "revoke")
    with pytest.raises(AuthFailed) as err:
        await p.after_401(sent)
    assert "upstream 'prot'" in err.value.message and "invalid_grant" in err.value.message
    assert "`manifold auth login prot`" in err.value.message
    assert err.value.data["login"] == "manifold auth login prot"
    assert len(failures) == 1 and failures[0][0] == "prot"
    store.close()


async def test_never_logged_in(tmp_path: Path) -> None:
    from manifold.credentials.tokenstore import TokenStore, load_key

    store = TokenStore(tmp_path / "t.db", load_key(tmp_path / "k", env={}))
    p = OAuthProvider("gh", UpstreamOAuthConfig(per_tenant=True), store, tenant="red")
    with pytest.raises(AuthFailed, match=r"never logged in.*manifold auth login gh --tenant red"):
        await p.header()
    store.close()
