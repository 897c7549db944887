"""Replicas behave as their upstream does, end to end through the real `manifold` process:
a call served by any replica of a modern HTTP upstream carries the `Mcp-Param-*` headers its
tool's schema asks for; the catalog comes from any instance that is up, even when the first
never starts; resource subscriptions and `logging/setLevel` reach the replicas too.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_supervision import StdioGateway, text_of
from tests.support import PY, SERVERS, free_port, http_server, write_config

pytestmark = pytest.mark.timeout(120)


@contextlib.contextmanager
def headers_servers(tmp: Path, n: int) -> Iterator[list[str]]:
    """`n` instances of tests/servers/headers_server.py over Streamable HTTP."""
    with contextlib.ExitStack() as stack:
        urls = []
        for i in range(n):
            port = free_port()
            url = f"http://127.0.0.1:{port}/mcp"
            cmd = [PY, str(SERVERS / "headers_server.py"), "--port", str(port)]
            stack.enter_context(http_server(cmd, url, tmp / f"headers-{i}.log"))
            urls.append(url)
        yield urls


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[Any]:
    opened: list[StdioGateway] = []

    def start(upstreams: dict[str, Any], **top: Any) -> StdioGateway:
        cfg = write_config(tmp_path / "m.yaml", upstreams, **top)
        gw = StdioGateway(cfg, tmp_path / "gateway.log")
        opened.append(gw)
        gw.initialize()
        return gw

    yield start
    for gw in opened:
        gw.__exit__()


def test_every_replica_of_a_modern_http_upstream_gets_the_param_headers(
    gateway: Any, tmp_path: Path
) -> None:
    """Two instances of a modern HTTP server, calls spread in turn: each call that reaches
    either one carries `Mcp-Param-Region` with the call's `region` (the header map belongs to
    the upstream, whichever replica serves)."""
    with headers_servers(tmp_path, 2) as (first, second):
        up = {"url": first, "replicas": [{"url": second}]}
        gw = gateway({"hdr": up}, resilience={"replicas": {"balance": "round_robin"}})
        served = []
        for i in range(4):
            seen = json.loads(text_of(gw.tool("hdr__region_headers", {"region": f"eu-{i}"})))
            assert seen.get("mcp-method") == "tools/call", seen  # the modern era upstream
            assert seen.get("mcp-param-region") == f"eu-{i}", (i, seen)
            served.append(seen.get("host"))
        assert len(set(served)) == 2, served  # both replicas served calls
