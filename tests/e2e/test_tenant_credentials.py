"""Per-tenant credentials to upstreams, end to end: `manifold serve` with API keys for four
tenants, a Streamable HTTP upstream that reports the headers it received, and a stdio upstream
that reports its environment. `${tenant.team_token}` in the upstream's headers and env is each
tenant's own value: each reaches the HTTP server with its header and gets a stdio process of
its own; a tenant without the value, or one past `max_tenants`, gets a clear error.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.support import (
    MARK,
    PY,
    SERVERS,
    free_port,
    gateway_http,
    http_server,
    stdio_upstream,
    write_config,
)

TENANTS = ("red", "blue", "green", "grey", "pink")
KEYS = {t: f"{t}-client-key-0123456789abcdef" for t in TENANTS}
TOKENS = {t: f"{t}-upstream-secret" for t in TENANTS if t != "green"}


@pytest.fixture(scope="module")
def gw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("tenantcreds")
    port = free_port()
    up_url = f"http://127.0.0.1:{port}/mcp"
    cmd = [PY, str(SERVERS / "headers_server.py"), "--port", str(port)]
    profiles: dict[str, Any] = {t: {} for t in KEYS}
    for t, tok in TOKENS.items():
        profiles[t]["credentials"] = {"team_token": tok}
    cfg = write_config(
        tmp / "gw.yaml",
        {
            "hdr": {
                "url": up_url,
                "headers": {"X-Team-Token": "${tenant.team_token}"},
                "catalog_tenant": "red",
                "max_tenants": 2,
            },
            "env": stdio_upstream(
                "env_server.py",
                env={"MANIFOLD_TEST_MARK": MARK, "TEAM_TOKEN": "${tenant.team_token}"},
                catalog_tenant="red",
            ),
            "slow": stdio_upstream(
                "env_server.py",
                env={"MANIFOLD_TEST_MARK": MARK, "TEAM_TOKEN": "${tenant.team_token}"},
                catalog_tenant="red",
                timeout=1,
                restart_after_timeouts=1,
            ),
        },
        auth={
            "keys": [
                {"sha256": hashlib.sha256(k.encode()).hexdigest(), "tenant": t}
                for t, k in KEYS.items()
            ]
        },
        tenants={"profiles": profiles},
        # The test upstreams answer with the credentials they received, so that the test can
        # see which reached them; secret redaction (on by default) would rightly hide them.
        security={"redaction": {"enabled": False}},
    )
    with http_server(cmd, up_url, tmp / "up.log"), gateway_http(cfg, tmp / "gw.log") as url:
        yield url


def client(url: str, tenant: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEYS[tenant]}"}, timeout=30)
    return Client(streamable_http_client(url, http_client=http), cache=None)


def text(res: Any) -> str:
    assert not res.is_error, res
    return str(res.content[0].text)


async def test_each_tenant_reaches_the_upstreams_as_itself(gw: str) -> None:
    pids = {}
    for tenant in ("red", "blue"):
        async with asyncio.timeout(60), client(gw, tenant) as c:
            seen = json.loads(text(await c.call_tool("hdr__seen_headers", {})))
            assert seen["x-team-token"] == TOKENS[tenant]
            assert KEYS[tenant] not in json.dumps(seen)  # the client's own key stays here
            assert "authorization" not in seen
            env = text(await c.call_tool("env__env", {"name": "TEAM_TOKEN"}))
            assert env == TOKENS[tenant]
            pids[tenant] = text(await c.call_tool("env__pid", {}))
    assert pids["red"] != pids["blue"]  # a process per tenant
    # The same tenant again: its own process, still running.
    async with asyncio.timeout(60), client(gw, "blue") as c:
        assert text(await c.call_tool("env__pid", {})) == pids["blue"]


async def test_a_tenant_without_the_value_is_told_which_key(gw: str) -> None:
    async with asyncio.timeout(60), client(gw, "green") as c:
        with pytest.raises(MCPError) as err:
            await c.call_tool("hdr__seen_headers", {})
        assert "tenants.profiles.green.credentials.team_token" in err.value.error.message
        assert "'hdr'" in err.value.error.message


async def test_sessions_per_tenant_are_capped(gw: str) -> None:
    # red reads the catalog (the shared session); blue and grey fill hdr's max_tenants (2).
    for tenant in ("blue", "grey"):
        async with asyncio.timeout(60), client(gw, tenant) as c:
            seen = json.loads(text(await c.call_tool("hdr__seen_headers", {})))
            assert seen["x-team-token"] == TOKENS[tenant]
    async with asyncio.timeout(60), client(gw, "pink") as c:
        with pytest.raises(MCPError) as err:
            await c.call_tool("hdr__seen_headers", {})
        msg = err.value.error.message
        assert "'hdr'" in msg and "max_tenants" in msg
        # The other upstream has room: pink reaches it as itself.
        assert text(await c.call_tool("env__env", {"name": "TEAM_TOKEN"})) == TOKENS["pink"]
    async with asyncio.timeout(60), client(gw, "red") as c:  # the catalog tenant still calls
        seen = json.loads(text(await c.call_tool("hdr__seen_headers", {})))
        assert seen["x-team-token"] == TOKENS["red"]


async def test_a_wedged_tenant_session_is_replaced(gw: str) -> None:
    async with asyncio.timeout(60), client(gw, "blue") as c:
        first = text(await c.call_tool("slow__pid", {}))
        with pytest.raises(MCPError, match="did not answer"):
            await c.call_tool("slow__sleep", {"seconds": 5})
        # restart_after_timeouts 1: that tenant's process was retired; the next call starts one.
        second = text(await c.call_tool("slow__pid", {}))
        assert second != first
        assert text(await c.call_tool("slow__env", {"name": "TEAM_TOKEN"})) == TOKENS["blue"]
