"""The hooks, end to end: an example addon named in the config (`tests/addons/recorder.py`)
takes part in every hook kind, and on both eras the client sees what each hook did: tools
rewritten or hidden when an upstream's list arrives (catalog), hidden from one listing
(listing), sampling requests rewritten on their way to the client (server_request), log
messages rewritten (notification), and every routed call recorded (call).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests import support
from tests.support import MANIFOLD, gateway_http, stdio_upstream, write_config

MODERN = "2026-07-28"
OPS_KEY = "ops-key-0123456789abcdef"
pytestmark = pytest.mark.timeout(180)


def _text(res: types.CallToolResult) -> str:
    assert not res.is_error, res
    first = res.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


@contextlib.asynccontextmanager
async def _gateway(front: str, config: Path, tmp_path: Path) -> AsyncIterator[Any]:
    """What a Client connects to: `manifold run` (stdio) or `manifold serve` (HTTP)."""
    if front == "stdio":
        env = support.test_env()
        yield StdioServerParameters(
            command=MANIFOLD, args=["run", "--config", str(config)], env=env, cwd=str(support.REPO)
        )
    else:
        with gateway_http(config, tmp_path / "gw.log") as url:
            yield url


@pytest.mark.parametrize("front", ["stdio", "http"])
@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_an_addon_sees_and_shapes_every_message_kind(
    tmp_path: Path, mode: str, front: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "recorded.jsonl"
    config = write_config(
        tmp_path / "gw.yaml",
        {"basic": stdio_upstream("basic_server.py"), "ctl": stdio_upstream("control_server.py")},
        addons=["tests.addons.recorder:Recorder"],
    )
    # The gateway process imports the example addon from the tests and writes what it saw here.
    monkeypatch.setenv("MANIFOLD_RECORDER_FILE", str(record))
    monkeypatch.setenv("PYTHONPATH", str(support.REPO))
    asked: list[str] = []
    logs: list[Any] = []
    three_logs = asyncio.Event()
    changed = asyncio.Event()

    async def sampling(_ctx: Any, params: types.CreateMessageRequestParams) -> Any:
        content = params.messages[0].content
        asked.append(content.text if isinstance(content, types.TextContent) else "?")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="ok"), model="t"
        )

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.data)
        if len(logs) >= 3:
            three_logs.set()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with (
        _gateway(front, config, tmp_path) as server,
        Client(
            server,
            mode=mode,
            cache=None,
            sampling_callback=sampling,
            logging_callback=on_log,
            log_level="debug",
            message_handler=on_message,
        ) as c,
    ):
        tools = {t.name: t for t in (await c.list_tools()).tools}
        # catalog: `crash` never arrived; descriptions were rewritten on arrival.
        assert "basic__echo" in tools and "basic__crash" not in tools
        assert (tools["basic__echo"].description or "").endswith(" [catalogued]")
        # listing: hidden from this client's list, still routable.
        assert "basic__pid" not in tools and "ctl__slow" in tools
        assert _text(await c.call_tool("basic__pid", {})).isdigit()
        # call
        assert _text(await c.call_tool("basic__echo", {"text": "hi"})) == "basic:hi"
        # refused: a name that routes nowhere is refused before any call hook runs
        with pytest.raises(MCPError, match="Unknown tool"):
            await c.call_tool("basic__nowhere", {})
        # notification: progress passes, log messages are rewritten
        steps: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            steps.append(progress)

        await c.call_tool("basic__progress", {"steps": 3}, progress_callback=on_progress)
        assert steps == [1, 2, 3]
        await c.call_tool("basic__chatty", {})
        async with asyncio.timeout(10):
            await three_logs.wait()
        assert all(str(d).startswith("[seen] ") for d in logs), logs
        # server_request: the sampling request was rewritten on its way to the client
        assert _text(await c.call_tool("ctl__ask", {"question": "why?"})).endswith(" got: ok")
        assert asked == ["[relayed] why?"]
        # notification: a list change passes the hook and reaches a legacy session (a modern
        # client hears of it only on a subscriptions/listen stream, which this one did not open)
        await c.call_tool("ctl__grow", {"tool": "fresh"})
        async with asyncio.timeout(15):
            while "notifications/tools/list_changed" not in record.read_text():  # noqa: ASYNC110
                await asyncio.sleep(0.05)
            if mode == "legacy":
                await changed.wait()

    seen = [json.loads(line) for line in record.read_text().splitlines()]
    kinds = {e["hook"] for e in seen}
    assert {"call", "catalog", "listing", "server_request", "notification", "refused"} <= kinds
    assert [e["target"] for e in seen if e["hook"] == "refused"] == ["basic__nowhere"]
    assert "basic__nowhere" not in {e["exposed"] for e in seen if e["hook"] == "call"}
    calls = [e for e in seen if e["hook"] == "call"]
    assert {e["exposed"] for e in calls} >= {"basic__echo", "basic__pid", "ctl__ask"}
    assert all(e["modern_client"] == (mode == MODERN) for e in calls)
    assert all(e["era"] in ("legacy", "modern") for e in calls)  # the upstream's era is known
    notes = {e["method"] for e in seen if e["hook"] == "notification"}
    assert {
        "notifications/progress",
        "notifications/message",
        "notifications/tools/list_changed",
    } <= notes
    assert {(e["upstream"], e["kind"]) for e in seen if e["hook"] == "catalog"} >= {
        ("basic", "tools"),
        ("ctl", "tools"),
    }
    requests = [e for e in seen if e["hook"] == "server_request"]
    assert requests[0]["method"] == "sampling/createMessage"
    assert requests[0]["era"] == ("modern" if mode == MODERN else "legacy")
    assert any(e["hook"] == "server_request_answer" for e in seen)


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_side_traffic_hooks_see_the_requests_principal(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On `manifold serve` with an API key of tenant `ops`, the progress notifications of a call
    and the sampling request it causes reach the hooks with the request's principal, on both
    eras: a modern request is stateless, its session a shell shared by every client (whose
    principal is `local`), so the principal must come from the request."""
    record = tmp_path / "recorded.jsonl"
    config = write_config(
        tmp_path / "gw.yaml",
        {"basic": stdio_upstream("basic_server.py"), "ctl": stdio_upstream("control_server.py")},
        addons=["tests.addons.recorder:Recorder"],
        auth={"keys": [{"sha256": hashlib.sha256(OPS_KEY.encode()).hexdigest(), "tenant": "ops"}]},
    )
    monkeypatch.setenv("MANIFOLD_RECORDER_FILE", str(record))
    monkeypatch.setenv("PYTHONPATH", str(support.REPO))

    async def sampling(_ctx: Any, params: types.CreateMessageRequestParams) -> Any:
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="ok"), model="t"
        )

    steps: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append(progress)

    with gateway_http(config, tmp_path / "gw.log") as url:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {OPS_KEY}"}, timeout=30)
        transport = streamable_http_client(url, http_client=http)
        async with (
            asyncio.timeout(60),
            Client(transport, mode=mode, cache=None, sampling_callback=sampling) as c,
        ):
            await c.call_tool("basic__progress", {"steps": 2}, progress_callback=on_progress)
            assert steps == [1, 2]
            assert _text(await c.call_tool("ctl__ask", {"question": "why?"})).endswith(" got: ok")
    seen = [json.loads(line) for line in record.read_text().splitlines()]
    progress = [e for e in seen if e.get("method") == "notifications/progress"]
    asks = [e for e in seen if e["hook"] == "server_request"]
    assert len(progress) == 2 and asks, seen
    assert [e["principal"] for e in progress + asks] == ["ops"] * (2 + len(asks)), seen
