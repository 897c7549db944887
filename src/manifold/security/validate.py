"""Argument validation: a `tools/call` whose arguments do not match the tool's `inputSchema` is
refused with -32602 (the schema error: where and what) and never reaches the upstream.

- The `catalog` hook records each upstream tool's `inputSchema` as it arrives (the upstream's
  own definition, before any later addon rewrites descriptions or defaults).
- The `call` hook validates `params.arguments` (missing: `{}`) of a routed `tools/call`,
  including the inner call of `invoke_tool`, which re-enters the same chain.
- Validators are compiled on a tool's first call with `jsonschema-rs` (JSON Schema 2020-12, or
  the draft named by `$schema`, e.g. draft-07), and kept in an LRU of `max_validators` entries,
  keyed by route; a new definition of the tool (another schema object) is compiled afresh.
  Remote `$ref`s are never fetched (`offline`); `format` is not asserted; a backtracking
  `pattern` is cut off after `pattern_backtrack_limit` steps (the call is then refused).
- A schema that cannot be compiled is logged once (per definition) and that tool's calls pass
  unvalidated: an exotic schema never breaks a tool. So do tools the gateway has no schema for
  (its own tools, which check their arguments themselves).

Per valid call the cost is one dict lookup, an LRU touch and the compiled `is_valid` (0.16 us
for a small schema; about 0.55 us in all with the chain step, `bench/validate_bench.py`);
errors are collected only for an invalid call.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any, Final, Protocol

from manifold.catalog import CallPlan, Catalog, Route
from manifold.config import GatewayConfig, ValidationConfig
from manifold.hooks import CatalogEvent, Items
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc

__all__ = ["MECHANISM", "ArgumentValidator", "ValidationHost", "build", "compile_schema"]

log = logging.getLogger("manifold.security.validate")

MECHANISM: Final = "validation"
MAX_ERRORS: Final = 3  # schema errors reported per refused call
MAX_ERROR_CHARS: Final = 200  # per error message (an instance can be huge)
DEFAULT_BACKTRACK_LIMIT: Final = 100_000  # config: security.validation.pattern_backtrack_limit


class ValidationHost(Protocol):
    """What validation uses of the gateway."""

    @property
    def config(self) -> GatewayConfig: ...
    @property
    def catalog(self) -> Catalog: ...


class _Unvalidated:
    """The cache's mark for a schema that could not be compiled (its calls pass)."""


UNVALIDATED: Final = _Unvalidated()
_Compiled = Any  # a jsonschema_rs validator, or UNVALIDATED


def compile_schema(schema: Any, backtrack_limit: int = DEFAULT_BACKTRACK_LIMIT) -> Any:
    """A validator for `schema`: the draft its `$schema` names, else 2020-12 (MCP's default).
    `format` is never asserted (the upstream decides what it accepts); a `pattern` that needs
    backtracking (lookaround, backreferences) stops after `backtrack_limit` steps, and the value
    is then refused. Raises (ValueError, jsonschema_rs.ReferencingError, ...) when the schema
    cannot compile."""
    if not isinstance(schema, dict):
        raise ValueError(f"inputSchema is a {type(schema).__name__}, not an object")
    import jsonschema_rs  # on the first call that needs it: the library costs memory

    cls = (
        jsonschema_rs.validator_cls_for(schema)
        if "$schema" in schema
        else jsonschema_rs.Draft202012Validator
    )
    return cls(
        schema,
        offline=True,
        validate_formats=False,
        pattern_options=jsonschema_rs.FancyRegexOptions(backtrack_limit=backtrack_limit),
    )


# The fast path: a flat schema (the common MCP tool: an object of typed properties, some
# required) is checked in Python for the calls that plainly satisfy it. It only ever says
# "valid"; anything else (a wrong type, a missing key, a float for an integer, any keyword it
# does not know) goes to the compiled validator, which decides and words the error.
_NOTES = frozenset({"title", "description", "default", "examples", "$comment", "deprecated"})
_TOP = _NOTES | {"type", "properties", "required", "additionalProperties", "$schema"}
_PROP = _NOTES | {"type"}
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "array": (list,),
    "object": (dict,),
}


class _Flat:
    """A flat schema's plain check (see above)."""

    __slots__ = ("any_object", "closed", "props", "required")

    def __init__(
        self, props: dict[str, tuple[type, ...] | None], required: tuple[str, ...], closed: bool
    ) -> None:
        self.props = props
        self.required = required
        self.closed = closed
        # {"type": "object"} with nothing else to check: any object (most echo-like tools)
        self.any_object = not props and not required and not closed

    def plainly_valid(self, args: Any) -> bool:
        if type(args) is not dict:
            return False
        if self.any_object:
            return True
        for key in self.required:
            if key not in args:
                return False
        props = self.props
        for key, value in args.items():
            if key not in props:
                if self.closed:
                    return False
                continue
            types = props[key]
            if types is not None and type(value) not in types:
                return False  # bool is not int here: `type`, not isinstance
        return True


def _flat(schema: Any) -> _Flat | None:
    """The plain check of a flat schema, or None when the schema is not one."""
    if not isinstance(schema, dict) or not schema.keys() <= _TOP:
        return None
    if schema.get("type", "object") != "object":
        return None
    extra = schema.get("additionalProperties", True)
    if extra not in (True, False, {}):
        return None
    required = schema.get("required", [])
    props = schema.get("properties", {})
    if not isinstance(required, list) or not all(isinstance(k, str) for k in required):
        return None
    if not isinstance(props, dict):
        return None
    types: dict[str, tuple[type, ...] | None] = {}
    for name, sub in props.items():
        if not isinstance(sub, dict) or not sub.keys() <= _PROP:
            return None
        t = sub.get("type")
        if t is None:
            types[name] = None
        elif isinstance(t, str) and t in _TYPES:
            types[name] = _TYPES[t]
        elif isinstance(t, list) and t and all(isinstance(x, str) and x in _TYPES for x in t):
            types[name] = tuple(c for x in t for c in _TYPES[x])
        else:
            return None
    return _Flat(types, tuple(required), extra is False)


def _pointer(path: Any) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts) if parts else "(root)"


def _short(text: str) -> str:
    text = text.split("\n", 1)[0]
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."


class ArgumentValidator:
    """The addon: `catalog` records schemas, `call` checks `tools/call` arguments."""

    __slots__ = ("_cache", "_flats", "_plans", "_schemas", "backtrack_limit", "max_validators")

    def __init__(self, cfg: ValidationConfig, plans: dict[Route, CallPlan] | None = None) -> None:
        self.max_validators = cfg.max_validators
        self.backtrack_limit = cfg.pattern_backtrack_limit
        self._schemas: dict[Route, Any] = {}  # route -> the upstream's inputSchema
        # (upstream, tool) -> the plain check of a flat schema (a tuple key: Route's generated
        # hash runs in Python, a tuple's in C, and this lookup is on every call)
        self._flats: dict[tuple[str, str], _Flat] = {}
        self._cache: OrderedDict[Route, tuple[Any, _Compiled]] = OrderedDict()
        # The tool overrides' call plans (the catalog's, filled by that addon): an overridden
        # tool's call is checked as its upstream will receive it, by its upstream's own name.
        self._plans: dict[Route, CallPlan] = {} if plans is None else plans

    # ----------------------------------------------------------------- catalog

    def catalog(self, event: CatalogEvent) -> Items:
        if event.kind != "tools":
            return event.items
        up = event.upstream
        old = {r: s for r, s in self._schemas.items() if r.upstream == up}
        for route in old:
            del self._schemas[route]
            self._flats.pop((route.upstream, route.name), None)
        for t in event.items:
            name = t.get("name")
            if isinstance(name, str) and "inputSchema" in t:
                route, schema = Route(up, name), t["inputSchema"]
                before = old.get(route)
                # An unchanged definition keeps its schema object, so its validator stays valid.
                self._schemas[route] = before if before is not None and before == schema else schema
                flat = _flat(schema)
                if flat is not None:
                    self._flats[(up, name)] = flat
        # Validators of definitions that are gone or changed are dropped now, not on eviction.
        stale = [r for r, (s, _) in self._cache.items() if self._schemas.get(r) is not s]
        for route in stale:
            del self._cache[route]
        return event.items

    # ----------------------------------------------------------------- calls

    def validator(self, route: Route) -> _Compiled | None:
        """The compiled validator of a tool (UNVALIDATED when its schema did not compile), or
        None when the gateway has no schema for it."""
        cache = self._cache
        hit = cache.get(route)  # the catalog hook drops entries whose definition changed
        if hit is not None:
            cache.move_to_end(route)
            return hit[1]
        schema = self._schemas.get(route)
        if schema is None:
            return None
        try:
            compiled: _Compiled = compile_schema(schema, self.backtrack_limit)
        except Exception as e:  # whatever an exotic schema raises, its tool must keep working
            log.warning(
                "tool %s/%s: inputSchema cannot be compiled, its calls pass unvalidated: %s",
                route.upstream,
                route.name,
                _short(str(e)),
            )
            compiled = UNVALIDATED
        cache[route] = (schema, compiled)
        cache.move_to_end(route)
        if len(cache) > self.max_validators:
            cache.popitem(last=False)
        return compiled

    def check(self, ctx: CallContext) -> None:
        """Raise the -32602 refusal when `ctx` is a `tools/call` whose arguments do not match
        its tool's schema. A call that plainly matches a flat schema is passed without the
        compiled validator (nor its library, until a call needs it)."""
        if ctx.method != "tools/call":
            return
        args = ctx.params.get("arguments")
        if args is None:
            args = {}
        route = ctx.route
        if self._plans:
            plan = self._plans.get(route)
            if plan is not None:
                route, args = plan.original, plan.apply(args)
        flat = self._flats.get((route.upstream, route.name))
        if flat is not None and flat.plainly_valid(args):
            return
        v = self.validator(route)
        if v is not None and v is not UNVALIDATED and not v.is_valid(args):
            self.refuse(ctx, v, args)

    async def call(self, ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        self.check(ctx)
        return await call_next(ctx)

    def refuse(self, ctx: CallContext, v: Any, args: Any) -> None:
        errors = []
        for e in v.iter_errors(args):
            errors.append({"path": _pointer(e.instance_path), "message": _short(e.message)})
            if len(errors) >= MAX_ERRORS:
                break
        first = errors[0] if errors else {"path": "(root)", "message": "invalid"}
        log.warning(
            "refused tools/call %s (%s/%s): invalid arguments at %s: %s",
            ctx.exposed,
            ctx.route.upstream,
            ctx.route.name,
            first["path"],
            first["message"],
        )
        raise rpc.RpcError(
            rpc.INVALID_PARAMS,
            f"{MECHANISM}: invalid arguments for tool {ctx.exposed!r} at {first['path']}: "
            f"{first['message']}",
            {"mechanism": MECHANISM, "tool": ctx.exposed, "errors": errors},
        )


def build(gw: ValidationHost) -> ArgumentValidator | None:
    cfg = gw.config.security.validation
    return ArgumentValidator(cfg, gw.catalog.call_plans) if cfg.enabled else None
