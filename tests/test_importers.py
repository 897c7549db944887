"""Tests for manifold.importers: MCP client configs -> Manifold config mapping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from manifold.importers import (
    FORMAT_CLAUDE_CODE,
    FORMAT_CLAUDE_DESKTOP,
    FORMAT_CURSOR,
    FORMAT_MCP_SERVERS,
    FORMAT_VSCODE,
    FORMAT_VSCODE_SETTINGS,
    ClientConfigError,
    ImportResult,
    convert_client_config,
    is_client_config,
    load_client_config,
    parse_client_config,
    parse_client_data,
    sanitize_name,
    strip_jsonc,
    to_yaml,
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def upstreams(result: ImportResult) -> dict[str, Any]:
    assert set(result.config) == {"upstreams"}
    ups = result.config["upstreams"]
    assert isinstance(ups, dict)
    return ups


def warnings_about(result: ImportResult, needle: str) -> list[str]:
    return [w for w in result.warnings if needle in w]


# --------------------------------------------------------------------------------------------
# Claude Desktop

CLAUDE_DESKTOP = {
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp", "/srv/shared"],
        },
        "github": {
            "command": "docker",
            "args": [
                "run",
                "-i",
                "--rm",
                "-e",
                "GITHUB_PERSONAL_ACCESS_TOKEN",
                "ghcr.io/github/github-mcp-server",
            ],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
        },
        "sqlite": {
            "command": "uvx",
            "args": ["mcp-server-sqlite", "--db-path", "test.db", "--port", 8080],
            "env": {"DEBUG": True, "LEVEL": 2},
        },
        "remote-notes": {"type": "sse", "url": "https://notes.example.com/mcp/sse"},
    },
    "globalShortcut": "Ctrl+Space",
}


def test_claude_desktop(tmp_path: Path) -> None:
    path = write(tmp_path / "claude_desktop_config.json", json.dumps(CLAUDE_DESKTOP, indent=2))
    result = load_client_config(path)
    assert result.format == FORMAT_CLAUDE_DESKTOP
    assert result.source == str(path)
    assert upstreams(result) == {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp", "/srv/shared"],
            "enabled": True,
        },
        "github": {
            "command": "docker",
            "args": [
                "run",
                "-i",
                "--rm",
                "-e",
                "GITHUB_PERSONAL_ACCESS_TOKEN",
                "ghcr.io/github/github-mcp-server",
            ],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
            "enabled": True,
        },
        # JSON scalars are passed on as the text the client would have used
        "sqlite": {
            "command": "uvx",
            "args": ["mcp-server-sqlite", "--db-path", "test.db", "--port", "8080"],
            "env": {"DEBUG": "true", "LEVEL": "2"},
            "enabled": True,
        },
        "remote-notes": {
            "url": "https://notes.example.com/mcp/sse",
            "transport": "sse",
            "enabled": True,
        },
    }
    assert result.warnings == []


def test_same_content_without_a_file_name_is_generic() -> None:
    result = parse_client_config(json.dumps(CLAUDE_DESKTOP))
    assert result.format == FORMAT_MCP_SERVERS
    assert set(upstreams(result)) == {"filesystem", "github", "sqlite", "remote-notes"}
    assert result.source == "<config>"


# --------------------------------------------------------------------------------------------
# Claude Code

CLAUDE_CODE_PROJECT = """{
  "mcpServers": {
    "sentry": {
      "type": "http",
      "url": "https://mcp.sentry.dev/mcp",
      "headers": {"Authorization": "Bearer ${SENTRY_TOKEN}"}
    },
    "linear": {"type": "sse", "url": "https://mcp.linear.app/sse"},
    "context7": {"type": "streamable-http", "url": "https://mcp.context7.com/mcp"},
    "db": {
      "type": "stdio",
      "command": "${HOME}/bin/db-mcp",
      "args": ["--dsn", "${DATABASE_URL:-postgres://localhost/dev}"],
      "env": {}
    }
  }
}
"""


def test_claude_code_project_file(tmp_path: Path) -> None:
    result = load_client_config(write(tmp_path / "repo" / ".mcp.json", CLAUDE_CODE_PROJECT))
    assert result.format == FORMAT_CLAUDE_CODE
    assert upstreams(result) == {
        "sentry": {
            "url": "https://mcp.sentry.dev/mcp",
            "transport": "streamable-http",
            "headers": {"Authorization": "Bearer ${SENTRY_TOKEN}"},
            "enabled": True,
        },
        "linear": {"url": "https://mcp.linear.app/sse", "transport": "sse", "enabled": True},
        "context7": {
            "url": "https://mcp.context7.com/mcp",
            "transport": "streamable-http",
            "enabled": True,
        },
        # ${NAME} and ${NAME:-default} already are env references: kept as they are
        "db": {
            "command": "${HOME}/bin/db-mcp",
            "args": ["--dsn", "${DATABASE_URL:-postgres://localhost/dev}"],
            "enabled": True,
        },
    }
    assert result.warnings == []


def claude_user_config(root: Path) -> dict[str, Any]:
    return {
        "numStartups": 42,
        "theme": "dark",
        "mcpServers": {
            "memory": {
                "type": "stdio",
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-memory"],
                "env": {},
            },
            "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]},
        },
        "projects": {
            str(root / "webapp"): {
                "allowedTools": [],
                "mcpServers": {
                    "playwright": {
                        "type": "stdio",
                        "command": "npx",
                        "args": ["@playwright/mcp@latest"],
                    },
                    # same name, different server than the top-level one: a clash
                    "memory": {"type": "stdio", "command": "python", "args": ["mem.py"]},
                    "docs": {"type": "http", "url": "http://localhost:3000/mcp"},
                },
                "disabledMcpServers": ["docs", "fetch"],
                "hasTrustDialogAccepted": True,
            },
            str(root / "api"): {
                "mcpServers": {
                    # identical to the webapp one: imported once, reported softly
                    "playwright": {
                        "type": "stdio",
                        "command": "npx",
                        "args": ["@playwright/mcp@latest"],
                    },
                    "api-local": {"type": "sse", "url": "http://127.0.0.1:9000/sse"},
                },
            },
            str(root / "empty"): {"allowedTools": []},
        },
    }


def test_claude_code_user_file_merges_projects(tmp_path: Path) -> None:
    path = write(tmp_path / "home" / ".claude.json", json.dumps(claude_user_config(tmp_path)))
    result = load_client_config(path)
    assert result.format == FORMAT_CLAUDE_CODE
    ups = upstreams(result)
    # top level first, then projects in file order
    assert list(ups) == ["memory", "fetch", "playwright", "docs", "api-local"]
    assert ups["memory"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-memory"],
        "enabled": True,
    }
    assert "cwd" not in ups["fetch"]
    # project servers run in their project directory, as Claude Code runs them
    assert ups["playwright"] == {
        "command": "npx",
        "args": ["@playwright/mcp@latest"],
        "cwd": str(tmp_path / "webapp"),
        "enabled": True,
    }
    assert ups["docs"] == {
        "url": "http://localhost:3000/mcp",
        "transport": "streamable-http",
        "enabled": False,  # disabledMcpServers of its own project
    }
    assert ups["api-local"] == {
        "url": "http://127.0.0.1:9000/sse",
        "transport": "sse",
        "enabled": True,
    }

    clash = warnings_about(result, "name clash")
    assert len(clash) == 1
    assert "'memory'" in clash[0] and f"project {tmp_path / 'webapp'}" in clash[0]
    assert "top level" in clash[0]
    same = warnings_about(result, "same definition")
    assert len(same) == 1 and str(tmp_path / "api") in same[0] and "'playwright'" in same[0]
    only_there = warnings_about(result, "disabled only in")
    assert len(only_there) == 1 and "'fetch'" in only_there[0]
    assert ups["fetch"]["enabled"] is True
    assert len(result.warnings) == 3


def test_claude_user_file_with_only_project_servers() -> None:
    data = {"projects": {"/w/p": {"mcpServers": {"x": {"command": "x-mcp"}}}}}
    assert is_client_config(data)
    result = convert_client_config(data)
    assert result.format == FORMAT_CLAUDE_CODE
    assert upstreams(result) == {"x": {"command": "x-mcp", "cwd": "/w/p", "enabled": True}}


# --------------------------------------------------------------------------------------------
# Cursor (JSONC)

CURSOR_JSONC = """// Cursor MCP servers for this workspace
{
  "mcpServers": {
    /* local tools */
    "browser-tools": {
      "command": "node",
      "args": ["${workspaceFolder}/tools/browser.js", "--url", "http://localhost:3000/"], // dev
      "env": {"API_KEY": "${env:BROWSER_API_KEY}", "MODE": "dev",},
      "envFile": "${workspaceFolder}/.env",
    },
    "remote-search": {
      "url": "https://search.example.com/mcp/",
      "headers": {"X-Api-Key": "${env:SEARCH_KEY}"},
    },
    "legacy-sse": {"url": "https://legacy.example.com/sse/", "disabled": true,},
    "docs // not a comment": {"url": "https://docs.example.com/mcp", "autoApprove": ["search"]},
  },
}
"""


def test_cursor_jsonc(tmp_path: Path) -> None:
    workspace = tmp_path / "shop"
    result = load_client_config(write(workspace / ".cursor" / "mcp.json", CURSOR_JSONC))
    assert result.format == FORMAT_CURSOR
    ups = upstreams(result)
    assert ups["browser-tools"] == {
        "command": "node",
        "args": [f"{workspace}/tools/browser.js", "--url", "http://localhost:3000/"],
        "env": {"API_KEY": "${BROWSER_API_KEY}", "MODE": "dev"},
        "enabled": True,
    }
    assert ups["remote-search"] == {
        "url": "https://search.example.com/mcp/",
        "transport": "streamable-http",
        "headers": {"X-Api-Key": "${SEARCH_KEY}"},
        "enabled": True,
    }
    assert ups["legacy-sse"] == {
        "url": "https://legacy.example.com/sse/",
        "transport": "sse",
        "enabled": False,
    }
    assert ups["docs-not-a-comment"] == {
        "url": "https://docs.example.com/mcp",
        "transport": "streamable-http",
        "enabled": True,
    }
    assert list(ups) == ["browser-tools", "remote-search", "legacy-sse", "docs-not-a-comment"]

    env_file = warnings_about(result, "envFile")
    assert len(env_file) == 1 and f"{workspace}/.env" in env_file[0]
    assert len(warnings_about(result, "autoApprove")) == 1
    renamed = warnings_about(result, "renamed")
    assert len(renamed) == 1 and "'docs-not-a-comment'" in renamed[0]
    assert len(result.warnings) == 3


def test_cursor_global_file_leaves_workspace_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    text = '{"mcpServers": {"t": {"command": "node", "args": ["${workspaceFolder}/x.js"]}}}'
    result = load_client_config(write(tmp_path / ".cursor" / "mcp.json", text))
    assert result.format == FORMAT_CURSOR
    assert upstreams(result)["t"]["args"] == ["${workspaceFolder}/x.js"]
    [warning] = result.warnings
    assert "${workspaceFolder}" in warning and "args[0]" in warning


# --------------------------------------------------------------------------------------------
# VS Code

VSCODE_MCP = """{
  // Inputs are prompted for by VS Code the first time a server starts.
  "inputs": [
    {"type": "promptString", "id": "github_token", "description": "GitHub Personal Access Token",
     "password": true},
    {"type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key"},
  ],
  "servers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": {"Authorization": "Bearer ${input:github_token}"}
    },
    "perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}", "HOME_DIR": "${userHome}"}
    },
    "python-tools": {
      "type": "stdio",
      "command": "${workspaceFolder}/.venv/bin/python",
      "args": ["-m", "tools.server", "--root", "${workspaceFolder}", "--log", "${env:LOG_DIR}"],
      "cwd": "${workspaceFolder}",
      "dev": {"watch": "tools/**/*.py"}
    },
    "events": {"type": "sse", "url": "http://localhost:8931/events", "disabled": true}
  }
}
"""


def test_vscode_workspace_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("manifold.importers.os.name", "posix")
    workspace = tmp_path / "project"
    result = load_client_config(write(workspace / ".vscode" / "mcp.json", VSCODE_MCP))
    assert result.format == FORMAT_VSCODE
    assert upstreams(result) == {
        "github": {
            "url": "https://api.githubcopilot.com/mcp/",
            "transport": "streamable-http",
            "headers": {"Authorization": "Bearer ${input:github_token}"},
            "enabled": True,
        },
        "perplexity": {
            "command": "npx",
            "args": ["-y", "server-perplexity-ask"],
            "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}", "HOME_DIR": "${HOME}"},
            "enabled": True,
        },
        "python-tools": {
            "command": f"{workspace}/.venv/bin/python",
            "args": ["-m", "tools.server", "--root", str(workspace), "--log", "${LOG_DIR}"],
            "cwd": str(workspace),
            "enabled": True,
        },
        "events": {"url": "http://localhost:8931/events", "transport": "sse", "enabled": False},
    }
    github = warnings_about(result, "${input:github_token}")
    assert len(github) == 1
    assert '"GitHub Personal Access Token", secret' in github[0]
    assert "${GITHUB_TOKEN}" in github[0]  # suggested from the input id
    perplexity = warnings_about(result, "${input:perplexity-key}")
    assert len(perplexity) == 1
    assert "${PERPLEXITY_API_KEY}" in perplexity[0]  # suggested from the env key
    assert "secret" not in perplexity[0]
    assert len(warnings_about(result, "ignored fields")) == 1
    assert len(result.warnings) == 3


def test_vscode_without_workspace_warns_about_workspace_folder() -> None:
    text = '{"servers": {"t": {"type": "stdio", "command": "${workspaceFolder}/run.sh"}}}'
    result = parse_client_config(text, "mcp.json")
    assert result.format == FORMAT_VSCODE
    assert upstreams(result)["t"]["command"] == "${workspaceFolder}/run.sh"
    [warning] = result.warnings
    assert "workspace" in warning and "command" in warning


def test_vscode_undeclared_input() -> None:
    text = '{"servers": {"s": {"url": "https://x.example/mcp", "headers": {"K": "${input:k}"}}}}'
    result = parse_client_config(text)
    [warning] = result.warnings
    assert "${input:k}" in warning and "not declared in inputs" in warning


VSCODE_SETTINGS = """{
  "editor.fontSize": 14,
  "chat.mcp.discovery.enabled": true,
  "mcp": {
    "inputs": [{"type": "promptString", "id": "token", "password": true}],
    "servers": {
      "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone=Europe/Paris"]},
      "api": {"type": "http", "url": "https://api.example.com/mcp",
              "headers": {"Authorization": "${input:token}"}},
    },
  },
}
"""


def test_vscode_user_settings(tmp_path: Path) -> None:
    result = load_client_config(write(tmp_path / "User" / "settings.json", VSCODE_SETTINGS))
    assert result.format == FORMAT_VSCODE_SETTINGS
    assert upstreams(result) == {
        "time": {
            "command": "uvx",
            "args": ["mcp-server-time", "--local-timezone=Europe/Paris"],
            "enabled": True,
        },
        "api": {
            "url": "https://api.example.com/mcp",
            "transport": "streamable-http",
            "headers": {"Authorization": "${input:token}"},
            "enabled": True,
        },
    }
    [warning] = result.warnings
    assert "${input:token}" in warning and "secret" in warning and "${TOKEN}" in warning


# --------------------------------------------------------------------------------------------
# Entries that cannot be imported, names


def test_bad_entries_are_skipped_with_warnings() -> None:
    data = {
        "mcpServers": {
            "ok": {"command": "ok-mcp"},
            "ws": {"type": "ws", "url": "ws://localhost:1/"},
            "nothing": {"env": {"A": "b"}},
            "not-an-object": "npx server",
            "nested-arg": {"command": "x", "args": [["a"]]},
            "no-url": {"type": "http"},
            "string-args": {"command": "python", "args": "-m my_server --flag 'two words'"},
            "both": {"command": "srv", "url": "https://both.example/mcp"},
            "null-env": {"command": "srv2", "env": {"UNSET_ME": None}},
        }
    }
    result = convert_client_config(data, "cline_mcp_settings.json")
    ups = upstreams(result)
    assert list(ups) == ["ok", "string-args", "both", "null-env"]
    assert ups["string-args"]["args"] == ["-m", "my_server", "--flag", "two words"]
    assert ups["both"] == {"command": "srv", "enabled": True}
    assert ups["null-env"] == {"command": "srv2", "enabled": True}
    for name in ("ws", "nothing", "not-an-object", "nested-arg", "no-url"):
        [warning] = warnings_about(result, f"server {name!r}")
        assert "skipped this server" in warning
    assert warnings_about(result, "'string-args'") and warnings_about(result, "'both'")
    assert warnings_about(result, "UNSET_ME")


def test_names_are_sanitized_and_kept_unique() -> None:
    data = {
        "mcpServers": {
            "@scope/server": {"command": "a"},
            "scope-server": {"command": "b"},
            "Fetch Tool (beta)": {"command": "c"},
            "日本": {"command": "d"},
            "x" * 80: {"command": "e"},
        }
    }
    result = convert_client_config(data)
    # a name that is valid as it is keeps it; the sanitized one goes around it
    assert list(upstreams(result)) == [
        "scope-server-2",
        "scope-server",
        "Fetch-Tool-beta",
        "server",
        "x" * 64,
    ]
    assert len(warnings_about(result, "renamed")) == 4
    assert not warnings_about(result, "server 'scope-server'")
    assert warnings_about(result, "name taken")


def test_sanitize_name() -> None:
    assert sanitize_name("good_name-1") == "good_name-1"
    assert sanitize_name("a.b c") == "a-b-c"
    assert sanitize_name("---") == "---"  # valid as it is
    assert sanitize_name("...") == "server"


def test_empty_server_list() -> None:
    result = parse_client_config('{"mcpServers": {}}', "claude_desktop_config.json")
    assert result.config == {"upstreams": {}}
    assert result.format == FORMAT_CLAUDE_DESKTOP
    [warning] = result.warnings
    assert "no MCP servers found" in warning


# --------------------------------------------------------------------------------------------
# Bad files


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "empty"),
        ('{"mcpServers": {"a": {"command": "x"}', "not valid JSON (line 1"),
        ('{"mcpServers": /* never closed }', "column 16: unterminated /* comment"),
        ("[1, 2, 3]", "JSON list, not an object"),
        ('{"name": "my-app", "version": "1.0.0"}', "not an MCP client config"),
        ('{"mcpServers": ["a", "b"]}', '"mcpServers" must be an object'),
        ('{"upstreams": {}}', "already is a Manifold config"),
    ],
)
def test_bad_files(tmp_path: Path, text: str, needle: str) -> None:
    path = write(tmp_path / "mcp.json", text)
    with pytest.raises(ClientConfigError) as info:
        load_client_config(path)
    message = str(info.value)
    assert message.startswith(str(path))
    assert needle in message


def test_not_a_client_config_names_what_was_expected(tmp_path: Path) -> None:
    path = write(tmp_path / "package.json", '{"name": "my-app", "scripts": {}}')
    with pytest.raises(ClientConfigError) as info:
        load_client_config(path)
    message = str(info.value)
    for expected in ('"mcpServers"', '"servers"', '"mcp"', "Claude", "Cursor", "VS Code"):
        assert expected in message
    assert "'name', 'scripts'" in message


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ClientConfigError, match="file not found"):
        load_client_config(tmp_path / "nope.json")
    with pytest.raises(ClientConfigError, match="directory"):
        load_client_config(tmp_path)


def test_utf8_bom_and_non_utf8(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_bytes(b'\xef\xbb\xbf{"mcpServers": {"a": {"command": "x"}}}')
    assert upstreams(load_client_config(path)) == {"a": {"command": "x", "enabled": True}}
    path.write_bytes(b'{"mcpServers": {"\xff": {}}}')
    with pytest.raises(ClientConfigError, match="not UTF-8"):
        load_client_config(path)


# --------------------------------------------------------------------------------------------
# Helpers: JSONC, detection, YAML


def test_strip_jsonc_leaves_strings_alone() -> None:
    text = """{
  "a": "http://x/y // not a comment", // a comment
  "b": "/* not a comment */",  /* a comment */
  "c": "quote \\" // still a string,]",
  "d": [1, 2, /* trailing */ ],
  "e": {"f": "g",
        // comment before the brace
       },
}"""
    assert json.loads(strip_jsonc(text)) == {
        "a": "http://x/y // not a comment",
        "b": "/* not a comment */",
        "c": 'quote " // still a string,]',
        "d": [1, 2],
        "e": {"f": "g"},
    }
    # positions are kept, so JSON errors point into the original text
    assert strip_jsonc(text).count("\n") == text.count("\n")
    assert len(strip_jsonc(text)) == len(text)


def test_is_client_config() -> None:
    assert is_client_config({"mcpServers": {}})
    assert is_client_config({"servers": {"a": {}}, "inputs": []})
    assert is_client_config({"mcp": {"servers": {}}})
    assert is_client_config({"projects": {"/p": {"mcpServers": {}}}})
    assert not is_client_config({"projects": {"/p": {"allowedTools": []}}})
    assert not is_client_config({"servers": ["a"]})
    assert not is_client_config({"mcpServers": {}, "upstreams": {}})
    assert not is_client_config({"upstreams": {"a": {"command": "x"}}})
    assert not is_client_config([{"mcpServers": {}}])
    assert not is_client_config("mcpServers")


def test_to_yaml_round_trips_with_header(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    result = load_client_config(write(workspace / ".vscode" / "mcp.json", VSCODE_MCP))
    text = to_yaml(result)
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert header[0].startswith("# Manifold configuration written by `manifold import`")
    assert f"# Source: {workspace / '.vscode' / 'mcp.json'}" in header
    assert "# Format: VS Code (mcp.json)" in header
    for warning in result.warnings:
        assert f"#   - {warning}" in header
    assert yaml.safe_load(text) == result.config
    # key order is kept (sort_keys=False)
    assert text.index("  github:") < text.index("  perplexity:") < text.index("  events:")
    assert text.index("    url:") < text.index("    transport:")


def test_to_yaml_without_warnings_and_odd_values() -> None:
    data = {
        "mcpServers": {
            "yes": {"command": "on", "args": ["no", "1.0", "#x", "a: b", "--opt=${X}"]},
        }
    }
    result = convert_client_config(data, "claude_desktop_config.json")
    text = to_yaml(result)
    assert "Review" not in text
    assert yaml.safe_load(text) == result.config
    assert yaml.safe_load(text)["upstreams"]["yes"]["args"][0] == "no"


def test_hybrid_file_imports_client_part_only() -> None:
    data = {"upstreams": {"u": {"command": "u"}}, "mcpServers": {"m": {"command": "m"}}}
    result = convert_client_config(data)
    assert upstreams(result) == {"m": {"command": "m", "enabled": True}}
    assert warnings_about(result, '"upstreams"')


def test_placeholders_manifold_cannot_expand_are_reported() -> None:
    data = {
        "mcpServers": {
            "s": {
                "command": "srv",
                "args": [
                    "${A:-x}",
                    "${B-x}",
                    "${config:python.path}",
                    "${cwd}",
                    "${pathSeparator}",
                ],
            }
        }
    }
    result = convert_client_config(data, ".mcp.json")
    args = upstreams(result)["s"]["args"]
    assert args[:4] == ["${A:-x}", "${B-x}", "${config:python.path}", "${cwd}"]
    assert args[4] in {"/", "\\"}
    assert [w.split(" uses ")[1].split(",")[0] for w in result.warnings] == [
        "${B-x}",
        "${config:python.path}",
        "${cwd}",
    ]


def test_parse_client_data_is_the_gateway_entry_point() -> None:
    assert convert_client_config is parse_client_data
    result = parse_client_data({"mcpServers": {"a": {"command": "x"}}}, "mcp.json")
    assert upstreams(result) == {"a": {"command": "x", "enabled": True}}
    with pytest.raises(json.JSONDecodeError):
        strip_jsonc('{"a": 1 /* open')


def test_a_misspelt_command_gets_a_suggestion() -> None:
    res = parse_client_data({"mcpServers": {"a": {"comand": "npx"}}}, "x.json")
    assert res.config == {"upstreams": {}}
    assert (
        "server 'a': has neither command nor url (did you mean 'command' instead of 'comand'?); "
        "skipped this server"
    ) in res.warnings
    res = parse_client_data({"mcpServers": {"b": {"URL": "http://h/mcp"}}}, "x.json")
    assert "(did you mean 'url' instead of 'URL'?)" in res.warnings[0]


def test_unresolved_placeholders_are_listed_for_enabled_servers_only() -> None:
    res = parse_client_data(
        {
            "servers": {
                "on": {"command": "x", "args": ["${input:a}", "${file}"]},
                "off": {"command": "y", "args": ["${input:b}"], "disabled": True},
            }
        },
        "mcp.json",
    )
    assert len(res.unresolved) == 2
    assert all(u.startswith("server 'on'") for u in res.unresolved)
    assert any("${input:b}" in w for w in res.warnings)
