"""A concurrency cap with O(1) acquire and release (`max_in_flight`).

asyncio.Semaphore checks every waiter on each acquire, which turns a queue of hundreds of calls
into quadratic work; this keeps a count and a FIFO of waiters, and hands a released slot
straight to the oldest waiter.
"""

from __future__ import annotations

import asyncio
from collections import deque


class Slots:
    __slots__ = ("_free", "_waiters", "capacity")

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._free = capacity
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def in_use(self) -> int:
        return self.capacity - self._free

    @property
    def queued(self) -> int:
        return len(self._waiters)

    def try_acquire(self) -> bool:
        if self._free > 0 and not self._waiters:
            self._free -= 1
            return True
        return False

    async def acquire(self, timeout: float | None = None) -> None:
        """Wait for a slot, oldest waiter first; TimeoutError after `timeout` seconds (one
        timer handle, no task: a burst of queued calls stays cheap)."""
        if self.try_acquire():
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._waiters.append(fut)
        timer = loop.call_later(timeout, _expire, fut) if timeout is not None else None
        try:
            await fut
        except (asyncio.CancelledError, TimeoutError):
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                self.release()  # the slot was handed over just as we were cancelled
            elif fut in self._waiters:  # a release may have dropped it already
                self._waiters.remove(fut)
            raise
        finally:
            if timer is not None:
                timer.cancel()

    def release(self) -> None:
        while self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(None)  # the slot passes to the oldest waiter
                return
        self._free += 1


def _expire(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_exception(TimeoutError())
