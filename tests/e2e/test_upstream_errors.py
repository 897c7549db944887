"""An upstream that cannot start says why, in `manifold check`, in the log and in the error a
client gets: a stdio child's exit code and last stderr lines, what was waited for when a
program answers nothing, and for HTTP the cause (refused, DNS, TLS, 401 with a hint)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_supervision import StdioGateway, assert_nothing_left, error_of, text_of
from tests.support import (
    MANIFOLD,
    PY,
    SERVERS,
    free_port,
    http_server,
    stdio_upstream,
    test_env,
    write_config,
)


def test_check_names_the_cause_of_each_failed_upstream(tmp_path: Path) -> None:
    port = free_port()
    server = [PY, str(SERVERS / "status_server.py"), "--port", str(port), "--status", "401"]
    with http_server(server, f"http://127.0.0.1:{port}/", tmp_path / "status.log"):
        cfg = write_config(
            tmp_path / "gw.yaml",
            {
                "ok": stdio_upstream("faulty_server.py"),
                "exits": stdio_upstream(
                    "faulty_server.py", "--starts", str(tmp_path / "n"), "--fail-starts", "99"
                ),
                "silent": stdio_upstream("faulty_server.py", "--silent", connect_timeout=1),
                "refused": {"url": f"http://127.0.0.1:{free_port()}/mcp", "connect_timeout": 5},
                "dns": {"url": "http://no-such-host.invalid/mcp", "connect_timeout": 5},
                "tls": {"url": f"https://127.0.0.1:{port}/mcp", "connect_timeout": 5},
                "auth": {"url": f"http://127.0.0.1:{port}/mcp", "connect_timeout": 5},
                "sseauth": {"url": f"http://127.0.0.1:{port}/sse", "connect_timeout": 5},
            },
        )
        proc = subprocess.run(
            [MANIFOLD, "check", "--config", str(cfg)],
            capture_output=True,
            text=True,
            env=test_env(COLUMNS="200"),
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
    assert proc.returncode != 0
    lines = {ln.split(":", 1)[0]: ln for ln in proc.stdout.splitlines() if ": " in ln}
    out = proc.stdout + proc.stderr

    def line(name: str) -> str:
        assert name in lines, out
        return lines[name]

    assert "exited with code 2" in line("exits"), out
    assert re.search(r"stderr: starting faulty server \| fatal: start \d+ of 99", line("exits")), (
        out
    )
    assert "no answer to initialize within 1 s" in line("silent"), out
    assert "refused" in line("refused") and "127.0.0.1" in line("refused"), out
    assert "cannot resolve host 'no-such-host.invalid'" in line("dns"), out
    assert "TLS handshake" in line("tls"), out
    assert "HTTP 401" in line("auth") and "`headers`" in line("auth"), out
    assert "HTTP 401" in line("sseauth") and "`headers`" in line("sseauth"), out
    assert "ok" not in lines, out  # ready: no error line
    assert "upstreams not ready: " in proc.stderr, out


def test_a_call_to_an_upstream_that_exits_at_start_shows_its_exit_and_stderr(
    tmp_path: Path,
) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {
            "exits": stdio_upstream(
                "faulty_server.py", "--starts", str(tmp_path / "n"), "--fail-starts", "99"
            ),
            "ok": stdio_upstream("faulty_server.py"),
        },
    )
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        err = error_of(gw.tool("exits__pid"))
        assert "exited with code 2" in err["message"], err
        assert "fatal: start" in err["message"], err
        assert err["data"]["reason"] == "upstream_unavailable", err
        assert text_of(gw.tool("ok__echo", {"text": "x"})) == "x"
        log = gw.log_text()
        assert "upstream exits failed to start" in log, log[-3000:]
        assert "exited with code 2; stderr: starting faulty server | fatal: start 1" in log


@pytest.fixture(autouse=True)
def _no_strays() -> Iterator[None]:
    yield
    assert_nothing_left(set(), timeout=15)
