"""The policy engine's matcher and config checks, in process (the e2e tests in
`tests/e2e/test_policy.py` and `test_confirm.py` drive the real gateway).

Every operator (equals, glob, regex, min/max, contains) on paths with keys, indexes and `*`;
rule order (first deciding rule wins, `redact` rules do not decide); globs on client,
principal, server and tool; annotations with MCP's defaults; the always-denied test used for
listings; audit mode forwarding through the addon; and each bad config refused with its key.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import msgspec
import pytest

from manifold.catalog import Catalog, Route
from manifold.config import ConfigError, PolicyConfig, parse_config
from manifold.hooks import Hooks, ListingEvent
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security.policy import HidingPolicy, Policy, PolicyEngine, effective_hints

R = Route("files", "write")


def engine(rules: list[dict[str, Any]], **top: Any) -> PolicyEngine:
    e = PolicyEngine(PolicyConfig.from_data({"rules": rules, **top}))
    e.learn("files", [{"name": "write"}, {"name": "read", "annotations": {"readOnlyHint": True}}])
    return e


def deny_if(**cond: Any) -> list[dict[str, Any]]:
    return [{"name": "r", "match": {"args": [cond]}, "action": "deny"}]


def decides(rules: list[dict[str, Any]], args: Any, **kw: Any) -> str:
    return engine(rules).decide(R, args, **kw).action


# ---------------------------------------------------------------------------- operators


@pytest.mark.parametrize(
    ("cond", "args", "action"),
    [
        ({"path": "mode", "equals": "w"}, {"mode": "w"}, "deny"),
        ({"path": "mode", "equals": "w"}, {"mode": "a"}, "allow"),
        ({"path": "force", "equals": True}, {"force": 1}, "allow"),  # JSON: true is not 1
        ({"path": "n", "equals": 1}, {"n": 1.0}, "deny"),
        ({"path": "opts.force", "equals": None}, {"opts": {"force": None}}, "deny"),
        ({"path": "path", "glob": "/etc/*"}, {"path": "/etc/ssl/x"}, "deny"),
        ({"path": "path", "glob": "/etc/*"}, {"path": "/tmp/etc/x"}, "allow"),
        ({"path": "path", "glob": "*.pem"}, {"path": 12}, "allow"),  # not a string
        ({"path": "path", "regex": "^/(etc|root)/"}, {"path": "/root/.ssh"}, "deny"),
        ({"path": "path", "regex": "^/(etc|root)/"}, {"path": "/home/root/"}, "allow"),
        ({"path": "n", "min": 10}, {"n": 10}, "deny"),
        ({"path": "n", "min": 10}, {"n": 9.99}, "allow"),
        ({"path": "n", "max": 0}, {"n": -3}, "deny"),
        ({"path": "n", "min": 1, "max": 5}, {"n": 6}, "allow"),
        ({"path": "n", "min": 0}, {"n": True}, "allow"),  # a boolean is not a number
        ({"path": "n", "min": 0}, {"n": "7"}, "allow"),  # nor a numeric string
        ({"path": "sql", "contains": "DROP"}, {"sql": "x; DROP TABLE t"}, "deny"),
        ({"path": "tags", "contains": "prod"}, {"tags": ["dev", "prod"]}, "deny"),
        ({"path": "tags", "contains": "prod"}, {"tags": ["production"]}, "allow"),
        ({"path": "files.1.path", "glob": "/etc/*"}, {"files": [{}, {"path": "/etc/a"}]}, "deny"),
        ({"path": "files.0.path", "glob": "/etc/*"}, {"files": [{}, {"path": "/etc/a"}]}, "allow"),
        ({"path": "files.*.path", "glob": "/etc/*"}, {"files": [{}, {"path": "/etc/a"}]}, "deny"),
        ({"path": "env.*", "contains": "SECRET"}, {"env": {"A": "x", "B": "my SECRET"}}, "deny"),
        ({"path": "missing.deep", "equals": 1}, {"other": 1}, "allow"),
        ({"path": "path", "glob": "/etc/*"}, "not an object", "allow"),
    ],
)
def test_each_operator(cond: dict[str, Any], args: Any, action: str) -> None:
    assert decides(deny_if(**cond), args) == action


def test_every_condition_of_a_rule_must_hold() -> None:
    rules = [
        {
            "name": "both",
            "match": {
                "args": [{"path": "path", "glob": "/etc/*"}, {"path": "force", "equals": True}]
            },
            "action": "deny",
        }
    ]
    assert decides(rules, {"path": "/etc/a", "force": True}) == "deny"
    assert decides(rules, {"path": "/etc/a"}) == "allow"
    assert decides(rules, {"force": True}) == "allow"


@pytest.mark.parametrize(
    "path", ["/tmp/../etc/hosts", "/etc//hosts", "/./etc/hosts", "/var/www/../../etc/shadow"]
)
def test_dot_segments_do_not_slip_past_a_deny(path: str) -> None:
    """A path is judged by its resolved form too: `/tmp/../etc/hosts` is `/etc/hosts` to the
    tool that opens it."""
    assert decides(deny_if(path="path", regex="^/(etc|root)/"), {"path": path}) == "deny"
    assert decides(deny_if(path="path", glob="/etc/*"), {"path": path}) == "deny"


def test_dot_segments_do_not_stretch_an_allow() -> None:
    rules = [
        {"name": "tmp", "match": {"args": [{"path": "p", "glob": "/tmp/*"}]}, "action": "allow"},
        {"name": "rest", "match": {"args": [{"path": "p", "glob": "/*"}]}, "action": "deny"},
    ]
    assert decides(rules, {"p": "/tmp/a/../b"}) == "allow"  # still under /tmp
    assert decides(rules, {"p": "/tmp/../etc/passwd"}) == "deny"
    assert decides(rules, {"p": "/tmp/./x"}) == "allow"
    assert decides(rules, {"p": ".env"}) == "allow"  # nothing to resolve (and not under /)


# ---------------------------------------------------------------------------- order and globs


def test_the_first_deciding_rule_wins_and_the_default_decides_the_rest() -> None:
    rules = [
        {"name": "ok-tmp", "match": {"args": [{"path": "p", "glob": "/tmp/*"}]}, "action": "allow"},
        {"name": "ask-writes", "match": {"tool": "wr*"}, "action": "confirm"},
        {"name": "no-writes", "match": {"server": "files"}, "action": "deny"},
    ]
    e = engine(rules, default="deny")
    d = e.decide(R, {"p": "/tmp/x"})
    assert (d.action, d.rule) == ("allow", "ok-tmp")
    d = e.decide(R, {"p": "/home/x"})
    assert (d.action, d.rule) == ("confirm", "ask-writes")
    d = e.decide(Route("files", "read"), {})
    assert (d.action, d.rule) == ("deny", "no-writes")
    d = engine([rules[0]], default="deny").decide(R, {"p": "/home"})
    assert (d.action, d.rule) == ("deny", None)
    assert "the default action" in d.explain()


def test_globs_on_client_principal_server_and_tool() -> None:
    rules = [
        {"name": "a", "match": {"client": "cursor*", "tool": "wr?te"}, "action": "deny"},
        {"name": "b", "match": {"principal": "team-*", "server": "fil*"}, "action": "confirm"},
        {"name": "c", "match": {"server": "other"}, "action": "deny"},
    ]
    e = engine(rules)
    assert e.decide(R, {}, client="cursor-vscode").rule == "a"
    assert e.decide(R, {}, client="claude-code").action == "allow"
    assert e.decide(R, {}, client=None).action == "allow"
    assert e.decide(R, {}, client="claude", principal="team-red").rule == "b"
    assert e.decide(Route("files", "read"), {}, client="cursor").action == "allow"
    assert e.decide(Route("other", "x"), {}).rule == "c"  # a tool not (yet) listed


def test_annotations_with_mcp_defaults() -> None:
    assert effective_hints({}) == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    assert effective_hints({"annotations": {"readOnlyHint": True}})["destructiveHint"] is False
    rules = [{"name": "d", "match": {"annotations": {"destructiveHint": True}}, "action": "deny"}]
    e = engine(rules)
    assert e.decide(R, {}).action == "deny"  # no annotations: presumed destructive
    assert e.decide(Route("files", "read"), {}).action == "allow"  # read-only
    e.learn("files", [{"name": "write", "annotations": {"destructiveHint": False}}])
    assert e.decide(R, {}).action == "allow"  # a new list replaces the rule lists


def test_redact_rules_replace_values_and_let_later_rules_decide() -> None:
    rules = [
        {
            "name": "cards",
            "match": {"args": [{"path": "rows.*.card", "regex": "^[0-9]{16}$"}]},
            "action": "redact",
        },
        {"name": "ask", "match": {"tool": "write"}, "action": "confirm"},
    ]
    args = {"rows": [{"card": "4111111111111111"}, {"card": "n/a"}]}
    d = engine(rules).decide(R, args)
    assert d.action == "confirm" and d.rule == "ask"
    assert d.arguments == {"rows": [{"card": "[REDACTED:policy:cards]"}, {"card": "n/a"}]}
    assert args["rows"][0]["card"] == "4111111111111111"  # the caller's copy is untouched
    assert d.redacted == [("cards", "rows.*.card")]


def test_always_denied_only_when_no_arguments_can_change_it() -> None:
    e = engine(
        [
            {"name": "x", "match": {"args": [{"path": "f", "equals": 1}]}, "action": "deny"},
            {"name": "y", "match": {"client": "bot"}, "action": "deny"},
            {"name": "z", "match": {"args": [{"path": "f", "equals": 2}]}, "action": "allow"},
        ],
        default="deny",
    )
    assert e.always_denied(R, "bot", "")  # x denies or falls through to y
    assert not e.always_denied(R, "human", "")  # z allows f == 2
    assert engine([], default="deny").always_denied(R, "", "")


# ---------------------------------------------------------------------------- the addon


class _Sink:
    log_level = None

    def progress(self, params: dict[str, Any]) -> None: ...

    def log(self, params: dict[str, Any]) -> None: ...

    async def server_request(
        self, method: str, params: dict[str, Any], key: str | None = None
    ) -> dict[str, Any]:
        raise AssertionError("not asked in these tests")


async def _through(cfg: dict[str, Any], args: dict[str, Any]) -> tuple[Any, list[Any]]:
    policy = Policy(PolicyConfig.from_data(cfg), None, None)
    hooks = Hooks([policy])
    hooks.catalog("files", "tools", [{"name": "write"}])
    forwarded: list[Any] = []

    async def terminal(ctx: CallContext) -> rpc.Incoming:
        forwarded.append(ctx.params.get("arguments"))
        return rpc.Incoming(result=msgspec.Raw(b'{"content":[]}'))

    params = {"name": "write", "arguments": args}
    ctx = CallContext("tools/call", params, R, "files__write", _Sink(), None, "c")
    try:
        return await hooks.call_chain(terminal)(ctx), forwarded
    except rpc.RpcError as e:
        return e, forwarded


RULES = [
    {"name": "pw", "match": {"args": [{"path": "pw", "regex": "."}]}, "action": "redact"},
    {"name": "etc", "match": {"args": [{"path": "p", "glob": "/etc/*"}]}, "action": "deny"},
]


async def test_enforce_refuses_with_the_mechanism_and_redacts() -> None:
    err, forwarded = await _through({"rules": RULES}, {"p": "/etc/x"})
    assert isinstance(err, rpc.RpcError) and forwarded == []
    assert err.code == rpc.INVALID_PARAMS
    assert err.data == {
        "mechanism": "policy",
        "tool": "files__write",
        "rule": "etc",
        "action": "deny",
    }
    assert "policy: tool 'files__write' is denied by rule 'etc'" in err.message
    res, forwarded = await _through({"rules": RULES}, {"p": "/tmp", "pw": "hunter2"})
    assert isinstance(res, rpc.Incoming)
    assert forwarded == [{"p": "/tmp", "pw": "[REDACTED:policy:pw]"}]


async def test_audit_mode_forwards_untouched_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "manifold.security.policy")
    cfg = {"rules": RULES, "mode": "audit"}
    res, forwarded = await _through(cfg, {"p": "/etc/x", "pw": "hunter2"})
    assert isinstance(res, rpc.Incoming)
    assert forwarded == [{"p": "/etc/x", "pw": "hunter2"}]
    assert "enforce would deny by rule 'etc'; redacted pw (rule 'pw')" in caplog.text
    assert "hunter2" not in caplog.text


# ---------------------------------------------------------------------------- config errors


def _error(policy: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as err:
        parse_config({"security": {"policy": policy}})
    return str(err.value)


@pytest.mark.parametrize(
    ("rules", "needles"),
    [
        (deny_if(path="p", regex="(unclosed"), ["security.policy.rules.0.match.args.0", "RE2"]),
        (deny_if(path="p", regex="(?=look)"), ["security.policy.rules.0.match.args.0", "RE2"]),
        (deny_if(path="p", regex=".*"), ["rules.0.match.args.0", "matches every string"]),
        (deny_if(path="p", glob="**"), ["rules.0.match.args.0", "matches every string"]),
        (deny_if(path="p", min=5, max=1), ["rules.0.match.args.0", "can never match"]),
        (deny_if(path="p", glob="a", regex="b"), ["rules.0.match.args.0", "exactly one of"]),
        (deny_if(path="p"), ["rules.0.match.args.0", "exactly one of"]),
        (deny_if(path="a..b", equals=1), ["rules.0.match.args.0", "dotted part"]),
        (deny_if(path="p", contains=["x"]), ["rules.0.match.args.0", "contains takes"]),
        (
            [{"name": "r", "match": {"tool": "x"}, "action": "block"}],
            ["security.policy.rules.0.action", "'allow', 'deny', 'confirm' or 'redact'"],
        ),
        (
            [{"name": "r", "match": {}, "action": "deny"}],
            ["security.policy.rules.0", "match every call", "security.policy.default"],
        ),
        (
            [{"name": "r", "match": {"tool": "x"}, "action": "redact"}],
            ["security.policy.rules.0", "needs match.args"],
        ),
        (
            [{"name": "r", "match": {"annotations": {"destructive": True}}, "action": "deny"}],
            ["rules.0.match.annotations", "did you mean 'destructiveHint'"],
        ),
        (
            [
                {
                    "name": "r",
                    "match": {"annotations": {"readOnlyHint": True, "destructiveHint": True}},
                    "action": "deny",
                }
            ],
            ["rules.0.match.annotations", "can never match"],
        ),
        (
            [{"name": "r", "match": {"tool": "x", "args": []}, "action": "deny", "when": 1}],
            ["security.policy.rules.0.when", "unknown key"],
        ),
        (
            [
                {"name": "all-writes", "match": {"tool": "*"}, "action": "deny"},
                {"name": "writes", "match": {"tool": "write", "client": "c"}, "action": "allow"},
            ],
            ["security.policy", "rules.1 ('writes') can never match", "rules.0 ('all-writes')"],
        ),
        (
            [
                {"name": "same", "match": {"tool": "a"}, "action": "deny"},
                {"name": "same", "match": {"tool": "b"}, "action": "deny"},
            ],
            ["security.policy", "rules.1: name 'same'"],
        ),
    ],
)
def test_a_bad_rule_is_refused_naming_its_key(rules: list[Any], needles: list[str]) -> None:
    text = _error({"rules": rules})
    for needle in needles:
        assert needle in text, text


def test_bad_mode_default_and_confirm_keys_are_named() -> None:
    assert "security.policy.mode" in _error({"mode": "dry-run"})
    assert "security.policy.default" in _error({"default": "redact"})
    assert "security.policy.confirm.expiry" in _error({"confirm": {"expiry": 0}})
    assert "security.policy.confirm.max_pending" in _error({"confirm": {"max_pending": 0}})


def test_no_policy_means_the_module_is_off() -> None:
    assert not parse_config({}).security.policy.on
    assert parse_config({"security": {"policy": {"default": "deny"}}}).security.policy.on


@pytest.mark.timeout(20)
def test_a_regex_that_would_backtrack_runs_in_linear_time() -> None:
    # On a backtracking engine this pattern takes about 2**40 steps on this value (hours); the
    # policy's RE2 set answers at once, so the test ends well within its timeout.
    rules = deny_if(path="q", regex="^(a|a)+$")
    assert decides(rules, {"q": "a" * 40 + "b"}) == "allow"
    assert decides(rules, {"q": "a" * 40}) == "deny"


@pytest.mark.parametrize(("policy", "loaded"), [(None, False), ({"default": "deny"}, True)])
def test_the_module_is_imported_only_when_a_policy_is_configured(
    policy: dict[str, Any] | None, loaded: bool
) -> None:
    import subprocess
    import sys

    config = {"state": {"path": ""}, "security": {"policy": policy} if policy else {}}
    code = (
        "import json, sys\n"
        "from manifold.config import parse_config\n"
        "from manifold.gateway import Gateway\n"
        f"gw = Gateway(parse_config(json.loads({json.dumps(json.dumps(config))})))\n"
        "names = [type(a).__name__ for a in gw.hooks.addons]\n"
        "print('manifold.security.policy' in sys.modules, names)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    imported, _, names = out.partition(" ")
    assert imported == str(loaded), out
    assert ("Policy" in names or "HidingPolicy" in names) is loaded, out


def test_the_listing_cache_is_bounded_by_its_key_and_keeps_the_recent_pairs() -> None:
    """`listing_cache` pairs (client, principal) at most, least recently listed dropped first;
    a pair dropped is computed again, with the same answer."""
    cfg = parse_config(
        {
            "upstreams": {"files": {"command": "files-server"}},
            "security": {
                "policy": {
                    "listing_cache": 2,
                    "rules": [
                        {
                            "name": "a-no-writes",
                            "match": {"principal": "team-a", "tool": "write"},
                            "action": "deny",
                        }
                    ],
                }
            },
        }
    )
    catalog = Catalog(cfg)
    policy = HidingPolicy(cfg.security.policy, catalog, None)
    hooks = Hooks([policy])
    tools = hooks.catalog("files", "tools", [{"name": "write"}, {"name": "read"}])
    catalog.set_items("files", "tools", tools)

    def names(principal: str) -> set[str]:
        shown = hooks.listing(ListingEvent("tools", catalog.tools, principal, "c"))
        return {t["name"] for t in shown}

    assert names("team-a") == {"files__read"}
    assert names("team-b") == {"files__read", "files__write"}
    assert names("team-a") == {"files__read"}  # team-a is now the most recent
    assert names("team-c") == {"files__read", "files__write"}
    assert list(policy._hidden) == [("c", "team-a"), ("c", "team-c")]  # team-b dropped
    assert names("team-b") == {"files__read", "files__write"}
    assert len(policy._hidden) == 2
    assert "security.policy.listing_cache" in _error({"listing_cache": 0})
