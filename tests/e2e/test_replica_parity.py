"""Replicas behave as their upstream does, end to end through the real `manifold` process:
a call served by any replica of a modern HTTP upstream carries the `Mcp-Param-*` headers its
tool's schema asks for; the catalog comes from any instance that is up, even when the first
never starts; resource subscriptions and `logging/setLevel` reach the replicas too.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_supervision import text_of
from tests.support import PY, SERVERS, free_port, http_server, stdio_upstream

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
        # The gateway lets go of the servers before they stop: a server still holding its
        # connections would wait out its whole stop grace.
        gw.__exit__()


def test_the_catalog_comes_from_a_replica_when_the_first_never_starts(
    gateway: Any, tmp_path: Path
) -> None:
    """The upstream's own instance exits at once on every start; its replica is a working
    server: the tools are listed (from the replica) and calls are served by it."""
    up = stdio_upstream("basic_server.py", restart_backoff_initial=5.0)
    up["replicas"] = [{"args": list(up["args"])}]
    up["args"] = ["-c", "raise SystemExit(3)"]
    gw = gateway({"svc": up}, resilience={"replicas": {}})
    names = {t["name"] for t in gw.call("tools/list", {})["result"]["tools"]}
    assert "svc__echo" in names, (names, gw.log_text()[-2000:])
    assert text_of(gw.tool("svc__echo", {"text": "hi"})) == "basic:hi"
    assert "upstream svc failed to start" in gw.log_text()


def test_a_resource_subscription_hears_every_replica(gateway: Any, tmp_path: Path) -> None:
    """Two replicas, calls in turn: a client subscribed to a resource hears of the change
    each replica makes (each is its own process and knows only its own), not only the
    first's."""
    up = stdio_upstream(
        "conformance_fixture.py", "--watch-interval", "0", "--dynamic-delay", "-1", count=2
    )
    gw = gateway({"svc": up}, resilience={"replicas": {"balance": "round_robin"}})
    uri = "test://watched-resource"
    assert "result" in gw.call("resources/subscribe", {"uri": uri})
    answers = [text_of(gw.tool("svc__test_trigger_resource_update")) for _ in range(4)]
    assert sorted(answers) == sorted(2 * [f"{uri} is at update 1", f"{uri} is at update 2"])

    def updates() -> int:
        with gw.cond:
            return sum(
                1
                for n in gw.notifications
                if n.get("method") == "notifications/resources/updated"
                and n.get("params", {}).get("uri") == uri
            )

    deadline = time.monotonic() + 15
    while updates() < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert updates() == 4, (updates(), gw.log_text()[-2000:])


def test_a_modern_client_gets_a_legacy_replicas_answer_in_its_era(
    gateway: Any, tmp_path: Path
) -> None:
    """The upstream itself never starts and its replica is a legacy-only server: a modern
    client's call is answered in the modern shape (`resultType`), as it is when the upstream
    itself serves it, since the era is taken from the replica that is up."""
    up = stdio_upstream("legacy_server.py", restart_backoff_initial=5.0)
    up["replicas"] = [{"args": list(up["args"])}]
    up["args"] = ["-c", "raise SystemExit(3)"]
    gw = gateway({"old": up}, resilience={"replicas": {}})
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "1"},
    }
    resp = gw.call("tools/call", {"name": "old__hello", "arguments": {}, "_meta": meta})
    assert resp.get("result", {}).get("resultType") == "complete", resp
