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
