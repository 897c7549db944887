"""The refused requests' log lines (identity/refusals.py): the first of each kind from each
address per interval, a summary of the rest, bounded in memory however many addresses."""

from __future__ import annotations

import asyncio
import logging
import re

import pytest

from manifold.identity.refusals import RefusalLog

log = logging.getLogger("manifold.test.refusals")
SUMMARY = re.compile(r"(\d+) more refused requests in the last \d+ s, not logged one by one")


async def test_many_addresses_stay_bounded(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, log.name)
    refusals = RefusalLog(log, 0.2, max_keys=3)
    for _ in range(2):
        for i in range(10):
            refusals.refused("401 invalid_token", f"10.0.0.{i}", "refused %s", f"10.0.0.{i}")
    assert len(refusals._logged) == 3 and len(refusals._left_out) <= 4  # 3 and "other"
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["refused 10.0.0.0", "refused 10.0.0.1", "refused 10.0.0.2"]
    await asyncio.sleep(0.5)  # the interval's timer (0.2 s) was set first: it has fired
    summary = caplog.records[-1].getMessage()
    assert SUMMARY.search(summary).group(1) == "17"  # type: ignore[union-attr]
    assert "other sources" in summary
    # The next interval starts afresh: the first refusal is logged again.
    refusals.refused("401 invalid_token", "10.0.0.9", "refused %s", "again")
    assert caplog.records[-1].getMessage() == "refused again"
    assert len(refusals._logged) == 1 and not refusals._left_out
    refusals.close()


async def test_interval_zero_logs_every_refusal(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, log.name)
    refusals = RefusalLog(log, 0, max_keys=3)
    for _ in range(5):
        refusals.refused("401 invalid_token", "10.0.0.1", "refused")
    assert [r.getMessage() for r in caplog.records] == ["refused"] * 5


async def test_close_writes_the_pending_summary(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, log.name)
    refusals = RefusalLog(log, 3600, max_keys=10)
    for _ in range(4):
        refusals.refused("401 ", "10.0.0.1", "refused")
    refusals.close()
    assert SUMMARY.search(caplog.records[-1].getMessage()).group(1) == "3"  # type: ignore[union-attr]
    assert "(3 from 10.0.0.1)" in caplog.records[-1].getMessage()
