"""The response governor end to end: the real `manifold run` (stdio) in front of a real MCP
server with large results (tests/servers/large_server.py), driven by the official `mcp`
client in both protocol eras.

A large result arrives cut to the budget with a read_result id; reading every page gives the
full text back byte for byte; the same call again in the same session gets a short note; a
GitHub-style JSON list loses its API noise (pack) and keeps only the fields asked for through
invoke_tool."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client, StdioServerParameters, types

from tests.servers.large_server import big_text, issues_json
from tests.support import MANIFOLD, stdio_upstream, test_env, write_config

pytestmark = pytest.mark.timeout(120)

MODERN = "2026-07-28"
MAX_TOKENS = 300
RID = re.compile(r'read_result\(id="([^"]+)"')


def _client(config: Path, mode: str) -> Client:
    params = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(config)], env=test_env()
    )
    return Client(params, mode=mode, cache=None)


def _wire_size(res: types.CallToolResult) -> int:
    """Bytes of the answer line as the gateway sent it (compact, no nulls), for a long id,
    besides the structuredContent (relayed whole, outside the budget)."""
    obj = res.model_dump(mode="json", by_alias=True, exclude_none=True)
    obj.pop("structuredContent", None)
    if obj.get("isError") is False:
        del obj["isError"]  # the SDK fills the default in
    obj.pop("resultType", None)  # counted by the governor's reserve
    envelope = len(b'{"jsonrpc":"2.0","id":,"result":}') + 24
    return len(orjson.dumps(obj)) + len(b'"resultType":"complete",') + envelope


def _texts(res: types.CallToolResult) -> list[str]:
    return [b.text for b in res.content if isinstance(b, types.TextContent)]


async def _read_all(client: Client, rid: str) -> str:
    parts: list[str] = []
    page = 1
    while True:
        res = await client.call_tool("read_result", {"id": rid, "page": page})
        assert not res.is_error, _texts(res)
        text = _texts(res)[0]
        m = re.search(
            r"\n\[page (\d+)/(\d+); read_result\(id='[^']+', page=\d+\) for more\]$", text
        )
        if m is None:
            parts.append(text)
            return "".join(parts)
        assert int(m.group(1)) == page
        parts.append(text[: m.start()])
        page += 1


@pytest.fixture(scope="module")
def hybrid_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("governor")
    return write_config(
        work / "gw.yaml",
        {"large": stdio_upstream("large_server.py")},
        exposure={"mode": "hybrid"},
        response={"max_tokens": MAX_TOKENS},
    )


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_capped_result_pages_back_byte_identical(hybrid_config: Path, mode: str) -> None:
    text = big_text(30_000)
    async with _client(hybrid_config, mode) as client:
        res = await client.call_tool("large__big", {"size": 30_000})
        assert isinstance(res, types.CallToolResult) and not res.is_error
        assert _wire_size(res) <= MAX_TOKENS * 4
        texts = _texts(res)
        head, note = texts[0], texts[-1]
        assert head and text.startswith(head)
        m = RID.search(note)
        assert m is not None, note
        assert f"{MAX_TOKENS}-token budget" in note and "page=2" in note
        # The SDK checked structuredContent against the tool's outputSchema: the upstream's.
        assert res.structured_content == {"result": text}
        assert await _read_all(client, m.group(1)) == text

        small = await client.call_tool("large__small", {})
        assert _texts(small) == ["small answer"]
        assert small.structured_content == {"result": "small answer"}


async def test_repeat_in_a_session_gets_the_dedup_note(hybrid_config: Path) -> None:
    async with _client(hybrid_config, "legacy") as client:
        first = await client.call_tool("large__big", {"size": 12_000})
        m = RID.search(_texts(first)[-1])
        assert m is not None
        second = await client.call_tool("large__big", {"size": 12_000})
        assert isinstance(second, types.CallToolResult) and not second.is_error
        assert _wire_size(second) <= 70 * 4
        note = _texts(second)[0]
        assert "Identical" in note and "large__big" in note
        assert second.structured_content == {"result": big_text(12_000)}
        assert f'read_result(id="{m.group(1)}")' in note
        # A different result is not a repeat.
        other = await client.call_tool("large__big", {"size": 12_001})
        assert "Identical" not in _texts(other)[0]
    # A new session starts afresh.
    async with _client(hybrid_config, "legacy") as client:
        again = await client.call_tool("large__big", {"size": 12_000})
        assert "Identical" not in _texts(again)[0]


async def test_router_mode_projection_with_fields(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"large": stdio_upstream("large_server.py")},
        exposure={"mode": "router"},
        response={"max_tokens": 2000, "packs": ["github"], "dedup": False},
    )
    async with _client(cfg, "legacy") as client:
        res = await client.call_tool(
            "invoke_tool", {"server": "large", "tool": "issues", "arguments": {"count": 5}}
        )
        issues: list[dict[str, Any]] = json.loads(_texts(res)[0])
        assert [i["number"] for i in issues] == [1, 2, 3, 4, 5]
        assert "node_id" not in issues[0] and "avatar_url" not in issues[0]["user"]
        assert issues[0]["html_url"] == "https://github.com/acme/widgets/issues/1"
        native = len(issues_json(5))
        assert len(_texts(res)[0]) < native / 2

        res = await client.call_tool(
            "invoke_tool",
            {
                "server": "large",
                "tool": "issues",
                "arguments": {"count": 3},
                "fields": ["number", "user.login"],
            },
        )
        assert json.loads(_texts(res)[0]) == [
            {"number": 1, "user": {"login": "dev1"}},
            {"number": 2, "user": {"login": "dev2"}},
            {"number": 3, "user": {"login": "dev3"}},
        ]

        # A large list through invoke_tool is capped too, and pages back whole.
        res = await client.call_tool(
            "invoke_tool", {"server": "large", "tool": "issues", "arguments": {"count": 200}}
        )
        assert _wire_size(res) <= 2000 * 4
        m = RID.search(_texts(res)[-1])
        assert m is not None
        back = json.loads(await _read_all(client, m.group(1)))
        assert len(back) == 200 and "node_id" not in back[0]
