"""The breaker's state machine, driven with explicit clock values: it opens on the failure
ratio over the window (and only past min_calls), refuses while open, lets probes through when
half-open, reopens for longer after a failed probe and closes after a good one."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from manifold.catalog import Catalog, Route
from manifold.config import BreakerConfig, GatewayConfig, parse_config
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.resilience.breaker import CIRCUIT_OPEN, CLOSED, HALF_OPEN, OPEN, Breaker, Circuit
from manifold.resilience.policy import Policy
from manifold.upstream.session import UpstreamError


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


class _Host:
    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.catalog = Catalog(config)


def _ctx(tool: str) -> CallContext:
    return CallContext(
        "tools/call", {"name": tool, "arguments": {}}, Route("a", tool), tool, None, None
    )  # type: ignore[arg-type]


async def test_a_tool_with_a_breaker_of_its_own_opens_alone() -> None:
    """`breaker: true` on a tool: its failures open its circuit (naming the tool) while the
    upstream's other tools still go through; the upstream's circuit counts them all."""
    cfg = parse_config(
        {
            "upstreams": {
                "a": {
                    "command": "x",
                    "resilience": {
                        "breaker": {"enabled": True, "min_calls": 3, "failure_ratio": 0.9},
                        "tools": {"flaky": {"breaker": True}},
                    },
                }
            }
        }
    )
    host = _Host(cfg)
    host.catalog.set_items(
        "a", "tools", [{"name": n, "inputSchema": {"type": "object"}} for n in ("flaky", "ok")]
    )
    b = Breaker(Policy(host))
    reached: list[str] = []

    async def upstream(c: CallContext) -> rpc.Incoming:
        reached.append(c.route.name)
        if c.route.name == "flaky":
            raise UpstreamError(rpc.INTERNAL_ERROR, "boom")
        return rpc.Incoming(result=msgspec.Raw(b"{}"))

    for _ in range(3):
        with pytest.raises(rpc.RpcError):
            await b.call(_ctx("flaky"), upstream)
        await b.call(_ctx("ok"), upstream)
    with pytest.raises(rpc.RpcError) as err:
        await b.call(_ctx("flaky"), upstream)
    assert err.value.data["reason"] == CIRCUIT_OPEN and err.value.data["tool"] == "flaky"
    assert reached.count("flaky") == 3
    await b.call(_ctx("ok"), upstream)  # the upstream's circuit: 3 of 7 failed, closed
    circuits = b.health()["circuits"]
    assert circuits["a"] == {"state": "closed"}
    assert circuits["a/flaky"]["state"] == "open" and circuits["a/flaky"]["retry_after"] > 0


async def test_errors_about_the_request_do_not_count() -> None:
    cfg = parse_config(
        {
            "upstreams": {
                "a": {
                    "command": "x",
                    "resilience": {"breaker": {"enabled": True, "min_calls": 2}},
                }
            }
        }
    )
    host = _Host(cfg)
    b = Breaker(Policy(host))

    async def bad_params(_c: CallContext) -> rpc.Incoming:
        raise UpstreamError(rpc.INVALID_PARAMS, "bad arguments")

    for _ in range(5):
        with pytest.raises(UpstreamError):
            await b.call(_ctx("t"), bad_params)
    assert b.circuits["a"].state == CLOSED
