from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.support import EVERYTHING_JS, NODE, marked_pids

# CI explores the same examples every run (a failure there is reproducible); a developer's runs
# keep exploring new ones.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


needs_node = pytest.mark.skipif(
    not (NODE.exists() and EVERYTHING_JS.exists()),
    reason="Node tools missing: run `make tools`",
)


@pytest.fixture(scope="session", autouse=True)
def no_leftover_processes() -> Iterator[None]:
    """Fail the run if any process started by a test outlives the session."""
    yield
    deadline = time.monotonic() + 10
    left = marked_pids()
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = marked_pids()
    assert not left, f"processes left behind by the tests: {left}"


@pytest.fixture(scope="session", autouse=True)
def private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A home folder of the run's own: with no `state:` configured the gateway keeps its files
    under ~/.manifold (tool pins, savings), so tests never read or write the user's, and no run
    sees what an earlier one recorded (a pinned test tool whose description was edited since
    would be held)."""
    old = os.environ.get("HOME")
    os.environ["HOME"] = str(tmp_path_factory.mktemp("home"))
    yield
    if old is None:
        os.environ.pop("HOME", None)
    else:
        os.environ["HOME"] = old
