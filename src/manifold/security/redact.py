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
- notification: the `data` of log messages and the `message` of progress notifications;
- server_request: a sampling or elicitation request on its way to the client, and a sampling
  answer on its way back (an elicitation answer is the user's, for that server, and passes);
  in a modern round relayed to the client, the same through `call` (the round is a result, the
  answers come back in the retry's `inputResponses`), so rounds stay relayed;
- everywhere: a URL-encoded run is decoded, scanned, and encoded again when it changed.

A secret becomes `[REDACTED:<rule>]`; for rules with a context (`password=`, `Bearer `, a URL's
user) only the secret part is replaced. The built-in rules are in `secret_rules.py`; user rules
(`rules`, RE2 syntax) run after them; `disable` turns built-in rules off by name.

Cost: the triggers of all rules form one RE2 set (counted repeats relaxed, see `relax`)
matched once over a result's raw bytes; a result that fires no trigger is relayed as it came,
undecoded. A rule's own expressions are compiled when its trigger first fires. A result that
fires one is decoded and walked; each string is matched against the set again and scanned only
by the rules it fired. A result over `RAW_SCAN` bytes is scanned as JSON text instead (see
`Redactor._raw_scan`), where repeated look-alikes are judged once and masked out (`_Scan`).
Counts per rule are kept in `Redactor.counts`; a debug log line names what was redacted where
(never the value).
"""

from __future__ import annotations

import functools
import logging
import re
import urllib.parse
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
import orjson
import re2  # type: ignore[import-untyped]

from manifold.config import ConfigError, RedactionConfig, RedactionRule
from manifold.hooks import (
    CatalogEvent,
    Items,
    NotificationEvent,
    ServerRequestContext,
    ServerRequestNext,
)
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
    search: Callable[[Any, bytes, int, int], Any]  # RE2's spans search: long strings
    groups: tuple[int, ...]
    check: Callable[[Any, str], bool] | None
    mark: bytes
    edge: bytes = b""
    left_only: bool = False
    finditer_short: Callable[[bytes], Any] | None = None  # `re`: strings up to SHORT bytes
    match_at: Callable[[bytes, int], Any] | None = None  # `re`: the groups of an RE2 match
    maskable: bool = False  # repeated look-alikes may be masked out of a long scan, see _Scan


SHORT = 4096
# A JSON escape that stands for a printable ASCII character (which a plain encoder writes as
# it is): only such a result is decoded when its bytes fire no trigger (re: a literal backslash
# is searched for first, at memchr speed).
_ASCII_ESCAPE = re.compile(rb"\\(?:/|u00[2-7][0-9A-Fa-f])")
RAW_SCAN = 256 * 1024  # results larger than this are scanned as JSON text, not walked


def _escaped(raw: bytes | msgspec.Raw) -> bool:
    """Whether `raw` holds an `_ASCII_ESCAPE`: `re` reads a buffer at about 700 MB/s even for a
    pattern that starts with a literal, so the first backslash is found by `bytes.find`
    (memchr; 5 MB: 0.6 ms against 7 ms) and `re` starts there."""
    b = raw if isinstance(raw, bytes) else bytes(raw)
    at = b.find(b"\\")
    return at >= 0 and _ASCII_ESCAPE.search(b, at) is not None


_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED


class _Scan:
    """Matches over a long string: RE2 (linear time, no groups: its DFAs alone) finds where each
    match starts, `re` reads the groups there in the true text (anchored, so it cannot wander).

    RE2 searches a copy of the text in which a look-alike already judged benign, and seen
    again, can be masked out everywhere at once (`mask`): 50k rows of `password: required`
    cost two judgements and one pass, not 50k round trips. Only for rules (`_maskable`) whose
    match at a place is decided by its own bytes and the one byte on each side, and which no
    other match of the rule can run into from outside: the same bytes with the same neighbours
    elsewhere are the same benign match. Masking can only hide candidates, never make one:
    every start found is matched again in the true text."""

    __slots__ = ("masks", "match_at", "s", "scan", "search")

    MAX_MASKS = 16  # each costs a pass over the text

    def __init__(self, rule: _Compiled, s: bytes) -> None:
        self.s = s
        self.scan = s
        self.search = rule.search
        assert rule.match_at is not None
        self.match_at = rule.match_at
        self.masks = 0

    def __iter__(self) -> Any:
        s = self.s
        pos, n = 0, len(s)
        while pos <= n:
            a, z = self.search(_UNANCHORED, self.scan, pos, n)[0]
            if a < 0:
                return
            m = self.match_at(s, a)
            if m is None:
                pos = a + 1
                continue
            yield m
            z = m.end()
            pos = z if z > a else z + 1

    def mask(self, a: int, z: int) -> None:
        """Mask every other occurrence of s[a-1:z+1] (a benign match and its neighbours)."""
        s = self.s
        if self.masks >= self.MAX_MASKS or a == 0 or z >= len(s):
            return
        self.masks += 1
        whole = s[a - 1 : z + 1]
        self.scan = self.scan.replace(whole, whole[:1] + b"\0" * (z - a) + whole[-1:])


PCT_RULE_NAME = "url-encoded"
_PCT_TRIGGER = r"%[0-9A-Fa-f]{2}"
# A URL-encoded run: the characters a URL or form body may hold, around percent-escapes. Found
# from each escape outwards (possessive, so linear: a long run without an escape costs nothing).
_PCT_ESC = re.compile(rb"%[0-9A-Fa-f]{2}")
_PCT_CHARS = re.compile(rb"[A-Za-z0-9._~+!*(),;:@/?=&$%-]*+")


def _run_end(s: bytes, at: int) -> int:
    m = _PCT_CHARS.match(s, at)  # `*+`: always matches, maybe empty
    return m.end() if m is not None else at


_PCT_SAFE = "/:=&?@;,+[]!*()$~"  # kept as they are when a changed run is encoded again
_PCT_RULE = _Compiled(
    PCT_RULE_NAME, lambda *_: None, (0,), None, b"", b"", False, _PCT_ESC.finditer, _PCT_ESC.match
)


_COUNT = re.compile(r"(?<!\\)\{(\d+)(?:(,)(\d*))?\}")
_RELAX_TO = 8


def relax(trigger: str) -> str:
    """A trigger whose counted repeats say "at least min(m, 8)" (`X{16}` and `X{40,255}`
    become `X{8,}`): every match of the trigger still matches (a superset, so no secret is
    missed), and the set's DFA stays small. Exact counts multiply its states: with them, the
    cache of ~60 triggers thrashed and the set ran at single-digit MB/s on varied text."""

    def one(m: re.Match[str]) -> str:
        low = int(m.group(1))
        if m.group(2) is None and low <= _RELAX_TO:
            return m.group(0)
        return f"{{{min(low, _RELAX_TO)},}}"

    return _COUNT.sub(one, trigger)


class _Spans:
    """A user rule's match, read from RE2's spans (its Python match objects cost more)."""

    __slots__ = ("s", "spans")

    def __init__(self, s: bytes, spans: Any) -> None:
        self.s = s
        self.spans = spans

    def span(self, g: int = 0) -> tuple[int, int]:
        a, z = self.spans[g]
        return (a, z)

    def group(self, g: int = 0) -> bytes | None:
        a, z = self.spans[g]
        return None if a < 0 else self.s[a:z]


def _user_matches(search: Callable[[Any, bytes, int, int], Any], s: bytes) -> Any:
    pos, n = 0, len(s)
    while pos <= n:
        spans = search(_UNANCHORED, s, pos, n)
        a, z = spans[0]
        if a < 0:
            return
        yield _Spans(s, spans)
        pos = z if z > a else z + 1


def _builtin(rule: secret_rules.Rule) -> _Compiled:
    check: Callable[[Any, str], bool] | None = None
    if rule.name == "secret-assignment":
        check = assignment_ok
    elif rule.check is not None:
        plain = rule.check
        check = lambda _m, v: plain(v)  # noqa: E731
    long, short = secret_rules.compiled(rule.pattern)
    return _Compiled(
        rule.name,
        long._regexp.Match,
        rule.groups,
        check,
        marker(rule.name).encode(),
        rule.edge,
        rule.left_only,
        short.finditer,
        short.match,
        _maskable(rule),
    )


def _maskable(rule: secret_rules.Rule) -> bool:
    """Whether a benign match of `rule` may be masked out of a long scan (see `_Scan`): the
    `secret-assignment` rule (its key is a whole token, its value stops at a delimiter, after
    400 bytes or at its closing quote), and the token rules made only of token characters with
    a token edge on both sides (no match can run into a neighbour, nor start inside one)."""
    if rule.name == "secret-assignment":
        return True
    if rule.edge not in (secret_rules.TOKEN, secret_rules.ALNUM) or rule.left_only:
        return False
    return not re.search(r"\\[.sSbBdDwW]|[=+/~:.*]", rule.pattern.replace("(?:", "("))


def _user(rule: RedactionRule) -> _Compiled:
    rx = re2.compile(rule.pattern.encode())
    mark = marker(rule.name).encode()
    return _Compiled(rule.name, rx._regexp.Match, (rule.group,), None, mark)


class Redactor:
    """The compiled rule set: a prefilter over raw bytes, and the rules over strings. A rule's
    own expressions are compiled the first time its trigger fires."""

    def __init__(self, cfg: RedactionConfig) -> None:
        unknown = sorted(set(cfg.disable) - NAMES)
        if unknown:
            raise ConfigError(
                f"security.redaction.disable: unknown rule(s) {', '.join(unknown)} "
                f"(built-in: {', '.join(sorted(NAMES))})"
            )
        off = set(cfg.disable)
        specs: list[Callable[[], _Compiled]] = []
        triggers: list[str] = []
        for rule in BUILTIN:
            if rule.name not in off:
                specs.append(functools.partial(_builtin, rule))
                triggers.append(rule.trigger)
        for user in cfg.rules:
            specs.append(functools.partial(_user, user))
            triggers.append(user.pattern)
        # Last: percent-escapes. A URL-encoded run is decoded and the rules run over what it
        # says (a credential in a query string, `Authorization%3A%20Bearer%20...`).
        self._pct = len(specs)
        specs.append(lambda: _PCT_RULE)
        triggers.append(_PCT_TRIGGER)
        self._specs = specs
        self._rules: list[_Compiled | None] = [None] * len(specs)
        self._risky = False  # a replaced span could have cut a JSON escape (see _raw_scan)
        self.keyed = "secret-assignment" not in off
        self.counts: Counter[str] = Counter()
        self._set: Any = None
        if triggers:
            s = re2.Set.SearchSet(re2.Options())
            for t in triggers:
                s.Add(relax(t))
            s.Compile()
            self._set = s._set  # the C++ set itself (its Python wrapper costs a call a match)

    # ------------------------------------------------------------- prefilter

    def _rule(self, i: int) -> _Compiled:
        rule = self._rules[i]
        if rule is None:
            rule = self._rules[i] = self._specs[i]()
        return rule

    def match_fn(self) -> Callable[[Any], Any]:
        """The trigger set's match (the indices that fired), for `raw_result`'s `fired`."""
        if self._set is None:
            return lambda _raw: ()
        match: Callable[[Any], Any] = self._set.Match
        return match

    def fired(self, raw: bytes | memoryview | msgspec.Raw | str) -> list[_Compiled]:
        """The rules whose trigger occurs in `raw` (empty: nothing there to redact)."""
        if self._set is None:
            return []
        hits = self._set.Match(raw.encode() if isinstance(raw, str) else raw)
        if not hits:
            return []
        return [self._rule(i) for i in sorted(hits)]

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
        """The rule's matches: `re` over a short string (its C match objects are cheap); over a
        long one RE2 (linear time), read as spans."""
        if rule.finditer_short is not None and rule.match_at is not None:
            if len(s) <= SHORT:
                return rule.finditer_short(s)
            return _Scan(rule, s)
        return _user_matches(rule.search, s)

    def _percent(self, s: bytes) -> bytes:
        """`s` with the secrets inside its URL-encoded runs replaced: each run holding escapes
        is decoded, the rules its text fires run over it, and a run that changed is encoded
        again (markers stay readable)."""
        out: list[bytes] = []
        pos = 0
        rev: bytes | None = None
        n = len(s)
        changed = False
        for esc in _PCT_ESC.finditer(s):
            if esc.start() < pos:
                continue  # inside the run just handled
            if rev is None:
                rev = s[::-1]
            start = max(n - _run_end(rev, n - esc.start()), pos)
            end = _run_end(s, esc.start())
            run = s[start:end]
            plain = urllib.parse.unquote_to_bytes(run)
            new = plain
            for i in sorted(self._set.Match(plain) or ()):
                if i != self._pct:
                    new = self._apply(self._rule(i), new)
            if new is not plain:
                out.append(s[pos:start])
                out.append(urllib.parse.quote_from_bytes(new, safe=_PCT_SAFE).encode())
                changed = True
            else:
                out.append(s[pos:end])
            pos = end
        if not changed:
            return s
        out.append(s[pos:])
        return b"".join(out)

    def _apply(self, rule: _Compiled, s: bytes) -> bytes:
        if rule is _PCT_RULE:
            return self._percent(s)
        out: list[bytes] = []
        pos = 0
        edge = rule.edge
        n = len(s)
        # A large result repeats its look-alikes (50k rows of `password: required`): each
        # distinct match text is judged once.
        judged: dict[tuple[bytes, int], bool] = {}
        matches = self._matches(rule, s)
        scan = matches if rule.maskable and isinstance(matches, _Scan) else None
        for m in matches:
            a, z = m.span()
            if edge and (
                (a and s[a - 1] in edge) or (not rule.left_only and z < n and s[z] in edge)
            ):
                continue
            g = next((g for g in rule.groups if m.group(g) is not None), None)
            if g is None:
                continue
            value = m.group(g)
            if not value:
                continue
            if rule.check is not None:
                key = (s[a:z], g)
                ok = judged.get(key)
                if ok is None:
                    ok = judged[key] = rule.check(m, value.decode("utf-8", "replace"))
                elif not ok and scan is not None:
                    scan.mask(a, z)  # seen again: mask the rest of its kind
                if not ok:
                    continue
            start, end = m.span(g)
            if start < pos:
                continue
            if not self._risky:
                cut = s[start:end]
                self._risky = not cut.isascii() or b'"' in cut or b"\\" in cut
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

    def raw_result(
        self, raw: bytes | msgspec.Raw, fired: Sequence[int] | None = None
    ) -> bytes | None:
        """A result's bytes redacted, or None when nothing in it is a secret. `fired`: the
        indices of the triggers that fired on it, when the caller matched them (the guard's
        step fused into redaction's, `security/fused.py`); else the set is matched here."""
        # RE2 reads the buffer as it is
        rules = self.fired(raw) if fired is None else [self._rule(i) for i in sorted(fired)]
        if not rules:
            # A secret spelt with JSON escapes (`\u0041KIA...`, `\/`) fires no trigger in the
            # bytes, but the client reads the secret itself: decode such a result and walk it.
            if not _escaped(raw):
                return None
            return self._walk(raw)
        if len(raw) > RAW_SCAN and all(r.finditer_short is not None for r in rules):
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
        result is walked string by string instead. User rules always walk. The text is parsed
        again only when a replaced span held a quote, a backslash or a non-ASCII byte: a span of
        plain ASCII replaced by a marker (plain ASCII too) cannot change the JSON's structure."""
        before = self.counts.copy()
        self._risky = False
        out = raw
        for rule in rules:
            out = self._apply(rule, out)
        if out is raw:
            return None
        if not self._risky:
            return out
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
    """The addon: redacts calls both ways, catalog definitions, notifications and
    server-to-client requests."""

    # A modern upstream's round relayed to the client is a call result (its input requests are
    # cleaned with the rest of it) and the client's answers come back in the retry's params
    # (cleaned in `call`): relaying rounds hides nothing from this addon.
    sees_relayed_rounds = True

    def __init__(self, cfg: RedactionConfig) -> None:
        self.r = Redactor(cfg)
        self.user_rules = bool(cfg.rules)
        # A check that runs first in this step (argument validation, when it sits right
        # before redaction: one call step for both, see `manifold.addons`).
        self.pre_call: Callable[[CallContext], None] | None = None
        # What handles the answer instead of `answer` (the guard's step fused into this one,
        # `security/fused.py`: it calls `answer` itself, then the guard).
        self.on_answer: Callable[[CallContext, rpc.Incoming], Awaitable[rpc.Incoming]] | None = None

    @property
    def counts(self) -> Counter[str]:
        return self.r.counts

    async def call(self, ctx: CallContext, call_next: CallNext) -> Any:
        if self.pre_call is not None:
            self.pre_call(ctx)
        answers = ctx.params.get("inputResponses")
        if answers and isinstance(answers, dict):
            self._answers(ctx, answers)
        if ctx.method in _ARG_METHODS:
            args = ctx.params.get("arguments")
            if args and self.r.fired(orjson.dumps(args)):
                new = self.r.value(args, keyed=False)
                if new is not args:
                    log.debug("redacted secrets in the arguments of %s", ctx.exposed)
                    ctx.params = {**ctx.params, "arguments": new}
        res = await call_next(ctx)
        if self.on_answer is not None:
            return await self.on_answer(ctx, res)
        return self.answer(ctx, res)

    def answer(
        self, ctx: CallContext, res: rpc.Incoming, fired: Sequence[int] | None = None
    ) -> rpc.Incoming:
        """The upstream's answer with its secrets redacted (`fired`: see `raw_result`)."""
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
        new_raw = self.r.raw_result(raw, fired)
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

    def _answers(self, ctx: CallContext, answers: dict[str, Any]) -> None:
        """A modern client's answers to a relayed round: sampling answers (model output) are
        cleaned like arguments; elicitation answers (what the user typed for this server,
        `action` and `content`) pass."""
        if not self.r.fired(orjson.dumps(answers)):
            return
        new = {
            k: v if not isinstance(v, dict) or "action" in v else self.r.value(v, keyed=False)
            for k, v in answers.items()
        }
        if any(new[k] is not answers[k] for k in answers):
            log.debug("redacted secrets in the input responses of %s", ctx.exposed)
            ctx.params = {**ctx.params, "inputResponses": new}

    async def server_request(
        self, ctx: ServerRequestContext, call_next: ServerRequestNext
    ) -> dict[str, Any]:
        """A server-to-client request (sampling, elicitation) mid-call: its params are cleaned
        on the way to the client (a sampling request carries conversation text, an elicitation
        its message), and a sampling answer (model output) on its way back to the server. An
        elicitation answer is what the user typed for that server, and passes as it is."""
        params = ctx.params
        if params and self.r.fired(orjson.dumps(params)):
            new = self.r.value(params, self.r.keyed)
            if new is not params:
                log.debug("redacted secrets in a %s request from %s", ctx.method, ctx.upstream)
                ctx.params = new
        result = await call_next(ctx)
        if ctx.method == "sampling/createMessage" and result and self.r.fired(orjson.dumps(result)):
            answer = self.r.value(result, keyed=False)
            if answer is not result:
                log.debug("redacted secrets in a sampling answer to %s", ctx.upstream)
                return dict(answer)
        return result

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
