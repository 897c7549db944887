"""Modern clients' input rounds (MRTR), two ways.

**Relayed rounds (stateless).** A modern upstream's `input_required` reaches a modern client
as it is, but with the upstream's `requestState` sealed inside the gateway's own (`RoundSeal`,
`mf2.`): signed, bound to the principal, the upstream, the method and the name, and expiring.
The client's retry, on this gateway process or any other that shares its key (`state.secret`),
opens the seal and sends the upstream its own state back with the client's `inputResponses`.
Nothing is held between the rounds.

**Parked calls.** When the round cannot be relayed (a legacy upstream blocked on its sampling
request, or addons that take server-to-client requests), the call is held open here and the
client gets a `requestState` naming it (`mf1.`): HMAC-signed, bound to the principal, expiring,
bounded in number; its retry resumes the same upstream call. Such a call is a live task waiting
on this process's connection to the upstream, so only this process can resume it
(docs/architecture.md, "State"): the handle names its process, and a retry that reaches another
process sharing the key is told so.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import itertools
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from manifold.protocol import jsonrpc as rpc

HANDLE_PREFIX = "mf1."
ROUND_PREFIX = "mf2."


@dataclass(slots=True)
class InputAsk:
    key: str
    method: str
    params: dict[str, Any]
    future: asyncio.Future[dict[str, Any]]


@dataclass(slots=True)
class Parked:
    task: asyncio.Task[rpc.Incoming]
    sink: Any  # the call's RequestSink, re-pointed at each retry's channel
    outstanding: dict[str, InputAsk] = field(default_factory=dict)
    expires: float = 0.0
    principal: str = ""


class ParkingLot:
    def __init__(
        self, ttl: float = 600.0, key: bytes | None = None, max_parked: int = 10_000
    ) -> None:
        self.ttl = ttl
        self.max_parked = max_parked
        self._key = key or os.urandom(32)
        self._ids = itertools.count(1)
        self._parked: dict[str, Parked] = {}
        self._origin = os.urandom(4).hex()  # this lot (process) in its handles' ids

    def _sign(self, pid: str, principal: str) -> str:
        mac = hmac.new(self._key, f"{pid}|{principal}".encode(), hashlib.sha256).digest()[:16]
        return HANDLE_PREFIX + pid + "." + base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def park(self, parked: Parked) -> str:
        """A handle for the call; refused (the caller cancels the call) when `max_parked` calls
        already wait for their clients."""
        self._sweep()
        if len(self._parked) >= self.max_parked:
            raise rpc.RpcError(
                rpc.INTERNAL_ERROR,
                f"too many calls are waiting for client input (mrtr.max_parked "
                f"{self.max_parked}); try again later",
            )
        pid = f"{next(self._ids)}x{os.urandom(6).hex()}p{self._origin}"
        parked.expires = time.monotonic() + self.ttl
        self._parked[pid] = parked
        return self._sign(pid, parked.principal)

    def take(self, handle: str, principal: str) -> Parked:
        """The parked call for a client's `requestState`, or INVALID_PARAMS."""
        bad = rpc.RpcError(rpc.INVALID_PARAMS, "requestState is invalid, expired or not yours")
        if not handle.startswith(HANDLE_PREFIX):
            raise bad
        pid = handle[len(HANDLE_PREFIX) :].split(".", 1)[0]
        if not hmac.compare_digest(self._sign(pid, principal), handle):
            raise bad
        parked = self._parked.pop(pid, None)
        if parked is None and pid.rpartition("p")[2] != self._origin:
            raise rpc.RpcError(
                rpc.INVALID_PARAMS,
                "requestState names a call parked on another gateway process (or before a "
                "restart): a call waiting for client input resumes only where it started; "
                "call again without requestState",
            )
        if parked is None or parked.expires < time.monotonic():
            raise bad
        return parked

    def _sweep(self) -> None:
        now = time.monotonic()
        for pid in [p for p, v in self._parked.items() if v.expires < now]:
            self._parked.pop(pid).task.cancel()

    def close(self) -> None:
        for p in self._parked.values():
            p.task.cancel()
        self._parked.clear()


class RoundSeal:
    """The gateway's `requestState` for a relayed round: the upstream's own state, sealed."""

    def __init__(self, key: bytes, ttl: float = 600.0) -> None:
        self._key = key
        self.ttl = ttl

    def _mac(self, body: bytes) -> str:
        mac = hmac.new(self._key, body, hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def seal(self, binding: Mapping[str, str], upstream_state: object) -> str:
        """A handle for the client: `binding` (principal, upstream, method, name) must match
        on the way back; the upstream's state rides inside."""
        body = orjson.dumps(
            {**binding, "exp": int(time.time() + self.ttl), "state": upstream_state},
            option=orjson.OPT_SORT_KEYS,
        )
        payload = base64.urlsafe_b64encode(body).decode().rstrip("=")
        return f"{ROUND_PREFIX}{payload}.{self._mac(body)}"

    def open(self, handle: str, binding: Mapping[str, str]) -> object:
        """The upstream's state, or INVALID_PARAMS when the handle is forged, edited, expired
        or made for another caller or call."""
        bad = rpc.RpcError(rpc.INVALID_PARAMS, "requestState is invalid, expired or not yours")
        payload, _, mac = handle[len(ROUND_PREFIX) :].partition(".")
        try:
            body = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        except ValueError:
            raise bad from None
        if not handle.startswith(ROUND_PREFIX) or not hmac.compare_digest(self._mac(body), mac):
            raise bad
        try:
            sealed = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise bad from None
        if not isinstance(sealed, dict) or not isinstance(sealed.get("exp"), int):
            raise bad
        if sealed["exp"] < time.time() or any(sealed.get(k) != v for k, v in binding.items()):
            raise bad
        return sealed.get("state")
