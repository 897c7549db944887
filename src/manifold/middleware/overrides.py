"""Tool overrides (`upstreams.<name>.overrides`): how an upstream's tools are shown and called.

Per tool, by the upstream's own name: `rename`, `description` (replaces) or
`description_append` (keeps what the upstream says, so its changes still come through),
`annotations` (merged over the upstream's; a null value removes one), `hide_params` (removed
from `inputSchema.properties` and `required`; a value a client sends anyway is dropped),
`fixed_args` (removed from the schema and always injected, whatever the client sends) and
`default_args` (injected when the client sends none; the schema shows the default).

Two hooks keep every view consistent. `catalog` rewrites definitions as an upstream's tool list
arrives, so `tools/list`, `search_tools`, `list_tools` and `invoke_tool` all see the same tools;
`call` maps a renamed tool back to the upstream's name and injects the arguments. A problem in
the overrides is a warning at catalog arrival, never a crash: an override for a tool the upstream
does not have, or for a parameter its schema does not have. The module is imported only when
some upstream has overrides; the overrides are read from the live config, so a reload that
changes them applies at the upstream's next list refresh.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from manifold.catalog import CallPlan, Catalog, Route
from manifold.config import GatewayConfig, ToolOverride
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc

log = logging.getLogger("manifold.overrides")


class OverridesHost(Protocol):
    config: GatewayConfig
    catalog: Catalog


@dataclass(frozen=True, slots=True)
class _CallPlan:
    original: Route
    fixed: dict[str, Any]
    default: dict[str, Any]
    drop: frozenset[str]  # hidden parameters: a value sent anyway is not passed on

    def apply(self, sent: Any) -> dict[str, Any]:
        args: dict[str, Any] = dict(self.default)
        if isinstance(sent, dict):
            if self.drop:
                args.update((k, v) for k, v in sent.items() if k not in self.drop)
            else:
                args.update(sent)
        args.update(self.fixed)
        return args


def wanted(config: GatewayConfig) -> bool:
    return any(u.overrides for u in config.enabled_upstreams.values())


class Overrides:
    """The addon: `catalog` rewrites, `call` maps back and injects."""

    def __init__(self, gw: OverridesHost) -> None:
        self.gw = gw
        # upstream -> shown name -> the upstream's own name (the catalog's filters use it).
        self.renamed: dict[str, dict[str, str]] = {}
        gw.catalog.original_names = self.renamed
        # Kept in place (never replaced): validation reads the catalog's reference to it.
        self._plans: dict[Route, CallPlan] = gw.catalog.call_plans

    def __repr__(self) -> str:
        return "Overrides()"

    # ------------------------------------------------------------------ catalog

    def catalog(self, event: Any) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = event.items
        if event.kind != "tools":
            return items
        up = event.upstream
        cfg = self.gw.config.upstreams.get(up)
        overrides = cfg.overrides if cfg is not None else {}
        for route in [r for r in self._plans if r.upstream == up]:
            del self._plans[route]
        renamed: dict[str, str] = {}
        self.renamed[up] = renamed
        if not overrides:
            return items
        names = {t.get("name") for t in items}
        for missing in sorted(set(overrides) - names):
            log.warning("upstream %s: overrides for %r: it has no such tool", up, missing)
        out: list[dict[str, Any]] = []
        for tool in items:
            name = tool.get("name")
            o = overrides.get(name) if isinstance(name, str) else None
            if o is None or not isinstance(name, str):
                out.append(tool)
                continue
            new = _rewrite(up, tool, o)
            shown = name
            if o.rename and o.rename != name:
                other = overrides.get(o.rename)
                moved = other is not None and other.rename not in (None, o.rename)
                if o.rename in names and not moved:  # a tool of that name stays
                    log.warning(
                        "upstream %s: cannot rename %r to %r: it has a tool of that name",
                        up,
                        name,
                        o.rename,
                    )
                else:
                    shown = new["name"] = o.rename
                    renamed[shown] = name
            if shown != name or o.fixed_args or o.default_args or o.hide_params:
                self._plans[Route(up, shown)] = _CallPlan(
                    Route(up, name),
                    dict(o.fixed_args),
                    dict(o.default_args),
                    frozenset(o.hide_params),
                )
            out.append(new)
        return out

    # ------------------------------------------------------------------ calls

    async def call(self, ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        plan = self._plans.get(ctx.route)
        if plan is None:
            return await call_next(ctx)
        args = plan.apply(ctx.params.get("arguments"))
        ctx.params = {**ctx.params, "name": plan.original.name, "arguments": args}
        ctx.route = plan.original
        return await call_next(ctx)


def _rewrite(up: str, tool: dict[str, Any], o: ToolOverride) -> dict[str, Any]:
    """The tool as shown: description, annotations and schema changed (not renamed here)."""
    new = dict(tool)
    if o.description is not None:
        new["description"] = o.description
    if o.description_append:
        base = new.get("description")
        new["description"] = f"{base}\n\n{o.description_append}" if base else o.description_append
    if o.annotations:
        ann = tool.get("annotations")
        merged = dict(ann) if isinstance(ann, dict) else {}
        for k, v in o.annotations.items():
            if v is None:
                merged.pop(k, None)
            else:
                merged[k] = v
        new["annotations"] = merged
    if o.hide_params or o.fixed_args or o.default_args:
        new["inputSchema"] = _schema(up, tool, o)
    return new


def _schema(up: str, tool: dict[str, Any], o: ToolOverride) -> Any:
    schema = tool.get("inputSchema")
    name = tool.get("name")
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(schema, dict) or not isinstance(props, dict):
        log.warning("upstream %s: tool %r has no schema properties to override", up, name)
        return schema
    for what, keys in (
        ("hide_params", o.hide_params),
        ("fixed_args", o.fixed_args),
        ("default_args", o.default_args),
    ):
        for k in keys:
            if k not in props:
                log.warning(
                    "upstream %s: tool %r: %s names %r, which its schema does not have",
                    up,
                    name,
                    what,
                    k,
                )
    gone = set(o.hide_params) | set(o.fixed_args)
    required = schema.get("required")
    for k in o.hide_params:
        if isinstance(required, list) and k in required and k not in o.default_args:
            log.warning(
                "upstream %s: tool %r: hidden parameter %r is required and has no value "
                "(give it in fixed_args or default_args)",
                up,
                name,
                k,
            )
    new_props = {k: v for k, v in props.items() if k not in gone}
    for k, v in o.default_args.items():
        if k in new_props and k not in gone:
            p = new_props[k]
            new_props[k] = {**p, "default": v} if isinstance(p, dict) else p
    out = {**schema, "properties": new_props}
    if isinstance(required, list):
        out["required"] = [r for r in required if r not in gone and r not in o.default_args]
    return out


def build(gw: OverridesHost) -> Overrides:
    return Overrides(gw)
