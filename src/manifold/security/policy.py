"""The policy engine: ordered rules from the config decide each `tools/call` before it leaves
the gateway (`security.policy`, docs/security.md "Policy").

A rule matches on who calls (principal and client name, globs), where the call goes (upstream
and tool name, globs), what the tool says of itself (its annotations, with MCP's defaults for
hints it leaves out) and the argument values (a path into the arguments, and one of equals /
glob / regex / numeric range / contains). Actions:

- `allow`, `deny`, `confirm` (a human approval, `security/confirm.py`): the first such rule
  that matches decides; no rule: `security.policy.default`.
- `redact`: the values its argument conditions matched are replaced by a marker before the call
  is forwarded; the rules after it still decide.

`mode: audit` forwards every call and logs what `enforce` would have done.

Cost. The rules are compiled once, when the gateway starts (globs to equality, prefix or `re`
tests; every regex of the policy into one RE2 set: a linear-time engine, so a config cannot make
the gateway backtrack, and a string is matched once per call whichever rules ask). When an
upstream's tool list arrives, each tool gets the tuple of rules its upstream, name and
annotations can match, and the top-level argument keys they read; a call costs one dict lookup
plus the client / principal globs and argument checks of those rules only, or of the rules
without argument conditions when the call holds none of those keys (`bench/policy_bench.py`).
Other methods, and the gateway's own tools, pass untouched (the inner call of `invoke_tool` is
a `tools/call` and is decided like any other).

Listings (`HidingPolicy`). A tool the policy denies a client whatever the arguments (down the
rules that can match it for that client, each with argument conditions denies and the first
without any denies, or none does and the default is `deny`) is hidden from that client's lists
(`hide_denied`, enforce mode); a call to it is still refused.
"""

from __future__ import annotations

import fnmatch
import logging
import posixpath
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

import orjson
import re2  # type: ignore[import-untyped]

from manifold.catalog import Route
from manifold.config import GatewayConfig, PolicyArg, PolicyConfig, PolicyRule
from manifold.hooks import CatalogEvent, Items, ListingEvent
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.router import GATEWAY

if TYPE_CHECKING:
    from manifold.catalog import Catalog
    from manifold.security.confirm import Confirmer
    from manifold.state import State

__all__ = ["MECHANISM", "Decision", "HidingPolicy", "Policy", "PolicyEngine", "build", "marker"]

log = logging.getLogger("manifold.security.policy")

MECHANISM: Final = "policy"
# MCP's defaults for hints a tool leaves out (2025-11-25 ToolAnnotations).
_HINT_DEFAULTS: Final = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


def marker(rule: str) -> str:
    """What a `redact` rule puts in place of a value."""
    return f"[REDACTED:policy:{rule}]"


def effective_hints(tool: dict[str, Any]) -> dict[str, bool]:
    """A tool's boolean hints with MCP's defaults filled in (`destructiveHint` means nothing
    for a read-only tool: it is false there)."""
    ann = tool.get("annotations")
    ann = ann if isinstance(ann, dict) else {}
    hints = {
        k: bool(ann.get(k, d)) if isinstance(ann.get(k, d), bool) else d
        for k, d in _HINT_DEFAULTS.items()
    }
    if hints["readOnlyHint"]:
        hints["destructiveHint"] = False
    return hints


# ------------------------------------------------------------------------------ compiling

# A test of one value; `memo` holds, for one call, the regexes each string matched.
_Memo = dict[str, Any]
_Test = Callable[[Any, _Memo], bool]
_MISSING: Final = object()


def _glob(pattern: str) -> Callable[[str], bool]:
    """A glob as the cheapest test that does the job (most are a name or a prefix)."""
    stem = pattern[:-1]
    if not any(ch in pattern for ch in "*?["):
        return pattern.__eq__
    if pattern.endswith("*") and not any(ch in stem for ch in "*?["):
        return lambda s: s.startswith(stem)
    match = re.compile(fnmatch.translate(pattern)).match
    return lambda s: match(s) is not None


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _same(a: Any, b: Any) -> bool:
    """JSON equality: `true` is not `1`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


class RegexSet:
    """Every `regex` condition of the policy in one RE2 set (linear time whatever the pattern):
    a string is matched once per call against all of them, whichever rules ask."""

    def __init__(self) -> None:
        self._set = re2.Set.SearchSet()
        self.size = 0
        self._match: Callable[[str], list[int] | None] = lambda _s: None

    def add(self, pattern: str) -> int:
        index = int(self._set.Add(pattern))
        self.size += 1
        return index

    def compile(self) -> None:
        if self.size:
            self._set.Compile()
            self._match = self._set.Match

    def matches(self, v: str, memo: _Memo) -> Any:
        hit = memo.get(v)
        if hit is None:
            hit = memo[v] = frozenset(self._match(v) or ())
        return hit


def _resolved(v: str) -> str | None:
    """A path written with `.` / `..` segments or doubled slashes, resolved (`/tmp/../etc/x`
    is `/etc/x` to the tool that opens it); None when there is nothing to resolve."""
    if "/." not in v and "//" not in v and not v.startswith("."):
        return None
    r = posixpath.normpath(v)
    return None if r == v else r


def _pathwise(test: _Test, strict: bool) -> _Test:
    """A glob or regex test that also judges a path-like value by its resolved form: for an
    `allow` rule (`strict`) both forms must match, for the other actions either one does, so
    `..` segments can neither slip past a deny nor stretch an allow."""
    if strict:

        def both(v: Any, m: _Memo) -> bool:
            if not test(v, m):
                return False
            r = _resolved(v)
            return r is None or test(r, m)

        return both

    def either(v: Any, m: _Memo) -> bool:
        if test(v, m):
            return True
        r = _resolved(v) if isinstance(v, str) else None
        return r is not None and test(r, m)

    return either


def _value_test(c: PolicyArg, regexes: RegexSet, strict: bool = False) -> _Test:
    fields = c.fields_set
    if "equals" in fields:
        want = c.equals
        if isinstance(want, str):
            return lambda v, _m: v == want and isinstance(v, str)
        return lambda v, _m: _same(v, want)
    if c.glob is not None:
        g = _glob(c.glob)
        return _pathwise(lambda v, _m: isinstance(v, str) and g(v), strict)
    if c.regex is not None:
        i = regexes.add(c.regex)
        matches = regexes.matches
        return _pathwise(lambda v, m: isinstance(v, str) and i in matches(v, m), strict)
    if "contains" in fields:
        item = c.contains

        def contains(v: Any, _m: _Memo) -> bool:
            if isinstance(v, str):
                return isinstance(item, str) and item in v
            if isinstance(v, list):
                return any(_same(x, item) for x in v)
            return False

        return contains
    lo = float("-inf") if c.min is None else c.min
    hi = float("inf") if c.max is None else c.max
    return lambda v, _m: _is_number(v) and lo <= v <= hi


def _walk(value: Any, path: tuple[str, ...], at: int = 0) -> Iterator[tuple[Any, Any, Any]]:
    """(container, key, value) for each place `path` reaches (several through `*`)."""
    seg = path[at]
    last = at == len(path) - 1
    if isinstance(value, dict):
        items: Any = value.items() if seg == "*" else ((seg, value[seg]),) if seg in value else ()
    elif isinstance(value, list):
        if seg == "*":
            items = enumerate(value)
        elif seg.isdigit() and int(seg) < len(value):
            items = ((int(seg), value[int(seg)]),)
        else:
            items = ()
    else:
        return
    for k, v in items:
        if last:
            yield value, k, v
        else:
            yield from _walk(v, path, at + 1)


def _step(v: Any, seg: str) -> Any:
    if isinstance(v, dict):
        return v.get(seg, _MISSING)
    if isinstance(v, list) and seg.isdigit() and int(seg) < len(v):
        return v[int(seg)]
    return _MISSING


def _holds(path: tuple[str, ...], test: _Test) -> Callable[[Any, _Memo], bool]:
    """Whether the value at `path` passes `test` (any of them, through `*`)."""
    if "*" in path:
        return lambda args, m: any(test(v, m) for _, _, v in _walk(args, path))
    if len(path) == 1:
        key = path[0]
        if not key.isdigit():

            def one(args: Any, m: _Memo) -> bool:
                if not isinstance(args, dict):
                    return False
                v = args.get(key, _MISSING)
                return v is not _MISSING and test(v, m)

            return one

    def deep(args: Any, m: _Memo) -> bool:
        v = args
        for seg in path:
            v = _step(v, seg)
            if v is _MISSING:
                return False
        return test(v, m)

    return deep


@dataclass(slots=True, frozen=True)
class ArgCheck:
    path: tuple[str, ...]
    test: _Test
    text: str  # the path as written, for explanations
    holds: Callable[[Any, _Memo], bool]

    @classmethod
    def compile(cls, a: PolicyArg, regexes: RegexSet, strict: bool = False) -> ArgCheck:
        path = tuple(a.path.split("."))
        test = _value_test(a, regexes, strict)
        return cls(path, test, a.path, _holds(path, test))


@dataclass(slots=True)
class Rule:
    """A compiled rule. `server`, `tool` and `annotations` are settled per tool when its list
    arrives; `principal`, `client` and `args` are checked per call."""

    index: int
    name: str
    action: str
    reason: str
    server: Callable[[str], bool] | None
    tool: Callable[[str], bool] | None
    annotations: dict[str, bool]
    principal: Callable[[str], bool] | None
    client: Callable[[str], bool] | None
    args: tuple[ArgCheck, ...]

    @classmethod
    def compile(cls, index: int, r: PolicyRule, regexes: RegexSet) -> Rule:
        m = r.match
        return cls(
            index,
            r.name,
            r.action,
            r.reason,
            _glob(m.server) if m.server else None,
            _glob(m.tool) if m.tool else None,
            dict(m.annotations),
            _glob(m.principal) if m.principal else None,
            _glob(m.client) if m.client else None,
            tuple(ArgCheck.compile(a, regexes, r.action == "allow") for a in m.args),
        )

    def fits_tool(self, upstream: str, name: str, hints: dict[str, bool]) -> bool:
        if self.server is not None and not self.server(upstream):
            return False
        if self.tool is not None and not self.tool(name):
            return False
        return all(hints.get(k) == v for k, v in self.annotations.items())

    def fits_caller(self, client: str, principal: str) -> bool:
        if self.client is not None and not self.client(client):
            return False
        return self.principal is None or self.principal(principal)


@dataclass(slots=True)
class Decision:
    """What the policy does with one call, and why."""

    action: str  # allow | deny | confirm
    rule: str | None  # the deciding rule's name; None: the default
    reason: str = ""
    redacted: list[tuple[str, str]] = field(default_factory=list)  # (rule, path) replaced
    arguments: Any = None  # the arguments to forward (redacted), when a redact rule fired

    @property
    def by(self) -> str:
        return f"rule {self.rule!r}" if self.rule is not None else "the default action"

    def explain(self) -> str:
        why = f" ({self.reason})" if self.reason else ""
        out = f"{self.action} by {self.by}{why}"
        if self.redacted:
            out += "; redacted " + ", ".join(f"{p} (rule {r!r})" for r, p in self.redacted)
        return out


@dataclass(slots=True, frozen=True)
class ToolRules:
    """The rules that can match one tool's calls, and a shortcut: when a call's arguments hold
    none of the top-level keys the argument conditions read (`keys`; None when one reads `*`),
    no rule with argument conditions can hold, and only `argfree` rules need a look."""

    rules: tuple[Rule, ...]
    argfree: tuple[Rule, ...]
    keys: frozenset[str] | None

    @classmethod
    def of(cls, rules: tuple[Rule, ...]) -> ToolRules:
        tops = {c.path[0] for r in rules for c in r.args}
        keys = None if "*" in tops else frozenset(tops)
        return cls(rules, tuple(r for r in rules if not r.args), keys)


class PolicyEngine:
    """The rules, compiled, and the per-tool rule lists (built as tool lists arrive)."""

    def __init__(self, cfg: PolicyConfig) -> None:
        self.cfg = cfg
        self.default = cfg.default
        self.regexes = RegexSet()
        self.rules = [Rule.compile(i, r, self.regexes) for i, r in enumerate(cfg.rules)]
        self.regexes.compile()
        self._by_tool: dict[Route, ToolRules] = {}
        # Decisions without redactions are shared (nobody changes a Decision).
        self._decisions = {r.name: Decision(r.action, r.name, r.reason) for r in self.rules}
        self._default = Decision(self.default, None)

    def rules_for(self, route: Route, tool: dict[str, Any] | None = None) -> ToolRules:
        """The rules that can match calls to this tool (its definition, when known)."""
        hints = effective_hints(tool or {})
        return ToolRules.of(
            tuple(r for r in self.rules if r.fits_tool(route.upstream, route.name, hints))
        )

    def learn(self, upstream: str, tools: Items) -> None:
        """An upstream's tool list arrived: rebuild its tools' rule lists."""
        table = {r: v for r, v in self._by_tool.items() if r.upstream != upstream}
        for t in tools:
            name = t.get("name")
            if isinstance(name, str):
                route = Route(upstream, name)
                table[route] = self.rules_for(route, t)
        self._by_tool = table

    def decide(
        self, route: Route, args: Any, client: str | None = None, principal: str = ""
    ) -> Decision:
        """The decision for one call. The Decision returned may be shared: do not change it."""
        tool = self._by_tool.get(route)
        if tool is None:  # not (yet) in a list: its annotations are unknown, MCP's defaults
            tool = self.rules_for(route)
        rules = tool.rules
        if tool.keys is not None and isinstance(args, dict) and tool.keys.isdisjoint(args):
            rules = tool.argfree
        cname = client or ""
        memo: _Memo = {}
        redacted: list[tuple[str, str]] = []
        out = args
        for r in rules:
            if (r.client is not None or r.principal is not None) and not r.fits_caller(
                cname, principal
            ):
                continue
            if r.action == "redact":
                out = self._redact(r, out, args, redacted, memo)
                continue
            for c in r.args:
                if not c.holds(args, memo):
                    break
            else:
                if not redacted:
                    return self._decisions[r.name]
                return Decision(r.action, r.name, r.reason, redacted, out)
        if not redacted:
            return self._default
        return Decision(self.default, None, "", redacted, out)

    @staticmethod
    def _redact(r: Rule, out: Any, args: Any, redacted: list[tuple[str, str]], memo: _Memo) -> Any:
        """Replace what each of the rule's conditions matched (all must match somewhere)."""
        if not all(c.holds(args, memo) for c in r.args):
            return out
        if out is args:  # copy once, on the first redaction
            out = orjson.loads(orjson.dumps(args))
        mark = marker(r.name)
        for c in r.args:
            for container, key, v in list(_walk(out, c.path)):
                if c.test(v, memo):
                    container[key] = mark
            redacted.append((r.name, c.text))
        return out

    def always_denied(self, route: Route, client: str, principal: str) -> bool:
        """True when every call this caller could make to the tool is denied."""
        tool = self._by_tool.get(route)
        for r in tool.rules if tool is not None else ():
            if not r.fits_caller(client, principal) or r.action == "redact":
                continue
            if r.args:
                if r.action == "deny":
                    continue  # denied when it matches, the next rules decide when it does not
                return False  # allowed or asked for some arguments
            return r.action == "deny"
        return self.default == "deny"


# ------------------------------------------------------------------------------ the addon


class PolicyHost(Protocol):
    """What the policy uses of the gateway."""

    @property
    def config(self) -> GatewayConfig: ...
    @property
    def catalog(self) -> Catalog: ...
    @property
    def state(self) -> State: ...


class Policy:
    """The addon: `catalog` builds per-tool rule lists, `call` decides each `tools/call`.
    `HidingPolicy` also takes part in listings."""

    def __init__(
        self, cfg: PolicyConfig, catalog: Catalog | None, confirmer: Confirmer | None
    ) -> None:
        self.engine = PolicyEngine(cfg)
        self.enforce = cfg.mode == "enforce"
        self.hide = self.enforce and cfg.hide_denied
        self.confirmer = confirmer
        self._catalog = catalog

    def reconfigure(self, cfg: PolicyConfig) -> bool:
        """A reloaded `security.policy`, applied live: the rules compiled again and taught the
        tools the catalog lists now, the mode and the default. A call already decided goes on
        under the old rules; the next one is decided by the new. False (nothing changed) when
        it needs a restart: the policy turned off, a `confirm` action with no confirmer made at
        start, or hiding turned on for an addon built without a listing hook."""
        wants_confirm = cfg.default == "confirm" or any(r.action == "confirm" for r in cfg.rules)
        hide = cfg.mode == "enforce" and cfg.hide_denied
        if not cfg.on or (wants_confirm and self.confirmer is None):
            return False
        if hide and not isinstance(self, HidingPolicy):
            return False
        engine = PolicyEngine(cfg)
        if self._catalog is not None:
            for upstream in self._catalog.order:
                # as kept, after the overrides: each tool by its upstream's own name again
                own = self._catalog.original_names.get(upstream) or {}
                tools = self._catalog.upstream_items(upstream, "tools")
                engine.learn(
                    upstream,
                    [{**t, "name": own[t["name"]]} if t.get("name") in own else t for t in tools],
                )
        self.engine = engine
        self.enforce = cfg.mode == "enforce"
        self.hide = hide
        if isinstance(self, HidingPolicy):
            self._hidden.clear()
            self._max_hidden = cfg.listing_cache
        return True

    # ----------------------------------------------------------------- lists

    def catalog(self, event: CatalogEvent) -> Items:
        if event.kind == "tools":
            self.engine.learn(event.upstream, event.items)
        return event.items

    def own(self, route: Route) -> Route:
        """The route by the upstream's own tool name: rules (and the annotations learnt from the
        upstream's list) name a tool as its upstream does, not as an override renamed it."""
        if self._catalog is not None:
            renamed = self._catalog.original_names.get(route.upstream)
            if renamed:
                name = renamed.get(route.name)
                if name is not None:
                    return Route(route.upstream, name)
        return route

    # ----------------------------------------------------------------- calls

    async def call(self, ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        if ctx.method != "tools/call" or ctx.route.upstream == GATEWAY:
            return await call_next(ctx)
        args = ctx.params.get("arguments")
        if args is None:
            args = {}
        d = self.engine.decide(self.own(ctx.route), args, ctx.client_name, ctx.principal)
        if not self.enforce:
            if d.action != "allow" or d.redacted:
                log.warning(
                    "policy (audit mode): tools/call %s (%s/%s) from client %r: enforce would %s",
                    ctx.exposed,
                    ctx.route.upstream,
                    ctx.route.name,
                    ctx.client_name,
                    d.explain(),
                )
            return await call_next(ctx)
        if d.redacted:
            log.info("policy: tools/call %s: %s", ctx.exposed, d.explain())
            ctx.params = {**ctx.params, "arguments": d.arguments}
        if d.action == "allow":
            if self.confirmer is not None and ctx.client_caps is not None:
                self.confirmer.strip(ctx)  # an approval round's leftovers, never forwarded
            return await call_next(ctx)
        if d.action == "deny":
            raise self.refusal(ctx, d, "is denied")
        assert self.confirmer is not None
        return await self.confirmer.confirm(ctx, call_next, d, args)

    @staticmethod
    def refusal(ctx: CallContext, d: Decision, what: str, detail: str = "") -> rpc.RpcError:
        """The error for a refused call (logged): which tool, which rule, why."""
        why = f" ({d.reason})" if d.reason else ""
        more = f"; refused: {detail}" if detail else ""
        log.warning(
            "policy: refused tools/call %s (%s/%s) from client %r: %s by %s%s%s",
            ctx.exposed,
            ctx.route.upstream,
            ctx.route.name,
            ctx.client_name,
            what,
            d.by,
            why,
            more,
        )
        data: dict[str, Any] = {
            "mechanism": MECHANISM,
            "tool": ctx.exposed,
            "rule": d.rule,
            "action": d.action,
        }
        if detail:
            data["reason"] = detail
        return rpc.RpcError(
            rpc.INVALID_PARAMS,
            f"{MECHANISM}: tool {ctx.exposed!r} {what} by {d.by}{why}{more}",
            data,
        )


class HidingPolicy(Policy):
    """The policy with a `listing` hook: always-denied tools are not listed (enforce mode with
    `hide_denied`; in audit mode the hook passes lists as they are, so that a reload to enforce
    hides without a restart; with `hide_denied: false` the addon takes no part in listings)."""

    def __init__(
        self, cfg: PolicyConfig, catalog: Catalog | None, confirmer: Confirmer | None
    ) -> None:
        super().__init__(cfg, catalog, confirmer)
        # The hidden tools per (client name, principal), for one catalog version: at most
        # `listing_cache` pairs, least recently listed dropped first.
        self._hidden: OrderedDict[tuple[str, str], frozenset[str]] = OrderedDict()
        self._max_hidden = cfg.listing_cache
        self._version = -1

    def listing(self, event: ListingEvent) -> Items:
        """Leave out the tools this client is always denied (see the module's docstring)."""
        if event.kind != "tools" or self._catalog is None or not self.hide:
            return event.items
        key = (event.client_name or "", event.principal)
        if self._version != self._catalog.version:
            self._hidden.clear()
            self._version = self._catalog.version
        hidden = self._hidden.get(key)
        if hidden is None:
            routes = self._catalog.tool_routes
            hidden = frozenset(
                name
                for name, route in routes.items()
                if self.engine.always_denied(self.own(route), *key)
            )
            self._hidden[key] = hidden
            if len(self._hidden) > self._max_hidden:
                self._hidden.popitem(last=False)
        else:
            self._hidden.move_to_end(key)
        if not hidden:
            return event.items
        return [t for t in event.items if t.get("name") not in hidden]


def build(gw: PolicyHost) -> Policy | None:
    cfg = gw.config.security.policy
    if not cfg.on:
        return None
    confirmer = None
    if cfg.default == "confirm" or any(r.action == "confirm" for r in cfg.rules):
        from manifold.security.confirm import Confirmer

        confirmer = Confirmer(cfg.confirm, gw.state.secrets.key("policy-confirm"))
    # With `hide_denied`, the listing hook is there in audit mode too (it passes lists as they
    # are), so that a reload to `enforce` can hide without a restart.
    cls = HidingPolicy if cfg.hide_denied else Policy
    return cls(cfg, gw.catalog, confirmer)
