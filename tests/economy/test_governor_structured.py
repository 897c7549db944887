"""The response governor never corrupts structured results: the real `manifold run` (stdio) in
front of a real MCP server whose tools declare an outputSchema
(tests/servers/structured_server.py), driven by the official `mcp` client, which checks
structuredContent against that schema, in both protocol eras.

With dedup on (the default) a repeated call still gets the upstream's structuredContent; with
a small `response.max_tokens` a large structured result keeps its structuredContent exactly,
and only its text is cut, with read_result paging back the whole text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters, types

from tests.servers.structured_server import inventory, time_result
from tests.support import MANIFOLD, stdio_upstream, test_env, write_config

pytestmark = pytest.mark.timeout(120)

MODERN = "2026-07-28"
RID = re.compile(r'read_result\(id="([^"]+)"')
PAGE = re.compile(r"\n\[page (\d+)/(\d+); read_result\(id='[^']+', page=\d+\) for more\]$")


def _client(config: Path, mode: str) -> Client:
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(config)], env=test_env()
    )
    return Client(params, mode=mode, cache=None)


def _texts(res: types.CallToolResult) -> list[str]:
    return [b.text for b in res.content if isinstance(b, types.TextContent)]


async def _read_all(client: Client, rid: str) -> str:
    parts: list[str] = []
    for page in range(1, 1000):
        res = await client.call_tool("read_result", {"id": rid, "page": page})
        assert not res.is_error, _texts(res)
        text = _texts(res)[0]
        m = PAGE.search(text)
        if m is None:
            parts.append(text)
            return "".join(parts)
        parts.append(text[: m.start()])
    raise AssertionError("read_result never ended")


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_repeated_structured_call_keeps_its_structured_content(
    tmp_path: Path, mode: str
) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"clock": stdio_upstream("structured_server.py", "--name", "clock")},
        exposure={"mode": "passthrough"},  # the default response config: dedup on
    )
    want = time_result("Europe/Warsaw")
    async with _client(cfg, mode) as client:
        first = await client.call_tool("clock__get_time", {"timezone": "Europe/Warsaw"})
        assert not first.is_error and first.structured_content == want
        # The SDK client validates structuredContent against the outputSchema: a placeholder
        # or a missing value raises here.
        second = await client.call_tool("clock__get_time", {"timezone": "Europe/Warsaw"})
        assert not second.is_error
        assert second.structured_content == want
        assert "Identical" in _texts(second)[0]  # the text became the repeat note


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_cut_structured_result_keeps_its_structured_content(
    tmp_path: Path, mode: str
) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"stock": stdio_upstream("structured_server.py", "--name", "stock")},
        exposure={"mode": "hybrid"},  # read_result is listed
        response={"max_tokens": 200},
    )
    want = inventory(300)
    async with _client(cfg, mode) as client:
        res = await client.call_tool("stock__inventory", {"count": 300})
        assert not res.is_error
        assert res.structured_content == want
        texts = _texts(res)
        whole = json.dumps(want, indent=2, ensure_ascii=False)
        assert whole.startswith(texts[0]) and len(texts[0]) < len(whole) // 10
        m = RID.search(texts[-1])
        assert m is not None and "200-token budget" in texts[-1]
        assert json.loads(await _read_all(client, m.group(1))) == want
