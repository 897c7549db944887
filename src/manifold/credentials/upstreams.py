"""What the gateway gives each upstream: its OAuth provider, and for a per-tenant upstream the
config and provider a tenant's own session opens with (`tenant.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from manifold.config import ConfigError, GatewayConfig, UpstreamConfig
from manifold.credentials.provider import OAuthProvider
from manifold.credentials.tenant import TENANT_REASON, TenantCredentials
from manifold.credentials.tokenstore import TokenStore, TokenStoreError
from manifold.protocol import jsonrpc as rpc

if TYPE_CHECKING:
    from manifold.credentials.exchange import FailureHook, TokenExchanger

# A principal -> (its session key, "" for the shared session; its config; its provider)
TenantOpener = Callable[[str], tuple[str, UpstreamConfig, OAuthProvider | None]]


class UpstreamCredentials:
    def __init__(
        self, config: GatewayConfig, on_failure: Callable[[str, str, str], None] | None = None
    ) -> None:
        self.config = config
        self.on_failure = on_failure
        self.store: TokenStore | None = None
        if any(u.oauth is not None for u in config.enabled_upstreams.values()):
            try:
                self.store = TokenStore.open(config)
            except TokenStoreError as e:
                raise ConfigError(f"credentials: {e}") from None
        self.tenants = TenantCredentials(config)
        self._providers: dict[tuple[str, str], OAuthProvider] = {}

    def auth(self, upstream: str, login: str = "") -> OAuthProvider | None:
        """The provider of `upstream`'s tokens for `login` ("" : the login without --tenant)."""
        cfg = self.config.upstreams[upstream]
        if cfg.oauth is None or self.store is None:
            return None
        p = self._providers.get((upstream, login))
        if p is None:
            p = OAuthProvider(upstream, cfg.oauth, self.store, login, self.on_failure)
            self._providers[(upstream, login)] = p
        return p

    def exchanger(
        self, upstream: str, on_failure: FailureHook | None = None
    ) -> TokenExchanger | None:
        """RFC 8693 token exchange for `upstream`'s calls, when configured (`exchange.py`)."""
        cfg = self.config.upstreams[upstream]
        if cfg.oauth is None or cfg.oauth.token_exchange is None or cfg.url is None:
            return None
        # The config refuses token exchange without auth.oauth; a reload that brings both
        # applies auth after a restart: until then no client has a token and calls are refused.
        inbound = self.config.auth.oauth
        issuer = inbound.issuer if inbound is not None else ""
        from manifold.credentials.exchange import TokenExchanger

        return TokenExchanger(upstream, cfg.url, cfg.oauth, issuer, on_failure)

    def shared_auth(self, upstream: str) -> OAuthProvider | None:
        """The provider of the shared session (the one that reads the catalog)."""
        cfg = self.config.upstreams[upstream]
        per_tenant = cfg.oauth is not None and cfg.oauth.per_tenant
        return self.auth(upstream, (cfg.catalog_tenant or "") if per_tenant else "")

    def shared_config(self, upstream: str) -> UpstreamConfig:
        """The config of the shared session: templates filled as the catalog tenant."""
        cfg = self.config.upstreams[upstream]
        catalog = self._catalog_profile(cfg)
        if catalog is None or not (cfg.tenant_credentials - {""}):
            return cfg
        return self.tenants.config_for(upstream, cfg, catalog)

    def _catalog_profile(self, cfg: UpstreamConfig) -> str | None:
        t = self.config.tenants
        return cfg.catalog_tenant or (t.default if t is not None else None)

    def opener(self, upstream: str) -> TenantOpener | None:
        cfg = self.config.upstreams[upstream]
        if not cfg.tenant_credentials:
            return None
        per_login = cfg.oauth is not None and cfg.oauth.per_tenant
        templates = bool(cfg.tenant_credentials - {""})
        shared = (cfg.catalog_tenant or "") if per_login else self._catalog_profile(cfg)

        def no_profile(principal: str) -> rpc.RpcError:
            return rpc.RpcError(
                rpc.INVALID_REQUEST,
                f"upstream {upstream!r} is reached with per-tenant credentials and "
                f"{principal!r} has no tenant profile (nor is tenants.default set)",
                {"reason": TENANT_REASON, "upstream": upstream, "tenant": principal},
            )

        def open_for(principal: str) -> tuple[str, UpstreamConfig, OAuthProvider | None]:
            profile = self.tenants.profile_of(principal)
            key = principal if per_login else profile
            if key is None:
                raise no_profile(principal)
            if key == shared:
                return "", cfg, None
            filled = cfg
            if templates:
                if profile is None:
                    raise no_profile(principal)
                filled = self.tenants.config_for(upstream, cfg, profile)
            return key, filled, self.auth(upstream, key) if per_login else None

        return open_for
