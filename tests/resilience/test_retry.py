"""The retry budget (calls earn retries at `budget_ratio`, at most `budget_burst` are kept),
and the retry addon's rules: what is retried, how often, and what never is."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from manifold.catalog import Catalog, Route
from manifold.config import GatewayConfig, RetryConfig, parse_config
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.resilience.retry import Retry, RetryBudget, build
from manifold.upstream import errors
from manifold.upstream.session import UpstreamError


def test_the_budget_allows_the_burst_then_the_ratio_of_calls() -> None:
    b = RetryBudget(RetryConfig(enabled=True, budget_ratio=0.1, budget_burst=3))
    allowed = 0
    for _ in range(100):
        b.earn()
        while b.spend():
            allowed += 1
    assert 3 + 9 <= allowed <= 3 + 10  # the burst, then one per 10 calls
    assert b.refused >= 100 - allowed


def test_the_budget_never_keeps_more_than_the_burst() -> None:
    b = RetryBudget(RetryConfig(enabled=True, budget_ratio=1.0, budget_burst=2))
    for _ in range(50):
        b.earn()
    assert [b.spend() for _ in range(3)] == [True, True, False]


class _Host:
    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.catalog = Catalog(config)


def _retry(**cfg: Any) -> Retry:
    config = parse_config(
        {
            "upstreams": {
                "a": {
                    "command": "x",
                    "resilience": {
                        "retry": {"enabled": True, "backoff_initial": 0.001, **cfg},
                        "tools": {"safe": {"retry": True}},
                    },
                }
            }
        }
    )
    host = _Host(config)
    host.catalog.set_items("a", "tools", [{"name": "safe", "inputSchema": {"type": "object"}}])
    addon = build(host)
    assert addon is not None
    return addon


def _ctx(**params: Any) -> CallContext:
    return CallContext(
        "tools/call", {"name": "safe", **params}, Route("a", "safe"), "safe", None, None
    )  # type: ignore[arg-type]


class Failing:
    """The next pipeline stage: fails with `errs` in turn, then answers."""

    def __init__(self, *errs: rpc.RpcError) -> None:
        self.errs = list(errs)
        self.calls = 0

    async def __call__(self, _c: CallContext) -> rpc.Incoming:
        self.calls += 1
        if self.errs:
            raise self.errs.pop(0)
        return rpc.Incoming(result=msgspec.Raw(b"{}"))


async def test_a_transient_failure_is_retried_up_to_the_attempts() -> None:
    r = _retry(attempts=3)
    up = Failing(errors.timed_out("a", "slow"), UpstreamError(rpc.INTERNAL_ERROR, "boom"))
    await r.call(_ctx(), up)
    assert up.calls == 3
    up = Failing(*(errors.timed_out("a", "slow") for _ in range(5)))
    with pytest.raises(rpc.RpcError):
        await r.call(_ctx(), up)
    assert up.calls == 3


@pytest.mark.parametrize(
    "err",
    [
        UpstreamError(rpc.INVALID_PARAMS, "bad arguments"),
        errors.busy("a", "full"),
        errors.unavailable("a", "down", retry_after=30.0),  # past max_retry_after
    ],
)
async def test_what_is_never_retried(err: rpc.RpcError) -> None:
    up = Failing(err)
    with pytest.raises(rpc.RpcError):
        await _retry().call(_ctx(), up)
    assert up.calls == 1


async def test_an_input_round_is_never_retried() -> None:
    up = Failing(errors.timed_out("a", "slow"))
    with pytest.raises(rpc.RpcError):
        await _retry().call(_ctx(requestState="s"), up)
    assert up.calls == 1
