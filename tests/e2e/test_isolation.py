"""isolation: per_client — each client session gets its own upstream session (process), so a
legacy stdio server's sampling request, which names no call, still reaches the right client,
even while calls of two clients overlap."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.support import gateway_http, marked_pids, recording_sampler, stdio_upstream, write_config


def _text(res: Any) -> str:
    return str(res.content[0].text)


@pytest.mark.parametrize("mode", ["legacy"])
async def test_overlapping_clients_each_get_their_own_request(tmp_path: Path, mode: str) -> None:
    up = stdio_upstream("legacy_server.py", isolation="per_client")
    config = write_config(tmp_path / "m.yaml", {"old": up})
    asked: dict[str, list[str]] = {"one": [], "two": []}

    def sampling(who: str) -> Any:
        return recording_sampler(asked, who)

    with gateway_http(config, tmp_path / "gateway.log") as url:
        # Sets, not counts: a process of an earlier test that ends meanwhile must not hide
        # a new one (the suite runs in parallel; each worker has its own mark).
        before = set(marked_pids())
        async with asyncio.timeout(60):
            async with (
                Client(url, mode=mode, cache=None, sampling_callback=sampling("one")) as c1,
                Client(url, mode=mode, cache=None, sampling_callback=sampling("two")) as c2,
            ):
                first = asyncio.ensure_future(
                    c1.call_tool("old__ask_later", {"question": "one's secret", "delay": 1.0})
                )
                await asyncio.sleep(0.3)
                second = asyncio.ensure_future(
                    c2.call_tool("old__ask_later", {"question": "two's secret", "delay": 1.0})
                )
                r1, r2 = await asyncio.gather(first, second)
                # With a server of its own, each client's call succeeds with its own answer.
                assert _text(r1) == "old got: answer for one", r1
                assert _text(r2) == "old got: answer for two", r2
                assert asked == {"one": ["one's secret"], "two": ["two's secret"]}
                new = set(marked_pids()) - before
                assert len(new) >= 2, new  # two more server processes
            # Both clients ended their sessions (DELETE): their servers are reaped.
            for _ in range(100):
                if not new & set(marked_pids()):
                    break
                await asyncio.sleep(0.1)
            assert not new & set(marked_pids())
