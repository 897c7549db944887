"""An issuer's JSON Web Key Set: fetched, cached, refetched on an unknown `kid`.

A fetch is bounded in time (`jwks_timeout`) and size (`jwks_max_bytes`); concurrent callers
share one fetch. An unknown `kid` refetches the set at most once per `jwks_min_refetch`
seconds, so a flood of tokens with made-up key ids costs one fetch, not one each. When the
endpoint fails, the last good set stays in use (a rotation's grace); with no set at all every
token is refused at once (fail closed) until the next attempt is due. The fetch runs in a
thread (`urllib`): it is rare and off the request path of a cached token.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import urllib.error
import urllib.request
from typing import Any

import jwt

log = logging.getLogger("manifold.auth")


class JwksError(Exception):
    """No key for this token: the set cannot be had, or it has no such key."""


def _fetch(url: str, timeout: float, max_bytes: int) -> bytes:
    req = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        body: bytes = r.read(max_bytes + 1)
    if len(body) > max_bytes:
        raise JwksError(f"the JWKS at {url} is larger than {max_bytes} bytes")
    return body


def parse_jwks(body: bytes) -> dict[str, jwt.PyJWK]:
    """The usable keys of a JWKS document by `kid` ("" for a key without one)."""
    try:
        data: Any = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise JwksError("the JWKS is not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
        raise JwksError("the JWKS has no 'keys' list")
    keys: dict[str, jwt.PyJWK] = {}
    for item in data["keys"]:
        if not isinstance(item, dict) or item.get("use", "sig") != "sig":
            continue
        try:
            k = jwt.PyJWK.from_dict(item)
        except (jwt.PyJWKError, jwt.InvalidKeyError, ValueError, TypeError):
            continue  # a key of a type this build cannot use, or a broken one
        keys[str(item.get("kid") or "")] = k
    if not keys:
        raise JwksError("the JWKS has no usable signing key")
    return keys


class Jwks:
    def __init__(
        self,
        url: str,
        timeout: float = 5.0,
        ttl: float = 600.0,
        min_refetch: float = 30.0,
        max_bytes: int = 1024 * 1024,
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.ttl = ttl
        self.min_refetch = min_refetch
        self.max_bytes = max_bytes
        self.keys: dict[str, jwt.PyJWK] = {}
        self.fetched = 0.0  # monotonic time of the last good fetch
        self.attempted = -1e18  # of the last attempt
        self.failure = ""
        self.fetches = 0
        self.generation = 0  # counts the good fetches: a verdict made on older keys is stale
        self._inflight: asyncio.Future[None] | None = None

    def _lookup(self, kid: str | None) -> jwt.PyJWK | None:
        if kid is None:
            return next(iter(self.keys.values())) if len(self.keys) == 1 else None
        return self.keys.get(kid)

    async def key(self, kid: str | None) -> jwt.PyJWK:
        now = time.monotonic()
        fresh = bool(self.keys) and now - self.fetched < self.ttl
        if fresh:
            found = self._lookup(kid)
            if found is not None:
                return found
        due = now - self.attempted >= self.min_refetch
        if due or self._inflight is not None:  # else: fail fast, or use the kept set
            await self.refresh()
        found = self._lookup(kid)
        if found is not None:
            return found
        if not self.keys:
            raise JwksError(f"the issuer's keys are unavailable ({self.failure or 'not fetched'})")
        raise JwksError(f"no key {kid!r} in the issuer's JWKS")

    def next_attempt(self) -> float:
        """When a lookup could fetch the set again (monotonic): until then an unknown `kid`
        is refused without a fetch."""
        return self.attempted + self.min_refetch

    async def refresh(self) -> None:
        """Fetch the set (joining a fetch under way)."""
        if self._inflight is None:
            self._inflight = asyncio.ensure_future(self._refresh())
        fut = self._inflight
        try:
            await asyncio.shield(fut)
        finally:
            if fut.done() and self._inflight is fut:
                self._inflight = None

    async def _refresh(self) -> None:
        self.attempted = time.monotonic()
        self.fetches += 1
        try:
            async with asyncio.timeout(self.timeout):
                body = await asyncio.to_thread(_fetch, self.url, self.timeout, self.max_bytes)
            keys = parse_jwks(body)
        except TimeoutError:
            self._failed(f"no answer from {self.url} within {self.timeout:g} s")
        except JwksError as e:
            self._failed(str(e))
        except (urllib.error.URLError, OSError, ValueError) as e:
            self._failed(f"cannot fetch {self.url}: {getattr(e, 'reason', None) or e}")
        else:
            self.keys = keys
            self.generation += 1
            self.fetched = time.monotonic()
            self.failure = ""
            log.info("fetched the JWKS at %s: %d key(s)", self.url, len(keys))

    def _failed(self, why: str) -> None:
        self.failure = why
        kept = f"; still using the {len(self.keys)} key(s) fetched before" if self.keys else ""
        log.warning("JWKS fetch failed: %s%s", why, kept)
