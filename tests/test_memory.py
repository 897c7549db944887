"""`memory.py`: large buffers go back to the system (a fixed glibc mmap threshold), unless the
user tuned malloc themselves. The effect on a real gateway is measured in
`tests/e2e/test_http_sessions.py` (streamed answers bounded by the replay, freed on DELETE)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import test_env

PROBE = "from manifold.memory import return_large_buffers as r; print(r())"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_set_on_glibc_and_the_users_own_tuning_wins() -> None:
    env = test_env()
    env.pop("MALLOC_MMAP_THRESHOLD_", None)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "True", out.stderr
    env["MALLOC_MMAP_THRESHOLD_"] = "65536"
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
