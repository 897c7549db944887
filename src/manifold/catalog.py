"""The merged catalog: every upstream's tools, prompts, resources and templates, and the routes.

Each upstream's lists are fetched (all pages) when it connects and again when it says a list
changed; the merged views are rebuilt for that kind only. Tools and prompts are namespaced
(`naming.py`); resource URIs pass through unchanged and are routed by owner: exact URIs first,
then templates, then the URI scheme, first upstream in config order winning a collision.
Tool filters (allow/deny globs on the upstream's own names) apply here, so a filtered tool is
neither listed nor callable.
"""

from __future__ import annotations

import fnmatch
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from manifold.config import GatewayConfig
from manifold.naming import disambiguate, exposed_name
from manifold.protocol.headers import header_map, invalid_annotation

log = logging.getLogger("manifold.catalog")

KINDS = ("tools", "prompts", "resources", "resourceTemplates")
LIST_METHODS = {
    "tools": "tools/list",
    "prompts": "prompts/list",
    "resources": "resources/list",
    "resourceTemplates": "resources/templates/list",
}
# The kind a `notifications/<x>/list_changed` refreshes.
CHANGE_KINDS = {
    "tools": ("tools",),
    "prompts": ("prompts",),
    "resources": ("resources", "resourceTemplates"),
}


@dataclass(frozen=True, slots=True)
class Route:
    upstream: str
    name: str


class CallPlan(Protocol):
    """How a call to a tool a `catalog` hook rewrote reaches its upstream (tool overrides)."""

    @property
    def original(self) -> Route: ...

    def apply(self, sent: Any) -> dict[str, Any]:
        """The arguments the upstream receives for the arguments a client sent."""
        ...


def _template_regex(template: str) -> re.Pattern[str]:
    out, pos = [], 0
    for m in re.finditer(r"\{[^}]*\}", template):
        out.append(re.escape(template[pos : m.start()]))
        inner = m.group(0)[1:-1]
        out.append(".*" if inner.startswith(("+", "#", "/")) or "*" in inner else "[^/]*")
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return re.compile("".join(out) + r"\Z")


@dataclass(slots=True)
class _UpstreamLists:
    items: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {k: [] for k in KINDS})


class Catalog:
    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.order = list(config.enabled_upstreams)
        self._per: dict[str, _UpstreamLists] = {n: _UpstreamLists() for n in self.order}
        self.version = 0
        self.tools: list[dict[str, Any]] = []
        self.prompts: list[dict[str, Any]] = []
        self.resources: list[dict[str, Any]] = []
        self.templates: list[dict[str, Any]] = []
        self.tool_routes: dict[str, Route] = {}
        # `x-mcp-header` maps (property path -> header token), by exposed and by upstream name.
        self.header_maps: dict[str, dict[tuple[str, ...], str]] = {}
        self.upstream_header_maps: dict[Route, dict[tuple[str, ...], str]] = {}
        self.prompt_routes: dict[str, Route] = {}
        self.resource_owner: dict[str, str] = {}
        self.template_owner: dict[str, str] = {}
        self._template_matchers: list[tuple[re.Pattern[str], str]] = []
        self._scheme_owner: dict[str, str] = {}
        # upstream -> shown name -> the upstream's own name, for tools a `catalog` hook renamed
        # (tool overrides): the filters apply to the upstream's own names.
        self.original_names: dict[str, dict[str, str]] = {}
        # shown route -> its plan, kept in place by the overrides addon: argument validation
        # (before it in the chain) checks what the upstream will receive.
        self.call_plans: dict[Route, CallPlan] = {}
        # kind -> exposed name -> the route that holds it. A name keeps its holder while that
        # upstream still lists it (or is down: a crash does not give its names away), so an
        # upstream that adds (or renames a tool to) a name another one serves gets a suffix
        # instead of taking the name over: no tool shadows another the client already calls.
        self._claims: dict[str, dict[str, Route]] = {"tools": {}, "prompts": {}}
        # Tool names the gateway's own tools use (router mode): never given to an upstream's
        # tool, which would be listed beside the gateway's and never called.
        self.reserved: frozenset[str] = frozenset()

    # ----------------------------------------------------------------- updates

    def allowed(self, upstream: str, tool: str) -> bool:
        """The upstream's filters allow this tool (a shown name is taken back to its own)."""
        own = self.original_names.get(upstream)
        if own:
            tool = own.get(tool, tool)
        f = self.config.upstreams[upstream].tools
        if not any(fnmatch.fnmatchcase(tool, g) for g in f.allow):
            return False
        return not any(fnmatch.fnmatchcase(tool, g) for g in f.deny)

    def set_items(self, upstream: str, kind: str, items: list[dict[str, Any]]) -> None:
        if upstream not in self._per:
            return
        if kind == "tools":
            kept = []
            for t in items:
                if not isinstance(t.get("name"), str) or not self.allowed(upstream, t["name"]):
                    continue
                bad = invalid_annotation(t.get("inputSchema"))
                if bad is not None:
                    # A spec MUST for HTTP clients; applied on every transport for one behaviour.
                    log.warning("dropped tool %s/%s: %s", upstream, t["name"], bad)
                    continue
                kept.append(t)
            items = kept
        self._per[upstream].items[kind] = items
        claims = self._claims.get(kind)
        if claims:  # names this upstream no longer lists are free again
            listed = {i.get("name") for i in items}
            for name, rt in list(claims.items()):
                if rt.upstream == upstream and rt.name not in listed:
                    del claims[name]
        self._rebuild(kind)

    def reconfigure(self, config: GatewayConfig) -> set[str]:
        """A reloaded config: the new upstream order; the lists of upstreams that are gone are
        dropped, new ones start empty. Returns the kinds whose merged list changed."""
        before = {k: self.items(k) for k in KINDS}
        self.config = config
        self.order = list(config.enabled_upstreams)
        self._per = {n: self._per.get(n) or _UpstreamLists() for n in self.order}
        for gone in [n for n in self.original_names if n not in self._per]:
            del self.original_names[gone]  # in place: the overrides addon holds this dict
        for claims in self._claims.values():
            for name in [n for n, rt in claims.items() if rt.upstream not in self._per]:
                del claims[name]
        for kind in KINDS:
            self._rebuild(kind)
        return {k for k in KINDS if self.items(k) != before[k]}

    def clear(self, upstream: str) -> None:
        if upstream in self._per:
            self._per[upstream] = _UpstreamLists()
            for kind in KINDS:
                self._rebuild(kind)

    def _rebuild(self, kind: str) -> None:
        self.version += 1
        if kind in ("tools", "prompts"):
            merged, routes = self._namespaced(kind)
            if kind == "tools":
                self.tools, self.tool_routes = merged, routes
                self.header_maps, self.upstream_header_maps = {}, {}
                for t in merged:
                    schema = t.get("inputSchema")
                    if isinstance(schema, dict):
                        hmap = header_map(schema)
                        if hmap:
                            self.header_maps[t["name"]] = hmap
                            rt = routes[t["name"]]
                            self.upstream_header_maps[rt] = hmap
                            own = self.original_names.get(rt.upstream, {}).get(rt.name)
                            if own is not None:  # a renamed tool is called by its own name
                                self.upstream_header_maps[Route(rt.upstream, own)] = hmap
            else:
                self.prompts, self.prompt_routes = merged, routes
        elif kind == "resources":
            self.resources, self.resource_owner = [], {}
            for up in self.order:
                for r in self._per[up].items["resources"]:
                    uri = r.get("uri")
                    if not isinstance(uri, str):
                        continue
                    if uri in self.resource_owner:
                        log.warning(
                            "resource %s of %s hidden: %s has it", uri, up, self.resource_owner[uri]
                        )
                        continue
                    self.resource_owner[uri] = up
                    self.resources.append(r)
            self._rebuild_schemes()
        else:
            self.templates, self.template_owner, self._template_matchers = [], {}, []
            for up in self.order:
                for t in self._per[up].items["resourceTemplates"]:
                    tpl = t.get("uriTemplate")
                    if not isinstance(tpl, str) or tpl in self.template_owner:
                        continue
                    self.template_owner[tpl] = up
                    self._template_matchers.append((_template_regex(tpl), up))
                    self.templates.append(t)
            self._rebuild_schemes()

    def _rebuild_schemes(self) -> None:
        owners: dict[str, set[str]] = {}
        for uri, up in self.resource_owner.items():
            owners.setdefault(uri.split(":", 1)[0], set()).add(up)
        for tpl, up in self.template_owner.items():
            owners.setdefault(tpl.split(":", 1)[0], set()).add(up)
        self._scheme_owner = {s: next(iter(u)) for s, u in owners.items() if len(u) == 1}

    def _namespaced(self, kind: str) -> tuple[list[dict[str, Any]], dict[str, Route]]:
        sep, prefix = self.config.separator, self.config.prefix
        merged: list[dict[str, Any]] = []
        routes: dict[str, Route] = {}
        claims = self._claims[kind]
        for up in self.order:
            for item in self._per[up].items[kind]:
                original = item.get("name")
                if not isinstance(original, str):
                    continue
                name = exposed_name(up, original, sep, prefix)
                route = Route(up, original)
                held = claims.get(name)
                taken = kind == "tools" and name in self.reserved
                if taken or name in routes or (held is not None and held != route):
                    name = disambiguate(name, f"{up}/{original}")
                    log.warning("%s name collision: %s/%s exposed as %s", kind, up, original, name)
                routes[name] = route
                merged.append(item if name == original else {**item, "name": name})
        for name, route in routes.items():
            claims.setdefault(name, route)
        return merged, routes

    # ----------------------------------------------------------------- routing

    def route_resource(self, uri: str) -> str | None:
        up = self.resource_owner.get(uri)
        if up is not None:
            return up
        for rx, owner in self._template_matchers:
            if rx.match(uri):
                return owner
        up = self._scheme_owner.get(uri.split(":", 1)[0])
        if up is not None:
            return up
        return self.order[0] if len(self.order) == 1 else None

    def route_template(self, uri_template: str) -> str | None:
        return self.template_owner.get(uri_template) or self.route_resource(uri_template)

    def items(self, kind: str) -> list[dict[str, Any]]:
        return {
            "tools": self.tools,
            "prompts": self.prompts,
            "resources": self.resources,
            "resourceTemplates": self.templates,
        }[kind]

    def upstream_items(self, upstream: str, kind: str) -> list[dict[str, Any]]:
        return self._per[upstream].items[kind] if upstream in self._per else []
