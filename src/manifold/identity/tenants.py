"""Tenants and profiles: what each principal sees and may call.

A principal (the tenant an API key or a token maps to; `local` for stdio and unauthenticated
HTTP clients) is looked up in `tenants.profiles`; one with no profile gets `tenants.default`'s,
or sees nothing when that is unset. A profile names its upstreams (globs), allow/deny globs on
exposed tool and prompt names, renames and description overlays (text appended, so upstream
changes still come through) and its own exposure mode.

- `listing`: hides what the tenant may not see from every list (so also from `search_tools`,
  `list_servers`, `list_tools`, which ask the same hook) and renames / overlays its tools;
- `alias`: maps a tenant's name for a tool back to the exposed one, before routing;
- `call`: refuses a call to anything hidden as if it did not exist ("Unknown tool").
"""

from __future__ import annotations

import fnmatch
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from manifold.catalog import Catalog
from manifold.config import GatewayConfig, TenantProfile, TenantsConfig, ToolFilter
from manifold.hooks import ListingEvent, NotificationEvent
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.jsonrpc import Incoming
from manifold.router import GATEWAY

log = logging.getLogger("manifold.tenants")

Items = list[dict[str, Any]]


class TenantsHost(Protocol):
    @property
    def config(self) -> GatewayConfig: ...
    @property
    def catalog(self) -> Catalog: ...


def _globs(f: ToolFilter, name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in f.allow) and not any(
        fnmatch.fnmatchcase(name, p) for p in f.deny
    )


@dataclass(slots=True)
class _Compiled:
    profile: TenantProfile
    back: dict[str, str]  # tenant's name -> exposed name
    seen: dict[str, bool]  # memo of decisions on (kind, name)

    def upstream_ok(self, upstream: str) -> bool:
        return upstream == GATEWAY or any(
            fnmatch.fnmatchcase(upstream, p) for p in self.profile.upstreams
        )


class Tenants:
    def __init__(self, cfg: TenantsConfig, host: TenantsHost) -> None:
        self.cfg = cfg
        self.host = host
        self.profiles = {
            name: _Compiled(p, {new: old for old, new in p.rename.items()}, {})
            for name, p in cfg.profiles.items()
        }
        self.default = self.profiles.get(cfg.default) if cfg.default else None

    def profile(self, principal: str) -> _Compiled | None:
        return self.profiles.get(principal, self.default)

    def _allowed(self, p: _Compiled, kind: str, name: str, upstream: str | None) -> bool:
        key = f"{kind}\x1f{name}\x1f{upstream}"
        ok = p.seen.get(key)
        if ok is None:
            ok = upstream is not None and p.upstream_ok(upstream)
            if ok and kind == "tools" and upstream != GATEWAY:
                ok = _globs(p.profile.tools, name)
            elif ok and kind == "prompts":
                ok = _globs(p.profile.prompts, name)
            if len(p.seen) < 100_000:
                p.seen[key] = ok
        return ok

    def _upstream_of(self, kind: str, item: dict[str, Any]) -> str | None:
        cat = self.host.catalog
        if kind == "tools":
            route = cat.tool_routes.get(item.get("name", ""))
            return route.upstream if route is not None else GATEWAY
        if kind == "prompts":
            route = cat.prompt_routes.get(item.get("name", ""))
            return route.upstream if route is not None else None
        if kind == "resources":
            uri = item.get("uri")
            return cat.route_resource(uri) if isinstance(uri, str) else None
        tmpl = item.get("uriTemplate")
        return cat.route_template(tmpl) if isinstance(tmpl, str) else None

    # ----------------------------------------------------------------- hooks

    def listing(self, event: ListingEvent) -> Items:
        p = self.profile(event.principal)
        if p is None:
            return []
        kind = event.kind
        out: Items = []
        for item in event.items:
            name = item.get("name", "") if kind in ("tools", "prompts") else ""
            if not self._allowed(p, kind, name, self._upstream_of(kind, item)):
                continue
            if kind == "tools" and (name in p.profile.rename or name in p.profile.overlay):
                item = dict(item)
                extra = p.profile.overlay.get(name)
                if extra:
                    desc = item.get("description") or ""
                    item["description"] = f"{desc}\n\n{extra}" if desc else extra
                item["name"] = p.profile.rename.get(name, name)
            out.append(item)
        return out

    def notification(self, event: NotificationEvent) -> dict[str, Any] | None:
        """A log message of no call reaches a principal only when its profile may use the
        upstream it comes from (the hub asks once per principal); the rest pass: a call's own
        side traffic is its caller's, list changes and resource updates say nothing a tenant
        may not know (see docs/auth.md)."""
        if event.principal and event.upstream and event.method == "notifications/message":
            p = self.profile(event.principal)
            if p is None or not p.upstream_ok(event.upstream):
                return None
        return event.params

    def alias(self, principal: str, kind: str, name: str) -> str:
        """The exposed name of the tool this principal calls `name`."""
        if kind != "tools":
            return name
        p = self.profile(principal)
        return p.back.get(name, name) if p is not None else name

    async def call(self, ctx: CallContext, call_next: CallNext) -> Incoming:
        p = self.profile(ctx.principal)
        method = ctx.method
        kind = "tools" if method == "tools/call" else "prompts" if method == "prompts/get" else ""
        upstream = ctx.route.upstream
        if p is not None and method == "completion/complete" and p.upstream_ok(upstream):
            self._check_completion(p, ctx)
        if p is None or not (
            self._allowed(p, kind, ctx.exposed, upstream) if kind else p.upstream_ok(upstream)
        ):
            log.info("refused %s %s for %r: not in its profile", method, ctx.exposed, ctx.principal)
            what = {"tools/call": "tool", "prompts/get": "prompt"}.get(method)
            if what is None:
                raise rpc.RpcError(
                    rpc.RESOURCE_NOT_FOUND_LEGACY,
                    f"Resource not found: {ctx.exposed}",
                    {"uri": ctx.exposed},
                )
            raise rpc.RpcError(rpc.INVALID_PARAMS, f"Unknown {what}: {ctx.exposed}")
        return await call_next(ctx)

    def _check_completion(self, p: _Compiled, ctx: CallContext) -> None:
        """Completing a prompt's argument: the prompt must be one this tenant may see (it is
        routed by the upstream's own name; its exposed names are looked up, completions being
        rare)."""
        ref = ctx.params.get("ref")
        if not isinstance(ref, dict) or ref.get("type") != "ref/prompt":
            return
        route = ctx.route
        names = [n for n, r in self.host.catalog.prompt_routes.items() if r == route]
        if not any(self._allowed(p, "prompts", n, route.upstream) for n in names):
            shown = names[0] if names else ctx.exposed
            log.info(
                "refused completion/complete of prompt %s for %r: not in its profile",
                shown,
                ctx.principal,
            )
            raise rpc.RpcError(rpc.INVALID_PARAMS, f"Unknown prompt: {shown}")


def build(gw: TenantsHost) -> Tenants | None:
    cfg = gw.config.tenants
    return Tenants(cfg, gw) if cfg is not None else None
