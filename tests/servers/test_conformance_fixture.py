"""The official MCP conformance suite, run directly against our own conformance fixture.

This pins down the fixture (tests/servers/conformance_fixture.py) that the gateway's own
conformance runs put behind Manifold: if it stops passing on its own, a failure through the
gateway means nothing. Needs the Node tools from `scripts/setup-node-tools.sh`; skipped only
when `.tools/node` does not exist at all.
"""

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "servers" / "conformance_fixture.py"
TOOLS = REPO / ".tools"
NODE_DIR = TOOLS / "node"
CONFORMANCE = NODE_DIR / "node_modules" / ".bin" / "conformance"

STARTUP_TIMEOUT_S = 30.0
SUITE_TIMEOUT_S = 240.0
STOP_TIMEOUT_S = 10.0


def _conformance_mark() -> pytest.MarkDecorator:
    # Until `conformance` is registered under [tool.pytest.ini_options] markers, asking for it
    # warns, and the project's filterwarnings=error would turn that into a collection error.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        return pytest.mark.conformance


pytestmark = [
    _conformance_mark(),
    pytest.mark.skipif(
        not NODE_DIR.is_dir(),
        reason=".tools/node is missing: run scripts/setup-node-tools.sh from the repository root",
    ),
]


def _stop_group(proc: "subprocess.Popen[bytes]") -> None:
    """End a process we started in its own session: SIGTERM its group, then SIGKILL if needed."""
    if proc.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=STOP_TIMEOUT_S)
            break
        except subprocess.TimeoutExpired:
            continue
    # Anything the leader left behind in its group goes too (the group id stays reserved
    # while any member lives, so this reaches only our own processes).
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=STOP_TIMEOUT_S)


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "<no output>"


def _wait_until_serving(proc: "subprocess.Popen[bytes]", port_file: Path, log: Path) -> int:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"fixture exited early with {proc.returncode}:\n{_tail(log)}")
        if port_file.exists():
            port = int(port_file.read_text().strip())
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as resp:
                    if resp.status == 200:
                        return port
            except (urllib.error.URLError, OSError):
                pass
        time.sleep(0.1)
    pytest.fail(f"fixture did not serve within {STARTUP_TIMEOUT_S}s:\n{_tail(log)}")


@pytest.fixture(scope="module")
def fixture_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    assert CONFORMANCE.exists(), f"{CONFORMANCE} missing: re-run scripts/setup-node-tools.sh"
    assert (TOOLS / "bin" / "node").exists(), ".tools/bin/node missing: re-run setup"
    work = tmp_path_factory.mktemp("conformance-fixture")
    port_file = work / "port"
    log = work / "fixture.log"
    with log.open("wb") as log_handle:
        proc = subprocess.Popen(
            [sys.executable, str(FIXTURE), "--http", "--port", "0", "--port-file", str(port_file)],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=log_handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        port = _wait_until_serving(proc, port_file, log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        _stop_group(proc)


@pytest.mark.timeout(SUITE_TIMEOUT_S + 3 * STOP_TIMEOUT_S + STARTUP_TIMEOUT_S)
@pytest.mark.parametrize("requirements", ["2025-11-25", "2026-07-28"])
def test_conformance_suite_passes_against_fixture(
    requirements: str, fixture_url: str, tmp_path: Path
) -> None:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(TOOLS / "bin"), env.get("PATH", "")])
    out = tmp_path / "suite.log"
    cmd = [
        str(CONFORMANCE),
        "server",
        "--url",
        fixture_url,
        "--requirements",
        requirements,
        "-o",
        str(tmp_path / "results"),
    ]
    with out.open("wb") as out_handle:
        suite = subprocess.Popen(
            cmd,
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            code = suite.wait(timeout=SUITE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"conformance ({requirements}) ran over {SUITE_TIMEOUT_S}s:\n{_tail(out)}")
        finally:
            _stop_group(suite)
    report = out.read_text(errors="replace")
    totals = re.findall(r"^Total: .*$", report, flags=re.MULTILINE)
    assert code == 0, f"conformance --requirements {requirements} exited {code}:\n{_tail(out, 80)}"
    assert totals, f"no 'Total:' line in the conformance output:\n{_tail(out)}"
