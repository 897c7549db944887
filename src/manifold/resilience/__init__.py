"""Resilience: retries, circuit breakers and the response cache with coalescing, one addon each
(`retry.py`, `breaker.py`, `cache.py`), sharing what they know of tools (`policy.py`). Each is
imported only when it is on (docs/resilience.md)."""
