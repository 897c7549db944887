"""`upstream/slots.py`: the `max_in_flight` cap. At most `capacity` holders at once, waiters
served in arrival order, and no slot lost or created whatever is cancelled or fails."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from manifold.upstream.slots import Slots


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_the_cap_holds_and_a_release_frees_one_slot() -> None:
    slots = Slots(2)
    assert slots.try_acquire() and slots.try_acquire()
    assert not slots.try_acquire()
    assert (slots.in_use, slots.queued) == (2, 0)
    third = asyncio.ensure_future(slots.acquire())
    await _settle()
    assert not third.done() and slots.queued == 1
    slots.release()
    await asyncio.wait_for(third, 5)
    assert (slots.in_use, slots.queued) == (2, 0)  # the slot passed on, not freed
    slots.release()
    slots.release()
    assert (slots.in_use, slots.queued) == (0, 0)


async def test_waiters_are_served_in_arrival_order() -> None:
    slots = Slots(1)
    await slots.acquire()
    order: list[int] = []

    async def waiter(i: int) -> None:
        await slots.acquire()
        order.append(i)

    tasks = []
    for i in range(5):
        tasks.append(asyncio.ensure_future(waiter(i)))
        await _settle()  # each is queued before the next arrives
    assert slots.queued == 5
    for _ in range(5):
        slots.release()
        await _settle()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert order == [0, 1, 2, 3, 4]
    slots.release()
    assert slots.in_use == 0


async def test_a_newcomer_does_not_jump_the_queue() -> None:
    slots = Slots(1)
    await slots.acquire()
    queued = asyncio.ensure_future(slots.acquire())
    await _settle()
    slots.release()  # handed to the queued waiter, which has not run yet
    assert not slots.try_acquire()
    await asyncio.wait_for(queued, 5)
    assert slots.in_use == 1


async def test_a_cancelled_waiter_leaves_the_queue() -> None:
    slots = Slots(1)
    await slots.acquire()
    gone = asyncio.ensure_future(slots.acquire())
    stays = asyncio.ensure_future(slots.acquire())
    await _settle()
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert slots.queued == 1
    slots.release()
    await asyncio.wait_for(stays, 5)  # the slot went to the live waiter
    slots.release()
    assert (slots.in_use, slots.queued) == (0, 0)


async def test_a_waiter_cancelled_after_being_handed_a_slot_gives_it_back() -> None:
    slots = Slots(1)
    await slots.acquire()
    handed = asyncio.ensure_future(slots.acquire())
    nxt = asyncio.ensure_future(slots.acquire())
    await _settle()
    slots.release()  # the slot is handed to `handed`...
    handed.cancel()  # ...which is cancelled before it runs
    with pytest.raises(asyncio.CancelledError):
        await handed
    await asyncio.wait_for(nxt, 5)  # so it passes on, not lost
    slots.release()
    assert (slots.in_use, slots.queued) == (0, 0)
    assert slots.try_acquire()


async def test_a_holder_that_fails_releases_its_slot() -> None:
    slots = Slots(1)

    async def failing() -> None:
        await slots.acquire()
        try:
            raise RuntimeError("the call failed")
        finally:
            slots.release()

    for _ in range(3):
        with pytest.raises(RuntimeError):
            await asyncio.wait_for(failing(), 5)
    assert (slots.in_use, slots.queued) == (0, 0)


# Each worker: (ticks to wait before asking, ticks to hold, cancel while queued, fail).
_worker = st.tuples(st.integers(0, 3), st.integers(0, 3), st.booleans(), st.booleans())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(capacity=st.integers(1, 4), workers=st.lists(_worker, min_size=1, max_size=12))
def test_random_interleavings_never_exceed_the_cap_nor_leak(
    capacity: int, workers: list[tuple[int, int, bool, bool]]
) -> None:
    async def run() -> None:
        slots = Slots(capacity)
        running = 0
        peak = 0
        served = 0

        async def worker(delay: int, hold: int, fail: bool) -> None:
            nonlocal running, peak, served
            for _ in range(delay):
                await asyncio.sleep(0)
            await slots.acquire()
            try:
                running += 1
                peak = max(peak, running)
                assert slots.in_use <= capacity
                for _ in range(hold):
                    await asyncio.sleep(0)
                if fail:
                    raise RuntimeError("failed call")
            finally:
                running -= 1
                served += 1
                slots.release()

        tasks = [asyncio.ensure_future(worker(d, h, f)) for d, h, _c, f in workers]
        await asyncio.sleep(0)
        for task, (_d, _h, cancel, _f) in zip(tasks, workers, strict=True):
            if cancel:
                task.cancel()
            await asyncio.sleep(0)
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)
        assert peak <= capacity
        assert running == 0
        assert (slots.in_use, slots.queued) == (0, 0)  # nothing leaked, nothing left queued
        # Every slot is usable again.
        for _ in range(capacity):
            assert slots.try_acquire()
        assert not slots.try_acquire()

    asyncio.run(run())


async def test_a_waiter_with_a_timeout_gives_up_and_leaks_nothing() -> None:
    slots = Slots(1)
    await slots.acquire()
    with pytest.raises(TimeoutError):
        await slots.acquire(timeout=0.05)
    assert slots.queued == 0
    later = asyncio.ensure_future(slots.acquire(timeout=5))
    await asyncio.sleep(0)
    slots.release()  # the slot passes to the waiter still waiting, not to the one that gave up
    await later
    assert slots.in_use == 1
    slots.release()
    assert slots.in_use == 0 and slots.queued == 0
