"""The authenticator on its own, with a real JWKS endpoint and real tokens: the verification
cache is bounded and never outlives a token, keys come hashed or from the environment, and
`manifold auth hash-key` makes the digest the config takes."""

from __future__ import annotations

import asyncio
import hashlib
import subprocess

import pytest

from manifold.config import AuthConfig
from manifold.identity.authn import Authenticator, AuthError, hash_key
from tests.identity.issuer import ISSUER, Issuer
from tests.support import MANIFOLD, test_env

AUD = "https://gw.test/mcp"


def _auth(jwks_url: str, **extra: object) -> Authenticator:
    cfg = AuthConfig.model_validate(
        {"oauth": {"issuer": ISSUER, "jwks_url": jwks_url, "leeway": 0}, **extra}
    )
    return Authenticator(cfg, AUD)


async def test_the_cache_is_bounded_and_dies_with_the_token() -> None:
    iss = Issuer()
    key = iss.add_key("ES256", "k1")
    with iss.serve() as url:
        auth = _auth(url, cache_size=2)
        tokens = [iss.token(key, AUD, sub=f"u{i}") for i in range(3)]
        for t in tokens:
            who = await auth.authenticate(f"Bearer {t}", "")
            assert who.tenant == who.subject
        assert len(auth.cache) == 2
        assert hashlib.sha256(tokens[0].encode()).digest() not in auth.cache  # the oldest
        short = iss.token(key, AUD, sub="brief", lifetime=1)
        assert (await auth.authenticate(f"Bearer {short}", "")).subject == "brief"
        await asyncio.sleep(1.6)
        with pytest.raises(AuthError, match="expired"):
            await auth.authenticate(f"Bearer {short}", "")
        assert iss.fetches == 1


async def test_tenant_from_a_group_claim_and_a_default() -> None:
    iss = Issuer()
    key = iss.add_key("RS256", "k1")
    with iss.serve() as url:
        cfg = AuthConfig.model_validate(
            {
                "oauth": {
                    "issuer": ISSUER,
                    "jwks_url": url,
                    "tenant_claim": "groups",
                    "tenants": {"eng": "engineering"},
                    "default_tenant": "guests",
                }
            }
        )
        auth = Authenticator(cfg, AUD)
        t = iss.token(key, AUD, groups=["staff", "eng"])
        assert (await auth.authenticate(f"Bearer {t}", "")).tenant == "engineering"
        t = iss.token(key, AUD, groups=["staff"])
        assert (await auth.authenticate(f"Bearer {t}", "")).tenant == "guests"


async def test_keys_hashed_or_from_the_environment() -> None:
    cfg = AuthConfig.model_validate(
        {
            "keys": [
                {"sha256": hash_key("first-key-123"), "tenant": "a", "name": "ci"},
                {"env": "SECOND_KEY", "tenant": "b"},
            ]
        }
    )
    auth = Authenticator(cfg, AUD, env={"SECOND_KEY": "second-key-456"})
    assert (await auth.authenticate("Bearer first-key-123", "")).subject == "ci"
    assert (await auth.authenticate("bearer second-key-456", "")).tenant == "b"
    with pytest.raises(AuthError, match="unknown API key"):
        await auth.authenticate("Bearer second-key-457", "")
    with pytest.raises(ValueError, match="SECOND_KEY is not set"):
        Authenticator(cfg, AUD, env={})


def test_config_refuses_none_and_hs_algorithms() -> None:
    from pydantic import ValidationError

    for algs in (["none"], ["RS256", "HS256"]):
        with pytest.raises(ValidationError, match="asymmetric algorithms only"):
            AuthConfig.model_validate(
                {"oauth": {"issuer": ISSUER, "jwks_url": "http://x/j", "algorithms": algs}}
            )
    with pytest.raises(ValidationError, match="either 'sha256'"):
        AuthConfig.model_validate({"keys": [{"tenant": "a"}]})


def test_hash_key_command() -> None:
    out = subprocess.run(
        [MANIFOLD, "auth", "hash-key"],
        input="my-secret-key\n",
        capture_output=True,
        text=True,
        timeout=30,
        env=test_env(),
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"sha256: {hash_key('my-secret-key')}"
    out = subprocess.run(
        [MANIFOLD, "auth", "hash-key", "--generate"],
        capture_output=True,
        text=True,
        timeout=30,
        env=test_env(),
        stdin=subprocess.DEVNULL,
    )
    key_line, sha_line = out.stdout.strip().splitlines()
    key = key_line.split()[-1]
    assert key.startswith("mf_") and len(key) > 40
    assert sha_line == f"sha256: {hash_key(key)}"


def test_bad_config_names_the_key() -> None:
    from manifold.config import ConfigError, parse_config

    cases = [
        (
            {
                "auth": {
                    "oauth": {"issuer": ISSUER, "jwks_url": "http://j/", "algorithms": ["none"]}
                }
            },
            "auth.oauth.algorithms: list asymmetric algorithms only",
        ),
        ({"auth": {"keys": [{"sha256": "abc", "tenant": "a"}]}}, "auth.keys.0.sha256"),
        ({"tenants": {"default": "nobody"}}, "tenants: default 'nobody' is not one of profiles"),
        (
            {"tenants": {"profiles": {"a": {"rename": {"x__y": "bad name"}}}}},
            "tenants.profiles.a.rename: new name 'bad name'",
        ),
        ({"ratelimits": {"default": {"calls_per_minit": 5}}}, "ratelimits.default.calls_per_minit"),
    ]
    for data, message in cases:
        with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
            parse_config(data, env={})


def test_nothing_of_it_is_imported_when_off() -> None:
    import os
    import sys

    from tests.support import REPO

    code = (
        "import asyncio, sys\n"
        "from manifold.config import parse_config\n"
        "from manifold.gateway import Gateway\n"
        "from manifold.downstream.http import HttpFront\n"
        "async def main():\n"
        "    cfg = parse_config({'http': {'port': 0}, 'state': {'path': ''}})\n"
        "    front = HttpFront(Gateway(cfg))\n"
        "    await front.start()\n"
        "    await front.stop()\n"
        "asyncio.run(main())\n"
        "mods = {'jwt', 'cryptography', 'manifold.identity.authn', 'manifold.identity.jwks',\n"
        "        'manifold.identity.tenants', 'manifold.identity.ratelimit'}\n"
        "print(sorted(mods & set(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
