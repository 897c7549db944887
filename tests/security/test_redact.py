"""Secret redaction (`manifold.security.redact`, rules in `secret_rules.py`): each built-in rule
finds its credential and writes its typed marker; benign look-alikes pass unchanged; the
prefilter leaves a clean result undecoded; structured values keep their shape; binary payloads
are not touched; user rules and `disable` work; bad config is refused naming the key; and
redaction is idempotent and never raises (hypothesis)."""

from __future__ import annotations

import base64
import itertools
import json
import zlib
from typing import Any, cast

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from manifold.config import ConfigError, RedactionConfig, parse_config
from manifold.security.redact import Redactor, marker
from manifold.security.secret_rules import NAMES, crc32_token_ok

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _b62(n: int) -> str:
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = _B62[r] + out
    return out.rjust(6, "0")


def _classic(prefix: str, random30: str) -> str:
    return prefix + random30 + _b62(zlib.crc32(random30.encode()))


def _jwt(header: dict[str, Any]) -> str:
    def enc(o: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(o).encode()).rstrip(b"=").decode()

    return f"{enc(header)}.{enc({'sub': 'u-42', 'exp': 1900000000})}.c2lnbmF0dXJlLWJ5dGVz9Xk"


GH = _classic("ghp_", "Xq7vN2kLp9RtY4wZs8Bc3Md6Fh1Jg5")

# (text, rule, the secret that must be gone)
POSITIVES = [
    ("aws key AKIAQ7ZL4MBX2RTN6WPE in a log", "aws-access-key", "AKIAQ7ZL4MBX2RTN6WPE"),
    ("session ASIAX4N8Q2ZK7M3PLR5T", "aws-access-key", "ASIAX4N8Q2ZK7M3PLR5T"),
    (f"export GH={GH}", "github-token", GH),
    (f"token={GH}.", "github-token", GH),
    (
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123",
        "github-token",
        "github_pat_11ABCDEFG",
    ),
    ("glpat-Ab3dE5fG7hJ9kL1mN3pQ", "gitlab-token", "glpat-Ab3dE5fG7hJ9kL1mN3pQ"),
    ("bot xoxb-2048317765-9931177340-QeXk2Lm9Rz4Tv", "slack-token", "xoxb-2048317765"),
    (
        "hook https://hooks.slack.com/services/T0000AAAA/B0000BBBB/XXXXabcd1234efgh5678ijkl",
        "slack-webhook",
        "T0000AAAA/B0000BBBB",
    ),
    ("stripe sk_live_51HcQ2kLmN8pRsT4vWx7yZa9", "stripe-secret-key", "sk_live_51HcQ2k"),
    ("restricted rk_live_51HcQ2kLmN8pRsT4vWx7yZa9", "stripe-secret-key", "rk_live_51HcQ2k"),
    ("sk-proj-Vb83kLq2Xz9TmN4rWp7sYc1D", "openai-key", "sk-proj-Vb83kLq2Xz9TmN4rWp7sYc1D"),
    ("OPENAI sk-Vb83kLq2Xz9TmN4rWp7sYc1D0a", "openai-key", "sk-Vb83kLq2Xz9TmN4rWp7sYc1D0a"),
    (
        "claude sk-ant-api03-Zr8Kq2Lm5Np9Tx4Vw7Yb1Cd3Fg6Hj0Ks",
        "anthropic-key",
        "sk-ant-api03-Zr8Kq2Lm5Np9Tx4Vw7Yb1Cd3Fg6Hj0Ks",
    ),
    (
        "maps AIzaSyD4kLq2Xz9TmN4rWp7sYc1Db83kLq2Xz9T",
        "google-api-key",
        "AIzaSyD4kLq2Xz9TmN4rWp7sYc1Db83kLq2Xz9T",
    ),
    (f"Authorization: Bearer {_jwt({'alg': 'HS256'})}", "", _jwt({"alg": "HS256"})),
    (f"cookie={_jwt({'alg': 'RS256', 'typ': 'JWT'})}", "jwt", _jwt({"alg": "RS256", "typ": "JWT"})),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHC\n"
        "-----END RSA PRIVATE KEY-----",
        "private-key",
        "MIIEowIBAAKCAQEAu1SU1LfVLPHC",
    ),
    (
        '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0\\n'
        '-----END PRIVATE KEY-----\\n"}',
        "private-key",
        "MIIEvQIBADANBgkqhkiG9w0",
    ),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "private-key", "b3BlbnNz"),
    ("db postgres://app:p4ssW0rd-9x7@db.internal:5432/app", "url-password", "p4ssW0rd-9x7"),
    ("amqp://guest:Gu3st!pw@mq/", "url-password", "Gu3st!pw"),
    ("Authorization: Basic dXNlcjpwNHNzVzByZA==", "auth-header", "dXNlcjpwNHNzVzByZA=="),
    ("curl -H 'Authorization: Bearer Zr8Kq2Lm5Np9Tx4V'", "auth-header", "Zr8Kq2Lm5Np9Tx4V"),
    ("DB_PASSWORD=supersecret\nDEBUG=1", "secret-assignment", "supersecret"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq3tKLM9v", "", "wJalrXUtnFEMI"),
    ('{"api_key": "9f8e7d6c5b4a39281706"}', "secret-assignment", "9f8e7d6c5b4a39281706"),
    ("client_secret: 'Zq8-kd93_Lx2'", "secret-assignment", "Zq8-kd93_Lx2"),
    ("mysql -u root -pS3cretPw app", "cli-password", "S3cretPw"),
    ("deploy --password hunter2x --yes", "cli-password", "hunter2x"),
    ('login --token="abc123def456"', "cli-password", "abc123def456"),
    ("client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ==", "kubeconfig-key", "LS0tLS1C"),
    (
        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey="
        + "A" * 40
        + "b" * 46
        + "==;EndpointSuffix=core.windows.net",
        "azure-storage-key",
        "A" * 40 + "b" * 46,
    ),
    (_classic("npm_", "Pq7vN2kLp9RtY4wZs8Bc3Md6Fh1Jg5"), "npm-token", "npm_Pq7vN2kLp9"),
]

BENIGN = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "request 123e4567-e89b-12d3-a456-426614174000",
    "aws docs use AKIAIOSFODNN7EXAMPLE as the key",
    "set GITHUB_TOKEN=<your token here>",
    "API_KEY=your_api_key_here",
    "OPENAI_API_KEY=${OPENAI_API_KEY}",
    "password: ********",
    "publishable pk_live_51HcQ2kLmN8pRsT4vWx7yZa9",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n"
    "-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0B\n"
    "-----END CERTIFICATE-----",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@host",
    "<img src='data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='>",
    "postgres://user:password@localhost/db",
    "https://user@example.com/path and mailto:someone@example.com",
    "Authorization: Bearer <token>",
    "Authorization: Bearer $TOKEN",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "the password is required; token: expired; max_tokens: 100000",
    "next_page_token: CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA3",
    "compass: north-west",
    "Basic authentication sends the user name and password",
    "a task-management-system-for-the-whole-team",
    "risk-assessment-2024-final-version-approved",
    "eyJhbGciOi is how every JWT starts",
    "password = os.environ['DB_PASSWORD']",
    "--password-file /run/secrets/db",
    '{"role": "system", "content": "You are helpful"}',
    "client = OpenAI(api_key=config.api_key)",
    "api_key = settings.OPENAI_API_KEY",
    "OPENAI_API_KEY=OPENAI_API_KEY_PROD",
    "token = get_token()",
]


@pytest.fixture(scope="module")
def r() -> Redactor:
    return Redactor(RedactionConfig())


@pytest.mark.parametrize(("text", "rule", "secret"), POSITIVES)
def test_each_rule_finds_its_secret(r: Redactor, text: str, rule: str, secret: str) -> None:
    out = r.text(text)
    assert secret not in out, out
    assert marker(rule) in out if rule else "[REDACTED:" in out


@pytest.mark.parametrize("text", BENIGN)
def test_benign_look_alikes_pass_unchanged(r: Redactor, text: str) -> None:
    assert r.text(text) == text


def test_github_checksum_confirms_a_token_that_does_not_look_random(r: Redactor) -> None:
    plain = "a" * 15 + "b" * 15
    valid = _classic("ghp_", plain)
    assert crc32_token_ok(valid)
    assert r.text(valid) == marker("github-token")
    broken = "ghp_" + plain + "aaaaaa"  # same shape, wrong checksum, low entropy
    assert not crc32_token_ok(broken)
    assert r.text(broken) == broken


def test_only_the_secret_part_is_replaced(r: Redactor) -> None:
    assert (
        r.text("postgres://app:p4ssW0rd-9x7@db:5432/app")
        == "postgres://app:[REDACTED:url-password]@db:5432/app"
    )
    assert r.text("DB_PASSWORD=supersecret") == "DB_PASSWORD=[REDACTED:secret-assignment]"


def test_a_clean_result_is_not_decoded(r: Redactor) -> None:
    raw = orjson.dumps({"content": [{"type": "text", "text": "hello " * 1000}]})
    assert r.fired(raw) == []
    assert r.raw_result(raw) is None  # relayed as it came


def test_structured_values_keep_their_shape(r: Redactor) -> None:
    result = {
        "content": [{"type": "text", "text": f"use {GH}"}],
        "structuredContent": {
            "user": "ann",
            "password": "Tr0ub4dor&3",
            "keys": [GH, 3, None, True],
            "nested": {"dsn": "mysql://root:Sup3r-s3cret@db/x"},
        },
        "isError": False,
    }
    out = orjson.loads(r.raw_result(orjson.dumps(result)) or b"null")
    sc = out["structuredContent"]
    assert set(sc) == set(result["structuredContent"])  # type: ignore[arg-type]
    assert sc["user"] == "ann" and sc["keys"][1:] == [3, None, True]
    assert sc["password"] == marker("secret-field")
    assert sc["keys"][0] == marker("github-token")
    assert sc["nested"]["dsn"] == "mysql://root:[REDACTED:url-password]@db/x"
    assert out["content"][0]["text"] == "use [REDACTED:github-token]"


def test_binary_payloads_are_not_touched(r: Redactor) -> None:
    data = base64.b64encode(b"\x00AKIAQ7ZL4MBX2RTN6WPE\x00").decode()
    blob = "+" + "AKIAQ7ZL4MBX2RTN6WPE" + "+"
    result = {
        "content": [
            {"type": "image", "data": blob, "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "x://b", "blob": blob}},
            {"type": "text", "text": data},
        ]
    }
    assert r.raw_result(orjson.dumps(result)) is None


def test_user_rules_and_disable() -> None:
    cfg = RedactionConfig.from_data(
        {
            "rules": [{"name": "employee-id", "pattern": r"EMP-(\d{6})", "group": 1}],
            "disable": ["aws-access-key"],
        }
    )
    r = Redactor(cfg)
    assert r.text("id EMP-123456") == "id EMP-[REDACTED:employee-id]"
    assert r.text("AKIAQ7ZL4MBX2RTN6WPE") == "AKIAQ7ZL4MBX2RTN6WPE"
    assert r.counts["employee-id"] == 1


@pytest.mark.parametrize(
    ("redaction", "needle"),
    [
        ({"rules": [{"name": "x", "pattern": "a(b"}]}, "security.redaction.rules.0"),
        ({"rules": [{"name": "x", "pattern": "a*"}]}, "matches the empty string"),
        ({"rules": [{"name": "x", "pattern": "(?=a)b"}]}, "security.redaction.rules.0"),
        ({"rules": [{"name": "x", "pattern": "ab", "group": 2}]}, "group 2"),
        ({"rules": [{"name": "Bad Name!", "pattern": "ab"}]}, "security.redaction.rules.0.name"),
        ({"rules": [{"name": "x", "regex": "ab"}]}, "security.redaction.rules.0"),
        ({"enable": True}, "security.redaction"),
    ],
)
def test_bad_config_is_refused_naming_the_key(redaction: dict[str, Any], needle: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config({"security": {"redaction": redaction}}, "cfg.yaml", env={})
    assert needle in str(e.value)


def test_an_unknown_disabled_rule_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"security\.redaction\.disable: unknown rule"):
        Redactor(RedactionConfig(disable=["aws-key"]))
    assert "aws-access-key" in NAMES


_PIECES = st.sampled_from(
    [p[0] for p in POSITIVES] + BENIGN + ["password=", "://", "@", "Bearer ", "-----BEGIN"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=40), _PIECES), max_size=8))
def test_redaction_is_idempotent_and_never_raises(parts: list[str]) -> None:
    r = Redactor(RedactionConfig())
    text = " ".join(parts)
    once = r.text(text)
    assert r.text(once) == once
    for _text, _rule, secret in POSITIVES:
        if secret in once:
            assert secret in text  # nothing is made up, only taken away


def test_a_large_result_is_scanned_as_json_and_keeps_its_shape(r: Redactor) -> None:
    rows = [{"sku": f"SKU-{i:05d}", "note": "password: required", "n": i} for i in range(6000)]
    rows[10]["note"] = "DB_PASSWORD=s3cr3t-Value AKIAQ7ZL4MBX2RTN6WPE"
    # A key cut in one string, its END line in another: the shape must not change.
    rows[20]["note"] = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHC"
    rows[21]["note"] = "tail\n-----END RSA PRIVATE KEY----- done"
    result = {"content": [{"type": "text", "text": "rows"}], "structuredContent": {"rows": rows}}
    raw = orjson.dumps(result)
    assert len(raw) > 256 * 1024  # over RAW_SCAN: the JSON text path
    out = r.raw_result(raw)
    assert out is not None
    got = orjson.loads(out)["structuredContent"]["rows"]
    assert len(got) == len(rows)
    assert [set(g) for g in got] == [set(x) for x in rows]
    assert got[10]["note"] == ("DB_PASSWORD=[REDACTED:secret-assignment] [REDACTED:aws-access-key]")
    assert got[20]["note"] == "[REDACTED:private-key]"
    assert got[21]["note"] == rows[21]["note"]
    assert all(g == x for i, (g, x) in enumerate(zip(got, rows, strict=True)) if i not in (10, 20))


def test_url_encoded_secrets_are_decoded_and_redacted(r: Redactor) -> None:
    from urllib.parse import quote, unquote

    header = quote("Authorization: Bearer Yt7Kp2Wq9Lm4Xz8Vb3Nc6Rd1", safe="")
    dsn = quote("postgres://app:p4ssW0rd-9x7@db:5432/app", safe="")
    text = f"GET https://example.com/cb?h={header}&dsn={dsn}&page=2 done"
    out = r.text(text)
    assert "Yt7Kp2Wq9Lm4Xz8Vb3Nc6Rd1" not in unquote(out) and "p4ssW0rd" not in unquote(out)
    assert "[REDACTED:auth-header]" in out and "[REDACTED:url-password]" in out
    assert out.startswith("GET https://example.com/cb?h=") and out.endswith("&page=2 done")
    # Escapes without a secret behind them stay as they were, byte for byte.
    clean = "see https://example.com/search?q=caf%C3%A9%20menu&x=%2Fhome%2Fme and more"
    assert r.text(clean) == clean
    # In a large result too (the JSON text path).
    rows = [{"url": f"https://example.com/?q=a%20b&n={i}"} for i in range(8000)]
    rows[7]["url"] = f"https://example.com/cb?h={header}"
    raw = orjson.dumps({"content": [], "structuredContent": {"rows": rows}})
    assert len(raw) > 256 * 1024
    got = orjson.loads(r.raw_result(raw) or b"{}")["structuredContent"]["rows"]
    assert "[REDACTED:auth-header]" in got[7]["url"]
    assert got[8] == rows[8]


def test_placeholder_words_inside_a_random_token_do_not_hide_it(r: Redactor) -> None:
    """`here`, `your`, `example` mark a documentation placeholder when written as words; a
    random token that happens to spell one in mixed case (`hEre`) is still a token."""
    token = "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"
    assert r.text(f"HF={token}") == "HF=[REDACTED:huggingface-token]"
    assert r.text("API_KEY=your_api_key_here") == "API_KEY=your_api_key_here"
    assert r.text("API_KEY=YOUR_API_KEY_HERE") == "API_KEY=YOUR_API_KEY_HERE"


def test_sentry_user_and_org_tokens(r: Redactor) -> None:
    for prefix in ("sntryu_", "sntrys_"):
        token = prefix + "sa3LQA8WIfwNFS15v5X4SWmhDkLzKUAhiDrpZvq5g1eyIar1"
        assert r.text(f"auth {token}") == "auth [REDACTED:sentry-token]"


def test_relaxed_triggers_still_fire_on_every_rule_match() -> None:
    """The trigger set is compiled with counted repeats relaxed (`X{16}` -> `X{8,}`): a superset,
    so every text a built-in rule's exact trigger fires on still fires."""
    import re

    from manifold.security.redact import relax
    from manifold.security.secret_rules import BUILTIN

    for text, _rule, _secret in POSITIVES:
        for rule in BUILTIN:
            exact = re.search(
                rule.trigger.replace("(?i)", ""), text, re.I if "(?i)" in rule.trigger else 0
            )
            if exact:
                loose = relax(rule.trigger)
                assert re.search(loose.replace("(?i)", ""), text, re.I if "(?i)" in loose else 0)


def test_a_large_result_of_near_misses_is_judged_once_per_distinct_text(r: Redactor) -> None:
    """50k rows of `password: required`: the look-alike is judged once, not 50k times (the
    check costs microseconds; the result must relay in milliseconds, see the benchmark)."""
    from manifold.security import secret_rules

    calls = 0
    real = secret_rules._secret_value

    def counting(value: str) -> bool:
        nonlocal calls
        calls += 1
        return real(value)

    rows = [{"n": i, "note": "password: required"} for i in range(50_000)]
    raw = orjson.dumps({"content": [], "structuredContent": {"rows": rows}})
    secret_rules._secret_value = counting
    try:
        assert r.raw_result(raw) is None
    finally:
        secret_rules._secret_value = real
    assert calls <= 2, calls


def _addon() -> Any:
    from manifold.security.redact import Redaction

    return Redaction(RedactionConfig())


def test_server_to_client_requests_and_sampling_answers_are_cleaned() -> None:
    """A sampling request from a server carries conversation text to the client; the model's
    answer goes back to the server: both are cleaned. An elicitation answer (what the user
    typed for that server) passes as it is."""
    import asyncio

    from manifold.hooks import Hooks, ServerRequestContext

    hooks = Hooks([_addon()])
    assert hooks.has_server_request and not hooks.fulfils_rounds  # MRTR relay stays on
    seen: list[Any] = []

    def deliver(answer: dict[str, Any]) -> Any:
        async def go(ctx: ServerRequestContext) -> dict[str, Any]:
            seen.append(ctx.params)
            return answer

        return go

    sampling = {"messages": [{"role": "user", "content": {"type": "text", "text": f"use {GH}"}}]}
    model = {"role": "assistant", "content": {"type": "text", "text": "AKIAQ7ZL4MBX2RTN6WPE"}}
    ctx = ServerRequestContext("sampling/createMessage", sampling, "up")
    got = asyncio.run(hooks.server_request(ctx, deliver(model)))
    assert seen[-1]["messages"][0]["content"]["text"] == "use [REDACTED:github-token]"
    assert got["content"]["text"] == "[REDACTED:aws-access-key]"
    typed = {"action": "accept", "content": {"token": "AKIAQ7ZL4MBX2RTN6WPE"}}
    ctx = ServerRequestContext("elicitation/create", {"message": f"paste {GH}"}, "up")
    got = asyncio.run(hooks.server_request(ctx, deliver(typed)))
    assert seen[-1]["message"] == "paste [REDACTED:github-token]"
    assert got == typed


def test_a_modern_clients_sampling_answers_in_a_retry_are_cleaned() -> None:
    import asyncio

    import msgspec

    from manifold.catalog import Route
    from manifold.pipeline import CallContext
    from manifold.protocol import jsonrpc as rpc
    from tests.middleware.support import Sink

    addon = _addon()
    sent: list[Any] = []

    async def upstream(ctx: CallContext) -> rpc.Incoming:
        sent.append(ctx.params)
        return rpc.Incoming(result=msgspec.Raw(b'{"content":[]}'))

    answers = {
        "llm": {"role": "assistant", "content": {"type": "text", "text": f"it is {GH}"}},
        "form": {"action": "accept", "content": {"key": GH}},
    }
    params = {"name": "ask", "arguments": {}, "inputResponses": answers}
    ctx = CallContext("tools/call", params, Route("up", "ask"), "up__ask", Sink(), None)
    asyncio.run(addon.call(ctx, upstream))
    got = sent[0]["inputResponses"]
    assert got["llm"]["content"]["text"] == "it is [REDACTED:github-token]"
    assert got["form"] == answers["form"]


def test_the_corpus_leaks_nothing_and_alters_few_look_alikes() -> None:
    """The tuning part of the generated corpus (`bench/data/redaction/`, every built-in rule
    family in many carriers), through a result and an argument: no secret gets through, at
    most 2% of the look-alikes change (the full scoring is `python -m bench.redaction_bench`)."""
    from bench.redaction_bench import leaked, load, through

    addon = _addon()
    secrets, looks = load("secrets.jsonl"), load("lookalikes.jsonl")
    assert len(secrets) >= 1000 and len(looks) >= 400
    assert len({c["family"] for c in secrets}) >= len(NAMES)
    leaks = [
        (c["family"], c["carrier"], where)
        for c in secrets
        for where in ("result", "argument")
        if leaked(c["secret"], through(addon, c["text"], where))
    ]
    assert leaks == []
    altered = [c for c in looks if through(addon, c["text"], "result") != c["text"]]
    assert len(altered) <= 0.02 * len(looks), altered[:5]


@pytest.mark.parametrize(
    "text",
    [
        "xoxb-your-token",
        "SLACK_BOT_TOKEN=xoxb-000000000000-0000000000000-xxxxxxxxxxxxxxxxxxxxxxxx",
        "postgres://user:pass@localhost/db",
        "mysql://root:root@localhost:3306/app",
        "SECRET_KEY=django-insecure-change-me",
        "AKIA...EXAMPLE",
        "OPENAI_API_KEY=<your key here>",
    ],
)
def test_documentation_examples_pass(r: Redactor, text: str) -> None:
    assert r.text(text) == text


# ------------------------------------------------------------------ hidden and split secrets

AWS = "AKIAQ7ZL4MBX2RTN6WPE"
PEM_BODY = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"


def _blocks(*texts: str, sort_keys: bool = False) -> bytes:
    body = {"content": [{"type": "text", "text": t} for t in texts], "isError": False}
    return orjson.dumps(body, option=orjson.OPT_SORT_KEYS if sort_keys else 0)


def _texts(raw: bytes | None) -> list[str]:
    assert raw is not None, "nothing was redacted"
    return [b["text"] for b in orjson.loads(raw)["content"]]


@pytest.mark.parametrize("sort_keys", [False, True])
@pytest.mark.parametrize(
    ("secret", "rule", "cuts"),
    [
        (AWS, "aws-access-key", [9]),
        (AWS, "aws-access-key", [1]),
        (AWS, "aws-access-key", [4, 12]),  # three blocks
        (GH, "github-token", [6, 20, 30]),  # four blocks
        (PEM, "private-key", [70]),
        ("postgres://app:" + "s3cr3tPa55w0rd" + "@db.internal/prod", "url-password", [20]),
    ],
)
def test_a_secret_split_between_text_blocks_is_redacted_on_every_side(
    r: Redactor, secret: str, rule: str, cuts: list[int], sort_keys: bool
) -> None:
    text = f"here: {secret} (end)"
    at = [0, *(6 + c for c in cuts), len(text)]
    parts = [text[a:z] for a, z in itertools.pairwise(at)]
    got = _texts(r.raw_result(_blocks(*parts, sort_keys=sort_keys)))
    assert len(got) == len(parts)
    joined = "".join(got)
    assert marker(rule) in got[0] and marker(rule) in got[-1], got
    for part in (secret[c:] for c in cuts):
        assert part not in joined, got
    assert got[0].startswith("here: ") and got[-1].endswith(" (end)")


def test_a_large_result_with_a_split_secret_is_walked_and_redacted(r: Redactor) -> None:
    filler = "the quick brown fox jumps over the lazy dog. " * 4000  # 180 KB a block
    raw = _blocks(filler, f"{filler} key {AWS[:10]}", f"{AWS[10:]} {filler}", filler)
    assert len(raw) > 256 * 1024
    got = _texts(r.raw_result(raw))
    assert got[1].endswith(f"key {marker('aws-access-key')}")
    assert got[2].startswith(f"{marker('aws-access-key')} the quick")
    assert got[0] == filler and got[3] == filler


def test_text_blocks_without_a_secret_across_their_seams_pass(r: Redactor) -> None:
    for parts in (
        ("hello", "world"),
        ("AKIA", "is the prefix of an AWS key id"),
        ("the commit is 3f786850e387550f", "dab836ed7e6dc881de23001b"),
        ("password:", " required"),
        ("x" * 300, "y" * 300, "AKIAIOSFODNN7", "EXAMPLE"),
    ):
        assert r.raw_result(_blocks(*parts)) is None, parts
        assert r.raw_result(_blocks(*parts, sort_keys=True)) is None, parts


def test_seams_of_other_adjacent_items_are_read(r: Redactor) -> None:
    # a text block then an embedded resource
    res = {
        "content": [
            {"type": "text", "text": f"key {AWS[:8]}"},
            {"type": "resource", "resource": {"uri": "x://a", "text": f"{AWS[8:]} ok"}},
        ]
    }
    got = orjson.loads(cast(bytes, r.raw_result(orjson.dumps(res))))
    assert got["content"][1]["resource"]["text"] == f"{marker('aws-access-key')} ok"
    # two prompt messages (either key order)
    msgs = [
        {"role": "user", "content": {"type": "text", "text": f"key {GH[:12]}"}},
        {"content": {"text": GH[12:], "type": "text"}, "role": "user"},
    ]
    got = orjson.loads(cast(bytes, r.raw_result(orjson.dumps({"messages": msgs}))))
    assert [m["content"]["text"] for m in got["messages"]] == [
        f"key {marker('github-token')}",
        marker("github-token"),
    ]
    # strings of a list, with an item after the split one
    assert r.value({"lines": ["id:", AWS[:10], AWS[10:], "ok"]}, False) == {
        "lines": ["id:", marker("aws-access-key"), marker("aws-access-key"), "ok"]
    }


def test_a_credential_used_as_a_key_is_redacted(r: Redactor) -> None:
    raw = orjson.dumps({"content": [], "structuredContent": {"keys": {AWS: "prod", "n": 1}}})
    got = orjson.loads(cast(bytes, r.raw_result(raw)))
    assert got["structuredContent"]["keys"] == {marker("aws-access-key"): "prod", "n": 1}
    same = {"content": [], "structuredContent": {"password": "required", "id": AWS}}
    assert set(
        orjson.loads(cast(bytes, r.raw_result(orjson.dumps(same))))["structuredContent"]
    ) == {
        "password",
        "id",
    }


def test_a_text_blob_is_decoded_and_redacted_and_a_binary_one_passes(r: Redactor) -> None:
    env = f"DB=postgres://app:s3cr3tPa55w0rd@db/x\nAWS_ACCESS_KEY_ID={AWS}\n".encode()
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    contents = [
        {"uri": "x://env", "mimeType": "text/plain", "blob": base64.b64encode(env).decode()},
        {"uri": "x://cfg", "blob": base64.b64encode(env).decode()},  # no type: UTF-8 text
        {"uri": "x://img", "mimeType": "image/png", "blob": base64.b64encode(png).decode()},
        {"uri": "x://raw", "blob": base64.b64encode(png).decode()},  # no type: not text
    ]
    got = orjson.loads(cast(bytes, r.raw_result(orjson.dumps({"contents": contents}))))
    for item in got["contents"][:2]:
        text = base64.b64decode(item["blob"]).decode()
        assert AWS not in text and "s3cr3tPa55w0rd" not in text, text
        assert marker("aws-access-key") in text and marker("url-password") in text
    assert got["contents"][2:] == contents[2:]
    clean = [{"uri": "x://a", "mimeType": "text/plain", "blob": base64.b64encode(b"hi").decode()}]
    assert r.raw_result(orjson.dumps({"contents": clean})) is None


@pytest.mark.parametrize(
    "disguised",
    [
        "AKIA\u200b" + AWS[4:],  # zero-width space
        AWS[:10] + "\u00ad" + AWS[10:],  # soft hyphen
        AWS[:6] + "\u2060\ufeff" + AWS[6:],  # word joiner, BOM
        "".join(chr(ord(c) + 0xFEE0) for c in AWS),  # fullwidth
        "\u0410\u041a\u0406\u0410" + AWS[4:],  # Cyrillic A, K, I, A
        GH[:8] + "\u200c" + GH[8:],
    ],
)
def test_a_secret_spelt_with_invisible_or_look_alike_characters_is_redacted(
    r: Redactor, disguised: str
) -> None:
    rule = "github-token" if disguised.startswith("ghp") else "aws-access-key"
    want = [f"the key: {marker(rule)} (end)"]
    assert _texts(r.raw_result(_blocks(f"the key: {disguised} (end)"))) == want
    # as a server that escapes every non-ASCII character writes it (`\u200b`)
    escaped = json.dumps({"content": [{"type": "text", "text": f"the key: {disguised} (end)"}]})
    assert escaped.isascii()
    assert _texts(r.raw_result(escaped.encode())) == want


@pytest.mark.parametrize(
    "text",
    [
        "family 👨\u200d👩\u200d👧 and the 🏳\ufe0f\u200d🌈 flag",
        "Привет, мир! Windows-сервер 2024 года, версия 5.1, iPhone15Про",  # noqa: RUF001
        "Ελληνικά: α + β = γ, x2 και Δx",  # noqa: RUF001
        "２０２４年１２月１日　ＡＢＣＤ株式会社",
        "soft\u00adhyphen\u00adated com\u00adpound words",
        "ＡＫＩＡ is the prefix, in fullwidth",  # noqa: RUF001
        "АКІАXXXXXXXXXXXXXXXX is a placeholder",  # noqa: RUF001
    ],
)
def test_unicode_text_that_hides_no_secret_passes(r: Redactor, text: str) -> None:
    assert r.raw_result(_blocks(text)) is None
    assert r.raw_result(_blocks(*text.split(" "))) is None


def test_outgoing_meta_and_completion_arguments_are_cleaned() -> None:
    import asyncio

    import msgspec

    from manifold.catalog import Route
    from manifold.pipeline import CallContext
    from manifold.protocol import jsonrpc as rpc
    from tests.middleware.support import Sink

    addon = _addon()
    sent: list[Any] = []

    async def upstream(ctx: CallContext) -> rpc.Incoming:
        sent.append(ctx.params)
        return rpc.Incoming(result=msgspec.Raw(b'{"content":[]}'))

    params = {"name": "t", "arguments": {"x": 1}, "_meta": {"note": f"key {AWS}"}}
    ctx = CallContext("tools/call", params, Route("up", "t"), "up__t", Sink(), None)
    asyncio.run(addon.call(ctx, upstream))
    assert sent[-1]["_meta"] == {"note": f"key {marker('aws-access-key')}"}
    params = {
        "ref": {"type": "ref/prompt", "name": "p"},
        "argument": {"name": "topic", "value": f"token {GH}"},
        "context": {"arguments": {"k": AWS}},
    }
    ctx = CallContext("completion/complete", params, Route("up", "p"), "up__p", Sink(), None)
    asyncio.run(addon.call(ctx, upstream))
    assert sent[-1]["argument"] == {"name": "topic", "value": f"token {marker('github-token')}"}
    assert sent[-1]["context"] == {"arguments": {"k": marker("aws-access-key")}}
    # an argument split across the strings of a list
    params = {"name": "t", "arguments": {"lines": [f"key {AWS[:10]}", AWS[10:], "done"]}}
    ctx = CallContext("tools/call", params, Route("up", "t"), "up__t", Sink(), None)
    asyncio.run(addon.call(ctx, upstream))
    assert sent[-1]["arguments"]["lines"] == [
        f"key {marker('aws-access-key')}",
        marker("aws-access-key"),
        "done",
    ]


def test_calls_waiting_on_the_upstream_hold_no_copy_of_their_arguments() -> None:
    """The arguments' JSON, matched before a call leaves, is gone while the call waits on its
    upstream: 500 calls in flight hold no 4 KB buffer each (they did: 2 MiB of heap that the
    process kept after the burst)."""
    import asyncio
    import tracemalloc

    import msgspec

    from manifold.catalog import Route
    from manifold.pipeline import CallContext
    from manifold.protocol import jsonrpc as rpc
    from tests.middleware.support import Sink

    addon = _addon()
    n = 500

    async def flight() -> int:
        release = asyncio.Event()

        async def upstream(_ctx: CallContext) -> rpc.Incoming:
            await release.wait()
            return rpc.Incoming(result=msgspec.Raw(b'{"content":[]}'))

        def ctx(i: int) -> CallContext:
            params = {"name": "t", "arguments": {"seq": i, "via": "up__t"}}
            return CallContext("tools/call", params, Route("up", "t"), "up__t", Sink(), None)

        tasks = [asyncio.ensure_future(addon.call(ctx(i), upstream)) for i in range(n)]
        await asyncio.sleep(0)
        snap = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(True, "*manifold/security/redact.py")]
        )
        release.set()
        await asyncio.gather(*tasks)
        return sum(st.size for st in snap.statistics("filename"))

    tracemalloc.start()
    try:
        held = asyncio.run(flight())
    finally:
        tracemalloc.stop()
    # (what stays is the awaited call's own coroutine, about 240 bytes; the JSON was 4 KB)
    assert held < n * 1024, f"{held} bytes held by redaction for {n} calls in flight"


def test_max_blob_bytes_bounds_the_blobs_decoded_and_a_bad_value_names_the_key() -> None:
    blob = base64.b64encode(f"AWS_ACCESS_KEY_ID={AWS}\n".encode()).decode()
    res = orjson.dumps({"contents": [{"uri": "x://env", "mimeType": "text/plain", "blob": blob}]})
    assert Redactor(RedactionConfig(max_blob_bytes=len(blob))).raw_result(res) is not None
    assert Redactor(RedactionConfig(max_blob_bytes=len(blob) - 1)).raw_result(res) is None
    assert Redactor(RedactionConfig(max_blob_bytes=0)).raw_result(res) is None
    with pytest.raises(ConfigError) as err:
        parse_config({"security": {"redaction": {"max_blob_bytes": -1}}, "upstreams": {}})
    assert "security.redaction.max_blob_bytes" in str(err.value)
