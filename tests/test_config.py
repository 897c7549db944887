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
