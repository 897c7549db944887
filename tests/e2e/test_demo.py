"""A newcomer's first commands: `make run` (scripts/run-demo.sh) and `make print-ide-config`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.support import (
    REPO,
    free_port,
    spawn,
    stdio_upstream,
    stop_group,
    test_env,
    wait_http,
    write_config,
)

pytestmark = pytest.mark.timeout(180)

# The venv the tests run in, as `make` knows it (VENV=...).
VENV = Path(sys.executable).parent.parent


def test_run_demo_says_what_it_starts_and_how_to_use_it_from_an_ide(tmp_path: Path) -> None:
    port, clock = free_port(), free_port()
    log = tmp_path / "demo.log"
    env = test_env(VENV=str(VENV), MANIFOLD_PORT=str(port), MANIFOLD_DEMO_CLOCK_PORT=str(clock))
    proc = spawn(["bash", "scripts/run-demo.sh"], log, cwd=REPO, env=env)
    try:
        wait_http(f"http://127.0.0.1:{port}/mcp", timeout=60, proc=proc)
    finally:
        stop_group(proc)
    text = log.read_text()
    assert f"starting the gateway on http://127.0.0.1:{port}/mcp" in text, text
    assert f"{VENV.resolve()}/bin/manifold run --config" in text, text
    assert "make print-ide-config" in text


def _ide_snippet(config: Path) -> dict[str, object]:
    # -o: the test's venv counts as set up (make must not install into it).
    res = subprocess.run(
        [
            *("make", "-s", "-C", str(REPO), "-o", f"{VENV}/.installed", "print-ide-config"),
            *(f"VENV={VENV}", f"CONFIG={config}"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=test_env(),
    )
    assert res.returncode == 0, res.stderr
    server: dict[str, object] = json.loads(res.stdout)["mcpServers"]["manifold"]
    return server


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
async def test_print_ide_config_gives_a_snippet_that_runs(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "m.yaml", {"alpha": stdio_upstream("basic_server.py")})
    server = _ide_snippet(cfg)
    command, args = server["command"], server["args"]
    assert isinstance(command, str) and Path(command).is_absolute()
    assert args == ["run", "--config", str(cfg)]
    # The IDE starts it from anywhere, without `manifold` on PATH.
    params = StdioServerParameters(
        command=command, args=args, env={**test_env(), "PATH": "/usr/bin:/bin"}, cwd=str(tmp_path)
    )
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert "alpha__echo" in names


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_setup_refuses_an_old_python_in_one_line(tmp_path: Path) -> None:
    old = tmp_path / "python3.10"
    old.write_text("#!/bin/sh\nexit 1\n")  # as Python 3.10 answers `sys.version_info < (3, 11)`
    old.chmod(0o755)
    res = subprocess.run(
        ["make", "-s", "-C", str(REPO), "setup", f"PYTHON={old}", f"VENV={tmp_path / 'venv'}"],
        capture_output=True,
        text=True,
        timeout=60,
        env=test_env(),
    )
    assert res.returncode != 0
    assert f"Manifold needs Python 3.11 or newer; '{old}' is not" in res.stderr, res.stderr
    assert not (tmp_path / "venv").exists()
