"""The built-in secret rules: the credential formats people leak, each with a cheap trigger.

A rule is a regular expression for one credential shape, the group that holds the secret (the
rest of the match, such as `password=` or `Bearer `, stays), an optional check that the
captured text is a real secret and not a look-alike (a checksum, a decodable JWT header, not a
documentation placeholder), and a *trigger*: a short case-insensitive RE2 pattern that every
match contains. The triggers of all rules form one RE2 set, matched once over a message's raw
bytes; a message that fires no trigger is relayed without being decoded (`redact.py`).

The prefixes and shapes follow what the providers document and what public secret scanners
(gitleaks among them) look for; the expressions here are this project's own.
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Check = Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    pattern: str  # over UTF-8 bytes; compiled (RE2 and `re`) on first use, see `compiled`
    trigger: str  # RE2 syntax, matched on raw bytes: every match of `pattern` contains one
    groups: tuple[int, ...] = (0,)  # the first of these that took part holds the secret
    check: Check | None = None  # True when the captured text is a real secret
    edge: bytes = b""  # characters that may not touch the match on the left (nor the right)
    left_only: bool = False  # `edge` is checked on the left only


# ----------------------------------------------------------------- look-alike tests

_PLACEHOLDER_WORDS = (
    "example",
    "your",
    "placeholder",
    "redacted",
    "xxxx",
    "****",
    "....",
    "<",
    ">",
    "${",
    "{{",
    "%s",
    "dummy",
    "sample",
    "insert",
    "replace",
    "here",
    "changeme",
    "change-me",
    "change_me",
    "foobar",
)
_NOT_SECRET_VALUES = frozenset(
    {
        "true",
        "false",
        "null",
        "none",
        "nil",
        "undefined",
        "required",
        "optional",
        "string",
        "str",
        "number",
        "integer",
        "boolean",
        "object",
        "password",
        "passwd",
        "secret",
        "token",
        "apikey",
        "api_key",
        "hidden",
        "masked",
        "empty",
        "unset",
        "missing",
        "invalid",
        "expired",
        "revoked",
        "default",
        "environment",
        "prompt",
        # the stock passwords of documentation examples (`postgres://user:pass@localhost`)
        "pass",
        "root",
        "admin",
        "guest",
        "test",
        "user",
        "username",
        "postgres",
        "mysql",
        "demo",
    }
)


def placeholder(value: str) -> bool:
    """A documentation placeholder or template, not a credential."""
    # A placeholder word is written in one case (`your_key_here`, `YOUR_KEY_HERE`, `Example`);
    # mixed case (`hEre`) is a random token that happens to spell it.
    if any(w in value or w.upper() in value or w.capitalize() in value for w in _PLACEHOLDER_WORDS):
        return True
    core = value.strip("\"'`")
    if len(set(core)) <= 2:  # xxxxxxxx, 00000000, ab ab ab
        return True
    return core.startswith(("$", "%", "@", "&", "*")) or "(" in core or "[" in core


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    if not n:
        return 0.0
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _random_like(value: str, bits: float = 3.0) -> bool:
    return not placeholder(value) and entropy(value) >= bits


# A name, not a value: an attribute path in code, or another environment variable.
_REFERENCE = re.compile(
    r"[a-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
)


def _secret_value(value: str) -> bool:
    """A value assigned to a secret-named key (`PASSWORD=...`) that reads as a credential."""
    core = value.strip().strip("\"'`")
    if len(core) < 6 or core.lower() in _NOT_SECRET_VALUES or placeholder(core):
        return False
    if core.replace(".", "").replace("-", "").replace("_", "").isdigit():
        return False  # numbers, versions, counts
    low = core.lower()
    if low.startswith(("http://", "https://", "file:", "/", "./", "~")) and ":" not in low[8:]:
        return False  # a path or an address, not a secret
    if low.startswith(("process.env", "os.environ", "env.", "secrets.", "vault:", "getenv")):
        return False
    if _REFERENCE.fullmatch(core.rstrip(")]};,")):
        return False  # names another value: config.api_key, OPENAI_API_KEY
    has_other = any(not c.isalpha() for c in core)
    return has_other or len(core) >= 8


_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _base62(n: int, width: int = 6) -> str:
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = _B62[r] + out
    return out.rjust(width, "0")


def crc32_token_ok(token: str) -> bool:
    """GitHub's classic tokens (and npm's) end in a base62 CRC32 of the 30 random characters."""
    body = token.split("_", 1)[1]
    random_part, check = body[:30], body[30:]
    return _base62(zlib.crc32(random_part.encode())) == check


def _github_classic(token: str) -> bool:
    # A valid checksum confirms it whatever it looks like; without one it must still look
    # random (a made-up or truncated token leaks as much), which a placeholder does not.
    return crc32_token_ok(token) or _random_like(token[4:], 3.5)


def _jwt(token: str) -> bool:
    head = token.split(".", 1)[0]
    try:
        raw = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
    except (binascii.Error, ValueError):
        return False
    return b'"alg"' in raw and raw.lstrip().startswith(b"{")


def _aws(key: str) -> bool:
    return not key.endswith("EXAMPLE") and not placeholder(key)


def _openai(value: str) -> bool:
    return not value.startswith("sk-ant-") and _has_digit_and_letter(value)


def _has_digit_and_letter(value: str) -> bool:
    """A generated token: digits among letters, or mixed case with a random spread (a word
    with dashes, such as `sk-this-is-a-key`, has neither)."""
    if placeholder(value):
        return False
    if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
        return True
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and entropy(value) >= 3.5
    )


def _slack_token(value: str) -> bool:
    """Slack tokens carry numeric team and user ids: `xoxb-your-token` is a placeholder."""
    return any(c.isdigit() for c in value) and not placeholder(value[5:])


def _credential(value: str) -> bool:
    core = value.strip("\"'")
    return len(core) >= 3 and core.lower() not in _NOT_SECRET_VALUES and not placeholder(core)


def _header_value(value: str) -> bool:
    return not placeholder(value) and (any(c.isdigit() for c in value) or entropy(value) >= 3.5)


# ----------------------------------------------------------------- the rules

ALNUM = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_ALNUM = ALNUM
TOKEN = _ALNUM + b"_-"  # a match touching one of these is part of a longer token


def _rx(pattern: str) -> str:
    return pattern


@functools.cache
def compiled(pattern: str) -> tuple[Any, re.Pattern[bytes]]:
    """RE2 (linear time) for long strings; `re` for short ones, where its C match objects cost
    less than RE2's Python ones. The patterns use the syntax both share (no look-arounds, no
    backreferences, bounded repeats), so both find the same matches. Compiled when a rule first
    fires, not at start: most rules never do in a given process, and each costs memory."""
    import re2  # type: ignore[import-untyped]

    return re2.compile(_no_groups(pattern).encode()), re.compile(pattern.encode())


_GROUP = re.compile(r"(?<!\\)\((?!\?)")


def _no_groups(pattern: str) -> str:
    """The pattern with its groups made non-capturing: RE2 then finds a match's span with its
    DFAs alone, and `re` reads the groups at that place."""
    return _GROUP.sub("(?:", pattern)


def _prefixed(
    name: str, prefix: str, body: str, trigger: str | None = None, check: Check | None = None
) -> Rule:
    """A token known by its prefix; its trigger is the whole shape unless given."""
    return Rule(name, _rx(prefix + body), trigger or prefix + body, (0,), check, TOKEN)


# A key whose value is a secret: ...SECRET, ...TOKEN, ...PASSWORD, ...API_KEY and the like,
# but not max_tokens, token_type, page tokens or counts.
_SECRET_KEY = (
    r"(?:[A-Za-z0-9_.\-]*(?:secret|token|password|passwd|passphrase|api[_\-]?key|apikey"
    r"|access[_\-]?key|secret[_\-]?key|private[_\-]?key|auth[_\-]?key|credentials?)"
    r"|(?:[A-Za-z0-9_.\-]*[_.\-])?(?:pass|pwd))"
)
SECRET_KEY = re.compile(_SECRET_KEY + r"\Z", re.I)
_NOT_SECRET_KEY = re.compile(r"page|next|cursor|continuation|count|max|min|limit|sync|csrf", re.I)


@functools.lru_cache(maxsize=4096)
def secret_key(key: str) -> bool:
    """A mapping key whose string value is a secret (for structured values)."""
    return bool(SECRET_KEY.match(key)) and not _NOT_SECRET_KEY.search(key)


@functools.lru_cache(maxsize=1024)
def _key_ok(key: bytes) -> bool:
    return not _NOT_SECRET_KEY.search(key.decode("utf-8", "replace"))


def _assignment_key_ok(match: Any) -> bool:
    return _key_ok(match.group(1))


# A value: quoted (also with escaped quotes, as in JSON inside JSON strings) or bare.
_VALUE = r"""(?:\\*"([^"\\\n]{1,400})\\*"|\\*'([^'\\\n]{1,400})\\*'|([^\s"'\\,;}\]]{1,400}))"""

BUILTIN: tuple[Rule, ...] = (
    Rule(
        "private-key",
        _rx(
            r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[^\"]*?-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
            r"|[A-Za-z0-9+/=\s\\:,.\-]*)"
        ),
        r"PRIVATE KEY(?: BLOCK)?-----",
    ),
    Rule(
        "aws-access-key",
        _rx(r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}"),
        r"A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|IPA|NPA|NVA|PKA)[A-Z0-9]{16}",
        check=_aws,
        edge=_ALNUM,
    ),
    _prefixed("github-token", r"gh[pousr]_", r"[A-Za-z0-9]{36}", None, _github_classic),
    _prefixed("github-token", r"github_pat_", r"[A-Za-z0-9_]{40,255}", None, None),
    _prefixed(
        "gitlab-token",
        r"gl(?:pat|dt|rt|ptt|cbt|imt|soat|ft|oas|agent)-",
        r"[A-Za-z0-9_\-]{20,}",
        None,
        _has_digit_and_letter,
    ),
    _prefixed(
        "slack-token", r"xox[abposre]-", r"[A-Za-z0-9\-]{10,}", r"xox[abposre]-", _slack_token
    ),
    Rule(
        "slack-webhook",
        _rx(r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{20,}"),
        r"hooks\.slack\.com/",
    ),
    _prefixed(
        "stripe-secret-key",
        r"(?:sk|rk)_(?:live|test)_",
        r"[A-Za-z0-9]{16,}",
        None,
        _has_digit_and_letter,
    ),
    _prefixed(
        "anthropic-key",
        r"sk-ant-",
        r"(?:api|admin|sid)?[0-9]{0,2}-?[A-Za-z0-9_\-]{20,}",
        None,
        _has_digit_and_letter,
    ),
    _prefixed(
        "openai-key",
        r"sk-(?:proj-|svcacct-|admin-|None-)?",
        r"[A-Za-z0-9_\-]{20,}",
        r"sk-[A-Za-z0-9_\-]{20}",
        _openai,
    ),
    _prefixed("google-api-key", r"AIza", r"[0-9A-Za-z_\-]{32,40}", None, _random_like),
    _prefixed("google-oauth", r"(?:GOCSPX-|ya29\.)", r"[0-9A-Za-z_\-]{20,}", None, None),
    _prefixed("huggingface-token", r"hf_", r"[A-Za-z]{34}", None, _random_like),
    _prefixed("groq-key", r"gsk_", r"[A-Za-z0-9]{40,}", None, _random_like),
    _prefixed("xai-key", r"xai-", r"[A-Za-z0-9]{40,}", None, _random_like),
    _prefixed("npm-token", r"npm_", r"[A-Za-z0-9]{36}", None, _github_classic),
    _prefixed("pypi-token", r"pypi-AgEIcHlwaS5vcmc", r"[A-Za-z0-9_\-]{40,}", None, None),
    _prefixed("sendgrid-key", r"SG\.", r"[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}", None, None),
    _prefixed("digitalocean-token", r"do[opr]_v1_", r"[a-f0-9]{64}", None, None),
    _prefixed("vault-token", r"hv[sb]\.", r"[A-Za-z0-9_\-]{24,}", None, _random_like),
    _prefixed("databricks-token", r"dapi", r"[a-f0-9]{32}(?:-\d)?", None, None),
    _prefixed("shopify-token", r"shp(?:at|ca|pa|ss)_", r"[a-fA-F0-9]{32}", None, None),
    _prefixed("postman-key", r"PMAK-", r"[a-f0-9]{24}-[a-f0-9]{34}", None, None),
    _prefixed("grafana-token", r"gl(?:sa|c)_", r"[A-Za-z0-9_=+/]{32,}", None, None),
    _prefixed("age-secret-key", r"AGE-SECRET-KEY-1", r"[0-9A-Z]{58}", None, None),
    _prefixed("linear-key", r"lin_api_", r"[A-Za-z0-9]{40}", None, None),
    _prefixed("notion-token", r"ntn_", r"[A-Za-z0-9]{40,}", None, _random_like),
    _prefixed("notion-token", r"secret_", r"[A-Za-z0-9]{43}", None, _has_digit_and_letter),
    _prefixed("twilio-key", r"SK", r"[0-9a-f]{32}", None, None),
    _prefixed("mailgun-key", r"key-", r"[0-9a-f]{32}", None, _random_like),
    _prefixed(
        "square-token", r"(?:sq0atp|sq0csp|EAAA)-?", r"[0-9A-Za-z_\-]{22,60}", None, _random_like
    ),
    _prefixed("docker-token", r"dckr_pat_", r"[A-Za-z0-9_\-]{20,}", None, None),
    _prefixed("supabase-token", r"sbp_", r"[a-f0-9]{40}", None, None),
    _prefixed("sentry-token", r"sntry[su]_", r"[A-Za-z0-9_=+/]{30,}", None, None),
    _prefixed("newrelic-key", r"NRAK-", r"[A-Z0-9]{27}", None, None),
    _prefixed(
        "doppler-token", r"dp\.(?:pt|st|ct|sa|scim|audit)\.", r"[A-Za-z0-9]{40,}", None, None
    ),
    _prefixed("replicate-token", r"r8_", r"[A-Za-z0-9]{37}", None, _random_like),
    _prefixed("perplexity-key", r"pplx-", r"[A-Za-z0-9]{48}", None, _random_like),
    _prefixed("heroku-key", r"HRKU-", r"[A-Za-z0-9_\-]{40,}", None, None),
    _prefixed(
        "planetscale-token", r"pscale_(?:tkn|pw|oauth)_", r"[A-Za-z0-9_\-=.]{32,}", None, None
    ),
    _prefixed("rubygems-key", r"rubygems_", r"[a-f0-9]{48}", None, None),
    _prefixed("cratesio-token", r"cio", r"[A-Za-z0-9]{32}", None, _has_digit_and_letter),
    _prefixed("figma-token", r"figd_", r"[A-Za-z0-9_\-]{40,}", None, None),
    _prefixed("airtable-token", r"pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}", None, None),
    _prefixed("mapbox-secret", r"sk\.eyJ", r"[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}", None, None),
    _prefixed(
        "discord-bot-token",
        r"[MN]",
        r"[A-Za-z0-9]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}",
        None,
        _has_digit_and_letter,
    ),
    _prefixed(
        "azure-client-secret", r"[A-Za-z0-9_~.]{3}[0-9]Q~", r"[A-Za-z0-9_~.\-]{31,34}", None, None
    ),
    _prefixed(
        "terraform-token", r"[A-Za-z0-9]{14}\.atlasv1\.", r"[A-Za-z0-9_=\-]{60,70}", None, None
    ),
    Rule(
        "telegram-bot-token",
        _rx(r"[0-9]{8,10}:AA[A-Za-z0-9_\-]{32,33}"),
        r"[0-9]:AA[A-Za-z0-9_\-]{32}",
        edge=TOKEN,
    ),
    Rule(
        "azure-storage-key",
        _rx(r"(?i)AccountKey=([A-Za-z0-9+/]{86}==)"),
        r"(?i)accountkey=",
        (1,),
    ),
    Rule(
        "jwt",
        _rx(r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{2,}\.[A-Za-z0-9_\-]*"),
        r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{2,}\.",
        check=_jwt,
        edge=TOKEN,
        left_only=True,
    ),
    Rule(
        "url-password",
        _rx(r"\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/@\"'<>]{0,200}:([^\s/@\"'<>]{1,200})@"),
        r"://[^\s/@\"'<>]*:[^\s/@\"'<>]*@",
        (1,),
        _credential,
    ),
    Rule(
        "auth-header",
        _rx(
            r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
            r"(?:(?:bearer|basic|token|bot|apikey|key|sso-key)\s+)?([A-Za-z0-9._~+/\-]{8,}=*)"
        ),
        r"(?i)authorization[\"'\\]*\s*[:=]",
        (1,),
        _header_value,
    ),
    Rule(
        "auth-header",
        _rx(r"(?i)\b(?:bearer|basic)\s+([A-Za-z0-9._~+/\-]{16,}=*)"),
        r"(?i)(?:bearer|basic)\s+[A-Za-z0-9._~+/\-]{16}",
        (1,),
        _header_value,
    ),
    Rule(
        "cli-password",
        _rx(
            r"(?i)--(?:password|passwd|pass|token|api-key|apikey|secret|client-secret"
            r"|auth-token|access-token)(?:=|\s+)" + r"(?:\"([^\"\n]{3,200})\"|'([^'\n]{3,200})'"
            r"|([^\s\"'\-][^\s\"']{2,200}))",
        ),
        r"(?i)--[a-z\-]*(?:pass|token|secret|key)",
        (1, 2, 3),
        _credential,
        TOKEN,
        True,
    ),
    Rule(
        "cli-password",
        _rx(
            r"\b(?:mysql|mysqldump|mariadb|mysqladmin|sshpass)\b[^\n]{0,200}?\s-p"
            r"(?:\s+)?([^\s\"'\-][^\s\"']{2,200})"
        ),
        r"(?:mysql|mariadb|sshpass)[^\n]*\s-p",
        (1,),
        _credential,
    ),
    Rule(
        "kubeconfig-key",
        _rx(r"\bclient-key-data\s*:\s*[\"']?([A-Za-z0-9+/=]{16,})"),
        r"client-key-data\s*:",
        (1,),
    ),
    Rule(
        "secret-assignment",
        _rx(r"(?i)(?:\\*[\"'])?(" + _SECRET_KEY + r")(?:\\*[\"'])?\s*(?:=|:|:=|=>)\s*" + _VALUE),
        r"(?i)(?:secret|token|pass|passwd|password|passphrase|pwd|key|credentials?)"
        r"(?:\\*[\"'])?\s*(?:=|:|=>)",
        (2, 3, 4),
        None,  # checked with the key, see redact.Redactor
        TOKEN + b".",
        True,
    ),
)

NAMES: frozenset[str] = frozenset(r.name for r in BUILTIN)


def assignment_ok(match: Any, value: str) -> bool:
    return _assignment_key_ok(match) and _secret_value(value)
