"""Per-tenant credentials: an upstream's headers (HTTP) or env values (stdio) chosen by tenant.

An upstream whose `headers` or `env` hold `${tenant.NAME}` reaches its server as the tenant
that calls: each tenant gets a session of its own (for stdio, a process of its own), opened
with the values of its profile's `credentials` (`tenants.profiles.<t>.credentials.NAME`). A
principal without a profile of its own uses `tenants.default`'s, like the rest of its profile.
The catalog is read with the upstream's `catalog_tenant` profile. An upstream with
`oauth.per_tenant` is per-tenant too: each tenant logs in as itself
(`manifold auth login <upstream> --tenant <t>`).

Values are filled in only here, when a tenant's session opens; the client's own credentials
are never among them.
"""

from __future__ import annotations

import re

from manifold.config import TENANT_TEMPLATE_RE as TEMPLATE_RE
from manifold.config import GatewayConfig, UpstreamConfig
from manifold.protocol import jsonrpc as rpc

TENANT_REASON = "tenant_credentials"


class TenantCredentials:
    """Which profile a principal's credentials come from, and its upstream config."""

    def __init__(self, config: GatewayConfig) -> None:
        self.tenants = config.tenants
        self._filled: dict[tuple[str, str], UpstreamConfig] = {}

    def profile_of(self, principal: str) -> str | None:
        t = self.tenants
        if t is None:
            return None
        if principal in t.profiles:
            return principal
        return t.default

    def config_for(self, upstream: str, cfg: UpstreamConfig, profile: str) -> UpstreamConfig:
        """`cfg` with the `${tenant.NAME}` values of `profile` filled in."""
        key = (upstream, profile)
        done = self._filled.get(key)
        if done is not None:
            return done
        assert self.tenants is not None
        values = self.tenants.profiles[profile].credentials

        def fill(m: re.Match[str]) -> str:
            name = m.group(1)
            if name not in values:
                raise rpc.RpcError(
                    rpc.INVALID_REQUEST,
                    f"upstream {upstream!r} needs the credential {name!r} of tenant {profile!r}: "
                    f"set tenants.profiles.{profile}.credentials.{name}",
                    {"reason": TENANT_REASON, "upstream": upstream, "tenant": profile},
                )
            return values[name]

        out = cfg.replace(
            headers={k: TEMPLATE_RE.sub(fill, v) for k, v in cfg.headers.items()},
            env={k: TEMPLATE_RE.sub(fill, v) for k, v in cfg.env.items()},
        )
        self._filled[key] = out
        return out
