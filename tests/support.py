"""Shared helpers for tests that run real processes: spawn in a process group, wait bounded,
reap the whole group, write gateway configs, and find free ports.

Every process a test starts carries MANIFOLD_TEST_MARK in its environment (test configs pass
it on to upstreams too), so the session can prove at the end that nothing was left behind.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
MANIFOLD = str(Path(sys.executable).parent / "manifold")
SERVERS = REPO / "tests" / "servers"
# The Node tools (`make tools`); MANIFOLD_TEST_TOOLS points elsewhere (a run without them).
TOOLS = Path(os.environ.get("MANIFOLD_TEST_TOOLS") or REPO / ".tools")
NODE = TOOLS / "bin" / "node"
NODE_MODULES = TOOLS / "node" / "node_modules"
EVERYTHING_JS = NODE_MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"


def _run_mark() -> str:
    """This run's mark, inherited by whatever a test starts (which may import this module too).
    Under pytest-xdist each worker is a run of its own: the workers inherit the controller's
    mark, and each adds its name, so a worker's leftover check sees only its own processes."""
    mark = os.environ.get("MANIFOLD_TEST_MARK") or f"run-{os.getpid()}-{int(time.time())}"
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and not mark.endswith(f"-{worker}"):
        mark = f"{mark}-{worker}"
    os.environ["MANIFOLD_TEST_MARK"] = mark
    return mark


MARK = _run_mark()


def _port_band() -> range:
    """This test process's own band of ports, below the kernel's ephemeral range.

    A port the kernel hands out for `bind(0)` is also one it may hand to the next outgoing
    connection, or to another xdist worker, before the server under test binds it; the server
    then fails to start while another process answers on its port. Each worker draws from a
    band of its own that outgoing connections never use."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    index = int(worker) if worker.isdigit() else 0
    size = 600
    start = 10000 + (index % 16) * size
    if start + size > low:  # an unusual ephemeral range: no room below it
        return range(0)
    return range(start, start + size)


_BAND = _port_band()
_NEXT = [random.randrange(len(_BAND))] if _BAND else [0]


def free_port() -> int:
    """A port nothing listens on, from this process's band (see `_port_band`)."""
    for _ in range(len(_BAND)):
        port = _BAND[_NEXT[0] % len(_BAND)]
        _NEXT[0] += 1
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use, or lingering in TIME_WAIT
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["MANIFOLD_TEST_MARK"] = MARK
    env.update(extra)
    return env


test_env.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


def run_params(config: Path, *extra: str, cwd: Path | None = None) -> Any:
    """How the official `mcp` client starts `manifold run --config CONFIG` over stdio, as an
    IDE would (a `StdioServerParameters`; the SDK is imported here only when it is used)."""
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(
        command=MANIFOLD,
        args=["run", "--config", str(config), *extra],
        env=test_env(),
        cwd=str(cwd or REPO),
    )


def spawn(cmd: list[str], log: Path | None = None, **kw: Any) -> subprocess.Popen[bytes]:
    """Start `cmd` in its own session (process group), stdout/stderr to `log`."""
    out: Any = subprocess.DEVNULL
    if log is not None:
        out = log.open("ab")
    kw.setdefault("env", test_env())
    kw.setdefault("stdin", subprocess.DEVNULL)
    try:
        return subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **kw
        )
    finally:
        if log is not None:
            out.close()


def stop_group(proc: subprocess.Popen[Any], sig: int = signal.SIGTERM, grace: float = 10.0) -> None:
    """Signal the group, wait bounded, then SIGKILL whatever is left of it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def wait_http(url: str, timeout: float = 30.0, proc: subprocess.Popen[Any] | None = None) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before {url} answered")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answered
        except (urllib.error.URLError, OSError) as e:
            last = e
        time.sleep(0.05)
    raise TimeoutError(f"{url} did not answer within {timeout}s: {last}")


def stdio_upstream(script: str, *args: str, **extra: Any) -> dict[str, Any]:
    """Config for a test upstream script in tests/servers/ run over stdio."""
    cfg: dict[str, Any] = {
        "command": PY,
        "args": [str(SERVERS / script), *args],
        "env": {"MANIFOLD_TEST_MARK": MARK},
    }
    cfg.update(extra)
    return cfg


def everything_stdio(**extra: Any) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "command": str(NODE),
        "args": [str(EVERYTHING_JS), "stdio"],
        "env": {"MANIFOLD_TEST_MARK": MARK},
    }
    cfg.update(extra)
    return cfg


def write_config(path: Path, upstreams: dict[str, Any], **top: Any) -> Path:
    """A gateway config; tests see every tool (passthrough) unless they ask otherwise."""
    top.setdefault("exposure", {"mode": "passthrough"})
    top.setdefault("state", {"path": ""})
    path.write_text(yaml.safe_dump({**top, "upstreams": upstreams}, sort_keys=False))
    return path


@contextlib.contextmanager
def http_server(
    cmd: list[str], url: str, log: Path, timeout: float = 30.0
) -> Iterator[subprocess.Popen[bytes]]:
    """Run a server process until the block ends; `url` must answer before the block starts."""
    proc = spawn(cmd, log)
    try:
        try:
            wait_http(url, timeout, proc)
        except (TimeoutError, RuntimeError) as e:
            raise RuntimeError(
                f"{e}\n--- log ---\n{log.read_text(errors='replace')[-3000:]}"
            ) from None
        if proc.poll() is not None:  # something else answered on its port
            raise RuntimeError(
                f"{cmd[0]} exited with {proc.returncode} although {url} answered\n--- log ---\n"
                f"{log.read_text(errors='replace')[-3000:]}"
            )
        yield proc
    finally:
        stop_group(proc)


@contextlib.contextmanager
def gateway_http(config: Path, log: Path, *extra: str) -> Iterator[str]:
    """`manifold serve` on a free port; yields its /mcp URL."""
    port = free_port()
    cmd = [
        MANIFOLD,
        "serve",
        "--config",
        str(config),
        "--port",
        str(port),
        "--log-level",
        "info",
        *extra,
    ]
    with http_server(cmd, f"http://127.0.0.1:{port}/health", log):
        yield f"http://127.0.0.1:{port}/mcp"


def marked_pids() -> list[int]:
    """Live processes (other than this one) that carry this run's mark."""
    found = []
    needle = f"MANIFOLD_TEST_MARK={MARK}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if needle in environ.split(b"\0") and ") Z" not in stat:
            found.append(int(entry.name))
    return found


def recording_sampler(asked: dict[str, list[str]], who: str) -> Any:
    """A sampling callback for client `who`: records the question, answers "answer for <who>"."""
    from mcp import types

    async def callback(_ctx: Any, params: types.CreateMessageRequestParams) -> Any:
        content = params.messages[0].content
        asked.setdefault(who, []).append(
            content.text if isinstance(content, types.TextContent) else "?"
        )
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"answer for {who}"),
            model="test",
        )

    return callback
