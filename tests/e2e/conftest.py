"""Fixtures shared by end-to-end tests (a module may define its own of the same name)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_supervision import StdioGateway
from tests.support import write_config


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[Any]:
    """`start(upstreams, **top)`: a `manifold run` on that config, initialized; every one
    started is stopped after the test."""
    opened: list[StdioGateway] = []

    def start(upstreams: dict[str, Any], **top: Any) -> StdioGateway:
        cfg = write_config(tmp_path / "m.yaml", upstreams, **top)
        gw = StdioGateway(cfg, tmp_path / "gateway.log")
        opened.append(gw)
        gw.initialize()
        return gw

    yield start
    for gw in opened:
        gw.__exit__()
