"""The injection guard under a flood of large results through the real `manifold serve`:
8 HTTP sessions at once each fetch pages of 1, 3 and 5 MB (`tests/servers/pages_server.py`)
that the guard refuses, while another session keeps calling a small tool.

What a user must see: every page refused (naming the guard, no payload), every small call of
the other session answered meanwhile, and the gateway's memory back near where it started once
the flood is over (long texts are scored in worker threads, whose heap pages glibc kept: the
gateway stayed about 39 MiB larger for good).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, types

from tests.support import (
    MANIFOLD,
    free_port,
    http_server,
    stdio_upstream,
    write_config,
)

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]
MIB = 1024 * 1024


def _rss(proc: subprocess.Popen[bytes]) -> int:
    for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _text(res: types.CallToolResult) -> str:
    first = res.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


async def test_a_flood_of_large_injected_pages_is_refused_and_memory_comes_back(
    tmp_path: Path,
) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {
            "pages": stdio_upstream("pages_server.py"),
            "basic": stdio_upstream("basic_server.py"),
        },
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    cmd = [MANIFOLD, "serve", "--config", str(cfg), "--port", str(port)]
    with http_server(cmd, f"http://127.0.0.1:{port}/health", tmp_path / "gw.log") as proc:
        async with Client(url, mode="legacy") as probe:
            warm = await probe.call_tool("pages__page", {"mb": 1})  # scanner and threads warm
            assert warm.is_error and _text(warm).startswith("guard: ")
            before = _rss(proc)
            stop = asyncio.Event()
            echoed: list[str] = []

            async def other_session() -> None:
                while not stop.is_set():
                    echoed.append(_text(await probe.call_tool("basic__echo", {"text": "x"})))
                    await asyncio.sleep(0.05)

            async def flooder() -> list[bool]:
                async with Client(url, mode="legacy") as c:
                    refused = []
                    for mb in (1, 3, 5):
                        res = await c.call_tool("pages__page", {"mb": mb})
                        refused.append(
                            res.is_error
                            and _text(res).startswith("guard: ")
                            and "collector" not in _text(res)
                        )
                    return refused

            pinger = asyncio.create_task(other_session())
            results = await asyncio.gather(*(flooder() for _ in range(8)))
            stop.set()
            await asyncio.wait_for(pinger, 30)
            assert all(all(r) for r in results), results
            assert echoed and set(echoed) == {"basic:x"}
            await asyncio.sleep(2.0)  # the heap is trimmed 0.5 s after the last scan
            grown = _rss(proc) - before
    assert grown < 16 * MIB, f"the gateway kept {grown / MIB:.1f} MiB after the flood"
