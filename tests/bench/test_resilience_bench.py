"""Smoke test of ``python -m bench.resilience_bench``: it runs and reports each figure."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support import REPO


def test_resilience_bench_reports_each_addon() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.resilience_bench", "--calls", "300"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    figures = json.loads(out.stdout)
    keys = ("chain_off_us", "cache_us", "breaker_us", "retry_us", "chain_on_us", "overhead_us")
    assert set(figures) == set(keys)
    assert all(figures[k] > 0 for k in keys[:-1])
