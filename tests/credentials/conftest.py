"""The test authorization server (`tests/servers/oauth_server.py`) as a fixture."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import PY, SERVERS, free_port, http_server


def run_server(tmp: Path, *extra: str) -> Iterator[str]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [PY, str(SERVERS / "oauth_server.py"), "--port", str(port), *extra]
    with http_server(cmd, f"{base}/_test/state", tmp / "as.log"):
        yield base


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from run_server(tmp_path_factory.mktemp("as"))
