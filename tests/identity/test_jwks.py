"""The JWKS cache against a real endpoint: concurrent callers share one fetch, an unknown kid
refetches at most once per interval, a failed fetch keeps the last good set, and garbage or a
hanging endpoint fail closed within the timeout."""

from __future__ import annotations

import asyncio
import time

import pytest

from manifold.identity.jwks import Jwks, JwksError
from tests.identity.issuer import Issuer


async def test_concurrent_unknown_kids_cost_one_fetch() -> None:
    iss = Issuer()
    iss.add_key("RS256", "k1")
    with iss.serve() as url:
        jwks = Jwks(url, timeout=5, min_refetch=60)
        results = await asyncio.gather(*(jwks.key("k1") for _ in range(10)))
        assert all(r.key_id == "k1" for r in results)
        assert iss.fetches == 1
        for _ in range(5):
            with pytest.raises(JwksError, match="no key 'other'"):
                await jwks.key("other")
        assert iss.fetches == 1  # inside min_refetch: no refetch


async def test_a_failed_refetch_keeps_the_last_good_set() -> None:
    iss = Issuer()
    iss.add_key("ES256", "k1")
    with iss.serve() as url:
        jwks = Jwks(url, timeout=5, min_refetch=0)
        assert (await jwks.key("k1")).key_id == "k1"
        iss.mode = "garbage"
        with pytest.raises(JwksError, match="no key 'k2'"):
            await jwks.key("k2")
        assert jwks.failure == "the JWKS is not JSON"
        assert (await jwks.key("k1")).key_id == "k1"


async def test_a_hanging_endpoint_fails_within_the_timeout() -> None:
    iss = Issuer()
    iss.add_key("ES256", "k1")
    iss.mode = "hang"
    with iss.serve() as url:
        jwks = Jwks(url, timeout=0.5, min_refetch=30)
        t0 = time.monotonic()
        with pytest.raises(JwksError, match=r"keys are unavailable \(no answer"):
            await jwks.key("k1")
        assert time.monotonic() - t0 < 5
        t0 = time.monotonic()
        with pytest.raises(JwksError, match="unavailable"):
            await jwks.key("k1")
        assert time.monotonic() - t0 < 0.1  # failed fast: no new attempt yet
        assert iss.fetches == 1
