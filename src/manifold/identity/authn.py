"""Inbound authentication of the HTTP front: static API keys and OAuth 2.1 JWT access tokens.

`Authenticator.authenticate()` turns a request's `Authorization` header into an `Identity`
(tenant, subject, scopes) or raises `AuthError`, which the front answers with 401 or 403 and a
`WWW-Authenticate` header (RFC 6750, with the RFC 9728 `resource_metadata` link).

- API keys are stored as SHA-256 hex digests (`manifold auth hash-key`), or read from an
  environment variable when the gateway starts; a key is looked up by the digest of the token.
- JWTs are checked with PyJWT against the issuer's JWKS (`jwks.py`): signature (asymmetric
  algorithms only; `none` and HS* are never accepted), `iss`, `aud` (the gateway's canonical
  URL unless configured), `exp`/`nbf` with a small leeway, and the required scopes.
- A verified token is cached (LRU of `auth.cache_size`, keyed by the token's SHA-256, never
  longer than the token's `exp`), so a client's later requests cost a hash and a dict lookup.
- A refused JWT is remembered too (`auth.refused_cache_size`, keyed by the token's SHA-256,
  `auth.refused_ttl`), so a flood of one well-formed token with a bad signature costs a hash and
  a lookup instead of a signature check each. A refusal is kept only while nothing could change
  it: never past the next good JWKS fetch (a rotated key), for an unknown `kid` only until a
  refetch is allowed, and a token refused as not valid yet (`nbf`) is not kept.
- Tokens in the query string are refused: they end up in logs and browser histories.

The client's token is never forwarded to an upstream. Only when an upstream is configured for
RFC 8693 token exchange does the front keep a validated JWT on the request's identity
(`Identity.token`, a `ClientToken`, kept out of `repr` and equality), so that the credentials
layer can trade it for a token of the upstream's own (`credentials/exchange.py`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from manifold.config import AuthConfig, OAuthConfig

if TYPE_CHECKING:
    from manifold.credentials.client_token import ClientToken

log = logging.getLogger("manifold.auth")

LOCAL = "local"  # the principal of stdio and of unauthenticated HTTP clients


@dataclass(frozen=True, slots=True)
class Identity:
    tenant: str  # the principal the hooks, limits and policy match
    subject: str  # who within the tenant (token `sub`, or the key's name)
    scopes: frozenset[str] = frozenset()
    # The validated JWT, only for token exchange (`authenticate(keep_token=True)`).
    token: ClientToken | None = field(default=None, compare=False, repr=False, hash=False)

    @property
    def key(self) -> str:
        """What a session or a parked call is bound to."""
        return f"{self.tenant}\x1f{self.subject}"


ANONYMOUS = Identity(LOCAL, "")


class AuthError(Exception):
    """A request that is not let in: `status` 400/401/403 and the RFC 6750 error code."""

    # A JWT's refusal that holds until then (monotonic) while the JWKS is unchanged; set by
    # the verifier, 0: do not remember it.
    holds_until = 0.0

    def __init__(self, status: int, error: str, description: str, scope: str = "") -> None:
        super().__init__(description)
        self.status = status
        self.error = error  # "" when no credentials were sent (RFC 6750 3.1)
        self.description = description
        self.scope = scope


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _quoted(text: str) -> str:
    return text.replace("\\", "").replace('"', "'")


def _query_has_token(query: str) -> bool:
    return any(k in ("access_token", "token", "api_key") for k, _ in parse_qsl(query))


class _Jwt:
    """JWT access tokens of one issuer."""

    def __init__(self, cfg: OAuthConfig, audience: str) -> None:
        import jwt

        from manifold.identity.jwks import Jwks

        self.jwt = jwt
        self.cfg = cfg
        self.audience = cfg.audience or audience
        self.algorithms = frozenset(cfg.algorithms)
        self.required = frozenset(cfg.required_scopes)
        self.jwks = Jwks(
            cfg.jwks_url, cfg.jwks_timeout, cfg.jwks_ttl, cfg.jwks_min_refetch, cfg.jwks_max_bytes
        )

    async def verify(self, token: str, keep: float = 0.0) -> tuple[Identity, float]:
        """The token's identity and `exp`; a refusal that may be remembered for up to `keep`
        seconds carries `holds_until`."""
        try:
            return await self._verify(token)
        except AuthError as e:
            if keep > 0 and e.holds_until >= 0:
                now = time.monotonic()
                e.holds_until = min(now + keep, e.holds_until or now + keep)
            raise

    async def _verify(self, token: str) -> tuple[Identity, float]:
        from manifold.identity.jwks import JwksError

        jwt = self.jwt
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise AuthError(401, "invalid_token", "the token is not a JWT") from None
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self.algorithms:
            raise AuthError(401, "invalid_token", f"token algorithm {alg!r} is not accepted")
        kid = header.get("kid")
        try:
            jwk = await self.jwks.key(kid if isinstance(kid, str) else None)
        except JwksError as e:
            err = AuthError(401, "invalid_token", f"cannot verify the token: {e}")
            # The same answer until the set may be fetched again (then the kid may be there).
            err.holds_until = self.jwks.next_attempt()
            raise err from None
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                jwk.key,
                algorithms=[alg],
                audience=self.audience,
                issuer=self.cfg.issuer,
                leeway=self.cfg.leeway,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.ExpiredSignatureError:
            raise AuthError(401, "invalid_token", "the token has expired") from None
        except jwt.ImmatureSignatureError:
            err = AuthError(401, "invalid_token", "the token is not valid yet")
            err.holds_until = -1.0  # it will be: never remembered
            raise err from None
        except jwt.InvalidAudienceError:
            raise AuthError(
                401, "invalid_token", f"the token's audience is not {self.audience}"
            ) from None
        except jwt.InvalidIssuerError:
            raise AuthError(401, "invalid_token", "the token's issuer is not trusted") from None
        except jwt.InvalidSignatureError:
            raise AuthError(401, "invalid_token", "the token's signature is not valid") from None
        except jwt.PyJWTError as e:
            raise AuthError(401, "invalid_token", f"the token is not valid: {e}") from None
        scopes = _scopes(claims)
        missing = self.required - scopes
        if missing:
            raise AuthError(
                403,
                "insufficient_scope",
                f"the token lacks scope {' '.join(sorted(missing))}",
                " ".join(sorted(self.required)),
            )
        subject = str(claims.get("sub") or claims.get("client_id") or claims.get("azp") or "")
        tenant = self._tenant(claims)
        if not tenant:
            raise AuthError(403, "insufficient_scope", "the token names no tenant")
        exp = claims.get("exp")
        return Identity(tenant, subject, scopes), float(exp) if isinstance(
            exp, int | float
        ) else 0.0

    def _tenant(self, claims: Mapping[str, Any]) -> str:
        cfg = self.cfg
        value = claims.get(cfg.tenant_claim)
        values: list[str]
        if isinstance(value, str):
            values = value.split() if cfg.tenant_claim in ("scope", "scp") else [value]
        elif isinstance(value, list):
            values = [v for v in value if isinstance(v, str)]
        else:
            values = []
        for v in values:
            if v in cfg.tenants:
                return cfg.tenants[v]
        if cfg.default_tenant is not None:
            return cfg.default_tenant
        return values[0] if values else ""


def _scopes(claims: Mapping[str, Any]) -> frozenset[str]:
    raw = claims.get("scope", claims.get("scp"))
    if isinstance(raw, str):
        return frozenset(raw.split())
    if isinstance(raw, list):
        return frozenset(s for s in raw if isinstance(s, str))
    return frozenset()


class Authenticator:
    def __init__(
        self, cfg: AuthConfig, resource: str, env: Mapping[str, str] | None = None
    ) -> None:
        self.cfg = cfg
        self.resource = cfg.resource or resource
        self.max_token = cfg.max_token_bytes
        self.max_cached = cfg.cache_size
        env = os.environ if env is None else env
        self.keys: dict[bytes, Identity] = {}
        for i, k in enumerate(cfg.keys):
            if k.env is not None:
                secret = env.get(k.env)
                if not secret:
                    raise ValueError(f"auth.keys[{i}].env: environment variable {k.env} is not set")
                digest = hashlib.sha256(secret.encode()).digest()
            else:
                assert k.sha256 is not None
                digest = bytes.fromhex(k.sha256)
            self.keys[digest] = Identity(k.tenant, k.name or digest.hex()[:12], frozenset(k.scopes))
        self.jwt = _Jwt(cfg.oauth, self.resource) if cfg.oauth is not None else None
        self.cache: OrderedDict[bytes, tuple[Identity, float]] = OrderedDict()
        # Refused JWTs: digest -> ((status, error, description, scope), until (monotonic), the
        # JWKS generation). The refusal's fields only: an exception would keep its traceback.
        self.refused: OrderedDict[bytes, tuple[tuple[int, str, str, str], float, int]] = (
            OrderedDict()
        )
        self.max_refused = cfg.refused_cache_size
        self.metadata_url = ""
        self.set_resource(self.resource)

    def set_resource(self, resource: str) -> None:
        """The gateway's canonical URL, once known (the default is the URL it serves on, whose
        port may be known only once it is bound): the metadata's `resource` and, unless
        configured, the audience tokens must carry."""
        self.resource = self.cfg.resource or resource
        if self.jwt is not None:
            self.jwt.audience = self.jwt.cfg.audience or self.resource
            base, _, path = _split_url(self.resource)
            self.metadata_url = f"{base}/.well-known/oauth-protected-resource{path}"

    # ----------------------------------------------------------------- requests

    async def authenticate(
        self, authorization: str | None, query: str, keep_token: bool = False
    ) -> Identity:
        """The request's identity. `keep_token`: an identity from a JWT carries the token
        (`Identity.token`) for token exchange; an API key's never does."""
        if query and _query_has_token(query):
            raise AuthError(
                400,
                "invalid_request",
                "access tokens in the query string are refused; send Authorization: Bearer",
            )
        if authorization is None:
            raise AuthError(401, "", "authentication required: send Authorization: Bearer <token>")
        scheme, _, token = authorization.partition(" ")
        token = token.strip(" ")
        if scheme.lower() != "bearer" or not token or " " in token:
            raise AuthError(
                401, "invalid_request", "malformed Authorization header: expected 'Bearer <token>'"
            )
        if len(token) > self.max_token:
            raise AuthError(
                401, "invalid_token", f"the token is longer than {self.max_token} bytes"
            )
        digest = hashlib.sha256(token.encode()).digest()
        ident = self.keys.get(digest)
        if ident is not None:
            return ident
        hit = self.cache.get(digest)
        if hit is not None:
            if hit[1] > time.time():
                self.cache.move_to_end(digest)
                return _with_token(hit[0], token, digest, hit[1]) if keep_token else hit[0]
            del self.cache[digest]
        if self.jwt is None or token.count(".") != 2:
            raise AuthError(401, "invalid_token", "unknown API key or token")
        if self.max_refused:
            no = self.refused.get(digest)
            if no is not None:
                if no[1] > time.monotonic() and no[2] == self.jwt.jwks.generation:
                    self.refused.move_to_end(digest)
                    raise AuthError(*no[0])
                del self.refused[digest]  # stale: check it again
            try:
                ident, exp = await self.jwt.verify(token, self.cfg.refused_ttl)
            except AuthError as e:
                if e.holds_until > time.monotonic():
                    # Against the keys it was checked with (nothing awaits between the key
                    # lookup and the verdict, so these are they).
                    why = (e.status, e.error, e.description, e.scope)
                    self.refused[digest] = (why, e.holds_until, self.jwt.jwks.generation)
                    if len(self.refused) > self.max_refused:
                        self.refused.popitem(last=False)
                raise
        else:
            ident, exp = await self.jwt.verify(token)
        self.cache[digest] = (ident, exp)
        if len(self.cache) > self.max_cached:
            self.cache.popitem(last=False)
        return _with_token(ident, token, digest, exp) if keep_token else ident

    def challenge(self, e: AuthError) -> str:
        """The `WWW-Authenticate` value for a refusal."""
        parts = ['Bearer realm="manifold"']
        if e.error:
            parts.append(f'error="{e.error}"')
            parts.append(f'error_description="{_quoted(e.description)}"')
        scope = e.scope or (" ".join(sorted(self.jwt.required)) if self.jwt is not None else "")
        if scope:  # the scopes to ask for (MCP authorization: scope selection)
            parts.append(f'scope="{_quoted(scope)}"')
        if self.metadata_url:
            parts.append(f'resource_metadata="{self.metadata_url}"')
        return ", ".join(parts)

    def metadata_paths(self) -> tuple[str, ...]:
        """Where the protected-resource metadata is served (RFC 9728: under the resource's path,
        and at the root for clients that look there)."""
        if self.jwt is None:
            return ()
        _, _, path = _split_url(self.resource)
        return (
            f"/.well-known/oauth-protected-resource{path}",
            "/.well-known/oauth-protected-resource",
        )

    def metadata(self) -> dict[str, Any]:
        assert self.jwt is not None
        oauth = self.jwt.cfg
        doc: dict[str, Any] = {
            "resource": self.resource,
            "authorization_servers": oauth.authorization_servers or [oauth.issuer],
            "bearer_methods_supported": ["header"],
            "resource_name": "Manifold MCP gateway",
        }
        if oauth.required_scopes:
            doc["scopes_supported"] = list(oauth.required_scopes)
        return doc


def _with_token(ident: Identity, token: str, digest: bytes, exp: float) -> Identity:
    from manifold.credentials.client_token import ClientToken

    return replace(ident, token=ClientToken(token, digest, exp))


def _split_url(url: str) -> tuple[str, str, str]:
    """(scheme://host[:port], host, path without a trailing slash)."""
    scheme, _, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme}://{host}", host, ("/" + path).rstrip("/") if slash else ""
