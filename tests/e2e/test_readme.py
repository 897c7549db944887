"""The README as a newcomer reads it: every config block it shows is accepted by
`manifold check --offline`, the command a user runs on a config before starting anything.

A YAML block that is a whole config (it has `upstreams`) is checked as it is; one that shows a
few top-level keys is checked with one stdio upstream added (the keys are what is tested). A
JSON block with `mcpServers` is a client's file, which `--config` takes as it is.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import MANIFOLD, REPO, stdio_upstream, test_env

pytestmark = pytest.mark.timeout(120)

README = REPO / "README.md"
_FENCE = re.compile(r"^```(yaml|json)\n(.*?)^```", re.S | re.M)


def _blocks() -> list[tuple[str, int, str]]:
    text = README.read_text(encoding="utf-8")
    return [
        (m.group(1), text.count("\n", 0, m.start()) + 1, m.group(2)) for m in _FENCE.finditer(text)
    ]


def _config_blocks() -> list[Any]:
    out = []
    for kind, line, body in _blocks():
        if kind == "json" and "mcpServers" not in body:
            continue
        out.append(pytest.param(kind, body, id=f"README.md:{line}"))
    return out


def test_the_readme_shows_config_blocks() -> None:
    kinds = [p.values[0] for p in _config_blocks()]
    assert kinds.count("yaml") >= 2 and kinds.count("json") >= 2, kinds


@pytest.mark.parametrize(("kind", "body"), _config_blocks())
def test_each_readme_config_block_is_accepted(tmp_path: Path, kind: str, body: str) -> None:
    if kind == "yaml":
        data = yaml.safe_load(body)
        assert isinstance(data, dict), body
        if "upstreams" not in data:
            data["upstreams"] = {"demo": stdio_upstream("basic_server.py")}
        cfg = tmp_path / "manifold.yaml"
        cfg.write_text(yaml.safe_dump(data), encoding="utf-8")
    else:
        cfg = tmp_path / "mcp.json"
        cfg.write_text(json.dumps(json.loads(body)), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    # The variables the README's examples name, as a user would have set them.
    env = test_env(
        HOME=str(home),
        GITHUB_TOKEN="ghp-example",
        SEARCH_TOKEN="search-example",
        BACKEND_GITHUB_TOKEN="ghp-backend-example",
        MANIFOLD_SECRET="a-secret-shared-by-the-gateways",
    )
    out = subprocess.run(
        [MANIFOLD, "check", "--config", str(cfg), "--offline"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("config OK:"), out.stdout
