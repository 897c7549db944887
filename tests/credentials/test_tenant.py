"""Per-tenant credentials: which profile a principal's values come from, the filled config,
the config errors that name the key, and that nothing of `credentials` is imported when no
upstream has credentials of this kind."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from manifold.config import ConfigError, parse_config
from manifold.credentials.upstreams import UpstreamCredentials
from manifold.protocol import jsonrpc as rpc
from tests.support import REPO

UP = {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Token": "Bearer ${tenant.tok}"}}


def config(up: dict[str, Any] | None = None, **tenants: Any) -> Any:
    profiles = {
        "red": {"credentials": {"tok": "${RED_TOK}"}},
        "blue": {"credentials": {"tok": "blue-value"}},
        "plain": {},
    }
    data = {
        "state": {"path": ""},
        "upstreams": {"gh": up or UP},
        "tenants": {"profiles": profiles, **tenants},
    }
    return parse_config(data, env={"RED_TOK": "red-value"})


def test_each_principal_gets_its_profiles_values() -> None:
    creds = UpstreamCredentials(config(default="red"))
    opener = creds.opener("gh")
    assert opener is not None
    assert creds.shared_config("gh").headers == {"X-Token": "Bearer red-value"}
    assert opener("red")[0] == ""  # the catalog tenant uses the shared session
    key, cfg, auth = opener("blue")
    assert (key, cfg.headers, auth) == ("blue", {"X-Token": "Bearer blue-value"}, None)
    assert opener("someone")[0] == ""  # no profile of its own: the default's, shared
    with pytest.raises(rpc.RpcError, match=r"set tenants\.profiles\.plain\.credentials\.tok"):
        opener("plain")


def test_without_a_default_a_stranger_is_refused() -> None:
    creds = UpstreamCredentials(config({**UP, "catalog_tenant": "red"}))
    opener = creds.opener("gh")
    assert opener is not None
    with pytest.raises(rpc.RpcError, match="'someone' has no tenant profile"):
        opener("someone")


@pytest.mark.parametrize(
    ("up", "tenants", "message"),
    [
        (UP, {}, r"upstreams\.gh\.catalog_tenant: its catalog is read as one tenant"),
        ({**UP, "catalog_tenant": "nobody"}, {}, r"'nobody' is not a profile"),
        ({**UP, "catalog_tenant": "plain"}, {}, r"tenants\.profiles\.plain\.credentials\.tok"),
        (
            {**UP, "isolation": "per_client"},
            {"default": "red"},
            "'isolation: per_client' cannot be combined",
        ),
        (
            {"url": UP["url"], "oauth": {}, "headers": {"authorization": "x"}},
            {},
            "either 'oauth' or an Authorization header",
        ),
        ({"command": "x", "oauth": {}}, {}, "'oauth' needs a streamable HTTP upstream"),
        ({**UP, "max_tenants": 0}, {"default": "red"}, "max_tenants"),
    ],
)
def test_bad_config_names_the_key(up: dict[str, Any], tenants: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config(up, **tenants)


def test_without_tenants_per_tenant_values_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"upstreams\.gh: per-tenant credentials need 'tenants'"):
        parse_config({"upstreams": {"gh": UP}}, env={})


def test_nothing_of_it_is_imported_when_off() -> None:
    code = (
        "import sys\n"
        "from manifold.config import parse_config\n"
        "from manifold.gateway import Gateway\n"
        "cfg = parse_config({'state': {'path': ''}, 'upstreams': {'a': {'url': 'http://127.0.0.1:9/mcp'}}})\n"
        "Gateway(cfg)\n"
        "print(sorted(m for m in sys.modules if m.startswith('manifold.credentials')))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
