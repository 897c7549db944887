"""The suite's own health: on a machine without the Node tools (`make tools` not run), every
test that needs them is skipped with the reason, and nothing breaks the collection of the rest.
"""

from __future__ import annotations

import subprocess

from tests.support import PY, REPO, test_env


def test_suite_collects_without_node_tools() -> None:
    env = test_env(MANIFOLD_TEST_TOOLS=str(REPO / "no-such-tools-dir"))
    out = subprocess.run(
        [PY, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "error" not in out.stdout.splitlines()[-1], out.stdout[-3000:]
