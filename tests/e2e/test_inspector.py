"""The official MCP Inspector CLI as a client of the gateway, over stdio and over HTTP, on
both protocol eras: list the tools, call one, read its answer and exit code."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support import (
    MANIFOLD,
    NODE_MODULES,
    TOOLS,
    gateway_http,
    stdio_upstream,
    test_env,
    write_config,
)

INSPECTOR = NODE_MODULES / ".bin" / "mcp-inspector"
pytestmark = pytest.mark.skipif(not INSPECTOR.exists(), reason="Node tools missing: make tools")


def _inspect(tmp_path: Path, target: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = test_env(HOME=str(home), PATH=f"{TOOLS / 'bin'}:{test_env()['PATH']}")
    # A stdio target goes after "--" (its own --config would be read as the Inspector's).
    if target[0].startswith("http"):
        cmd = [str(INSPECTOR), "--cli", "-q", *target, *args, "--format", "json"]
    else:
        cmd = [str(INSPECTOR), "--cli", "-q", *args, "--format", "json", "--", *target]
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=90, env=env, stdin=subprocess.DEVNULL
    )


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_inspector_over_stdio(tmp_path: Path, era: str) -> None:
    cfg = write_config(tmp_path / "m.yaml", {"demo": stdio_upstream("basic_server.py")})
    target = [MANIFOLD, "run", "--config", str(cfg)]
    listed = _inspect(tmp_path, target, "--protocol-era", era, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    names = {t["name"] for t in json.loads(listed.stdout)["result"]["tools"]}
    assert "demo__add" in names
    called = _inspect(
        tmp_path, target, "--protocol-era", era, "--method", "tools/call",
        "--tool-name", "demo__add", "--tool-arg", "a=2", "--tool-arg", "b=40",
    )  # fmt: skip
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["result"]["content"][0]["text"] == "42"


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_inspector_over_http(tmp_path: Path, era: str) -> None:
    cfg = write_config(tmp_path / "m.yaml", {"demo": stdio_upstream("basic_server.py")})
    with gateway_http(cfg, tmp_path / "gw.log") as url:
        target = [url, "--transport", "http", "--protocol-era", era]
        called = _inspect(
            tmp_path, target, "--method", "tools/call",
            "--tool-name", "demo__echo", "--tool-arg", "text=hello",
        )  # fmt: skip
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout)["result"]["content"][0]["text"] == "basic:hello"
        missing = _inspect(
            tmp_path, target, "--method", "tools/call", "--tool-name", "nope__nothing"
        )
        assert missing.returncode != 0
