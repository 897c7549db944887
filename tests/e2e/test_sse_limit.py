"""An upstream SSE event over `max_event_bytes`: the real `manifold run` in front of a real
Streamable HTTP server (tests/servers/structured_server.py, whose `inventory_slowly` answers
on an SSE stream), driven by the official `mcp` client.

The call whose answer is too large gets a clear JSON-RPC error naming the limit; the gateway
keeps serving, and the same upstream's next answers arrive whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.servers.structured_server import inventory, time_result
from tests.support import MANIFOLD, PY, SERVERS, free_port, http_server, test_env, write_config

pytestmark = pytest.mark.timeout(120)

LIMIT = 4096


async def test_an_answer_over_max_event_bytes_is_refused_and_the_rest_flows(
    tmp_path: Path,
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    cmd = [PY, str(SERVERS / "structured_server.py"), "--http", "--port", str(port)]
    with http_server(cmd, url, tmp_path / "beta.log"):
        cfg = write_config(
            tmp_path / "gw.yaml",
            {"beta": {"url": url, "max_event_bytes": LIMIT}},
            response={"dedup": False},
        )
        params = StdioServerParameters(
            command=MANIFOLD, args=["run", "--config", str(cfg)], env=test_env()
        )
        steps: list[float] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            steps.append(done)

        async with Client(params, mode="legacy", cache=None) as client:
            # A progress token makes the upstream answer on an SSE stream.
            small = await client.call_tool("beta__inventory_slowly", {"count": 2}, None, progress)
            assert small.structured_content == inventory(2) and steps
            with pytest.raises(MCPError) as err:
                await client.call_tool("beta__inventory_slowly", {"count": 100}, None, progress)
            assert f"{LIMIT}-byte limit" in str(err.value) and "max_event_bytes" in str(err.value)
            # Under the limit passes whole; the upstream and the gateway keep serving.
            fits = await client.call_tool("beta__inventory_slowly", {"count": 10}, None, progress)
            assert fits.structured_content == inventory(10)
            after = await client.call_tool("beta__get_time", {"timezone": "UTC"})
            assert after.structured_content == time_result("UTC")
