"""Walking the JSON Schemas of tools (`inputSchema`): one place for every reader of them.

Schemas generated from typed models (pydantic, zod, ...) keep nested and shared types in
`$defs` (or draft-07 `definitions`) and point at them with `$ref`, also inside
`anyOf`/`oneOf`/`allOf` (pydantic's `Optional[Model]` is `anyOf: [{$ref}, {type: null}]`).
:class:`SchemaView` follows those references with the `referencing` library, only within the
tool's own schema: a reference to any other document is unresolvable (nothing is ever
fetched). Every walk is bounded: a recursive model stops where it refers to itself, nesting
stops at `max_depth` and one view visits at most `max_nodes` schema positions, so a hostile or
broken schema costs little and never raises.

Readers: the router's tool lines (:meth:`SchemaView.properties`, :meth:`SchemaView.render`),
search indexing (:meth:`SchemaView.nested_params`) and the `x-mcp-header` positions
(:func:`positions`, which deliberately does not resolve anything, as the spec defines it).
This runs when a catalog changes or a tool list is read, never per call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import orjson

__all__ = ["MAX_DEPTH", "MAX_NODES", "Param", "SchemaView", "dump", "positions"]

MAX_DEPTH = 6
"""Default nesting (object properties, array items) a view descends into."""
MAX_NODES = 2000
"""Default number of schema positions one view visits; past it, renderings end in `…`."""

ELLIPSIS = "…"
_MAX_CHAIN = 32  # references followed from one position (`$ref` to a `$ref` to ...)

# Keywords whose value is one subschema, a list of them, or a map of them (2020-12 and the
# draft-07 `definitions`): the walk of `positions`.
_SINGLE = frozenset(
    {"items", "contains", "unevaluatedItems", "additionalProperties", "propertyNames",
     "unevaluatedProperties", "not", "if", "then", "else", "contentSchema"}
)  # fmt: skip
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP = frozenset({"patternProperties", "dependentSchemas", "$defs", "definitions"})

# What a short type rendering leaves out.
NOISE = frozenset(
    {"title", "description", "$schema", "examples", "$comment", "$id", "$anchor", "$dynamicAnchor"}
)
_SIMPLE = {"string": "str", "integer": "int", "number": "num", "boolean": "bool", "null": "null"}
_NESTING = frozenset({"$ref", "properties", "items", "anyOf", "oneOf", "allOf"})
_OBJECT_KEYS = frozenset({"type", "properties", "required", "default", "additionalProperties"})


def positions(root: Any) -> Iterator[tuple[tuple[str, ...] | None, dict[str, Any]]]:
    """Every schema position with its pure `properties` path (None once off that chain).

    `$ref` is not followed: `x-mcp-header` positions are defined on the schema as written."""
    stack: list[tuple[tuple[str, ...] | None, Any]] = [((), root)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield path, node
        for kw, val in node.items():
            if kw == "properties" and isinstance(val, dict):
                for name, sub in val.items():
                    stack.append(((*path, name) if path is not None else None, sub))
            elif kw in _SINGLE:
                stack.append((None, val))
            elif kw in _LIST and isinstance(val, list):
                stack.extend((None, s) for s in val)
            elif kw in _MAP and isinstance(val, dict):
                stack.extend((None, s) for s in val.values())


def dump(value: Any) -> str:
    """Compact JSON of a value from a schema (orjson; the standard library for what orjson
    refuses, such as integers beyond 64 bits)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        pass
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        return ELLIPSIS


class Param(NamedTuple):
    """One property of an object schema: its name, its subschema as written (a `$ref` is
    left for :meth:`SchemaView.deref` or :meth:`SchemaView.render`) and whether it is required."""

    name: str
    schema: Any
    required: bool


def _ref_name(ref: str) -> str:
    """`Owner` for `#/$defs/Owner`: how a recursive reference is shown."""
    tail = ref.rsplit("/", 1)[-1].rsplit("#", 1)[-1]
    return tail or "Self"


class SchemaView:
    """One tool's schema, with its local `$ref`s resolvable and a budget of positions.

    The resolver is built on the first `$ref` met, so plain schemas cost nothing extra."""

    __slots__ = (
        "_active",
        "_cache",
        "_nodes",
        "_recursive",
        "_resolver",
        "max_depth",
        "max_nodes",
        "root",
        "truncated",
    )

    def __init__(self, root: Any, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES) -> None:
        self.root = root
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.truncated = False
        """Whether a walk stopped at `max_nodes` or `max_depth`."""
        self._nodes = 0
        self._resolver: Callable[[str], Any] | None = None
        self._cache: dict[str, Any] = {}
        self._active: list[str] = []  # references being expanded (cycle guard)
        self._recursive: set[str] = set()  # of those, the ones met again inside themselves

    # ------------------------------------------------------------- resolution

    def _spend(self) -> bool:
        self._nodes += 1
        if self._nodes > self.max_nodes:
            self.truncated = True
            return False
        return True

    def _lookup(self, ref: str) -> Any:
        """The schema `ref` points at within this document, or None (unresolvable)."""
        if ref in self._cache:
            return self._cache[ref]
        target: Any = None
        try:
            if self._resolver is None:
                self._resolver = _resolver_for(self.root)
            target = self._resolver(ref)
        except Exception:  # referencing's Unresolvable, or a reference too malformed to parse
            target = None
        self._cache[ref] = target
        return target

    def deref(self, node: Any) -> Any:
        """`node` with its `$ref` chain followed (the target, overlaid with the keywords written
        beside the `$ref`); None when a reference does not resolve or loops on itself."""
        seen: list[str] = []
        while isinstance(node, dict):
            ref = node.get("$ref")
            if not isinstance(ref, str):
                return node
            if ref in seen or len(seen) >= _MAX_CHAIN:
                return None
            seen.append(ref)
            target = self._lookup(ref)
            if target is None:
                return None
            node = _overlay(target, node)
        return node

    # ------------------------------------------------------------- properties

    def properties(self, node: Any = None) -> list[Param]:
        """The properties of an object schema (the root by default) in their written order,
        through a `$ref` and the members of an `allOf`."""
        node = self.deref(self.root if node is None else node)
        if not isinstance(node, dict):
            return []
        props = node.get("properties")
        req = node.get("required")
        all_of = node.get("allOf")
        if all_of is None:  # the common case, kept cheap: it runs for every tool of a catalog
            if not isinstance(props, dict):
                return []
            required = {r for r in req if isinstance(r, str)} if isinstance(req, list) else ()
            return [Param(str(n), sub, n in required) for n, sub in props.items()]
        subs: dict[str, Any] = {}
        names: set[Any] = set()
        parts = [node]
        if isinstance(all_of, list):
            parts.extend(self.deref(p) for p in all_of[: self.max_nodes])
        for part in parts:
            if not isinstance(part, dict):
                continue
            req = part.get("required")
            if isinstance(req, list):
                names.update(r for r in req if isinstance(r, str))
            props = part.get("properties")
            if isinstance(props, dict):
                for name, sub in props.items():
                    subs.setdefault(str(name), sub)
        return [Param(n, sub, n in names) for n, sub in subs.items()]

    def nested_params(self, max_depth: int = 3) -> list[tuple[str, Any]]:
        """Every property of the root and of its nested objects, as (name, resolved subschema):
        through `$ref`, array `items` and `anyOf`/`oneOf`/`allOf` members; each level of
        `properties`, `items` or union is one level of depth (up to `max_depth`); a referenced
        type is not entered again inside itself."""
        out: list[tuple[str, Any]] = []
        self._nested(self.root, 0, max_depth, out)
        return out

    def _nested(self, node: Any, depth: int, max_depth: int, out: list[tuple[str, Any]]) -> None:
        if depth > max_depth or not isinstance(node, dict) or not self._spend():
            return
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref not in self._active:
                self._active.append(ref)
                self._nested(self.deref(node), depth, max_depth, out)
                self._active.pop()
            return
        props = node.get("properties")
        if isinstance(props, dict):
            for name, sub in props.items():
                if isinstance(sub, dict) and not _NESTING.isdisjoint(sub):
                    out.append((str(name), self.deref(sub) if "$ref" in sub else sub))
                    self._nested(sub, depth + 1, max_depth, out)
                else:  # a leaf, the common case
                    out.append((str(name), sub))
        items = node.get("items")
        if isinstance(items, dict):
            self._nested(items, depth + 1, max_depth, out)
        for kw in ("anyOf", "oneOf", "allOf"):  # a union counts as a level too (bounds recursion)
            branches = node.get(kw)
            if isinstance(branches, list):
                for b in branches:
                    self._nested(b, depth + 1, max_depth, out)

    # ------------------------------------------------------------- rendering

    def render(self, node: Any, depth: int = 0) -> str:
        """A short type: `str`, `int`, `a|b` (an enum or a union), `[str]`, `{a*: str, b: int}`
        for an object (required properties starred), `Node{..., children: [Node]}` where a type
        refers to itself, and compact JSON Schema (references inlined) for anything else."""
        if not isinstance(node, dict):
            return "any"
        if not self._spend():
            return ELLIPSIS
        ref = node.get("$ref")
        if isinstance(ref, str):
            return self._render_ref(ref, node, depth)
        keys = node.keys() - NOISE
        enum = node.get("enum")
        if isinstance(enum, list) and enum:
            return "|".join(str(v) for v in enum)
        t = node.get("type")
        if not keys - {"type", "default"}:
            if isinstance(t, str) and t in _SIMPLE:
                return _SIMPLE[t]
            if isinstance(t, list) and t and all(isinstance(x, str) and x in _SIMPLE for x in t):
                return "|".join(_SIMPLE[x] for x in t)
        items = node.get("items")
        if t == "array" and isinstance(items, dict) and not keys - {"type", "items", "default"}:
            return f"[{self._deeper(items, depth)}]"
        for kw in ("anyOf", "oneOf"):
            branches = node.get(kw)
            if isinstance(branches, list) and branches and not keys - {kw, "default"}:
                parts = [self._deeper(b, depth) for b in branches]
                return "|".join(dict.fromkeys(parts))
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and not keys - {"allOf", "default"}:
            return self._deeper(all_of[0], depth)
        props = node.get("properties")
        if (
            (t == "object" or (t is None and isinstance(props, dict)))
            and isinstance(props, dict)
            and props
            and not keys - _OBJECT_KEYS
            and node.get("additionalProperties", False) is False
        ):
            if depth >= self.max_depth:
                self.truncated = True
                return "{" + ELLIPSIS + "}"
            return "{" + ", ".join(self._field(p, depth) for p in self.properties(node)) + "}"
        return dump(self._inline(node, depth))

    def _deeper(self, node: Any, depth: int) -> str:
        if depth >= self.max_depth:
            self.truncated = True
            return ELLIPSIS
        return self.render(node, depth + 1)

    def _field(self, p: Param, depth: int) -> str:
        text = f"{p.name}{'*' if p.required else ''}: {self._deeper(p.schema, depth)}"
        if isinstance(p.schema, dict) and "default" in p.schema:
            text += f" = {dump(p.schema['default'])}"
        return text

    def _render_ref(self, ref: str, node: dict[str, Any], depth: int) -> str:
        name = _ref_name(ref)
        if ref in self._active:
            self._recursive.add(ref)
            return name
        target = self.deref(node)
        if target is None:
            return "any"
        self._active.append(ref)
        try:
            text = self.render(target, depth)
        finally:
            self._active.pop()
        if ref in self._recursive:
            self._recursive.discard(ref)
            return f"{name}{text}" if text.startswith("{") else f"{name}={text}"
        return text

    def _inline(self, node: Any, depth: int) -> Any:
        """`node` as JSON without the noise keywords, its references replaced by their targets
        (a reference back into itself stays a `$ref`)."""
        if not isinstance(node, dict | list):
            return node
        if depth > self.max_depth or not self._spend():
            self.truncated = True
            return ELLIPSIS
        if isinstance(node, list):
            return [self._inline(v, depth + 1) for v in node]
        ref = node.get("$ref")
        if isinstance(ref, str) and ref not in self._active:
            target = self.deref(node)
            if isinstance(target, dict):
                self._active.append(ref)
                try:
                    return self._inline(target, depth)
                finally:
                    self._active.pop()
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k in NOISE or k in ("$defs", "definitions"):
                continue
            if k in _MAP or k == "properties":
                out[k] = (
                    {n: self._inline(s, depth + 1) for n, s in v.items()}
                    if isinstance(v, dict)
                    else v
                )
            elif k in _SINGLE or k in _LIST:
                out[k] = self._inline(v, depth + 1)
            else:
                out[k] = v
        return out


def _overlay(target: Any, node: dict[str, Any]) -> Any:
    """A `$ref`'s target with the keywords written beside the `$ref` laid over it."""
    if len(node) == 1 or not isinstance(target, dict):
        return target
    merged = dict(target)
    merged.update((k, v) for k, v in node.items() if k != "$ref")
    return merged


def _resolver_for(root: Any) -> Callable[[str], Any]:
    """Reference -> target, knowing only `root` (under its `$id` too): it retrieves nothing.

    The document is crawled for anchors and embedded `$id`s only when a reference needs it (a
    plain JSON pointer such as `#/$defs/Owner` does not): crawling costs more than the rest."""
    from referencing import Registry, Resource
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    try:
        resource: Resource[Any] = Resource.from_contents(root, default_specification=DRAFT202012)
    except Exception:  # a `$schema` the library does not know: read it as 2020-12
        resource = DRAFT202012.create_resource(root)
    uri = resource.id()
    base = uri if isinstance(uri, str) else ""
    pairs = [("", resource)] + ([(base, resource)] if base else [])
    registry: Registry[Any] = Registry().with_resources(pairs)
    resolvers = [registry.resolver(base_uri=base)]

    def lookup(ref: str) -> Any:
        try:
            return resolvers[-1].lookup(ref).contents
        except Unresolvable:
            if len(resolvers) > 1:
                raise
            resolvers.append(registry.crawl().resolver(base_uri=base))
            return resolvers[-1].lookup(ref).contents

    return lookup
