"""Honeytokens: the scan finds a canary anywhere in a call's parameters (nested, inside a longer
string, a key, with characters JSON escapes), refuses the call without echoing the value, and
`new_token` makes canaries the redaction rules take for real credentials."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import threading
import urllib.parse
from typing import Any

import pytest

from manifold.catalog import Route
from manifold.config import ConfigError, Honeytoken, RedactionConfig, parse_config
from manifold.hooks import Hooks
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security.honeytokens import KINDS, Honeytokens, new_token
from manifold.security.redact import Redactor, marker
from manifold.security.secret_rules import crc32_token_ok

CANARY = "AKIAZ7QWERTYUIOP2345"


class Host:
    def __init__(self, config: Any = None) -> None:
        self.config = config
        self.hooks = Hooks()


def _scanner(*values: str | Honeytoken) -> Honeytokens:
    return Honeytokens(Host(), list(values))


@pytest.mark.parametrize(
    "params",
    [
        {"name": "t", "arguments": {"key": CANARY}},
        {"name": "t", "arguments": {"a": {"b": [1, {"c": f"use {CANARY} now"}]}}},
        {"name": "t", "arguments": {CANARY: "as a key"}},
        {"uri": f"file:///x?token={CANARY}"},
    ],
)
def test_a_canary_is_found_anywhere_in_the_parameters(params: dict[str, Any]) -> None:
    assert _scanner(Honeytoken(name="aws-canary", value=CANARY)).find(params) == "aws-canary"


def test_clean_parameters_and_near_misses_pass() -> None:
    s = _scanner(CANARY)
    assert s.find({"name": "t", "arguments": {"key": CANARY[:-1], "n": 12}}) is None
    changed = CANARY[:8] + ("X" if CANARY[8] != "X" else "Y") + CANARY[9:]
    assert s.find({"arguments": {"key": changed}}) is None  # one character other


def test_a_value_with_characters_json_escapes_is_found() -> None:
    value = 'pa"ss\\word\tcanary-1'
    assert _scanner(Honeytoken(name="odd", value=value)).find({"a": [value]}) == "odd"


def test_an_unnamed_canary_gets_a_stable_label_not_its_value() -> None:
    label = _scanner(CANARY).find({"a": CANARY})
    assert label is not None and label.startswith("honeytoken-") and CANARY not in label
    assert label == _scanner(CANARY).find({"b": CANARY})


def test_of_two_overlapping_canaries_the_longer_names_the_match() -> None:
    s = _scanner(
        Honeytoken(name="short", value="canary-12345"),
        Honeytoken(name="long", value="canary-12345-extended"),
    )
    assert s.find({"a": "x canary-12345-extended y"}) == "long"
    assert s.find({"a": "x canary-12345 y"}) == "short"


async def test_the_call_is_refused_without_reaching_the_next_step_or_echoing_the_value() -> None:
    s = _scanner(Honeytoken(name="aws-canary", value=CANARY))
    reached: list[str] = []

    async def terminal(ctx: CallContext) -> rpc.Incoming:
        reached.append(ctx.exposed)
        raise AssertionError("reached the upstream")

    ctx = CallContext(
        "tools/call",
        {"name": "put", "arguments": {"v": CANARY}},
        Route("up", "put"),
        "up__put",
        None,
        None,  # type: ignore[arg-type]
    )
    with pytest.raises(rpc.RpcError) as err:
        await s.call(ctx, terminal)
    assert err.value.code == rpc.INVALID_REQUEST
    assert err.value.data == {"mechanism": "honeytoken", "target": "up__put"}
    assert "honeytoken" in err.value.message and CANARY not in err.value.message
    assert reached == []


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "generic"])
def test_new_canaries_are_taken_for_real_credentials_by_the_redaction_rules(kind: str) -> None:
    rule = {
        "aws": "aws-access-key",
        "github": "github-token",
        "slack": "slack-token",
        "openai": "openai-key",
    }[kind]
    r = Redactor(RedactionConfig())
    for _ in range(20):
        value = new_token(kind)
        assert r.text(f"the key is {value} here") == f"the key is {marker(rule)} here", value


def test_a_new_github_canary_carries_a_valid_checksum_and_each_is_fresh() -> None:
    tokens = {new_token("github") for _ in range(50)}
    assert len(tokens) == 50
    assert all(len(t) == 40 and crc32_token_ok(t) for t in tokens)


def test_config_refuses_a_short_canary_naming_the_key() -> None:
    with pytest.raises(ConfigError) as err:
        parse_config({"security": {"honeytokens": {"values": ["short"]}}, "upstreams": {}})
    assert "security.honeytokens.values" in str(err.value)


def test_config_takes_a_canary_from_the_environment() -> None:
    cfg = parse_config(
        {"security": {"honeytokens": {"values": ["${CANARY}"]}}, "upstreams": {}},
        env={"CANARY": CANARY},
    )
    assert cfg.security.honeytokens.values == [CANARY]


def test_the_module_is_not_imported_when_no_honeytoken_is_configured() -> None:
    code = (
        "import sys\n"
        "from manifold.config import parse_config\n"
        "from manifold.gateway import Gateway\n"
        "cfg = parse_config({'state': {'path': ''}, 'upstreams': {}})\n"
        "gw = Gateway(cfg)\n"
        "print('manifold.security.honeytokens' in sys.modules)\n"
        "cfg = parse_config({'state': {'path': ''}, 'upstreams': {},"
        " 'security': {'honeytokens': {'values': ['canary-value-1']}}})\n"
        "gw = Gateway(cfg)\n"
        "print('manifold.security.honeytokens' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "True"], out.stderr


# ------------------------------------------------------------------ encoded and split forms

GH_CANARY = "ghp_Q8vN2kLm4TzR7xWb1YcE5uHj9sDf3Ga6Pi0o"


def _b64_runs(value: str) -> list[str]:
    """`value` base64-encoded inside longer runs, at each of the three alignments, in both
    alphabets, and wrapped at 76 columns as MIME does."""
    out = []
    for pad in ("", "x", "xy"):
        blob = f"{pad}prefix text; key={value}; suffix".encode()
        std = base64.b64encode(blob).decode()
        out += [std, base64.urlsafe_b64encode(blob).decode().rstrip("=")]
        out.append("\n".join(std[i : i + 76] for i in range(0, len(std), 76)))
    return out


def _encodings(value: str) -> list[str]:
    raw = value.encode()
    return [
        *_b64_runs(value),
        raw.hex(),
        raw.hex().upper(),
        " ".join(f"{b:02x}" for b in raw),  # a hex dump
        "".join(f"\\x{b:02x}" for b in raw),  # a C string
        urllib.parse.quote(f"k={value}", safe=""),
        "".join(f"%{b:02X}" for b in raw),  # every character escaped
        urllib.parse.quote(urllib.parse.quote(f"?key={value}", safe=""), safe=""),  # double
        "".join(f"\\u{ord(c):04x}" for c in value),  # JSON-escaped, as text
        "".join(f"&#{ord(c)};" for c in value),  # HTML character references
        "".join(f"&#x{ord(c):x};" for c in value),
        json.dumps({"inner": json.dumps({"key": value})}),  # nested JSON strings
        " ".join(value[i : i + 4] for i in range(0, len(value), 4)),  # spaced out
        value[:9] + "\n" + value[9:],  # a line break
        value[:7] + "\r\n\t" + value[7:],
    ]


@pytest.mark.parametrize("value", [CANARY, GH_CANARY, "sk-proj-Zq7+Lm/4Xw=="])
def test_a_canary_in_an_encoded_or_split_form_is_found(value: str) -> None:
    s = _scanner(Honeytoken(name="canary", value=value))
    for i, enc in enumerate(_encodings(value)):
        assert s.find({"name": "t", "arguments": {"body": f"see: {enc} end"}}) == "canary", i
    # split across the items of a list of strings
    assert s.find({"arguments": {"lines": [value[:6], value[6:]]}}) == "canary"
    # changed in case, or reversed
    for changed in (value.lower(), value.upper(), value[::-1]):
        assert s.find({"arguments": {"body": f"x {changed} y"}}) == "canary", changed


def test_ordinary_arguments_are_not_taken_for_an_encoded_canary() -> None:
    s = _scanner(*(new_token(k) for k in KINDS for _ in range(20)))
    benign = [
        {"body": base64.b64encode(bytes(range(256)) * 64).decode()},  # binary payload
        {"sha": [hashlib.sha256(str(i).encode()).hexdigest() for i in range(200)]},
        {"url": "https://example.com/search?q=%E2%9C%93+ok&page=2%20of%2010"},
        {"code": 'print("\\u00e9t\\u00e9 \\x41\\x42")\n' * 50},
        {"text": "The quick brown fox jumps over the lazy dog. " * 500},
        {"lines": ["AKIA", "is a prefix", "ghp_", "is another"]},
    ]
    for args in benign:
        assert s.find({"name": "t", "arguments": args}) is None, args


async def test_a_large_argument_is_scanned_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = _scanner(Honeytoken(name="aws-canary", value=CANARY))
    threads: list[threading.Thread] = []
    scan = Honeytokens.scan

    def spy(self: Honeytokens, raw: bytes) -> str | None:
        threads.append(threading.current_thread())
        return scan(self, raw)

    monkeypatch.setattr(Honeytokens, "scan", spy)

    async def terminal(ctx: CallContext) -> rpc.Incoming:
        raise AssertionError("reached the upstream")

    def ctx(body: str) -> CallContext:
        return CallContext(
            "tools/call",
            {"name": "put", "arguments": {"v": body}},
            Route("up", "put"),
            "up__put",
            None,
            None,  # type: ignore[arg-type]
        )

    with pytest.raises(rpc.RpcError):  # small: on the loop
        await s.call(ctx(base64.b64encode(CANARY.encode()).decode()), terminal)
    with pytest.raises(rpc.RpcError):  # 2 MB: in a worker thread, still refused
        await s.call(ctx("a" * 2_000_000 + base64.b64encode(CANARY.encode()).decode()), terminal)
    assert threads[0] is threading.main_thread()
    assert threads[1] is not threading.main_thread()


@pytest.mark.parametrize(
    "disguised",
    [
        CANARY[:6] + "\u200b" + CANARY[6:],  # zero-width space
        CANARY[:3] + "\u00ad\u2060" + CANARY[3:],  # soft hyphen, word joiner
        "".join(chr(ord(c) + 0xFEE0) for c in CANARY),  # fullwidth
        "\u0410\u041a\u0406\u0410" + CANARY[4:],  # Cyrillic A, K, I, A
    ],
)
def test_a_canary_with_invisible_or_look_alike_characters_is_found(disguised: str) -> None:
    s = _scanner(Honeytoken(name="aws-canary", value=CANARY))
    assert s.find({"arguments": {"text": f"key: {disguised}"}}) == "aws-canary"


async def test_a_canary_in_an_answer_to_a_server_request_is_not_delivered() -> None:
    from manifold.hooks import ServerRequestContext

    generic = "Zq8Lm2Xw7Rt4Vn9Kb3Yc6Pd1Hs5Jf0Gt"
    hooks = Hooks([_scanner(Honeytoken(name="generic-canary", value=generic))])
    assert hooks.has_server_request and not hooks.fulfils_rounds  # rounds stay relayed

    def answering(answer: dict[str, Any]) -> Any:
        async def deliver(ctx: ServerRequestContext) -> dict[str, Any]:
            return answer

        return deliver

    model = {"role": "assistant", "content": {"type": "text", "text": f"it is {generic}"}}
    typed = {"action": "accept", "content": {"key": base64.b64encode(generic.encode()).decode()}}
    for method, answer in (("sampling/createMessage", model), ("elicitation/create", typed)):
        ctx = ServerRequestContext(method, {"messages": []}, "up")
        with pytest.raises(rpc.RpcError) as err:
            await hooks.server_request(ctx, answering(answer))
        assert err.value.data == {"mechanism": "honeytoken", "method": method}
        assert generic not in err.value.message
    clean = {"role": "assistant", "content": {"type": "text", "text": "no secret here"}}
    ctx = ServerRequestContext("sampling/createMessage", {"messages": []}, "up")
    assert await hooks.server_request(ctx, answering(clean)) == clean
