"""The `manifold` commands as a user runs them: check, tools, import, and config errors."""

from __future__ import annotations

import json
import os
import pty
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import (
    MANIFOLD,
    PY,
    SERVERS,
    free_port,
    stdio_upstream,
    stop_group,
    test_env,
    write_config,
)


def _run(
    *args: str, timeout: float = 60, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The CLI as a user runs it, its whole process group reaped if it outlives `timeout`."""
    proc = subprocess.Popen(
        [MANIFOLD, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=test_env(),
        cwd=cwd,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_group(proc)
        out, err = proc.communicate()
        err += f"\n(still running after {timeout}s: stopped)"
    finally:
        stop_group(proc)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_check_shows_each_upstream(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "m.yaml",
        {
            "alpha": stdio_upstream("basic_server.py", "--name", "alpha"),
            "beta": stdio_upstream("basic_server.py", "--name", "beta"),
        },
    )
    res = _run("check", "--config", str(cfg))
    assert res.returncode == 0, res.stderr
    assert "config OK" in res.stdout
    for name in ("alpha", "beta"):
        assert name in res.stdout
    assert "ready" in res.stdout


def test_check_fails_naming_the_bad_key(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("upstreams:\n  alpha:\n    command: x\n    max_in_flight: 0\n")
    res = _run("check", "--config", str(cfg))
    assert res.returncode != 0
    assert "upstreams.alpha.max_in_flight" in res.stderr


def test_check_fails_for_an_upstream_that_cannot_start(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "m.yaml",
        {
            "good": stdio_upstream("basic_server.py"),
            "broken": {"command": str(tmp_path / "no-such-server")},
        },
    )
    res = _run("check", "--config", str(cfg))
    assert res.returncode != 0
    assert "broken" in res.stderr


def test_no_prefix_collision_is_a_clear_error(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "m.yaml",
        {
            "a": stdio_upstream("basic_server.py", "--name", "a"),
            "b": stdio_upstream("basic_server.py", "--name", "b"),
        },
    )
    res = _run("check", "--config", str(cfg), "--no-prefix")
    assert res.returncode != 0
    assert "collision" in res.stderr and "echo" in res.stderr


def test_tools_table_and_json(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "m.yaml", {"alpha": stdio_upstream("basic_server.py")})
    res = _run("tools", "--config", str(cfg), "--json")
    assert res.returncode == 0, res.stderr
    names = {t["name"] for t in json.loads(res.stdout)["tools"]}
    assert {"alpha__echo", "alpha__add", "alpha__progress"} <= names
    table = _run("tools", "--config", str(cfg))
    assert table.returncode == 0 and "alpha__echo" in table.stdout


def test_import_then_run_from_the_result(tmp_path: Path) -> None:
    client = tmp_path / ".mcp.json"
    up = stdio_upstream("basic_server.py", "--name", "imported")
    client.write_text(
        json.dumps({"mcpServers": {"imported": {"command": up["command"], "args": up["args"]}}})
    )
    out = tmp_path / "manifold.yaml"
    res = _run("import", str(client), "-o", str(out))
    assert res.returncode == 0, res.stderr
    text = out.read_text()
    assert "imported" in text and "upstreams" in text
    # The client file itself is accepted by --config too.
    for cfg in (out, client):
        listed = _run("tools", "--config", str(cfg), "--json")
        assert listed.returncode == 0, listed.stderr
        assert "imported__echo" in {t["name"] for t in json.loads(listed.stdout)["tools"]}


def test_import_rejects_a_file_that_is_not_a_client_config(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    res = _run("import", str(bad))
    assert res.returncode != 0
    assert "x.json" in res.stderr


# ------------------------------------------------------------------ client files given to --config


def _client_file(path: Path, servers: dict[str, object], key: str = "mcpServers") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({key: servers}))
    return path


def test_check_reports_each_dropped_entry_and_refuses_an_empty_result(tmp_path: Path) -> None:
    client = _client_file(
        tmp_path / "x.json",
        {"typo": {"comand": "npx"}, "ws": {"type": "websocket", "url": "ws://127.0.0.1:1"}},
    )
    res = _run("check", "-c", str(client))
    assert res.returncode == 2, res.stdout + res.stderr
    assert "config OK" not in res.stdout
    assert "server 'typo'" in res.stderr and "did you mean 'command'" in res.stderr
    assert "server 'ws'" in res.stderr and "'websocket' is not supported" in res.stderr
    assert "no usable upstream" in res.stderr


def test_check_warns_about_a_dropped_entry_beside_a_usable_one(tmp_path: Path) -> None:
    up = stdio_upstream("basic_server.py")
    client = _client_file(
        tmp_path / "x.json",
        {"good": {"command": up["command"], "args": up["args"]}, "typo": {"comand": "npx"}},
    )
    res = _run("check", "-c", str(client))
    assert res.returncode == 0, res.stderr
    assert "ready" in res.stdout
    assert "warning: server 'typo'" in res.stderr


def test_run_logs_each_dropped_entry(tmp_path: Path) -> None:
    client = _client_file(
        tmp_path / "x.json",
        {"typo": {"comand": "npx"}, "ws": {"type": "websocket", "url": "ws://127.0.0.1:1"}},
    )
    res = _run("run", "-c", str(client))  # stdin is closed at once: it starts, then stops
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""
    for name in ("typo", "ws"):
        assert f"WARNING manifold: server '{name}'" in res.stderr
    assert "no usable upstream" in res.stderr


def test_client_file_resolves_workspace_folder_like_import(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text((SERVERS / "basic_server.py").read_text())
    _client_file(
        tmp_path / ".vscode" / "mcp.json",
        {"ws": {"command": PY, "args": ["${workspaceFolder}/server.py", "--name", "ws"]}},
        key="servers",
    )
    # A relative path, as a user in the workspace types it.
    res = _run("tools", "--json", "-c", ".vscode/mcp.json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "ws__echo" in {t["name"] for t in json.loads(res.stdout)["tools"]}


def test_client_file_with_an_editor_input_is_refused(tmp_path: Path) -> None:
    up = stdio_upstream("basic_server.py")
    client = tmp_path / ".vscode" / "mcp.json"
    client.parent.mkdir()
    client.write_text(
        json.dumps(
            {
                "inputs": [{"id": "tok", "type": "promptString", "password": True}],
                "servers": {
                    "gh": {
                        "command": up["command"],
                        "args": up["args"],
                        "env": {"T": "${input:tok}"},
                    }
                },
            }
        )
    )
    res = _run("check", "-c", str(client))
    assert res.returncode == 2, res.stdout + res.stderr
    assert "server 'gh': env.T uses ${input:tok}" in res.stderr
    assert "Traceback" not in res.stderr


def test_tools_fails_when_every_upstream_failed(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "m.yaml", {"broken": {"command": str(tmp_path / "nothing")}})
    res = _run("tools", "-c", str(cfg))
    assert res.returncode == 1, res.stdout + res.stderr
    assert "no upstream is ready: broken" in res.stderr
    assert "0 tools" not in res.stderr


# ------------------------------------------------------------------ output for people and scripts


def test_piped_tables_are_not_cut_at_80_columns(tmp_path: Path) -> None:
    name = "an_upstream_with_a_rather_long_name_for_a_table"
    cfg = write_config(tmp_path / "m.yaml", {name: stdio_upstream("basic_server.py")})
    res = _run("tools", "-c", str(cfg))  # stdout is a pipe
    assert res.returncode == 0, res.stderr
    rows = [line.split("\t") for line in res.stdout.splitlines()]
    assert rows[0] == ["tool", "upstream", "description"]
    assert [f"{name}__echo", name, "Echo the text back, tagged with the server name."] in rows
    checked = _run("check", "-c", str(cfg))
    assert checked.returncode == 0, checked.stderr
    assert any(line.startswith(f"{name}\tstdio\tready\t") for line in checked.stdout.splitlines())


def test_check_json(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "m.yaml",
        {
            "alpha": stdio_upstream("basic_server.py"),
            "broken": {"command": str(tmp_path / "nothing")},
        },
    )
    res = _run("check", "-c", str(cfg), "--json")
    assert res.returncode == 1
    out = json.loads(res.stdout)
    assert out["ok"] is False
    assert out["upstreams"]["alpha"]["state"] == "ready"
    assert out["upstreams"]["alpha"]["tools"] >= 3
    assert out["upstreams"]["broken"]["state"] != "ready"
    assert out["upstreams"]["broken"]["error"]
    offline = _run("check", "-c", str(cfg), "--json", "--offline")
    assert offline.returncode == 0, offline.stderr
    assert json.loads(offline.stdout)["upstreams"]["alpha"] == {
        "transport": "stdio",
        "enabled": True,
    }


# ------------------------------------------------------------------ user errors: one line, exit 2


def _busy_port() -> tuple[int, Callable[[], None]]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return int(s.getsockname()[1]), s.close


def _files(tmp: Path) -> dict[str, str]:
    ok = write_config(tmp / "ok.yaml", {"a": stdio_upstream("basic_server.py")})
    (tmp / "bad.yaml").write_text("upstreams: [a\n")
    (tmp / "latin1.yaml").write_bytes(b"name: caf\xe9\n")
    (tmp / "env.yaml").write_text('upstreams:\n  x:\n    command: x\n    env: {K: "${NOPE_X}"}\n')
    (tmp / "typo.yaml").write_text("upstream:\n  x: {command: x}\n")
    (tmp / "typo2.yaml").write_text("upstreams:\n  x: {command: x, timout: 3}\n")
    (tmp / "text.json").write_text("not json at all")
    (tmp / "dir").mkdir()
    (tmp / "afile").write_text("a file where the state's folder should be")
    write_config(
        tmp / "state.yaml", {"a": {"command": "x"}}, state={"path": str(tmp / "afile" / "s.db")}
    )
    return {"ok": str(ok), "tmp": str(tmp)}


USER_ERRORS = [
    (["check", "-c", "{tmp}/missing.yaml"], "missing.yaml: file not found"),
    (["check", "-c", "{tmp}/dir"], "is a directory"),
    (["check", "-c", "{tmp}/bad.yaml"], "bad.yaml: not valid YAML: line 2, column 1"),
    (["check", "-c", "{tmp}/latin1.yaml"], "latin1.yaml: not UTF-8 text"),
    (
        ["check", "-c", "{tmp}/env.yaml"],
        "env.yaml: upstreams.x.env.K: environment variable ${{NOPE_X}} is not set",
    ),
    (["check", "-c", "{tmp}/typo.yaml"], "upstream: unknown key (did you mean 'upstreams'?)"),
    (
        ["check", "-c", "{tmp}/typo2.yaml"],
        "upstreams.x.timout: unknown key (did you mean 'timeout'?)",
    ),
    (["serve", "-c", "{ok}", "--port", "99999"], "99999 is not in the range"),
    (["serve", "-c", "{ok}", "--log-level", "foo"], "'foo' is not one of"),
    (["serve", "-c", "{ok}", "--port", "{busy}"], "cannot listen on 127.0.0.1:{busy}: Address"),
    (
        [
            "serve",
            "-c",
            "{ok}",
            "--host",
            "no-such-host.invalid",
            "--allow-remote",
            "--allow-unauthenticated",
        ],
        "cannot listen on no-such-host",
    ),
    (["serve", "-c", "{ok}", "--host", "0.0.0.0"], "refusing to serve on 0.0.0.0, beyond loopback"),
    (["run", "-c", "{tmp}/missing.yaml"], "file not found"),
    (["run", "-c", "{tmp}/state.yaml"], "state.yaml: state.path: cannot create {tmp}/afile"),
    (
        ["serve", "-c", "{tmp}/state.yaml", "--port", "0"],
        "state.yaml: state.path: cannot create {tmp}/afile",
    ),
    (["report", "--state", "{tmp}/dir"], "cannot read savings"),
    (["import", "{tmp}/missing.json"], "does not exist"),
    (["import", "{tmp}/text.json"], "text.json: not valid JSON"),
    (["import", "{tmp}/text.json", "-o", "{tmp}/x.yaml"], "text.json: not valid JSON"),
]


@pytest.mark.parametrize(
    ("args", "needle"), USER_ERRORS, ids=[" ".join(args) for args, _ in USER_ERRORS]
)
def test_user_error_is_one_line_and_exit_2(tmp_path: Path, args: list[str], needle: str) -> None:
    port, release = _busy_port()
    try:
        values = {**_files(tmp_path), "busy": str(port)}
        res = _run(*(a.format(**values) for a in args), timeout=60)
    finally:
        release()
    assert "Traceback" not in res.stderr, res.stderr
    assert needle.format(**values) in res.stderr, res.stderr
    assert res.returncode == 2, res.stderr
    assert res.stdout == ""
    errors = [line for line in res.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, res.stderr


def test_import_to_an_unwritable_place_is_one_line(tmp_path: Path) -> None:
    client = _client_file(tmp_path / ".mcp.json", {"a": {"command": "x"}})
    res = _run("import", str(client), "-o", str(tmp_path / "no-such-dir" / "out.yaml"))
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr
    assert "out.yaml: cannot write (No such file or directory)" in res.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_config_is_one_line(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "m.yaml", {"a": {"command": "x"}})
    cfg.chmod(0)
    res = _run("check", "-c", str(cfg))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "m.yaml: cannot read (Permission denied)" in res.stderr


@pytest.mark.parametrize("command", ["run", "serve", "tools"])
def test_ctrl_c_during_startup_is_not_a_traceback(tmp_path: Path, command: str) -> None:
    cfg = write_config(tmp_path / "m.yaml", {"a": stdio_upstream("basic_server.py")})
    extra = ["--port", str(free_port())] if command == "serve" else []
    # Ctrl-C at several moments of the start: while Python loads the CLI, while the upstream
    # starts, and once it runs.
    for delay in (0.3, 0.6, 1.0, 2.0):
        proc = subprocess.Popen(
            [MANIFOLD, command, "-c", str(cfg), *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=test_env(),
            start_new_session=True,
        )
        try:
            time.sleep(delay)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            stop_group(proc)
        assert b"Traceback" not in err, (delay, err.decode(errors="replace"))
        assert proc.returncode in (0, 1, -signal.SIGINT), (delay, err)


def test_run_in_a_terminal_says_what_it_is(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "m.yaml", {"a": stdio_upstream("basic_server.py")})
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [MANIFOLD, "run", "-c", str(cfg)],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=test_env(),
        start_new_session=True,
    )
    os.close(follower)
    try:
        time.sleep(1.0)
        os.write(leader, b"\x04")  # Ctrl-D: end of input
        out, err = proc.communicate(timeout=30)
    finally:
        stop_group(proc)
        os.close(leader)
    assert out == b""  # stdout stays MCP only
    assert b"manifold run speaks MCP on stdin/stdout" in err, err
    assert b"Traceback" not in err


def test_check_refuses_an_unknown_redaction_rule_to_disable(tmp_path: Path) -> None:
    """`check --offline` refused nothing here while `run` refused to start: a misspelt rule
    name in `security.redaction.disable` is named by both."""
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"alpha": stdio_upstream("basic_server.py")},
        security={"redaction": {"disable": ["github-tokens"]}},
    )
    for args in (["check", "-c", str(cfg), "--offline"], ["run", "--config", str(cfg)]):
        out = _run(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert "security.redaction.disable: unknown rule(s) github-tokens" in out.stderr, out.stderr


def test_an_invalid_regex_is_one_clear_line_naming_the_key(tmp_path: Path) -> None:
    """A regex RE2 cannot compile, in a policy condition and in a redaction rule: one error
    line naming each key, the reason in words; before, RE2's own log lines came first on
    stderr (`re2.cc:242] Error parsing ...`) and the reason was a bytes repr (`b'missing )'`)."""
    rule = {"name": "a", "match": {"args": [{"path": "p", "regex": "(?=x)"}]}, "action": "deny"}
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"alpha": stdio_upstream("basic_server.py")},
        security={
            "policy": {"rules": [rule]},
            "redaction": {"rules": [{"name": "x", "pattern": "(a"}]},
        },
    )
    out = _run("check", "-c", str(cfg), "--offline")
    assert out.returncode == 2, out.stderr
    (line,) = out.stderr.strip().splitlines()
    assert "security.policy.rules.0.match.args.0: regex '(?=x)'" in line, line
    assert "invalid perl operator" in line and "security.redaction.rules.0" in line, line
    assert "b'" not in line and "missing ): (a" in line, line
