"""Parked calls for modern clients (MRTR): a call that needs client input is held open here.

When an upstream asks for input (a legacy upstream's sampling request, or a modern upstream's
`input_required`), a modern client gets `resultType: "input_required"` and a `requestState`
naming the parked call. That handle is HMAC-signed, bound to the principal and expires, since
request state is attacker-controlled; its retry resumes the same upstream call.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import itertools
import os
import time
from dataclasses import dataclass, field
from typing import Any

from manifold.protocol import jsonrpc as rpc

HANDLE_PREFIX = "mf1."


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
        pid = f"{next(self._ids)}x{os.urandom(6).hex()}"
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
