"""The authenticator on its own, with a real JWKS endpoint and real tokens: the verification
cache is bounded and never outlives a token, keys come hashed or from the environment, and
`manifold auth hash-key` makes the digest the config takes."""

from __future__ import annotations

import asyncio
import hashlib
import subprocess
from typing import Any

import pytest

from manifold.config import AuthConfig, ConfigError, parse_config
from manifold.identity.authn import Authenticator, AuthError, hash_key
from tests.identity.issuer import ISSUER, Issuer, SigningKey
from tests.support import MANIFOLD, test_env

AUD = "https://gw.test/mcp"


def _auth(
    jwks_url: str, oauth_extra: dict[str, Any] | None = None, **extra: object
) -> Authenticator:
    oauth = {"issuer": ISSUER, "jwks_url": jwks_url, "leeway": 0, **(oauth_extra or {})}
    cfg = AuthConfig.from_data({"oauth": oauth, **extra})
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
        cfg = AuthConfig.from_data(
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
    cfg = AuthConfig.from_data(
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
    for algs in (["none"], ["RS256", "HS256"]):
        with pytest.raises(ConfigError, match="asymmetric algorithms only"):
            AuthConfig.from_data(
                {"oauth": {"issuer": ISSUER, "jwks_url": "http://x/j", "algorithms": algs}}
            )
    with pytest.raises(ConfigError, match="either 'sha256'"):
        AuthConfig.from_data({"keys": [{"tenant": "a"}]})


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


class _CountingJwt:
    """PyJWT as this authenticator's verifier sees it, counting the signature checks."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.decoded = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.module, name)

    def decode(self, *a: Any, **kw: Any) -> Any:
        self.decoded += 1
        return self.module.decode(*a, **kw)


def _counting(auth: Authenticator) -> _CountingJwt:
    assert auth.jwt is not None
    counter = _CountingJwt(auth.jwt.jwt)
    auth.jwt.jwt = counter
    return counter


async def _refused(auth: Authenticator, token: str, match: str) -> None:
    with pytest.raises(AuthError, match=match):
        await auth.authenticate(f"Bearer {token}", "")


async def test_a_refused_token_repeated_is_not_checked_again_and_the_cache_is_bounded() -> None:
    """A well-formed token with a bad signature (another key under the set's kid), sent 200
    times: one signature check, 200 identical refusals; at most `refused_cache_size` refused
    tokens are kept (least recently used dropped); with 0, every one is checked."""
    iss, forger = Issuer(), Issuer()
    key = iss.add_key("ES256", "k1")
    other = forger.add_key("ES256", "k1")
    with iss.serve() as url:
        auth = _auth(url, refused_cache_size=2)
        counter = _counting(auth)
        forged = [forger.token(other, AUD, sub=f"mallory{i}") for i in range(3)]
        for _ in range(200):
            await _refused(auth, forged[0], "signature is not valid")
        assert counter.decoded == 1
        for t in forged[1:]:
            await _refused(auth, t, "signature is not valid")
        assert len(auth.refused) == 2
        assert hashlib.sha256(forged[0].encode()).digest() not in auth.refused  # the oldest
        # A valid token is unaffected.
        assert (await auth.authenticate(f"Bearer {iss.token(key, AUD)}", "")).subject == "alice"

        off = _auth(url, refused_cache_size=0)
        counter = _counting(off)
        for _ in range(5):
            await _refused(off, forged[0], "signature is not valid")
        assert counter.decoded == 5 and not off.refused


async def test_a_refusal_is_checked_again_once_the_keys_change() -> None:
    """Key rotation under the same kid: a token signed with the new key is refused while the
    set has the old one; once the set is fetched again (here because another token names an
    unknown kid), the same token is checked again and let in."""
    iss = Issuer()
    old = iss.add_key("ES256", "k1")
    rotated = SigningKey("ES256", "k1")
    with iss.serve() as url:
        auth = _auth(url, oauth_extra={"jwks_min_refetch": 0})
        assert (await auth.authenticate(f"Bearer {iss.token(old, AUD)}", "")).subject == "alice"
        fresh = iss.token(rotated, AUD, sub="bob")
        await _refused(auth, fresh, "signature is not valid")
        await _refused(auth, fresh, "signature is not valid")  # remembered
        iss.keys = [rotated]  # the provider rotates the key
        await _refused(auth, iss.token(rotated, AUD, kid="k9"), "no key 'k9'")  # refetches
        assert iss.fetches == 2
        assert (await auth.authenticate(f"Bearer {fresh}", "")).subject == "bob"


async def test_an_unknown_kid_is_refused_until_a_refetch_is_allowed_then_checked_again() -> None:
    """A token under a kid the set does not have yet is refused without a fetch while the
    set may not be fetched again (`jwks_min_refetch`); the first time a fetch is allowed the
    same token is checked again, the set refetched, and it is let in."""
    iss = Issuer()
    k1 = iss.add_key("ES256", "k1")
    k2 = SigningKey("ES256", "k2")
    with iss.serve() as url:
        auth = _auth(url, oauth_extra={"jwks_min_refetch": 1.0})
        assert (await auth.authenticate(f"Bearer {iss.token(k1, AUD)}", "")).subject == "alice"
        early = iss.token(k2, AUD, sub="carol")
        await _refused(auth, early, "no key 'k2'")
        iss.keys.append(k2)  # published just after
        await _refused(auth, early, "no key 'k2'")  # too soon to fetch again: still refused
        assert iss.fetches == 1
        await asyncio.sleep(1.2)
        assert (await auth.authenticate(f"Bearer {early}", "")).subject == "carol"
        assert iss.fetches == 2


async def test_a_token_not_valid_yet_is_not_remembered() -> None:
    iss = Issuer()
    key = iss.add_key("ES256", "k1")
    with iss.serve() as url:
        auth = _auth(url)
        soon = iss.token(key, AUD, sub="dave", not_before=1)
        await _refused(auth, soon, "not valid yet")
        await asyncio.sleep(1.6)
        assert (await auth.authenticate(f"Bearer {soon}", "")).subject == "dave"


def test_the_refused_cache_keys_are_checked() -> None:
    for extra, key in (
        ({"refused_cache_size": -1}, "auth.refused_cache_size"),
        ({"refused_ttl": 0}, "auth.refused_ttl"),
    ):
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            parse_config({"auth": {"keys": [{"sha256": "a" * 64, "tenant": "t"}], **extra}})
