"""Health checks: an upstream that is running but no longer answers is found by its pings and
restarted, and its tools work again."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.support import MANIFOLD, stdio_upstream, test_env, write_config


async def test_a_wedged_upstream_is_restarted(tmp_path: Path) -> None:
    up = stdio_upstream(
        "hang_server.py",
        health_interval=0.5,
        health_timeout=1.0,
        tool_timeouts={"freeze": 0.5},
        restart_backoff_initial=0.2,
    )
    cfg = write_config(tmp_path / "m.yaml", {"wedge": up})
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(cfg)], env=test_env()
    )
    async with Client(params) as c:
        first = (await c.call_tool("wedge__pid", {})).content[0].text  # type: ignore[union-attr]
        try:
            await c.call_tool("wedge__freeze", {})
        except MCPError:
            pass  # its own timeout; the server is now wedged but alive
        async with asyncio.timeout(20):
            while True:
                await asyncio.sleep(0.3)
                try:
                    res = await c.call_tool("wedge__pid", {})
                except MCPError:
                    continue  # down or restarting
                pid = res.content[0].text  # type: ignore[union-attr]
                if not res.is_error and pid != first:
                    break
