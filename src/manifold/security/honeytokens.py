"""Honeytokens: canary credentials that must never leave the gateway.

An operator plants values that look like real credentials (`manifold honeytoken new`) where
only an attacker or a misled model would pick them up: a `.env` in a repository, a wiki page,
a database row. Any routed call (`tools/call`, `prompts/get`, `resources/read`,
`completion/complete`) whose parameters carry one, anywhere (a nested argument, inside a longer
string, a key, a URI), is refused before it reaches the upstream: a JSON-RPC -32600 error that
names this mechanism and never the value, an ERROR log line naming the honeytoken's label, and
an `alert` entry in the audit trail.

The scan is one RE2 search (an automaton over every configured value at once, linear time) over
the parameters' JSON bytes. The module is imported only when `security.honeytokens.values` is
not empty: without honeytokens it costs nothing.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import string
import zlib
from typing import Any, Final, NoReturn, Protocol

import orjson
import re2  # type: ignore[import-untyped]

from manifold.config import GatewayConfig, Honeytoken
from manifold.hooks import Hooks
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.security.alerts import audit_event

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


def _encode(params: Any) -> bytes:
    try:
        return orjson.dumps(params)
    except (TypeError, orjson.JSONEncodeError):  # an integer past 64 bits, deep nesting
        import json

        return json.dumps(params, ensure_ascii=False, default=str).encode()


class Honeytokens:
    """The addon: one `call` hook that scans the outgoing parameters."""

    __slots__ = ("_labels", "_rx", "gw")

    def __init__(self, gw: HoneytokenHost, values: list[str | Honeytoken]) -> None:
        self.gw = gw
        self._labels: dict[bytes, str] = {}
        for item in values:
            label, value = label_of(item)
            self._labels.setdefault(_json_form(value), label)
        # Longest first: where one value contains another, the longer one names the match.
        forms = sorted(self._labels, key=len, reverse=True)
        self._rx = re2.compile(b"|".join(re2.escape(f) for f in forms))

    def find(self, params: Any) -> str | None:
        """The label of the first honeytoken in `params`, or None."""
        m = self._rx.search(_encode(params))
        return None if m is None else self._labels.get(m.group(0), "honeytoken")

    async def call(self, ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        label = self.find(ctx.params)
        if label is not None:
            self.alert(ctx, label)
        return await call_next(ctx)

    def alert(self, ctx: CallContext, label: str) -> NoReturn:
        log.error(
            "ALERT honeytoken %r used: %s %s (upstream %s) by principal %r, client %r, "
            "session %r; refused",
            label,
            ctx.method,
            ctx.exposed,
            ctx.route.upstream,
            ctx.principal,
            ctx.client_name,
            ctx.session_key,
        )
        audit_event(
            self.gw,
            "alert",
            {
                "mechanism": MECHANISM,
                "honeytoken": label,
                "method": ctx.method,
                "upstream": ctx.route.upstream,
                "target": ctx.exposed,
                "principal": ctx.principal,
                "client": ctx.client_name,
                "session": ctx.session_key,
            },
        )
        raise rpc.RpcError(
            rpc.INVALID_REQUEST,
            f"{MECHANISM}: refused: the request carries a honeytoken (a canary credential "
            "that must never be used); the attempt is reported",
            {"mechanism": MECHANISM, "target": ctx.exposed},
        )


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
