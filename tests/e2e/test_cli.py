"""The `manifold` commands as a user runs them: check, tools, import, and config errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support import MANIFOLD, stdio_upstream, test_env, write_config


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MANIFOLD, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=test_env(),
        stdin=subprocess.DEVNULL,
    )


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
