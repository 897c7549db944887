"""Per-tool timeouts: the named tool fails fast with a clear error, the others keep the
upstream's timeout, and the upstream keeps serving."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.support import MANIFOLD, stdio_upstream, test_env, write_config


async def test_tool_timeout_overrides_the_upstream_timeout(tmp_path: Path) -> None:
    up = stdio_upstream("basic_server.py", timeout=30, tool_timeouts={"sleep": 0.5})
    cfg = write_config(tmp_path / "m.yaml", {"slowpoke": up})
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(cfg)], env=test_env()
    )
    async with Client(params) as c:
        t0 = time.monotonic()
        with pytest.raises(MCPError) as err:
            await c.call_tool("slowpoke__sleep", {"seconds": 5})
        assert time.monotonic() - t0 < 4
        assert "within 0.5 s" in str(err.value)
        # Another tool of the same upstream is unaffected and the upstream still answers.
        res = await c.call_tool("slowpoke__echo", {"text": "still here"})
        assert res.content[0].text == "basic:still here"  # type: ignore[union-attr]
