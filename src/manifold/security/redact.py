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
- everywhere: a URL-encoded run is decoded, scanned, and encoded again when it changed;
- seams: adjacent text blocks and adjacent strings of a list are also read as one text (a
  secret split between them is redacted on both sides, see `Redactor._seams`).

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

import base64
import bisect
import functools
import logging
import re
import urllib.parse
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

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
from manifold.security.lookalikes import FOLD, INVISIBLE
from manifold.security.secret_rules import BUILTIN, NAMES, assignment_ok, secret_key
from manifold.upstream.session import UpstreamError

if TYPE_CHECKING:
    from manifold.config import GatewayConfig

log = logging.getLogger("manifold.security.redact")

FIELD_RULE = "secret-field"  # a string under a secret-named key of a structured value
_ARG_METHODS = frozenset({"tools/call", "prompts/get"})
_KEEP_KEYS = frozenset({"name", "uri", "uriTemplate"})  # identity of a catalog item
_META = ("_meta",)
KEY_MIN = 12  # the shortest credential a rule finds as a key (a key is matched from this length)
_OUT_KEYS = {"completion/complete": ("_meta", "argument", "context")}


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
_ASCII_ESCAPE = re.compile(
    # and the escapes of the characters that can disguise a token (see `_UNI_TRIGGER`)
    rb"\\(?:/|u00[2-7][0-9A-Fa-f]|u(?:00[aA][dD]|180[eE]|200[b-fB-F]|206[0-4]|[fF][eE][fF][fF]"
    rb"|[fF][fF][0-5][0-9A-Fa-f]|0[34][0-9A-Fa-f]{2}))"
)
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


# Characters that hide a token from the rules but not from a reader (`lookalikes`): a string
# holding them next to a token's characters is read again through its folded view.
_UNI_TRIGGER = (  # characters, not \x{...} escapes: `relax` reads braces as counts
    "[A-Za-z0-9_\\-][\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff]"
    "|[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]{4}"
    "|[A-Za-z0-9][\u0391-\u03c9\u0400-\u045f]|[\u0391-\u03c9\u0400-\u045f][A-Za-z0-9]"
)
# The set's DFA budget: with the multi-byte classes above, RE2's default 8 MiB ran out on
# varied text and the set fell back to its slow path (the dense corpus: 2 ms -> 120 ms); at
# 32 MiB it stays fast, and after that corpus, 5 MB of prose and 4 MB of mixed scripts the
# process holds about 1.6 MiB more.
SET_MEM = 32 << 20
_UNI_RULE = _Compiled("unicode", lambda *_: None, (0,), None, b"")
# (always in the set, whatever the config: the fused step, `security/fused.py`, relies on it)
_BLOB_TRIGGER = r'"blob"\s*:\s*"'
_BLOB_RULE = _Compiled("blob", lambda *_: None, (0,), None, b"")
_TEXT_MIME = re.compile(
    r"text/|application/(?:json|xml|(?:x-)?yaml|javascript|toml|x-sh|x-www-form-urlencoded"
    r"|x-pem-file|octet-stream)|\+(?:json|xml)$"
)

SEAM_RULE_NAME = "seam"
# Where one text block of a result ends and the next begins: a secret split there reaches the
# model whole once the blocks are read in sequence. In the set, so a result holding none of
# these costs nothing more; one that does gets a look at each seam (`Redactor._seam_fires`).
# Fires only where a secret could run across: the text before the seam ends with a character
# a credential or an assignment holds (not after a backslash: an escaped line break ends most
# blocks), the text after it starts with one. Other shapes (a resource, a message, a block with
# more keys after its text) always fire.
_SEAM_L = r"(?:[^\\][A-Za-z0-9_+/=:@%\-]|[=:] )"
_SEAM_R = r"[A-Za-z0-9_+/=.:@% \-]"
_SEAM_TRIGGER = (
    _SEAM_L + r'"\s*\}\s*,\s*\{\s*"type"\s*:\s*"text"\s*,\s*"text"\s*:\s*"' + _SEAM_R
    + "|" + _SEAM_L + r'"\s*,\s*"type"\s*:\s*"text"\s*\}\s*,\s*\{\s*"text"\s*:\s*"' + _SEAM_R
    + r'|\}\s*,\s*\{\s*"(?:type"\s*:\s*"resource"|role"|content")'
    + r'|[^"\s]\s*\}\s*,\s*\{\s*"(?:type"\s*:\s*"text"|text"\s*:)'
)  # fmt: skip
_SEAM_AT = re.compile(
    rb'\}\s*,\s*\{(?=\s*"(?:type"\s*:\s*"(?:text|resource)"|text"\s*:|role"\s*:|content"\s*:))'
)
_SEAM_TEXT = re.compile(rb'"text"\s*:\s*"')
_SEAM_TEXT_KEY = re.compile(rb'"text"\s*:\s*$')
_SEAM_TYPE_LAST = re.compile(rb'"\s*,\s*"type"\s*:\s*"text$')
# Two text blocks as most servers write them (keys in order, or sorted); others: windows.
_SEAM_JOINS = (b'"},{"type":"text","text":"', b'","type":"text"},{"text":"')
SEAM_GLUE = RAW_SCAN  # a result up to this size is matched with its seams glued
SEAM_WINDOW = 256  # bytes of each side of a seam the set looks at (a trigger is short)
_SEAM_RULE = _Compiled(SEAM_RULE_NAME, lambda *_: None, (0,), None, b"")


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
        # Secrets spelt with look-alike characters (zero-width characters inside a token,
        # fullwidth letters, Cyrillic or Greek look-alikes beside Latin ones): read again through
        # a folded view (`Redactor._folded`).
        specs.append(lambda: _UNI_RULE)
        triggers.append(_UNI_TRIGGER)
        # Resource blobs: a text blob (base64 of a `.env`, a config) is decoded and scanned.
        specs.append(lambda: _BLOB_RULE)
        triggers.append(_BLOB_TRIGGER)
        # Last: percent-escapes. A URL-encoded run is decoded and the rules run over what it
        # says (a credential in a query string, `Authorization%3A%20Bearer%20...`).
        self._pct = len(specs)
        specs.append(lambda: _PCT_RULE)
        triggers.append(_PCT_TRIGGER)
        # Last: the seam between two text blocks (no rule of its own; see `_seam_fires`).
        specs.append(lambda: _SEAM_RULE)
        triggers.append(_SEAM_TRIGGER)
        self._specs = specs
        self._rules: list[_Compiled | None] = [None] * len(specs)
        self._risky = False  # a replaced span could have cut a JSON escape (see _raw_scan)
        self.keyed = "secret-assignment" not in off
        self.counts: Counter[str] = Counter()
        self._max_blob = cfg.max_blob_bytes
        self._set: Any = None
        if triggers:
            options = re2.Options()
            options.max_mem = SET_MEM
            s = re2.Set.SearchSet(options)
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
        rules = self.fired(b)
        if rules and any(r is _UNI_RULE for r in rules):
            return self._folded(s)
        for rule in rules:
            out = self._apply(rule, out)
        return s if out is b else out.decode("utf-8", "surrogatepass")

    def _folded(self, s: str) -> str:
        """`s` read through its folded view (invisible characters deleted, fullwidth and
        look-alike letters mapped to ASCII): each secret the rules find there is replaced, in
        `s` itself, by its marker; the rest of `s` (an emoji's joiner, Cyrillic prose) is kept
        as it is."""
        view = s.translate(FOLD)
        if len(view) == len(s):
            kept = range(len(s))
        else:
            kept = [i for i, c in enumerate(s) if c not in INVISIBLE]  # type: ignore[assignment]
        vb = view.encode("utf-8", "surrogatepass")
        found: list[tuple[int, int, bytes]] = []
        for rule in self.fired(vb):
            if rule is not _UNI_RULE:
                self._apply(rule, vb, found)
        if not found:
            return s
        out: list[str] = []
        pos = 0
        for a, z, mark in sorted(found):
            start = kept[len(_decode(vb[:a]))]
            end = kept[len(_decode(vb[:z])) - 1] + 1
            if start < pos:
                continue
            out.append(s[pos:start])
            out.append(mark.decode())
            pos = end
        out.append(s[pos:])
        return "".join(out)

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

    def _apply(
        self, rule: _Compiled, s: bytes, found: list[tuple[int, int, bytes]] | None = None
    ) -> bytes:
        if rule is _PCT_RULE:
            return self._percent(s)
        if rule is _SEAM_RULE or rule is _UNI_RULE or rule is _BLOB_RULE:
            return s  # handled where strings and values are walked
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
            if found is not None:
                found.append((start, end, rule.mark))
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
            if len(v) > 1:
                self._seams(v, new)
            return v if all(a is b for a, b in zip(new, v, strict=True)) else new
        if isinstance(v, dict):
            changed = False
            out: dict[str, Any] = {}
            binary = _binary_keys(v)
            for k, x in v.items():
                key = self._key(k)
                if key is not k:
                    changed = True
                if k in skip or k in binary:
                    y = self._blob(v, x) if k == "blob" else x
                elif keyed and isinstance(x, str) and secret_key(k) and _secret(x):
                    y = marker(FIELD_RULE)
                    self.counts[FIELD_RULE] += 1
                else:
                    y = self.value(x, keyed)
                changed = changed or y is not x
                out[key] = y
            return out if changed else v
        return v

    def _key(self, k: str) -> str:
        """A key redacted like any string (a credential used as a key). Keys shorter than any
        credential's shape (`id`, `password`, `api_key`) are not matched at all."""
        return self.text(k) if len(k) >= KEY_MIN else k

    def _blob(self, item: dict[str, Any], blob: Any) -> Any:
        """A resource blob that holds text (a text MIME type, or none and valid UTF-8) is
        decoded, redacted and encoded again; binary ones pass as they are."""
        mime = item.get("mimeType")
        if not isinstance(blob, str) or not self._max_blob:
            return blob
        if len(blob) > self._max_blob:
            log.debug("a blob of %d characters is over max_blob_bytes: not scanned", len(blob))
            return blob
        if isinstance(mime, str) and mime and _TEXT_MIME.search(mime) is None:
            return blob
        try:
            text = base64.b64decode(blob, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return blob
        new = self.text(text)
        return blob if new is text else base64.b64encode(new.encode()).decode()

    def raw_result(
        self, raw: bytes | msgspec.Raw, fired: Sequence[int] | None = None
    ) -> bytes | None:
        """A result's bytes redacted, or None when nothing in it is a secret. `fired`: the
        indices of the triggers that fired on it, when the caller matched them (the guard's
        step fused into redaction's, `security/fused.py`); else the set is matched here."""
        # RE2 reads the buffer as it is
        rules = self.fired(raw) if fired is None else [self._rule(i) for i in sorted(fired)]
        if rules and rules[-1] is _SEAM_RULE:  # two text blocks or more
            if self._seam_fires(raw, rules):
                return self._walk(raw)
            rules = rules[:-1]
        if not rules:
            # A secret spelt with JSON escapes (`\u0041KIA...`, `\/`) fires no trigger in the
            # bytes, but the client reads the secret itself: decode such a result and walk it.
            if not _escaped(raw):
                return None
            return self._walk(raw)
        if len(raw) > RAW_SCAN and all(r.finditer_short is not None for r in rules):
            return self._raw_scan(bytes(raw), rules)
        return self._walk(raw)

    # ------------------------------------------------------------- seams

    def _seam_fires(self, raw: bytes | msgspec.Raw, fired: list[_Compiled]) -> bool:
        """Whether a trigger occurs across one of the seams between the text blocks of a
        result's JSON (the end of one block's text joined to the start of the next). A small
        result: the set over its JSON with the seams glued; a larger one: over a few hundred
        bytes at each seam. A seam it cannot read as text then text (the first block ends with
        another key) counts as firing: the result is walked."""
        b = bytes(raw)
        if len(b) <= SEAM_GLUE:
            glued = b
            for join in _SEAM_JOINS:
                glued = glued.replace(join, b"")
            hits = set(self._set.Match(glued) or ())
            if len(self._specs) - 1 not in hits:  # every seam was glued
                names = {r.name for r in fired}
                return any(self._rule(i).name not in names for i in hits)
        seam = len(self._specs) - 1
        prev = 0
        windows: list[tuple[bytes, bytes]] = []
        for m in _SEAM_AT.finditer(b):
            end = m.start()
            if b[end - 1 : end].isspace():
                end = len(b[prev:end].rstrip()) + prev
            if b[end - 1 : end] != b'"':
                return True
            tail = b[max(prev, end - 1 - SEAM_WINDOW) : end - 1]
            if tail.endswith(b'"text'):  # `{"text": "...", "type": "text"}`
                tail = tail[:-40] + _SEAM_TYPE_LAST.sub(b"", tail[-40:])
            q = _last_quote(tail)
            if q >= 0:  # the window starts before this string: it must be a `text` value
                if _SEAM_TEXT_KEY.search(tail, max(0, q - 40), q) is None:
                    return True
                tail = tail[q + 1 :]
            prev = m.end()
            head = b[prev : prev + SEAM_WINDOW + 32]
            t = _SEAM_TEXT.search(head)
            if t is None:
                return True
            windows.append((tail, head[t.end() :]))
        # One set match over every seam (most hold nothing), then each seam on its own.
        hits = self._set.Match(b"\0".join(a + z for a, z in windows))
        if not hits or not set(hits) - {seam}:
            return False
        for tail, head in windows:
            found = self._set.Match(tail + head)
            if found and (found := set(found) - {seam}):
                found.difference_update(self._set.Match(tail) or ())
                found.difference_update(self._set.Match(head) or ())
                if found:
                    return True
        return False

    def _seams(self, old: list[Any], new: list[Any]) -> None:
        """Secrets split across adjacent strings, or adjacent text blocks, of a list: each run
        of them is read as one text (`old`, as it came), and a match that crosses from one item
        into the next replaces its part of each with the rule's marker (what is left of each
        item is redacted on its own). `new` (the items redacted one by one) is updated in
        place."""
        run: list[int] = []
        for i in range(len(old) + 1):
            text = _seam_text(old[i]) if i < len(old) else None
            if text:
                run.append(i)
                continue
            if len(run) > 1:
                self._seam_run(old, new, run)
            run = []

    def _seam_run(self, old: list[Any], new: list[Any], run: list[int]) -> None:
        parts = [cast(str, _seam_text(old[i])).encode("utf-8", "surrogatepass") for i in run]
        cuts: dict[int, list[tuple[int, int, bytes]]] = {}  # part -> its spans to replace
        # The whole run (a secret split in three or more), and each pair (an item after the
        # split part would otherwise run into it: `["AKIA...", "...2345", "ok"]`).
        self._seam_cuts(parts, 0, len(parts), cuts)
        if len(parts) > 2:
            for k in range(len(parts) - 1):
                self._seam_cuts(parts, k, k + 2, cuts)
        for k, spans in cuts.items():
            part = parts[k]
            out: list[str] = []
            pos = 0
            for lo, hi, mark in sorted(spans):
                if lo < pos:
                    continue
                out.append(self.text(_decode(part[pos:lo])))
                out.append(mark.decode())
                pos = hi
            out.append(self.text(_decode(part[pos:])))
            i = run[k]
            text = "".join(out)
            new[i] = _seam_put(old[i], new[i], text)

    def _seam_cuts(
        self,
        parts: list[bytes],
        first: int,
        stop: int,
        cuts: dict[int, list[tuple[int, int, bytes]]],
    ) -> None:
        """The matches over parts[first:stop] joined that cross from one part into another,
        added to `cuts` as spans of each part they cover."""
        joined = b"".join(parts[first:stop])
        rules = self.fired(joined)
        if not rules:
            return
        bounds: list[int] = []  # where each part starts in `joined`
        at = 0
        for p in parts[first:stop]:
            bounds.append(at)
            at += len(p)
        found: list[tuple[int, int, bytes]] = []
        before = self.counts.copy()
        for rule in rules:
            self._apply(rule, joined, found)
        self.counts = before
        for a, z, mark in found:
            lo_k = bisect.bisect_right(bounds, a) - 1
            hi_k = bisect.bisect_right(bounds, z - 1) - 1
            if lo_k == hi_k:
                continue  # inside one item: redacted on its own
            self.counts[mark[10:-1].decode()] += 1
            for k in range(lo_k, hi_k + 1):
                n = len(parts[first + k])
                lo = max(a - bounds[k], 0)
                hi = min(z - bounds[k], n)
                cuts.setdefault(first + k, []).append((lo, hi, mark))

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


def _seam_text(x: Any) -> str | None:
    """The text a list item contributes to a seam: a string, a text block's text, an embedded
    resource's text, or the text of a prompt or sampling message."""
    if isinstance(x, str):
        return x
    if isinstance(x, dict):
        if "role" in x and isinstance(x.get("content"), dict):
            x = x["content"]
        kind = x.get("type")
        if kind == "resource" and isinstance(x.get("resource"), dict):
            x = x["resource"]
        elif kind != "text":
            return None
        t = x.get("text")
        return t if isinstance(t, str) else None
    return None


def _seam_put(old: Any, new: Any, text: str) -> Any:
    """`new` (the item redacted on its own) with its seam text replaced by `text`."""
    if isinstance(old, str):
        return text
    if "role" in old and isinstance(old.get("content"), dict):
        return {**new, "content": _seam_put(old["content"], new["content"], text)}
    if old.get("type") == "resource":
        return {**new, "resource": {**new["resource"], "text": text}}
    return {**new, "text": text}


def _last_quote(b: bytes) -> int:
    """Where the last unescaped `"` of a JSON text is (-1: none): a string starts there."""
    q = b.rfind(b'"')
    while q >= 0:
        k = q
        while k and b[k - 1] == 0x5C:  # a backslash
            k -= 1
        if (q - k) % 2 == 0:
            return q
        q = b.rfind(b'"', 0, q)
    return -1


def _decode(b: bytes) -> str:
    try:
        return b.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:  # a match edge inside a character
        return b.decode("utf-8", "replace")


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
        # and what an error answer becomes after it (the guard's `screened`), when fused
        self.on_error: (
            Callable[[CallContext, UpstreamError], Awaitable[UpstreamError | None]] | None
        ) = None

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
            if args and self._args_fire(args):
                new = self.r.value(args, keyed=False)
                if new is not args:
                    log.debug("redacted secrets in the arguments of %s", ctx.exposed)
                    ctx.params = {**ctx.params, "arguments": new}
        for key in _OUT_KEYS.get(ctx.method, _META):
            if key in ctx.params:
                self._outgoing(ctx, key)
        try:
            res = await call_next(ctx)
        except UpstreamError as e:  # the upstream's own error answer, raised on its way out
            out = self.redacted_error(ctx, e)
            if self.on_error is not None:  # the guard's step fused into this one
                out = await self.on_error(ctx, out or e) or out
            if out is None:
                raise
            raise out from None
        if self.on_answer is not None:
            return await self.on_answer(ctx, res)
        return self.answer(ctx, res)

    def _args_fire(self, args: Any) -> bool:
        """Whether a trigger occurs in a call's arguments (their JSON; `["`: a list of strings,
        read with its seams glued, `Redactor._seams`). Its own frame: the JSON bytes (orjson
        gives each at least a 4 KB buffer) are gone before the call waits on the upstream,
        not held by every call in flight (500 in flight: 2 MiB more heap, kept after)."""
        raw = orjson.dumps(args)
        return bool(self.r.fired(raw)) or (
            b'["' in raw and bool(self.r.fired(raw.replace(b'","', b"")))
        )

    def redacted_error(self, ctx: CallContext, e: UpstreamError) -> UpstreamError | None:
        """An upstream's error answer with its secrets redacted; None when it holds none."""
        err = {"message": e.message, "data": e.data}
        if not self.r.fired(orjson.dumps(err)):
            return None
        new_err = self.r.value(err, self.r.keyed)
        if new_err is err:
            return None
        log.debug("redacted secrets in an error from %s", ctx.exposed)
        return UpstreamError(e.code, str(new_err["message"]), new_err.get("data"))

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

    def _outgoing(self, ctx: CallContext, key: str) -> None:
        """Another part of the parameters that reaches the upstream: `_meta` (forwarded as the
        client wrote it), a completion's argument value and context arguments."""
        v = ctx.params[key]
        if v and self.r.fired(orjson.dumps(v)):
            new = self.r.value(v, keyed=False)
            if new is not v:
                log.debug("redacted secrets in the %s of %s", key, ctx.exposed)
                ctx.params = {**ctx.params, key: new}

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
