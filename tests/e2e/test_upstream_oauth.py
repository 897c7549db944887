"""Credentials to upstream servers, end to end: a real authorization server with the MCP server
it protects (`tests/servers/oauth_server.py`), `manifold auth login` driven through its printed
URL, and `manifold serve` called by the official `mcp` client with its own API key.

One story per test: the login, a call, the access token expiring (refreshed before its
expiry, then after a 401) without the client noticing, and a revoked refresh token giving a
clear error that names the upstream and the login command (audited), while the gateway keeps
serving the other upstream. The token store on disk is grepped for the tokens.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.support import (
    MANIFOLD,
    PY,
    SERVERS,
    free_port,
    gateway_http,
    http_server,
    spawn,
    stdio_upstream,
    stop_group,
    write_config,
)

API_KEY = "mf_client_key_never_upstream_0123"
_LOGGED_IN = b"<!doctype html><title>manifold</title><p>Logged in. You may close this window.</p>"
SHORT_TTL = 2.0  # seconds: the access tokens issued after the first one


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The authorization server + protected MCP server; yields its base URL."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [PY, str(SERVERS / "oauth_server.py"), "--port", str(port), "--access-ttl", "3600"]
    with http_server(cmd, f"{base}/_test/state", tmp_path / "as.log"):
        yield base


def as_state(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/_test/state", timeout=10) as r:
        data: dict[str, Any] = json.loads(r.read())
    return data


def as_post(base: str, what: str) -> None:
    req = urllib.request.Request(f"{base}/_test/{what}", data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        r.read()


def gateway_config(tmp: Path, base: str) -> Path:
    return write_config(
        tmp / "gw.yaml",
        {
            "prot": {"url": f"{base}/mcp", "oauth": {"refresh_margin": 1.0}},
            "local": stdio_upstream("basic_server.py"),
        },
        state={"path": str(tmp / "state" / "state.db")},
        # The test upstream's `whoami` tool answers with the Authorization header it received,
        # so that the test can see which token reached it; secret redaction (on by default)
        # would rightly hide it from the client.
        security={"audit": {"path": str(tmp / "audit.jsonl")}, "redaction": {"enabled": False}},
        auth={"keys": [{"sha256": hashlib.sha256(API_KEY.encode()).hexdigest(), "tenant": "t"}]},
    )


def login(config: Path, log: Path, *extra: str) -> str:
    """`manifold auth login prot --no-browser`; the printed URL is followed by an HTTP client
    (the test server approves at once and redirects to the CLI's loopback listener). With
    `--device`, the printed verification URL is visited (which approves the code)."""
    cmd = [MANIFOLD, "auth", "login", "prot", "-c", str(config), "--no-browser", *extra]
    proc = spawn(cmd, log)
    where = r"/device\?user_code=" if "--device" in extra else r"/authorize\?"
    try:
        deadline = time.monotonic() + 30
        url = None
        while url is None and time.monotonic() < deadline and proc.poll() is None:
            m = re.search(rf"^(http://\S+{where}\S+)$", log.read_text(), re.M)
            url = m.group(1) if m else None
            time.sleep(0.05)
        assert url is not None, log.read_text()
        with urllib.request.urlopen(url, timeout=10) as r:
            assert r.read() in (b"approved", _LOGGED_IN)
        assert proc.wait(timeout=30) == 0, log.read_text()
    except subprocess.TimeoutExpired:
        raise AssertionError(log.read_text()) from None
    finally:
        stop_group(proc)
    return log.read_text()


def auth_status(config: Path) -> subprocess.CompletedProcess[str]:
    cmd = [MANIFOLD, "auth", "status", "-c", str(config)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


def client(url: str, key: str = API_KEY) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30)
    return Client(streamable_http_client(url, http_client=http), cache=None)


async def whoami(c: Client) -> str:
    res = await c.call_tool("prot__whoami", {})
    assert not res.is_error, res
    text: str = res.content[0].text  # type: ignore[union-attr]
    return text


def audit_entries(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def test_login_call_refresh_and_revocation(tmp_path: Path, server: str) -> None:
    config = gateway_config(tmp_path, server)
    out = login(config, tmp_path / "login.log")
    assert "logged in to prot (with a refresh token" in out
    status = await asyncio.to_thread(auth_status, config)
    assert status.returncode == 0, status.stderr
    assert re.search(r"^prot\t-\tin \d+ s\tyes$", status.stdout, re.M), status.stdout
    for tok in as_state(server)["issued"]["access"] + as_state(server)["issued"]["refresh"]:
        assert tok not in status.stdout
    with gateway_http(config, tmp_path / "gw.log") as url:
        async with asyncio.timeout(60), client(url) as c:
            first = await whoami(c)
            assert first.startswith("Bearer at-")
            assert API_KEY not in first  # the client's own token never goes upstream
            state = as_state(server)
            assert state["refreshes"] == 0
            refused = state["unauthorized"]  # the login's discovery probe was one

            # The server stops honouring every access token: a 401, a refresh, one retry; the
            # client sees only its answer. The new token lives SHORT_TTL seconds.
            as_post(server, f"ttl?seconds={SHORT_TTL}")
            as_post(server, "expire")
            second = await whoami(c)
            assert second != first and second.startswith("Bearer at-")
            state = as_state(server)
            assert state["refreshes"] == 1 and state["unauthorized"] == refused + 1
            assert state["issued"]["access"][-1] == second.removeprefix("Bearer ")

            # Past its expiry (less refresh_margin): refreshed before the request is sent, so
            # the upstream never sees the stale token (no second 401).
            await asyncio.sleep(SHORT_TTL)
            third = await whoami(c)
            assert third not in (first, second)
            state = as_state(server)
            assert state["refreshes"] == 2 and state["unauthorized"] == refused + 1

            # The grant is revoked: the refresh is refused, and the call says what to do.
            as_post(server, "revoke")
            with pytest.raises(MCPError) as err:
                await whoami(c)
            msg = err.value.error.message
            assert "'prot'" in msg and "manifold auth login prot" in msg
            data = err.value.error.data
            assert isinstance(data, dict) and data["reason"] == "upstream_auth"
            assert data["login"] == "manifold auth login prot"
            assert as_state(server)["refused_refreshes"] >= 1

            # The gateway keeps serving: the other upstream answers.
            res = await c.call_tool("local__echo", {"text": "still here"})
            assert not res.is_error and "still here" in res.content[0].text  # type: ignore[union-attr]

            # The next call gets the same error at once: the server is not asked again.
            refused = as_state(server)["refused_refreshes"]
            with pytest.raises(MCPError) as err:
                await whoami(c)
            assert "manifold auth login prot" in err.value.error.message
            assert as_state(server)["refused_refreshes"] == refused

            # Logging in again is picked up by the running gateway, without a restart.
            await asyncio.to_thread(login, config, tmp_path / "login2.log")
            deadline = time.monotonic() + 20
            while True:
                try:
                    fourth = await whoami(c)
                    break
                except MCPError:
                    assert time.monotonic() < deadline, "the new login was not picked up"
                    await asyncio.sleep(0.3)
            assert fourth == "Bearer " + as_state(server)["issued"]["access"][-1]

    log = (tmp_path / "gw.log").read_text()
    assert "manifold auth login prot" in log
    failed = [
        e for e in audit_entries(tmp_path / "audit.jsonl") if e["event"] == "upstream_auth_failed"
    ]
    assert failed and failed[0]["upstream"] == "prot" and "invalid_grant" in failed[0]["detail"]

    # Encrypted at rest: neither an access nor a refresh token is in any file of the state folder.
    tokens = as_state(server)["issued"]
    files = [p for p in (tmp_path / "state").iterdir() if p.is_file()]
    assert any(p.name == "tokens.db" for p in files)
    key = tmp_path / "state" / "token.key"
    assert key.stat().st_mode & 0o077 == 0
    for p in files:
        blob = p.read_bytes()
        for tok in tokens["access"] + tokens["refresh"]:
            assert tok.encode() not in blob, f"{tok} in clear in {p.name}"


async def test_without_login_the_call_names_the_command(tmp_path: Path, server: str) -> None:
    config = gateway_config(tmp_path, server)
    with gateway_http(config, tmp_path / "gw.log") as url:
        async with asyncio.timeout(60), client(url) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert "local__echo" in names and "prot__whoami" not in names
            with pytest.raises(MCPError) as err:
                await c.call_tool("prot__whoami", {})
            assert "manifold auth login prot" in err.value.error.message
    assert "never logged in" in (tmp_path / "gw.log").read_text()


def team_key(tenant: str) -> str:
    return f"{tenant}-client-key-0123456789abcdef"


async def test_each_tenant_logs_in_as_itself(tmp_path: Path, server: str) -> None:
    config = write_config(
        tmp_path / "gw.yaml",
        {"prot": {"url": f"{server}/mcp", "oauth": {"per_tenant": True}}},
        security={"redaction": {"enabled": False}},  # whoami echoes the token it received
        state={"path": str(tmp_path / "state" / "state.db")},
        auth={
            "keys": [
                {"sha256": hashlib.sha256(team_key(t).encode()).hexdigest(), "tenant": t}
                for t in ("red", "blue", "green")
            ]
        },
        tenants={"profiles": {"red": {}, "blue": {}, "green": {}}},
    )
    issued: dict[str, str] = {}
    for who in ("", "red", "blue"):  # "": the login that reads the catalog
        out = login(config, tmp_path / f"login-{who}.log", *(["--tenant", who] if who else []))
        assert f"logged in to prot{' as tenant ' + who if who else ''} (" in out
        issued[who] = as_state(server)["issued"]["access"][-1]
    with gateway_http(config, tmp_path / "gw.log") as url:
        for tenant in ("red", "blue"):
            async with asyncio.timeout(60), client(url, team_key(tenant)) as c:
                assert await whoami(c) == f"Bearer {issued[tenant]}"
        async with asyncio.timeout(60), client(url, team_key("green")) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert "prot__whoami" in names  # the catalog was read with the "" login
            with pytest.raises(MCPError) as err:
                await whoami(c)
            assert "manifold auth login prot --tenant green" in err.value.error.message
    seen = as_state(server)["seen"]
    assert issued[""] in seen and issued["red"] in seen and issued["blue"] in seen


async def test_device_flow_login(tmp_path: Path, server: str) -> None:
    config = gateway_config(tmp_path, server)
    out = login(config, tmp_path / "login.log", "--device")
    assert "and enter the code " in out
    assert "logged in to prot (with a refresh token" in out
    with gateway_http(config, tmp_path / "gw.log") as url:
        async with asyncio.timeout(60), client(url) as c:
            assert await whoami(c) == "Bearer " + as_state(server)["issued"]["access"][-1]


@pytest.mark.parametrize(
    "endpoint",
    ["file:///etc/passwd", "javascript:alert(1)//", "ms-msdt:/id PCWDiagnostic", "http://h/\na"],
)
def test_a_hostile_authorization_endpoint_is_never_opened(tmp_path: Path, endpoint: str) -> None:
    """The authorization server's metadata names the URL the CLI prints and opens in a browser:
    one that is not http(s) (a local file, a script, an OS URL handler) is refused, unopened."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [PY, str(SERVERS / "oauth_server.py"), "--port", str(port)]
    with http_server(
        [*cmd, "--authorize-endpoint", endpoint], f"{base}/_test/state", tmp_path / "as.log"
    ):
        config = gateway_config(tmp_path, base)
        out = subprocess.run(
            [MANIFOLD, "auth", "login", "prot", "-c", str(config), "--no-browser", "--wait", "5"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert out.returncode != 0
    assert "authorization_endpoint" in out.stderr and "http" in out.stderr, out.stderr
    assert endpoint.split("\n")[0] not in out.stdout + out.stderr.split("authorization_endpoint")[0]


@pytest.mark.parametrize("discovery", [[], ["--openid-only"]], ids=["rfc8414", "openid"])
def test_metadata_naming_another_issuer_is_refused(tmp_path: Path, discovery: list[str]) -> None:
    """The authorization server's metadata (RFC 8414, or OpenID discovery) must name as its
    `issuer` the URL it was fetched for: metadata naming another (a mix-up attack, pointing
    the login at another server's endpoints) refuses the login with a clear error."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [PY, str(SERVERS / "oauth_server.py"), "--port", str(port), *discovery]
    with http_server(
        [*cmd, "--issuer", "https://login.attacker.example"],
        f"{base}/_test/state",
        tmp_path / "as.log",
    ):
        config = gateway_config(tmp_path, base)
        out = subprocess.run(
            [MANIFOLD, "auth", "login", "prot", "-c", str(config), "--no-browser", "--wait", "5"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        issued = as_state(base)["issued"]
    assert out.returncode != 0
    assert "names the issuer 'https://login.attacker.example', not " in out.stderr, out.stderr
    assert f"{base}'" in out.stderr and "/authorize?" not in out.stdout
    assert issued == {"access": [], "refresh": []}
