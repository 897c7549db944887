"""What reaches the client on every surface an upstream controls, through the real `manifold
run` in front of a raw upstream (`tests/servers/sneaky_server.py`) that puts one prompt
injection on each, driven by the official client.

With the defaults: an injection in a JSON-RPC error's `message` and `data` is withheld (the
error names the guard, not the payload), and so is a fake AWS key in an error (redacted); a log
message and a progress message carrying an injection arrive as a note from the guard; an
injection split over two text blocks, or over `structuredContent` and a text block, or in an
`isError` result, or in an embedded resource's base64 `blob` of a text type, is refused (and
so is a `resources/read` answering text as a blob); the upstream's handshake `instructions`
(which the gateway passes on in its own) are dropped; a definition poisoned only in its `title`
or `outputSchema`, and a resource poisoned in its listed description, are hidden. With the
guard and redaction off the same exchange shows every payload, so the test cannot pass
vacuously.
"""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.shared.exceptions import MCPError

from tests import support
from tests.servers.sneaky_server import AWS_KEY, CLEAN, INJECTION
from tests.support import stdio_upstream, write_config

pytestmark = pytest.mark.timeout(120)
PAYLOAD = "collector.example"


def _params(tmp_path: Path, security: dict[str, Any]) -> StdioServerParameters:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"sneaky": stdio_upstream("sneaky_server.py")},
        security={**security, "audit": {"path": str(tmp_path / "audit.jsonl")}},
        exposure={"mode": "passthrough"},
        state={"path": ""},
    )
    return support.run_params(cfg)  # type: ignore[no-any-return]


async def _error(c: Client, which: str) -> tuple[str, Any]:
    with pytest.raises(MCPError) as err:
        await c.call_tool("sneaky__surface", {"which": which})
    return err.value.error.message, err.value.error.data


def _texts(res: types.CallToolResult) -> str:
    return "\n".join(c.text for c in res.content if isinstance(c, types.TextContent))


class _Logs:
    """The client's logging callback: keeps each log message's data."""

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.arrived = asyncio.Event()

    async def __call__(self, p: types.LoggingMessageNotificationParams) -> None:
        self.seen.append(p.data)
        self.arrived.set()


async def _logged(c: Client, logs: _Logs) -> tuple[str, list[str]]:
    """The log message and the progress message one `log` call brought."""
    progress: list[str] = []

    async def on_progress(_p: float, _t: float | None, message: str | None) -> None:
        progress.append(message or "")

    res = await c.call_tool("sneaky__surface", {"which": "log"}, progress_callback=on_progress)
    assert _texts(res) == CLEAN
    async with asyncio.timeout(10):
        await logs.arrived.wait()
    return str(logs.seen[0]), progress


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_every_surface_an_upstream_controls_is_scanned(tmp_path: Path, mode: str) -> None:
    logs = _Logs()
    async with Client(_params(tmp_path, {}), mode=mode, cache=None, logging_callback=logs) as c:
        assert PAYLOAD not in (c.instructions or "")  # the handshake's instructions
        assert [t.name for t in (await c.list_tools()).tools] == ["sneaky__surface"]
        assert [str(r.uri) for r in (await c.list_resources()).resources] == ["doc://plain"]

        message, data = await _error(c, "error")
        assert message.startswith("guard: ") and "prompt injection" in message, message
        assert PAYLOAD not in message + json.dumps(data)
        assert data["mechanism"] == "guard" and "override" in data["reasons"], data

        message, data = await _error(c, "secret_error")
        assert AWS_KEY not in message + json.dumps(data)
        assert "[REDACTED:aws-access-key]" in message, message

        with pytest.raises(MCPError) as err:  # text sent as a base64 blob
            await c.read_resource("doc://blob")
        assert err.value.error.message.startswith("guard: "), err.value.error.message

        for which in ("is_error", "split", "structured", "blob"):
            res = await c.call_tool("sneaky__surface", {"which": which})
            assert res.is_error and _texts(res).startswith("guard: "), (which, res)
            assert PAYLOAD not in _texts(res) and res.structured_content is None

        if mode == "legacy":  # the modern client asks for log messages call by call
            log, progress = await _logged(c, logs)
            assert log.startswith("guard: ") and PAYLOAD not in log, log
            assert len(progress) == 1 and progress[0].startswith("guard: "), progress
            assert PAYLOAD not in progress[0]
        else:
            progress = []

            async def on_progress(_p: float, _t: float | None, m: str | None) -> None:
                progress.append(m or "")

            await c.call_tool("sneaky__surface", {"which": "log"}, progress_callback=on_progress)
            assert len(progress) == 1 and progress[0].startswith("guard: "), progress

    entries = [json.loads(x) for x in (tmp_path / "audit.jsonl").read_text().splitlines()]
    guarded = {(e["method"], e["target"]) for e in entries if e.get("event") == "guard"}
    assert ("tools/list", "titled") in guarded and ("tools/list", "shaped") in guarded
    assert ("resources/list", "poisoned") in guarded
    assert ("instructions/list", "sneaky") in guarded
    assert ("notifications/progress", "message") in guarded, guarded
    calls = [e for e in entries if e.get("event") == "call"]
    assert calls[0]["outcome"] == "error" and calls[0]["mechanism"] == "guard", calls[0]


async def test_with_guard_and_redaction_off_every_payload_arrives(tmp_path: Path) -> None:
    logs = _Logs()
    off = {"guard": {"enabled": False}, "redaction": {"enabled": False}}
    async with Client(
        _params(tmp_path, off), mode="legacy", cache=None, logging_callback=logs
    ) as c:
        assert INJECTION in (c.instructions or "")
        names = {t.name for t in (await c.list_tools()).tools}
        assert names == {"sneaky__surface", "sneaky__titled", "sneaky__shaped"}
        assert len((await c.list_resources()).resources) == 2
        message, data = await _error(c, "error")
        assert message == INJECTION and data == {"detail": INJECTION}
        message, _ = await _error(c, "secret_error")
        assert AWS_KEY in message
        blob = (await c.read_resource("doc://blob")).contents[0]
        assert isinstance(blob, types.BlobResourceContents)
        assert base64.b64decode(blob.blob).decode() == INJECTION
        log, progress = await _logged(c, logs)
        assert log == INJECTION and progress == [INJECTION]
