"""Secret redaction, both ways (config `security.redaction`, on by default).

What it cleans, and where (hooks, see `manifold.hooks`):
- call, going out: the string values of `tools/call` and `prompts/get` arguments, so a
  credential the model pastes into a call never reaches the upstream;
- call, coming back: every string of a result (text blocks, structuredContent, embedded and
  read resource text, `_meta`) and of an error, except the base64 payloads of images, audio and
  blobs; structuredContent keeps its shape (strings are replaced in place), and a string under
  a secret-named key (`password`, `api_key`, `client_secret`, ...) is replaced as a whole;
- catalog: every string of a tool, prompt, resource or template definition as it arrives
  (descriptions, inputSchema descriptions, defaults and examples) except its name and URI;
- notification: the `data` of log messages and the `message` of progress notifications.

A secret becomes `[REDACTED:<rule>]`; for rules with a context (`password=`, `Bearer `, a URL's
user) only the secret part is replaced. The built-in rules are in `secret_rules.py`; user rules
(`rules`, RE2 syntax) run after them; `disable` turns built-in rules off by name.

Cost: the triggers of all rules form one RE2 set matched once over a result's raw bytes (about
800 MB/s); a result that fires no trigger is relayed as it came, undecoded. A result that fires
one is decoded and walked; each string is matched against the set again and scanned only by
the rules it fired. A result over `RAW_SCAN` bytes is scanned as JSON text instead (see
`Redactor._raw_scan`). Counts per rule are kept in `Redactor.counts`; a debug log line names
what was redacted where (never the value).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
import orjson
import re2  # type: ignore[import-untyped]

from manifold.config import ConfigError, RedactionConfig
from manifold.hooks import CatalogEvent, Items, NotificationEvent
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.security import secret_rules
from manifold.security.secret_rules import BUILTIN, NAMES, assignment_ok, secret_key

if TYPE_CHECKING:
    from manifold.config import GatewayConfig

log = logging.getLogger("manifold.security.redact")

FIELD_RULE = "secret-field"  # a string under a secret-named key of a structured value
_ARG_METHODS = frozenset({"tools/call", "prompts/get"})
_KEEP_KEYS = frozenset({"name", "uri", "uriTemplate"})  # identity of a catalog item


class RedactHost(Protocol):
    """What redaction uses of the gateway."""

    @property
    def config(self) -> GatewayConfig: ...


def marker(rule: str) -> str:
    return f"[REDACTED:{rule}]"


@dataclass(frozen=True, slots=True)
class _Compiled:
    name: str
    finditer: Callable[[bytes], Any]  # RE2: long strings
    groups: tuple[int, ...]
    check: Callable[[Any, str], bool] | None
    mark: bytes
    edge: bytes = b""
    left_only: bool = False
    finditer_short: Callable[[bytes], Any] | None = None  # `re`: strings up to SHORT bytes
    match_at: Callable[[bytes, int], Any] | None = None  # `re`: the groups of an RE2 match


SHORT = 4096
RAW_SCAN = 256 * 1024  # results larger than this are scanned as JSON text, not walked


def _builtin(rule: secret_rules.Rule) -> _Compiled:
    check: Callable[[Any, str], bool] | None = None
    if rule.name == "secret-assignment":
        check = assignment_ok
    elif rule.check is not None:
        plain = rule.check
        check = lambda _m, v: plain(v)  # noqa: E731
    long, short = rule.pattern
    return _Compiled(
        rule.name,
        long.finditer,
        rule.groups,
        check,
        marker(rule.name).encode(),
        rule.edge,
        rule.left_only,
        short.finditer,
        short.match,
    )


class Redactor:
    """The compiled rule set: a prefilter over raw bytes, and the rules over strings."""

    def __init__(self, cfg: RedactionConfig) -> None:
        unknown = sorted(set(cfg.disable) - NAMES)
        if unknown:
            raise ConfigError(
                f"security.redaction.disable: unknown rule(s) {', '.join(unknown)} "
                f"(built-in: {', '.join(sorted(NAMES))})"
            )
        off = set(cfg.disable)
        rules: list[_Compiled] = []
        triggers: list[str] = []
        for rule in BUILTIN:
            if rule.name not in off:
                rules.append(_builtin(rule))
                triggers.append(rule.trigger)
        for user in cfg.rules:
            rx = re2.compile(user.pattern.encode())
            mark = marker(user.name).encode()
            rules.append(_Compiled(user.name, rx.finditer, (user.group,), None, mark))
            triggers.append(user.pattern)
        self.rules = rules
        self.keyed = "secret-assignment" not in off
        self.counts: Counter[str] = Counter()
        self._set: Any = None
        if triggers:
            s = re2.Set.SearchSet(re2.Options())
            for t in triggers:
                s.Add(t)
            s.Compile()
            self._set = s

    # ------------------------------------------------------------- prefilter

    def fired(self, raw: bytes | memoryview | str) -> list[_Compiled]:
        """The rules whose trigger occurs in `raw` (empty: nothing there to redact)."""
        if self._set is None:
            return []
        hits = self._set.Match(raw)
        if not hits:
            return []
        return [self.rules[i] for i in sorted(hits)]

    # ------------------------------------------------------------- strings

    def text(self, s: str) -> str:
        """`s` with every secret the rules find replaced by its marker."""
        if not s:
            return s
        b = s.encode("utf-8", "surrogatepass")
        # The set again, on this string alone: most strings of a result that fired hold no
        # secret, and one set match costs less than running even one rule.
        out = b
        for rule in self.fired(b):
            out = self._apply(rule, out)
        return s if out is b else out.decode("utf-8", "surrogatepass")

    @staticmethod
    def _matches(rule: _Compiled, s: bytes) -> Any:
        """The rule's matches: `re` over a short string; over a long one RE2 finds them (linear
        time) and `re` reads the groups at each (its match objects are C, RE2's are Python)."""
        if rule.finditer_short is None or rule.match_at is None:
            return rule.finditer(s)
        if len(s) <= SHORT:
            return rule.finditer_short(s)
        at = rule.match_at
        return (at(s, m.start()) for m in rule.finditer(s))

    def _apply(self, rule: _Compiled, s: bytes) -> bytes:
        out: list[bytes] = []
        pos = 0
        edge = rule.edge
        for m in self._matches(rule, s):
            if m is None:
                continue
            if edge:
                a, z = m.span()
                if (a and s[a - 1] in edge) or (not rule.left_only and z < len(s) and s[z] in edge):
                    continue
            g = next((g for g in rule.groups if m.group(g) is not None), None)
            if g is None:
                continue
            value = m.group(g)
            if not value:
                continue
            if rule.check is not None and not rule.check(m, value.decode("utf-8", "replace")):
                continue
            start, end = m.span(g)
            if start < pos:
                continue
            out.append(s[pos:start])
            out.append(rule.mark)
            pos = end
            self.counts[rule.name] += 1
        if not out:
            return s
        out.append(s[pos:])
        return b"".join(out)

    # ------------------------------------------------------------- values

    def value(self, v: Any, keyed: bool, skip: frozenset[str] = frozenset()) -> Any:
        """`v` with its strings redacted; the same object when nothing changed."""
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, list):
            new = [self.value(x, keyed) for x in v]
            return v if all(a is b for a, b in zip(new, v, strict=True)) else new
        if isinstance(v, dict):
            changed = False
            out: dict[str, Any] = {}
            binary = _binary_keys(v)
            for k, x in v.items():
                if k in skip or k in binary:
                    y = x
                elif keyed and isinstance(x, str) and secret_key(k) and _secret(x):
                    y = marker(FIELD_RULE)
                    self.counts[FIELD_RULE] += 1
                else:
                    y = self.value(x, keyed)
                changed = changed or y is not x
                out[k] = y
            return out if changed else v
        return v

    def raw_result(self, raw: bytes | msgspec.Raw) -> bytes | None:
        """A result's bytes redacted, or None when nothing in it is a secret."""
        rules = self.fired(memoryview(raw))
        if not rules:
            return None
        if len(raw) > RAW_SCAN and all(r.match_at is not None for r in rules):
            return self._raw_scan(bytes(raw), rules)
        return self._walk(raw)

    def _walk(self, raw: bytes | msgspec.Raw) -> bytes | None:
        obj = rpc.load_raw(raw)
        new = self.value(obj, self.keyed)
        if new is obj:
            return None
        return orjson.dumps(new)

    def _raw_scan(self, raw: bytes, rules: Sequence[_Compiled]) -> bytes | None:
        """A large result: the fired rules run over its JSON text as it is, which spares
        decoding and walking every string (a 5 MB structured result holds hundreds of thousands).
        Markers are plain JSON text and what a built-in rule replaces never holds a quote, so
        no string's edge moves; should an escape be cut, the text would not parse, and the
        result is walked string by string instead. User rules always walk."""
        before = self.counts.copy()
        out = raw
        for rule in rules:
            out = self._apply(rule, out)
        if out is raw:
            return None
        try:
            orjson.loads(out)
        except orjson.JSONDecodeError:
            self.counts = before
            return self._walk(raw)
        return out


def _binary_keys(d: dict[str, Any]) -> frozenset[str]:
    """Keys holding base64 payloads (image and audio data, resource blobs): not text."""
    if "blob" in d and "uri" in d:
        return frozenset({"blob"})
    if d.get("type") in ("image", "audio") and "data" in d:
        return frozenset({"data"})
    return frozenset()


def _secret(value: str) -> bool:
    return secret_rules._secret_value(value)


class Redaction:
    """The addon: redacts calls both ways, catalog definitions and notifications."""

    def __init__(self, cfg: RedactionConfig) -> None:
        self.r = Redactor(cfg)

    @property
    def counts(self) -> Counter[str]:
        return self.r.counts

    async def call(self, ctx: CallContext, call_next: CallNext) -> Any:
        if ctx.method in _ARG_METHODS:
            args = ctx.params.get("arguments")
            if args and self.r.fired(orjson.dumps(args)):
                new = self.r.value(args, keyed=False)
                if new is not args:
                    log.debug("redacted secrets in the arguments of %s", ctx.exposed)
                    ctx.params = {**ctx.params, "arguments": new}
        res = await call_next(ctx)
        if res.error is not None:
            if self.r.fired(orjson.dumps(res.error)):
                err = self.r.value(res.error, self.r.keyed)
                if err is not res.error:
                    log.debug("redacted secrets in an error from %s", ctx.exposed)
                    return msgspec.structs.replace(res, error=err)
            return res
        raw = res.result
        if not raw:
            return res
        new_raw = self.r.raw_result(raw)
        if new_raw is None:
            return res
        log.debug("redacted secrets in the result of %s", ctx.exposed)
        return msgspec.structs.replace(res, result=msgspec.Raw(new_raw))

    def catalog(self, event: CatalogEvent) -> Items:
        if not self.r.fired(orjson.dumps(event.items)):
            return event.items
        out = [self.r.value(item, self.r.keyed, _KEEP_KEYS) for item in event.items]
        n = sum(a is not b for a, b in zip(out, event.items, strict=True))
        if n:
            log.debug("redacted secrets in %d %s of %s", n, event.kind, event.upstream)
        return out

    def notification(self, event: NotificationEvent) -> dict[str, Any] | None:
        key = {"notifications/message": "data", "notifications/progress": "message"}.get(
            event.method
        )
        if key is None or key not in event.params:
            return event.params
        v = event.params[key]
        if not self.r.fired(v if isinstance(v, str) else orjson.dumps(v)):
            return event.params
        new = self.r.value(v, self.r.keyed)
        return event.params if new is v else {**event.params, key: new}


def build(gw: RedactHost) -> Redaction | None:
    cfg = gw.config.security.redaction
    return Redaction(cfg) if cfg.enabled else None


__all__ = ["Redaction", "Redactor", "build", "marker"]
