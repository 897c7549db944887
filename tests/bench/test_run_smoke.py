"""Smoke test of the benchmark runner: ``python -m bench.run --quick --only paced`` writes a
report with the expected rows (direct only while the gateway is not runnable)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from bench.run import default_gateway_cmd, probe_gateway

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(300)
def test_quick_paced_report(tmp_path: Path) -> None:
    gateway_problem = probe_gateway(default_gateway_cmd())
    argv = [sys.executable, "-m", "bench.run", "--quick", "--only", "paced", "--out", str(tmp_path)]
    if gateway_problem is not None:
        argv.append("--direct-only")
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, timeout=240, check=False)
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, stderr[-3000:]

    md = (tmp_path / "report.md").read_text()
    assert md.startswith("# Manifold benchmark")
    assert "| measure | unit | direct | gateway | gateway/direct | target | result | note |" in md
    assert "| stdio paced echo p50 | ms |" in md
    assert "| stdio paced echo p99 | ms |" in md

    report = orjson.loads((tmp_path / "report.json").read_bytes())
    rows = {r["measure"]: r for r in report["rows"]}
    assert set(rows) == {"stdio paced echo p50", "stdio paced echo p99"}
    assert report["details"]["paced"]["direct"]["n"] == 50
    for row in rows.values():
        assert 0 < row["direct"] < 50  # ms: a lean mock answers an echo in well under that
        if gateway_problem is None:
            assert row["gateway"] is not None and row["gateway"] > 0
            assert row["status"] in ("MET", "MISSED")
        else:
            assert row["gateway"] is None and row["status"] == "NOT RUN"
    assert report["warnings"] == []
