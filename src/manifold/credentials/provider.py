"""The access token on an upstream's requests, refreshed before it expires and after a 401.

`header()` is what the HTTP transport asks for each request: the cached `Bearer` value, or,
within `refresh_margin` of the token's expiry, a refreshed one. `after_401(sent)` refreshes once
for every request that failed with the same token (single flight: concurrent 401s share one
refresh; a request that carried an older token just takes the new one), and the transport
retries its request once with it. A refresh runs in a thread, bounded by `oauth.timeout`.

Without a token (never logged in), or when the authorization server refuses the refresh token
(revoked, expired), `AuthFailed` says so, naming the upstream and the command that logs in
again; the failure is logged and written to the audit trail (`on_failure`) once, and later
calls get the same error at once, without asking the authorization server again, until the
store holds new tokens (it is read at most once a second): a `manifold auth login` done
meanwhile is picked up without a restart. An authorization server that cannot be reached is
not such a failure: the next call tries again. The client's own credentials never reach this
module: the transport's headers are built from the upstream's config alone.
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
        # No usable token (never logged in, refresh refused): calls fail at once with this,
        # without asking the authorization server again, until the store holds new tokens
        # (read at most once a second).
        self._dead: AuthFailed | None = None
        self._dead_checked = 0.0

    def _set(self, tokens: TokenSet) -> str:
        self._tokens = tokens
        self._header = "Bearer " + tokens.access_token
        return self._header

    def _load(self) -> TokenSet | None:
        try:
            return self.store.get(self.upstream, self.tenant)
        except TokenStoreError as e:
            raise self._failed(str(e)) from None

    def _failed(self, why: str, login: bool = True) -> AuthFailed:
        msg = f"upstream {self.upstream!r}: {why}; " + (
            f"log in again with `{login_command(self.upstream, self.tenant)}`"
            if login
            else "the next call tries again"
        )
        log.warning("%s", msg)
        if self.on_failure is not None:
            self.on_failure(self.upstream, self.tenant, why)
        return AuthFailed(self.upstream, self.tenant, msg)

    async def header(self) -> str:
        """The `Authorization` value for the next request."""
        if self._dead is not None:
            self._revive()
        t = self._tokens
        if t is None:
            t = self._load()
            if t is None:
                self._dead = self._failed("no OAuth token (never logged in)")
                self._dead_checked = time.monotonic()
                raise self._dead
            self._set(t)
        if t.expires_at is not None and t.expires_at - time.time() <= self.cfg.refresh_margin:
            return await self._refresh(self._header)
        return self._header

    def _revive(self) -> None:
        """Dead: new tokens in the store (a login since) bring it back, else the same error."""
        assert self._dead is not None
        now = time.monotonic()
        if now - self._dead_checked >= 1.0:
            self._dead_checked = now
            stored = self._load()
            old = self._tokens
            if stored is not None and (old is None or stored.access_token != old.access_token):
                log.info("upstream %s: new OAuth tokens found in the store", self.upstream)
                self._dead = None
                self._set(stored)
                return
        raise self._dead

    async def after_401(self, sent: str) -> str:
        """The upstream refused `sent`: a new header (refreshed once for all who sent it)."""
        if self._dead is not None:
            self._revive()
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
            self._dead = self._failed("no OAuth token (never logged in)")
            self._dead_checked = time.monotonic()
            raise self._dead
        try:
            tokens = await asyncio.to_thread(oauth.refresh, current, self.cfg.timeout)
        except oauth.OAuthError as e:
            if e.error is None:  # the server could not be reached: the next call tries again
                raise self._failed(f"refreshing the OAuth token failed ({e})", False) from None
            self._tokens = current
            self._dead = self._failed(f"refreshing the OAuth token failed ({e})")
            self._dead_checked = time.monotonic()
            raise self._dead from None
        self.refreshes += 1
        try:
            await asyncio.to_thread(self.store.put, self.upstream, tokens, self.tenant)
        except Exception as e:  # sqlite3.Error, OSError: keep serving with the token in memory
            log.warning("upstream %s: cannot store the refreshed token: %s", self.upstream, e)
        log.info("upstream %s: OAuth token refreshed", self.upstream)
        return self._set(tokens)
