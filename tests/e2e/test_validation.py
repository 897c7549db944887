"""Argument validation end to end: the real `manifold run` in front of a real upstream that
records every call it receives (`tests/servers/recorder_server.py`), driven by the official
client on both eras. An invalid call gets -32602 naming the mechanism and the schema error and
never reaches the upstream; a valid one passes; in router mode `invoke_tool`'s inner call is
checked the same way; nested `$ref` schemas from pydantic models are followed; a schema that
cannot be compiled leaves its tool listed and callable, unvalidated, with one warning in the
log; with `security.validation.enabled: false` the invalid call goes through. Every test runs
the default configuration (no `security` section: validation is on by default) unless it says
otherwise.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.shared.exceptions import MCPError

from tests import support
from tests.support import gateway_http, stdio_upstream, write_config

pytestmark = pytest.mark.timeout(120)
MODES = ["legacy", "2026-07-28"]


def _params(config: Path, *extra: str) -> StdioServerParameters:
    return support.run_params(config, *extra)  # type: ignore[no-any-return]


def _text(res: types.CallToolResult) -> str:
    first = res.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


async def _seen(c: Client, stats_tool: str, **how: Any) -> list[dict[str, Any]]:
    """The calls the upstream received, less the stats calls themselves."""
    res = await (
        c.call_tool(stats_tool, {})
        if not how
        else c.call_tool("invoke_tool", {"server": "rec", "tool": "stats"})
    )
    return [call for call in json.loads(_text(res))["calls"] if call["name"] != "stats"]


def _logged(log: Path, needle: str, timeout: float = 10.0) -> str:
    """The log once it holds `needle` (bounded wait: the gateway writes it as it refuses)."""
    deadline = time.monotonic() + timeout
    while needle not in (text := log.read_text(errors="replace")):
        assert time.monotonic() < deadline, f"{needle!r} not logged:\n{text[-3000:]}"
        time.sleep(0.1)
    return text


def _config(tmp_path: Path, **security: Any) -> Path:
    """The gateway's config: no `security` section at all (the defaults: validation on) unless
    given."""
    top: dict[str, Any] = {"security": security} if security else {}
    return write_config(tmp_path / "gw.yaml", {"rec": stdio_upstream("recorder_server.py")}, **top)


@pytest.mark.parametrize("mode", MODES)
async def test_an_invalid_call_is_refused_and_never_reaches_the_upstream(
    tmp_path: Path, mode: str
) -> None:
    async with Client(_params(_config(tmp_path)), mode=mode, cache=None) as c:
        with pytest.raises(MCPError) as err:
            await c.call_tool("rec__echo", {"text": 12345})
        assert err.value.code == types.INVALID_PARAMS
        message = str(err.value)
        assert "validation" in message and "/text" in message and "string" in message, message
        assert await _seen(c, "rec__stats") == []
        # A valid call passes, untouched.
        assert _text(await c.call_tool("rec__echo", {"text": "hi"})) == "rec:hi"
        assert await _seen(c, "rec__stats") == [{"name": "echo", "arguments": {"text": "hi"}}]


async def test_invoke_tool_inner_calls_are_validated(tmp_path: Path) -> None:
    params = _params(_config(tmp_path), "--exposure", "router")
    async with Client(params, cache=None) as c:
        bad = {"server": "rec", "tool": "hold", "arguments": {"seconds": "soon"}}
        with pytest.raises(MCPError) as err:
            await c.call_tool("invoke_tool", bad)
        assert err.value.code == types.INVALID_PARAMS
        assert "validation" in str(err.value) and "/seconds" in str(err.value), err.value
        assert await _seen(c, "", router=True) == []
        ok = {"server": "rec", "tool": "hold", "arguments": {"seconds": 0}}
        assert _text(await c.call_tool("invoke_tool", ok)) == "rec held 0.0"
        assert await _seen(c, "", router=True) == [{"name": "hold", "arguments": {"seconds": 0}}]


async def test_with_validation_off_the_invalid_call_reaches_the_upstream(tmp_path: Path) -> None:
    config = _config(tmp_path, validation={"enabled": False})
    async with Client(_params(config), cache=None) as c:
        assert _text(await c.call_tool("rec__echo", {"text": 12345})) == "rec:12345"
        assert await _seen(c, "rec__stats") == [{"name": "echo", "arguments": {"text": 12345}}]


async def test_nested_pydantic_arguments_are_checked_through_refs(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.yaml", {"models": stdio_upstream("models_server.py")})
    repo = {"owner": {"login": "ann", "id": 7}, "name": "r"}
    async with Client(_params(config), cache=None) as c:
        with pytest.raises(MCPError) as err:
            bad = {**repo, "owner": {"login": "ann", "id": "seven"}}
            await c.call_tool("models__file_issue", {"repo": bad, "title": "t"})
        assert err.value.code == types.INVALID_PARAMS
        assert "validation" in str(err.value) and "/repo/owner/id" in str(err.value), err.value
        ok = await c.call_tool("models__file_issue", {"repo": repo, "title": "t"})
        assert _text(ok) == "ann/r: t (for nobody, 0 labels)"


@pytest.mark.parametrize("mode", MODES)
async def test_a_schema_that_cannot_compile_leaves_its_tool_served(
    tmp_path: Path, mode: str
) -> None:
    up = stdio_upstream("recorder_server.py", "--odd-schema")
    config = write_config(tmp_path / "gw.yaml", {"rec": up})
    log = tmp_path / "gw.log"
    with gateway_http(config, log) as url:
        async with Client(url, mode=mode, cache=None) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert {"rec__odd", "rec__echo", "rec__stats"} <= names
            for text in ("one", "two"):
                assert _text(await c.call_tool("rec__odd", {"text": text})) == f"rec:{text}"
            # The other tools of the same upstream are still checked.
            with pytest.raises(MCPError):
                await c.call_tool("rec__echo", {"text": 1})
            assert [call["name"] for call in await _seen(c, "rec__stats")] == ["odd", "odd"]
        text = _logged(log, "refused tools/call rec__echo")
        assert "rec/odd: inputSchema cannot be compiled" in text, text[-3000:]
        assert text.count("inputSchema cannot be compiled") == 1
