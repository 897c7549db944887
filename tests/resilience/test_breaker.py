"""The breaker's state machine, driven with explicit clock values: it opens on the failure
ratio over the window (and only past min_calls), refuses while open, lets probes through when
half-open, reopens for longer after a failed probe and closes after a good one."""

from __future__ import annotations

from typing import Any

import pytest

from manifold.config import BreakerConfig
from manifold.resilience.breaker import CIRCUIT_OPEN, CLOSED, HALF_OPEN, OPEN, Circuit


def circuit(**kw: Any) -> Circuit:
    base: dict[str, Any] = {"enabled": True, "window": 10.0, "min_calls": 4, "open_for": 5.0}
    return Circuit("up", BreakerConfig(**{**base, **kw}))


def test_opens_on_the_failure_ratio_once_there_are_enough_calls() -> None:
    c = circuit(failure_ratio=0.5)
    c.record(False, False, 0.0)
    c.record(False, False, 0.1)
    c.record(False, False, 0.2)
    assert c.state == CLOSED  # 3 of 3 failed, but fewer than min_calls
    c.record(True, False, 0.3)
    assert c.state == CLOSED  # successes never open it
    c.record(False, False, 0.4)
    assert c.state == OPEN  # 4 of 5 failed
    assert not c.admit(1.0)
    err = c.refusal(1.0)
    assert err.data == {"reason": CIRCUIT_OPEN, "upstream": "up", "retry_after": 4.4}
    assert "'up'" in err.message and "4 of 5 calls" in err.message


def test_failures_outside_the_window_do_not_count() -> None:
    c = circuit(failure_ratio=0.5, min_calls=4)
    for t in (0.0, 1.0, 2.0):
        c.record(False, False, t)
    for t in (15.0, 16.0, 17.0):  # the first three left the 10 s window
        c.record(True, False, t)
    c.record(False, False, 18.0)
    assert c.state == CLOSED  # 1 of 4 in the window


def test_a_failed_probe_reopens_for_longer_and_a_good_one_closes() -> None:
    c = circuit(failure_ratio=1.0, min_calls=1, open_for=2.0, open_for_max=5.0)
    c.record(False, False, 0.0)
    assert c.state == OPEN and not c.admit(1.9)
    assert c.admit(2.0) and c.state == HALF_OPEN  # the probe
    assert not c.admit(2.0)  # one probe at a time
    c.record(False, True, 2.5)
    assert c.state == OPEN and c.until == pytest.approx(6.5)  # 4 s now
    assert c.admit(6.5)
    c.record(False, True, 6.6)
    assert c.until == pytest.approx(11.6)  # capped at open_for_max
    assert c.admit(11.6)
    c.record(True, True, 11.7)
    assert c.state == CLOSED and c.admit(11.8)
    c.record(False, False, 12.0)
    assert c.state == OPEN and c.until == pytest.approx(14.0)  # back to open_for


def test_a_cancelled_probe_lets_another_through() -> None:
    c = circuit(failure_ratio=1.0, min_calls=1)
    c.record(False, False, 0.0)
    assert c.admit(5.0) and not c.admit(5.0)
    c.release_probe()
    assert c.admit(5.1)
