"""Parked MRTR calls (`downstream/mrtr.py`): the `requestState` handle a modern client gets is
bound to its principal, single-use, expiring, and cannot be forged or edited."""

from __future__ import annotations

import asyncio

import pytest

from manifold.downstream.mrtr import HANDLE_PREFIX, ROUND_PREFIX, Parked, ParkingLot, RoundSeal
from manifold.protocol import jsonrpc as rpc


async def _never() -> rpc.Incoming:
    await asyncio.sleep(3600)
    raise AssertionError("unreachable")


def _parked(principal: str = "alice") -> Parked:
    return Parked(asyncio.ensure_future(_never()), sink=None, principal=principal)


async def test_handle_resumes_once_for_its_principal() -> None:
    lot = ParkingLot()
    p = _parked()
    handle = lot.park(p)
    assert handle.startswith(HANDLE_PREFIX)
    assert lot.take(handle, "alice") is p
    with pytest.raises(rpc.RpcError) as e:
        lot.take(handle, "alice")  # single use
    assert e.value.code == rpc.INVALID_PARAMS
    lot.close()  # a taken call belongs to its retry now: closing the lot leaves it running
    await asyncio.sleep(0)
    assert not p.task.done()
    p.task.cancel()


async def test_another_principal_cannot_take_it() -> None:
    lot = ParkingLot()
    p = _parked("alice")
    handle = lot.park(p)
    with pytest.raises(rpc.RpcError):
        lot.take(handle, "mallory")
    assert lot.take(handle, "alice") is p  # the failed attempt did not consume it
    p.task.cancel()


@pytest.mark.parametrize(
    "mangle",
    [
        lambda h: h[:-1] + ("A" if h[-1] != "A" else "B"),  # MAC edited
        lambda h: h.replace(HANDLE_PREFIX + "1x", HANDLE_PREFIX + "2x", 1),  # id edited
        lambda h: h[len(HANDLE_PREFIX) :],  # prefix dropped
        lambda h: HANDLE_PREFIX,
        lambda h: "",
        lambda h: h + ".extra",
    ],
)
async def test_edited_handles_are_refused(mangle: object) -> None:
    lot = ParkingLot()
    p = _parked()
    handle = lot.park(p)
    with pytest.raises(rpc.RpcError) as e:
        lot.take(mangle(handle), "alice")  # type: ignore[operator]
    assert "requestState" in e.value.message
    p.task.cancel()


async def test_another_gateway_key_does_not_verify() -> None:
    a, b = ParkingLot(key=b"k" * 32), ParkingLot(key=b"j" * 32)
    p = _parked()
    handle = a.park(p)
    with pytest.raises(rpc.RpcError):
        b.take(handle, "alice")
    p.task.cancel()


async def test_a_call_parked_on_another_process_is_named_as_such() -> None:
    """Two gateway processes sharing `state.secret` verify each other's handles, but a parked
    call lives on the process that parked it: the other one says so, distinctly."""
    a, b = ParkingLot(key=b"k" * 32), ParkingLot(key=b"k" * 32)
    p = _parked()
    handle = a.park(p)
    with pytest.raises(rpc.RpcError) as e:
        b.take(handle, "alice")
    assert e.value.code == rpc.INVALID_PARAMS
    assert "another gateway process" in e.value.message
    with pytest.raises(rpc.RpcError) as e:
        b.take(handle, "mallory")  # not theirs: refused as ever, nothing more said
    assert "another gateway process" not in e.value.message
    assert a.take(handle, "alice") is p  # on its own process it resumes
    with pytest.raises(rpc.RpcError) as e:
        a.take(handle, "alice")  # taken: the plain refusal
    assert "another gateway process" not in e.value.message
    p.task.cancel()


async def test_expired_calls_are_refused_and_cancelled() -> None:
    lot = ParkingLot(ttl=0.01)
    old = _parked()
    handle = lot.park(old)
    await asyncio.sleep(0.05)
    with pytest.raises(rpc.RpcError):
        lot.take(handle, "alice")
    # The next park sweeps what expired: its upstream call is cancelled, not left running.
    old2 = _parked()
    lot.park(old2)
    await asyncio.sleep(0.05)
    fresh = _parked()
    lot.park(fresh)
    await asyncio.sleep(0)
    assert old2.task.cancelled()
    assert not fresh.task.done()
    lot.close()
    await asyncio.sleep(0)
    assert fresh.task.cancelled()
    old.task.cancel()


async def test_parked_calls_are_bounded() -> None:
    lot = ParkingLot(max_parked=2)
    held = [_parked(), _parked()]
    for p in held:
        lot.park(p)
    extra = _parked()
    with pytest.raises(rpc.RpcError, match="too many calls are waiting"):
        lot.park(extra)
    extra.task.cancel()
    lot.close()


BINDING = {"principal": "alice", "upstream": "up", "method": "tools/call", "name": "ask"}


def test_a_relayed_rounds_state_is_sealed_and_bound() -> None:
    seal = RoundSeal(b"k" * 32)
    upstream_state = {"opaque": "upstream-state-1", "n": [1, 2]}
    handle = seal.seal(BINDING, upstream_state)
    assert handle.startswith(ROUND_PREFIX)
    assert seal.open(handle, BINDING) == upstream_state
    assert seal.open(seal.seal(BINDING, None), BINDING) is None  # the upstream gave none
    for key in BINDING:
        with pytest.raises(rpc.RpcError, match="requestState is invalid"):
            seal.open(handle, {**BINDING, key: "other"})
    with pytest.raises(rpc.RpcError):
        RoundSeal(b"j" * 32).open(handle, BINDING)  # another key (another deployment)


@pytest.mark.parametrize(
    "mangle",
    [
        lambda h: h[:-1] + ("A" if h[-1] != "A" else "B"),
        lambda h: h.replace(".", "x", 1),
        lambda h: ROUND_PREFIX,
        lambda h: ROUND_PREFIX + "!!!." + h.rpartition(".")[2],
    ],
)
def test_an_edited_round_handle_is_refused(mangle: object) -> None:
    seal = RoundSeal(b"k" * 32)
    handle = seal.seal(BINDING, "s")
    with pytest.raises(rpc.RpcError, match="requestState is invalid"):
        seal.open(mangle(handle), BINDING)  # type: ignore[operator]


def test_an_expired_round_handle_is_refused() -> None:
    seal = RoundSeal(b"k" * 32, ttl=-1)
    with pytest.raises(rpc.RpcError):
        seal.open(seal.seal(BINDING, "s"), BINDING)
