"""The access token on an upstream's requests, refreshed before it expires and after a 401.

`header()` is what the HTTP transport asks for each request: the cached `Bearer` value, or,
within `refresh_margin` of the token's expiry, a refreshed one. `after_401(sent)` refreshes once
for every request that failed with the same token (single flight: concurrent 401s share one
refresh; a request that carried an older token just takes the new one), and the transport
retries its request once with it. A refresh runs in a thread, bounded by `oauth.timeout`.

Without a token (never logged in), or when the authorization server refuses the refresh token
(revoked, expired), `AuthFailed` says so, naming the upstream and the command that logs in
again; the failure is logged and written to the audit trail (`on_failure`). The store is read
again at the next attempt, so a `manifold auth login` done meanwhile is picked up without a
restart. The client's own credentials never reach this module: the transport's headers are
built from the upstream's config alone.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from manifold.config import UpstreamOAuthConfig
from manifold.credentials import oauth
from manifold.credentials.tokenstore import TokenSet, TokenStore, TokenStoreError
from manifold.protocol import jsonrpc as rpc

log = logging.getLogger("manifold.credentials")


AUTH_REASON = "upstream_auth"


class AuthFailed(rpc.RpcError):
    """No usable token for the upstream: the JSON-RPC error the call gets, which says what to
    run (`data.login`)."""

    def __init__(self, upstream: str, tenant: str, message: str) -> None:
        data = {
            "reason": AUTH_REASON,
            "upstream": upstream,
            "login": login_command(upstream, tenant),
        }
        super().__init__(rpc.UPSTREAM_UNAVAILABLE, message, data)


def login_command(upstream: str, tenant: str = "") -> str:
    return f"manifold auth login {upstream}" + (f" --tenant {tenant}" if tenant else "")


class OAuthProvider:
    def __init__(
        self,
        upstream: str,
        cfg: UpstreamOAuthConfig,
        store: TokenStore,
        tenant: str = "",
        on_failure: Callable[[str, str, str], None] | None = None,
    ) -> None:
        self.upstream = upstream
        self.cfg = cfg
        self.store = store
        self.tenant = tenant
        self.on_failure = on_failure  # (upstream, tenant, why)
        self._tokens: TokenSet | None = None
        self._header = ""
        self._refreshing: asyncio.Future[str] | None = None
        self.refreshes = 0

    def _set(self, tokens: TokenSet) -> str:
        self._tokens = tokens
        self._header = "Bearer " + tokens.access_token
        return self._header

    def _load(self) -> TokenSet | None:
        try:
            return self.store.get(self.upstream, self.tenant)
        except TokenStoreError as e:
            raise self._failed(str(e)) from None

    def _failed(self, why: str) -> AuthFailed:
        msg = (
            f"upstream {self.upstream!r}: {why}; log in again with "
            f"`{login_command(self.upstream, self.tenant)}`"
        )
        log.warning("%s", msg)
        if self.on_failure is not None:
            self.on_failure(self.upstream, self.tenant, why)
        return AuthFailed(self.upstream, self.tenant, msg)

    async def header(self) -> str:
        """The `Authorization` value for the next request."""
        t = self._tokens
        if t is None:
            t = self._load()
            if t is None:
                raise self._failed("no OAuth token (never logged in)")
            self._set(t)
        if t.expires_at is not None and t.expires_at - time.time() <= self.cfg.refresh_margin:
            return await self._refresh(self._header)
        return self._header

    async def after_401(self, sent: str) -> str:
        """The upstream refused `sent`: a new header (refreshed once for all who sent it)."""
        if self._header and sent != self._header:
            return self._header  # someone refreshed meanwhile
        return await self._refresh(sent)

    async def _refresh(self, stale: str) -> str:
        fut = self._refreshing
        if fut is None or fut.done():
            fut = asyncio.ensure_future(self._do_refresh(stale))
            self._refreshing = fut
        return await asyncio.shield(fut)

    async def _do_refresh(self, stale: str) -> str:
        # Another process (a login, another gateway) may have stored newer tokens.
        stored = await asyncio.to_thread(self._load)
        if stored is not None and "Bearer " + stored.access_token != stale:
            fresh = stored.expires_at is None or stored.expires_at - time.time() > 1.0
            if fresh:
                return self._set(stored)
        current = stored or self._tokens
        if current is None:
            raise self._failed("no OAuth token (never logged in)")
        try:
            tokens = await asyncio.to_thread(oauth.refresh, current, self.cfg.timeout)
        except oauth.OAuthError as e:
            raise self._failed(f"refreshing the OAuth token failed ({e})") from None
        self.refreshes += 1
        try:
            await asyncio.to_thread(self.store.put, self.upstream, tokens, self.tenant)
        except Exception as e:  # sqlite3.Error, OSError: keep serving with the token in memory
            log.warning("upstream %s: cannot store the refreshed token: %s", self.upstream, e)
        log.info("upstream %s: OAuth token refreshed", self.upstream)
        return self._set(tokens)
