"""RFC 8693 token exchange: a call reaches an upstream in the same trust domain as its user.

For an upstream with `oauth.token_exchange`, each call from a client that authenticated with an
OAuth access token (`auth.oauth`) carries a token the authorization server issued for that
client's user and that upstream: the gateway presents the client's validated token as the
`subject_token` (`grant_type=urn:ietf:params:oauth:grant-type:token-exchange`, the upstream's
URL as `resource`, the configured `audience` and `scopes`), authenticating as its own
confidential client, and puts the token it gets on the call. The client's own token never goes
upstream (the MCP authorization spec forbids token passthrough).

Exchanged tokens are kept per client token (its SHA-256) in an LRU of
`token_exchange.cache_size`, never past their `expires_in` nor past the client token's `exp`;
concurrent calls with the same client token share one exchange. A client token that has
expired is refused before any exchange; an exchange the server refuses, or a server that
cannot be reached (bounded by `oauth.timeout`), fails the call with `data.reason:
"token_exchange"`, a log line and an audit record. Nothing here logs or keeps a token beyond
the cache in memory.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable

from manifold.config import UpstreamOAuthConfig
from manifold.credentials import oauth
from manifold.credentials.client_token import ClientToken
from manifold.protocol import jsonrpc as rpc

log = logging.getLogger("manifold.credentials")

EXCHANGE_REASON = "token_exchange"
GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token"
MIN_LEFT = 1.0  # seconds: an exchanged token with less left is exchanged anew
DEFAULT_LIFETIME = 300.0  # an answer without expires_in, for a client token without exp


class ExchangeFailed(rpc.RpcError):
    """The call cannot be made as its user: the JSON-RPC error it gets."""

    def __init__(self, upstream: str, message: str, error: str | None = None) -> None:
        data: dict[str, str] = {"reason": EXCHANGE_REASON, "upstream": upstream}
        if error:
            data["error"] = error
        super().__init__(rpc.UPSTREAM_UNAVAILABLE, message, data)


# (upstream, principal, subject, why): written to the audit trail
FailureHook = Callable[[str, str, str, str], None]


class TokenExchanger:
    """The exchanged tokens of one upstream."""

    def __init__(
        self,
        upstream: str,
        url: str,
        cfg: UpstreamOAuthConfig,
        issuer: str,
        on_failure: FailureHook | None = None,
    ) -> None:
        assert cfg.token_exchange is not None
        self.upstream = upstream
        self.url = url
        self.cfg = cfg.token_exchange
        self.timeout = cfg.timeout
        self.issuer = cfg.authorization_server or issuer
        self.on_failure = on_failure
        self.max_cached = self.cfg.cache_size
        # client token digest -> (the Authorization value, when it stops being used)
        self.cache: OrderedDict[bytes, tuple[str, float]] = OrderedDict()
        self._inflight: dict[bytes, asyncio.Future[str]] = {}
        self._endpoint = self.cfg.token_endpoint
        self.exchanges = 0

    async def header(self, token: ClientToken | None, principal: str, subject: str) -> str:
        """The `Authorization` value of a call by this client."""
        if token is None:
            raise self._fail(
                principal,
                subject,
                "its calls go with a token exchanged for the client's OAuth access token, and this "
                "client authenticated without one",
                "no_subject_token",
            )
        now = time.time()
        if token.exp and token.exp <= now:
            raise self._fail(
                principal, subject, "the client's access token has expired", "expired_token"
            )
        key = token.digest
        hit = self.cache.get(key)
        if hit is not None:
            if hit[1] - now > MIN_LEFT:
                self.cache.move_to_end(key)
                return hit[0]
            del self.cache[key]
        fut = self._inflight.get(key)
        if fut is None:
            fut = asyncio.ensure_future(self._exchange(token, principal, subject))
            self._inflight[key] = fut
            fut.add_done_callback(lambda f: self._done(key, f))
        return await asyncio.shield(fut)

    def forget(self, token: ClientToken, bearer: str) -> None:
        """The upstream refused `bearer` (revoked, expired early): the next call exchanges
        the client's token anew."""
        hit = self.cache.get(token.digest)
        if hit is not None and hit[0] == bearer:
            del self.cache[token.digest]
            log.info("upstream %s refused an exchanged token: exchanging anew", self.upstream)

    def _done(self, key: bytes, fut: asyncio.Future[str]) -> None:
        self._inflight.pop(key, None)
        if not fut.cancelled():
            fut.exception()  # retrieved: a failure no caller waited for is not reported again

    async def _exchange(self, token: ClientToken, principal: str, subject: str) -> str:
        form = {
            "grant_type": GRANT,
            "subject_token": token.secret(),
            "subject_token_type": ACCESS_TOKEN,
            "requested_token_type": ACCESS_TOKEN,
            "resource": self.url,
        }
        if self.cfg.audience:
            form["audience"] = self.cfg.audience
        if self.cfg.scopes:
            form["scope"] = " ".join(self.cfg.scopes)
        try:
            if self._endpoint is None:
                self._endpoint = await asyncio.to_thread(
                    oauth.token_endpoint_of, self.issuer, self.timeout
                )
            data = await asyncio.to_thread(
                oauth.token_request,
                self._endpoint,
                form,
                self.cfg.client_id,
                self.cfg.client_secret,
                self.timeout,
            )
        except oauth.OAuthError as e:
            if e.error is None:
                raise self._fail(principal, subject, f"token exchange failed: {e}") from None
            raise self._fail(
                principal,
                subject,
                f"the authorization server refused to exchange the client's token ({e})",
                e.error,
            ) from None
        kind = str(data.get("token_type") or "Bearer")
        issued = data.get("issued_token_type")
        if kind.lower() != "bearer" or issued not in (None, ACCESS_TOKEN):
            raise self._fail(
                principal,
                subject,
                f"the token exchange gave a {issued or kind} token, not a bearer access token",
                "unsupported_token_type",
            )
        now = time.time()
        expires_in = data.get("expires_in")
        until = token.exp or now + DEFAULT_LIFETIME
        if isinstance(expires_in, int | float) and not isinstance(expires_in, bool):
            until = min(until, now + float(expires_in))
        self.exchanges += 1
        bearer = "Bearer " + str(data["access_token"])
        if until - now > MIN_LEFT:
            self.cache[token.digest] = (bearer, until)
            if len(self.cache) > self.max_cached:
                self.cache.popitem(last=False)
        log.info("upstream %s: token exchanged for %s", self.upstream, subject or principal)
        return bearer

    def _fail(
        self, principal: str, subject: str, why: str, error: str | None = None
    ) -> ExchangeFailed:
        who = subject or principal or "an unauthenticated client"
        log.warning("upstream %s: call by %s refused: %s", self.upstream, who, why)
        if self.on_failure is not None:
            self.on_failure(self.upstream, principal, subject, why)
        return ExchangeFailed(self.upstream, f"upstream {self.upstream!r}: {why}", error)
