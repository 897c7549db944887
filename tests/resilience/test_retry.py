"""The retry budget: calls earn retries at `budget_ratio`, at most `budget_burst` are kept."""

from __future__ import annotations

from manifold.config import RetryConfig
from manifold.resilience.retry import RetryBudget


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
