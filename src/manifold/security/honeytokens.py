"""Honeytokens: canary credentials that must never leave the gateway.

An operator plants values that look like real credentials (`manifold honeytoken new`) where
only an attacker or a misled model would pick them up: a `.env` in a repository, a wiki page,
a database row. Any routed call (`tools/call`, `prompts/get`, `resources/read`,
`completion/complete`) whose parameters carry one, anywhere (a nested argument, inside a longer
string, a key, a URI), is refused before it reaches the upstream: a JSON-RPC -32600 error that
names this mechanism and never the value, an ERROR log line naming the honeytoken's label, and
an `alert` entry in the audit trail.

Changed, encoded and split forms are refused too: each value is also looked for in lower case,
in upper case and reversed, hex-encoded (either
case), base64-encoded (standard and URL-safe alphabets, at each of the three alignments a value
can have inside a longer base64 run, so only the characters the value alone decides), with
whitespace, line breaks or string boundaries inside it (`"AKIA QWER..."`, base64 wrapped at 76
columns, `["AKIA", "QWER..."]`), with invisible characters inside it or fullwidth or Cyrillic /
Greek look-alike letters (`security.lookalikes`), and in a view of the parameters where
percent-escapes (also double), backslash escapes (`\\u0041`, `\\x41`, a JSON document inside a
string) and HTML character references (`&#65;`) are decoded. The client's answers to a server's
sampling and elicitation requests are scanned the same way (`server_request`): one carrying a
canary is not delivered, the upstream gets an error.

The scan is one Aho-Corasick automaton (`ahocorasick-rs`) over every form of every value, run
over one normalised view of the parameters' JSON bytes (and a decoded one when they hold
escapes): linear in the parameters' size whatever the number of values. Parameters over
`OFF_LOOP` bytes are scanned in a worker thread (the automaton releases the GIL), so a large
argument does not hold up the event loop. The module is imported only when
`security.honeytokens.values` is not empty: without honeytokens it costs nothing.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import re
import secrets
import string
import urllib.parse
import zlib
from typing import Any, Final, NoReturn, Protocol

import ahocorasick_rs
import orjson

from manifold.config import GatewayConfig, Honeytoken
from manifold.hooks import Hooks, ServerRequestContext, ServerRequestNext
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.security.alerts import audit_event
from manifold.security.lookalikes import FOLD

__all__ = ["KINDS", "MECHANISM", "HoneytokenHost", "Honeytokens", "build", "new_token"]

log = logging.getLogger("manifold.security.honeytokens")

MECHANISM: Final = "honeytoken"


class HoneytokenHost(Protocol):
    @property
    def config(self) -> GatewayConfig: ...
    @property
    def hooks(self) -> Hooks: ...


def label_of(item: str | Honeytoken) -> tuple[str, str]:
    """(label, value): the configured name, or `honeytoken-` and 8 hex digits of its SHA-256."""
    if isinstance(item, str):
        return f"honeytoken-{hashlib.sha256(item.encode()).hexdigest()[:8]}", item
    return item.name, item.value


def _json_form(value: str) -> bytes:
    """The value as it appears inside a JSON string (quotes, backslashes, controls escaped)."""
    return orjson.dumps(value)[1:-1]


# Whitespace and string boundaries are taken out of the view and of every form: a value split by
# spaces, line breaks (raw, or as the JSON escapes `\n`, `\r`, `\t`) or across the items of a
# list of strings is found whole.
_WS_ESCAPES = (b"\\n", b"\\r", b"\\t", b'","')
_WS = b" \t\n\r\x0b\x0c"
# Backslash escapes written as text inside a string (`\u0041`, `\x41`): in the JSON view their
# backslash is itself escaped.
_TEXT_ESCAPE = re.compile(rb"\\\\(?:u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2}))")
_HTML_REF = re.compile(rb"&#(?:([0-9]{1,7})|[xX]([0-9A-Fa-f]{1,6}));")
_PCT = re.compile(rb"%[0-9A-Fa-f]{2}")
PCT_ROUNDS = 3  # percent-decoding rounds at most (double and triple encodings)
OFF_LOOP = 64 * 1024  # parameters larger than this (JSON bytes) are scanned in a worker thread


def _squeeze(b: bytes) -> bytes:
    for esc in _WS_ESCAPES:
        if esc in b:
            b = b.replace(esc, b"")
    return b.translate(None, _WS)


def _unescape(m: re.Match[bytes]) -> bytes:
    code = int(m.group(1) or m.group(2), 16)
    if code < 0x20 or 0xD800 <= code <= 0xDFFF:  # a control, or half a surrogate pair
        return b""
    return _json_form(chr(code))


def _html(m: re.Match[bytes]) -> bytes:
    code = int(m.group(1)) if m.group(1) else int(m.group(2), 16)
    if code < 0x20 or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        return b""
    return _json_form(chr(code))


def _decoded(view: bytes) -> bytes | None:
    """The view with text escapes, HTML character references and percent-escapes decoded, or
    None when it holds none."""
    out = view
    if b"\\\\" in out:
        out = _TEXT_ESCAPE.sub(_unescape, out)
    if b"&#" in out:
        out = _HTML_REF.sub(_html, out)
    for _ in range(PCT_ROUNDS):
        if _PCT.search(out) is None:
            break
        out = _squeeze(urllib.parse.unquote_to_bytes(out))
    return None if out == view else out


def _base64_cores(raw: bytes) -> list[bytes]:
    """The base64 text that `raw` alone decides, at each of the three alignments it can have in
    a longer run: the characters whose six bits all come from `raw`."""
    out = []
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + raw)
        core = enc[-(-8 * k // 6) : 8 * (k + len(raw)) // 6]
        out.append(core)
        out.append(core.translate(_URLSAFE))
    return out


_URLSAFE = bytes.maketrans(b"+/", b"-_")


def forms(value: str) -> list[bytes]:
    """Every form `value` is looked for in: as it is (inside JSON), in lower and in upper case,
    reversed, hex (both cases) and base64 (both alphabets, three alignments); each squeezed
    like the view."""
    raw = value.encode()
    out = [_json_form(value), raw.hex().encode(), raw.hex().upper().encode()]
    out += [_json_form(v) for v in (value.lower(), value.upper(), value[::-1])]
    out.extend(_base64_cores(raw))
    return [f for f in (_squeeze(f) for f in out) if f]


def _encode(params: Any) -> bytes:
    try:
        return orjson.dumps(params)
    except (TypeError, orjson.JSONEncodeError):  # an integer past 64 bits, deep nesting
        import json

        return json.dumps(params, ensure_ascii=False, default=str).encode()


class Honeytokens:
    """The addon: a `call` hook that scans the outgoing parameters, and a `server_request` hook
    that scans the client's answers to a server's sampling and elicitation requests."""

    __slots__ = ("_ac", "_labels", "gw")

    # A modern upstream's round relayed to the client comes back as the retry's
    # `inputResponses`, which `call` scans with the rest of the parameters.
    sees_relayed_rounds = True

    def __init__(self, gw: HoneytokenHost, values: list[str | Honeytoken]) -> None:
        self.gw = gw
        patterns: dict[bytes, str] = {}
        for item in values:
            label, value = label_of(item)
            for form in forms(value):
                patterns.setdefault(form, label)
        self._labels = list(patterns.values())
        # Leftmost-longest: where one value contains another, the longer one names the match.
        self._ac = ahocorasick_rs.BytesAhoCorasick(
            list(patterns), matchkind=ahocorasick_rs.MatchKind.LeftmostLongest
        )

    def find(self, params: Any) -> str | None:
        """The label of the first honeytoken in `params` (in any of its forms), or None."""
        return self.scan(_encode(params))

    def scan(self, raw: bytes) -> str | None:
        """`find` over parameters already encoded as JSON."""
        view = _squeeze(raw)
        hit = self._search(view)
        if hit is None and not view.isascii():  # invisible or look-alike characters inside
            folded = view.decode("utf-8", "replace").translate(FOLD).encode()
            if folded != view:
                view = folded
                hit = self._search(view)
        if hit is None and (b"\\" in view or b"%" in view or b"&#" in view):
            decoded = _decoded(view)
            if decoded is not None:
                hit = self._search(_squeeze(decoded))
        return hit

    def _search(self, view: bytes) -> str | None:
        for i, _a, _z in self._ac.find_matches_as_indexes(view):
            return self._labels[i]
        return None

    async def call(self, ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        raw = _encode(ctx.params)
        if len(raw) > OFF_LOOP:  # a large argument: off the event loop
            label = await asyncio.to_thread(self.scan, raw)
        else:
            label = self.scan(raw)
        if label is not None:
            self.alert(ctx, label)
        return await call_next(ctx)

    async def server_request(
        self, ctx: ServerRequestContext, call_next: ServerRequestNext
    ) -> dict[str, Any]:
        """An answer to a sampling or elicitation request goes to the upstream: one that
        carries a canary is not delivered (the upstream gets an error), and is reported."""
        answer = await call_next(ctx)
        if ctx.method in _ANSWERED and answer:
            label = self.find(answer)
            if label is not None:
                self._report(
                    label, ctx.method, ctx.upstream, "", ctx.principal, ctx.client_name, ""
                )
                raise rpc.RpcError(
                    rpc.INVALID_REQUEST,
                    f"{MECHANISM}: refused: the answer carries a honeytoken (a canary credential "
                    "that must never be used); the attempt is reported",
                    {"mechanism": MECHANISM, "method": ctx.method},
                )
        return answer

    def alert(self, ctx: CallContext, label: str) -> NoReturn:
        self._report(
            label,
            ctx.method,
            ctx.route.upstream,
            ctx.exposed,
            ctx.principal,
            ctx.client_name,
            ctx.session_key,
        )
        raise rpc.RpcError(
            rpc.INVALID_REQUEST,
            f"{MECHANISM}: refused: the request carries a honeytoken (a canary credential "
            "that must never be used); the attempt is reported",
            {"mechanism": MECHANISM, "target": ctx.exposed},
        )

    def _report(
        self,
        label: str,
        method: str,
        upstream: str,
        target: str,
        principal: str,
        client: str | None,
        session: str,
    ) -> None:
        log.error(
            "ALERT honeytoken %r used: %s %s (upstream %s) by principal %r, client %r, "
            "session %r; refused",
            label,
            method,
            target,
            upstream,
            principal,
            client,
            session,
        )
        audit_event(
            self.gw,
            "alert",
            {
                "mechanism": MECHANISM,
                "honeytoken": label,
                "method": method,
                "upstream": upstream,
                "target": target,
                "principal": principal,
                "client": client,
                "session": session,
            },
        )


_ANSWERED = frozenset({"sampling/createMessage", "elicitation/create"})


def build(gw: HoneytokenHost) -> Honeytokens | None:
    values = gw.config.security.honeytokens.values
    return Honeytokens(gw, values) if values else None


# ------------------------------------------------------------------------------- new canaries

KINDS: Final = ("aws", "github", "slack", "openai", "generic")
_B62: Final = string.digits + string.ascii_uppercase + string.ascii_lowercase
_B32: Final = string.ascii_uppercase + "234567"


def _pick(alphabet: str, n: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))


def _base62(n: int, width: int = 6) -> str:
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = _B62[r] + out
    return out.rjust(width, "0")


def _mixed(alphabet: str, n: int) -> str:
    """Random characters with at least one digit, one upper and one lower case letter (as a
    generated token has; some detectors look for the mix)."""
    while True:
        s = _pick(alphabet, n)
        if (
            any(c.isdigit() for c in s)
            and any(c.isupper() for c in s)
            and any(c.islower() for c in s)
        ):
            return s


def new_token(kind: str) -> str:
    """A canary in the real format of `kind`, with its checksum where the format has one."""
    if kind == "aws":  # an access key id: AKIA + 16 base32 characters
        while True:
            key = "AKIA" + _pick(_B32, 16)
            if any(c.isdigit() for c in key[4:]) and not key.endswith("EXAMPLE"):
                return key
    if kind == "github":  # classic token: ghp_ + 30 random + base62 CRC32 of them (6)
        body = _mixed(_B62, 30)
        return f"ghp_{body}{_base62(zlib.crc32(body.encode()))}"
    if kind == "slack":  # bot token: xoxb-<team id>-<bot id>-<24 characters>
        team = str(secrets.randbelow(9 * 10**11) + 10**11)
        bot = str(secrets.randbelow(9 * 10**12) + 10**12)
        return f"xoxb-{team}-{bot}-{_mixed(_B62, 24)}"
    if kind == "openai":  # project key: sk-proj- ... T3BlbkFJ ...
        return f"sk-proj-{_mixed(_B62, 64)}T3BlbkFJ{_mixed(_B62, 64)}"
    if kind == "generic":  # a 40-character random API key
        return _mixed(_B62, 40)
    raise ValueError(f"unknown kind {kind!r} (one of {', '.join(KINDS)})")
