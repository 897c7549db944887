"""The CLI's own helpers (`manifold.cli`); the commands end to end: `tests/e2e/test_cli.py`."""

from __future__ import annotations

import asyncio
import os
import signal

from manifold.cli import _install_stop_signals


def test_a_ctrl_c_before_the_stop_signals_were_installed_is_not_lost() -> None:
    """asyncio's own SIGINT handler cancels the main task; a start step may absorb that
    cancellation. Installing the stop signals afterwards still stops the gateway."""

    async def main() -> bool:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()  # what asyncio's handler does on a Ctrl-C before ours is installed
        stop = asyncio.Event()
        _install_stop_signals(stop)
        try:
            await asyncio.sleep(0)  # the cancellation lands here, and is absorbed
        except asyncio.CancelledError:
            task.uncancel()
        return stop.is_set()

    assert asyncio.run(main())


def test_sigint_and_sigterm_set_stop_once_installed() -> None:
    async def main(sig: int) -> bool:
        stop = asyncio.Event()
        _install_stop_signals(stop)
        assert not stop.is_set()
        os.kill(os.getpid(), sig)
        await asyncio.wait_for(stop.wait(), 5)
        return stop.is_set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        assert asyncio.run(main(sig))
