"""Token buckets, concurrency counts and their bounds, on the limiter itself (the e2e tests in
tests/e2e/test_ratelimit.py drive it through `manifold serve`)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from manifold.catalog import Route
from manifold.config import RateLimitConfig
from manifold.identity.ratelimit import RateLimiter
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc


def _ctx(tenant: str = "t", subject: str = "s", tool: str = "up__tool") -> CallContext:
    sink: Any = None
    ctx = CallContext("tools/call", {}, Route("up", "tool"), tool, sink, None)
    ctx.principal, ctx.subject = tenant, subject
    return ctx


def test_a_bucket_refills_at_its_rate() -> None:
    rl = RateLimiter(RateLimitConfig.from_data({"default": {"calls_per_second": 4}}))
    for _ in range(4):
        rl.admit(_ctx())
    with pytest.raises(rpc.RpcError) as e:
        rl.admit(_ctx())
    assert e.value.data["reason"] == "rate_limited"
    assert 0 < e.value.data["retry_after"] <= 0.25
    time.sleep(e.value.data["retry_after"] + 0.05)
    rl.admit(_ctx())


def test_a_refused_call_consumes_nothing() -> None:
    cfg = {"default": {"calls_per_minute": 100, "per_client": {"calls_per_minute": 1}}}
    rl = RateLimiter(RateLimitConfig.from_data(cfg))
    rl.admit(_ctx(subject="a"))
    tenant = rl.buckets["t\x1ft\x1fcalls_per_minute"]
    left = tenant.tokens
    for _ in range(5):
        with pytest.raises(rpc.RpcError, match="client calls_per_minute 1"):
            rl.admit(_ctx(subject="a"))
    assert tenant.tokens >= left  # the tenant's bucket was not charged for refused calls
    rl.admit(_ctx(subject="b"))  # another client of the tenant


def test_keys_are_bounded() -> None:
    cfg = {"default": {"per_client": {"calls_per_second": 1}}, "max_keys": 100}
    rl = RateLimiter(RateLimitConfig.from_data(cfg))
    for i in range(1000):
        rl.admit(_ctx(subject=f"client-{i}"))
    assert len(rl.buckets) == 100


def test_concurrency_is_released() -> None:
    rl = RateLimiter(RateLimitConfig.from_data({"default": {"concurrent": 2}}))
    a, _, _ = rl.admit(_ctx())
    b, _, _ = rl.admit(_ctx())
    with pytest.raises(rpc.RpcError, match="tenant concurrent 2"):
        rl.admit(_ctx())
    rl.release(a)
    rl.release(b)
    assert rl.running == {}
    rl.admit(_ctx())


async def test_a_daily_token_budget_counts_result_tokens() -> None:
    import msgspec

    rl = RateLimiter(RateLimitConfig.from_data({"default": {"daily_tokens": 100}}))
    result = rpc.Incoming(
        result=msgspec.Raw(b'{"content":[{"type":"text","text":"' + b"x" * 300 + b'"}]}')
    )

    async def terminal(ctx: CallContext) -> rpc.Incoming:
        return result

    await rl.call(_ctx(), terminal)  # about 85 tokens: under the budget when it started
    await rl.call(_ctx(), terminal)  # 170: over it now
    with pytest.raises(rpc.RpcError) as e:
        await rl.call(_ctx(), terminal)
    assert e.value.data["reason"] == "budget_exhausted"
    assert e.value.data["limit"] == "tenant daily_tokens 100"
    await rl.call(_ctx(tenant="other"), terminal)  # another tenant's budget
