from pathlib import Path

import pytest

from manifold.config import ConfigError, load_config, parse_config


def test_minimal_config_defaults() -> None:
    cfg = parse_config({"upstreams": {"a": {"command": "x"}, "b": {"url": "http://h/mcp"}}}, env={})
    assert cfg.upstreams["a"].kind == "stdio"
    assert cfg.upstreams["a"].max_in_flight == 32
    assert cfg.upstreams["b"].kind == "streamable-http"
    assert cfg.separator == "__" and cfg.prefix
    assert cfg.http.host == "127.0.0.1"


def test_sse_inferred_from_url() -> None:
    cfg = parse_config({"upstreams": {"s": {"url": "http://h/sse"}}}, env={})
    assert cfg.upstreams["s"].kind == "sse"


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"upstreams": {"a": {}}}, "upstreams.a: needs 'command'"),
        ({"upstreams": {"a": {"command": "x", "url": "http://h"}}}, "not both"),
        ({"upstreams": {"a": {"command": "x", "max_in_flight": 0}}}, "upstreams.a.max_in_flight"),
        ({"upstreams": {"a": {"command": "x", "bogus": 1}}}, "upstreams.a.bogus: unknown key"),
        ({"upstreams": {"bad name": {"command": "x"}}}, "upstream name 'bad name'"),
        ({"upstreams": {"a": {"url": "ftp://h"}}}, "must start with http"),
        ({"separator": "/"}, "separator"),
        ({"upstreams": {"a": {"command": "x", "timeout": "soon"}}}, "upstreams.a.timeout"),
        ({"schemas": {"max_depth": 0}}, "schemas.max_depth"),
        ({"schemas": {"depth": 3}}, "schemas.depth: unknown key"),
        ({"http": {"max_sessions": 0}}, "http.max_sessions"),
        ({"http": {"session_idle_ttl": 0}}, "http.session_idle_ttl"),
        ({"http": {"stream_max_buffer": 1000}}, "http.stream_max_buffer"),
    ],
)
def test_errors_name_the_key(data: dict, needle: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(data, "cfg.yaml", env={})
    assert needle in str(e.value)
    assert str(e.value).startswith("cfg.yaml:")


def test_env_expansion_and_defaults() -> None:
    cfg = parse_config(
        {
            "upstreams": {
                "a": {"command": "${CMD}", "env": {"K": "${TOKEN:-none}"}, "args": ["${CMD}"]}
            }
        },
        env={"CMD": "server"},
    )
    assert cfg.upstreams["a"].command == "server"
    assert cfg.upstreams["a"].args == ["server"]
    assert cfg.upstreams["a"].env == {"K": "none"}


def test_missing_env_var_is_named() -> None:
    with pytest.raises(
        ConfigError, match=r"upstreams\.a\.command: environment variable \$\{NOPE\}"
    ):
        parse_config({"upstreams": {"a": {"command": "${NOPE}"}}}, env={})


def test_client_mcpservers_file_is_accepted_as_is(tmp_path: Path) -> None:
    p = tmp_path / "claude_desktop_config.json"
    p.write_text(
        '{\n // comment\n "mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"]},'
        ' "web": {"url": "http://127.0.0.1:1/mcp"},}}'
    )
    cfg = load_config(p, env={})
    assert cfg.upstreams["fs"].command == "npx"
    assert cfg.upstreams["web"].url == "http://127.0.0.1:1/mcp"


def test_yaml_relative_cwd_is_from_the_file(tmp_path: Path) -> None:
    p = tmp_path / "m.yaml"
    p.write_text("upstreams:\n  a:\n    command: x\n    cwd: sub\n")
    cfg = load_config(p, env={})
    assert cfg.upstreams["a"].cwd == str(tmp_path / "sub")


def test_bad_yaml_is_reported(tmp_path: Path) -> None:
    p = tmp_path / "m.yaml"
    p.write_text("upstreams: [a\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(p)


def test_toml_config(tmp_path: Path) -> None:
    p = tmp_path / "m.toml"
    p.write_text('[upstreams.a]\ncommand = "x"\nmax_in_flight = 4\n')
    assert load_config(p, env={}).upstreams["a"].max_in_flight == 4


def test_bad_toml_is_reported(tmp_path: Path) -> None:
    p = tmp_path / "m.toml"
    p.write_text("[upstreams.a\ncommand = 1\n")
    with pytest.raises(ConfigError, match=r"m\.toml: not valid TOML: .*line 1"):
        load_config(p)


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"upstream": {}}, "upstream: unknown key (did you mean 'upstreams'?)"),
        (
            {"upstreams": {"a": {"command": "x", "timout": 3}}},
            "upstreams.a.timout: unknown key (did you mean 'timeout'?)",
        ),
        ({"http": {"prot": 1}}, "http.prot: unknown key (did you mean 'port'?)"),
        (
            {"response": {"summarize": {"url": "http://h", "model": "m", "modle": 1}}},
            "response.summarize.modle: unknown key (did you mean 'model'?)",
        ),
        ({"zzz": 1}, "zzz: unknown key"),
    ],
)
def test_unknown_keys_suggest_a_close_match(data: dict, needle: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(data, "m.yaml", env={})
    assert needle in str(e.value)
    if "did you mean" not in needle:
        assert "did you mean" not in str(e.value)


def test_missing_env_var_names_the_file() -> None:
    with pytest.raises(ConfigError) as e:
        parse_config({"upstreams": {"x": {"command": "c", "env": {"K": "${FOO}"}}}}, "m.yaml", {})
    assert str(e.value) == "m.yaml: upstreams.x.env.K: environment variable ${FOO} is not set"


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (None, "m.yaml: file not found"),
        (b"name: caf\xe9\n", "m.yaml: not UTF-8 text"),
        (b"a: b: c\n", "m.yaml: not valid YAML: line 1, column 5: mapping values are not allowed"),
    ],
)
def test_unusable_files_are_one_line(tmp_path: Path, content: bytes | None, needle: str) -> None:
    p = tmp_path / "m.yaml"
    if content is not None:
        p.write_bytes(content)
    with pytest.raises(ConfigError) as e:
        load_config(p, env={})
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_a_directory_is_not_a_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path, env={})


def test_client_file_reports_what_it_dropped(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_text(
        '{"mcpServers": {"ok": {"command": "x"}, "typo": {"comand": "y"},'
        ' "ws": {"type": "websocket", "url": "ws://h"}}}'
    )
    warnings: list[str] = []
    cfg = load_config(p, env={}, warnings=warnings)
    assert list(cfg.upstreams) == ["ok"]
    assert any(w.startswith("server 'typo'") for w in warnings)
    assert any(w.startswith("server 'ws'") for w in warnings)


def test_client_file_with_an_editor_input_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "mcp.json"
    p.write_text('{"servers": {"gh": {"command": "x", "env": {"T": "${input:tok}"}}}}')
    with pytest.raises(ConfigError) as e:
        load_config(p, env={})
    assert str(e.value).startswith(f"{p}: server 'gh': env.T uses ${{input:tok}}")
    # Disabled, it is never started: only a warning.
    p.write_text(
        '{"servers": {"gh": {"command": "x", "disabled": true, "env": {"T": "${input:tok}"}},'
        ' "ok": {"command": "y"}}}'
    )
    warnings: list[str] = []
    assert "ok" in load_config(p, env={}, warnings=warnings).upstreams
    assert any("${input:tok}" in w for w in warnings)


def test_client_file_resolves_workspace_folder_from_a_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "mcp.json").write_text(
        '{"servers": {"a": {"command": "${workspaceFolder}/bin/srv"}}}'
    )
    monkeypatch.chdir(tmp_path)
    cfg = load_config(".vscode/mcp.json", env={})
    assert cfg.upstreams["a"].command == f"{tmp_path}/bin/srv"


def test_refusal_log_bounds_are_checked() -> None:
    cfg = parse_config({"auth": {"keys": []}}, "m.yaml", env={})
    assert cfg.auth.refusal_log_interval == 60 and cfg.auth.refusal_log_max_keys == 1000
    with pytest.raises(ConfigError) as e:
        parse_config({"auth": {"refusal_log_interval": -1}}, "m.yaml", env={})
    assert "auth.refusal_log_interval" in str(e.value)
    with pytest.raises(ConfigError) as e:
        parse_config({"auth": {"refusal_log_max_keys": 0}}, "m.yaml", env={})
    assert "auth.refusal_log_max_keys" in str(e.value)


def test_coercions_kept_from_pydantics_lax_mode() -> None:
    """A YAML int where a number is expected; numbers and booleans from `${VAR}` strings,
    including the spellings pydantic took (yes/no/on/off)."""
    env = {"PORT": "9000", "ON": "yes", "OFF": "Off", "T": "2.5"}
    cfg = parse_config(
        {
            "http": {"port": "${PORT}", "head_timeout": 3},
            "security": {"guard": {"enabled": "${OFF}", "classifier": "${ON}"}},
            "upstreams": {"a": {"command": "x", "timeout": "${T}", "lazy": "${ON}"}},
        },
        env=env,
    )
    assert cfg.http.port == 9000 and isinstance(cfg.http.head_timeout, float)
    assert cfg.security.guard.enabled is False and cfg.security.guard.classifier is True
    assert cfg.upstreams["a"].timeout == 2.5 and cfg.upstreams["a"].lazy is True
    with pytest.raises(ConfigError, match=r"upstreams\.a\.lazy: expected a boolean"):
        parse_config({"upstreams": {"a": {"command": "x", "lazy": "maybe"}}}, env={})
    with pytest.raises(ConfigError, match=r"http\.port: expected an integer"):
        parse_config({"http": {"port": 1.5}}, env={})


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        # A mapping's entry is named by its key (msgspec itself says `[...]`).
        (
            {"upstreams": {"a": {"command": "x"}, "b": {"command": "y", "count": 0}}},
            "upstreams.b.count",
        ),
        ({"exposure": {"clients": {"cl*": "nope"}}}, "exposure.clients.cl*: must be 'auto'"),
        ({"upstreams": {1: {"command": "x"}}}, "upstreams.1: the key must be a string"),
        ({"response": {"summarize": {"url": "http://h"}}}, "response.summarize.model: required"),
        ({"http": 3}, "http: expected a mapping, got an integer"),
        (
            {"upstreams": {"a": {"command": "x", "resilience": {"retry": {"atempts": 2}}}}},
            "upstreams.a.resilience.retry.atempts: unknown key (did you mean 'attempts'?)",
        ),
    ],
)
def test_type_errors_name_the_key_path(data: dict, needle: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(data, "m.yaml", env={})
    assert needle in str(e.value)


def test_an_exception_being_handled_is_not_taken_for_the_configs() -> None:
    try:
        raise ValueError("unrelated")
    except ValueError:
        with pytest.raises(ConfigError) as e:
            parse_config({"http": {"port": "x"}}, env={})
    assert "unrelated" not in str(e.value) and "http.port" in str(e.value)


def test_models_built_in_python_are_checked_and_coerced() -> None:
    from manifold.config import GatewayConfig, UpstreamConfig

    up = UpstreamConfig(command="x", timeout=5)
    assert isinstance(up.timeout, float) and up.fields_set == {"command", "timeout"}
    cfg = GatewayConfig(upstreams={"a": {"command": "x"}})  # type: ignore[dict-item]
    assert isinstance(cfg.upstreams["a"], UpstreamConfig)
    with pytest.raises(ValueError, match="max_in_flight"):
        UpstreamConfig(command="x", max_in_flight=0)
    with pytest.raises(ValueError, match="not both"):
        UpstreamConfig(command="x", url="http://h")
    with pytest.raises(AttributeError):
        up.timeout = 3  # type: ignore[misc]


def test_keys_given_replace_and_plain_data() -> None:
    cfg = parse_config(
        {"upstreams": {"a": {"command": "x", "timeout": 60, "resilience": {"retry": {}}}}}, env={}
    )
    up = cfg.upstreams["a"]
    assert up.fields_set == {"command", "timeout", "resilience"}  # 60 is the default: given
    assert up.resilience is not None and up.resilience.fields_set == {"retry"}
    copy = up.replace(cwd="/tmp", timeout=-1)  # not checked again (as a copy)
    assert copy.cwd == "/tmp" and copy.timeout == -1 and up.cwd is None
    assert copy.fields_set == {"command", "timeout", "resilience", "cwd"}
    plain = up.to_dict(exclude={"env_passthrough"})
    assert plain["tools"] == {"allow": ["*"], "deny": []} and "env_passthrough" not in plain
    assert plain["resilience"]["retry"]["attempts"] == 3


def test_a_policy_condition_may_test_for_null() -> None:
    rule = {"name": "r", "action": "deny", "match": {"tool": "t", "args": [{"path": "p"}]}}
    rule["match"]["args"][0]["equals"] = None
    cfg = parse_config({"security": {"policy": {"rules": [rule]}}}, env={})
    arg = cfg.security.policy.rules[0].match.args[0]
    assert "equals" in arg.fields_set and arg.equals is None


def test_every_problem_is_listed_on_one_line() -> None:
    """As pydantic did: each key checked on its own, a model's own checks once its keys are
    sound, the problems joined by '; '."""
    data = {
        "upstreams": {"a": {"command": "x", "timeout": "q", "lazy": "yes", "bogus": 1}, "b": {}},
        "security": {"redaction": {"rules": [{"name": "x", "pattern": "(a"}]}},
    }
    with pytest.raises(ConfigError) as e:
        parse_config(data, "m.yaml", env={})
    text = str(e.value)
    assert "\n" not in text and text.startswith("m.yaml: ")
    for needle in (
        "security.redaction.rules.0: pattern '(a'",
        "upstreams.a.timeout: expected a number",
        "upstreams.a.bogus: unknown key",
        "upstreams.b: needs 'command'",
    ):
        assert needle in text, text
    assert "lazy" not in text  # "yes" is a boolean
