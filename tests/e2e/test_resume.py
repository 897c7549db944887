"""Legacy SSE resumability: a client whose POST stream drops mid-call reconnects with GET and
Last-Event-ID, and gets the events it missed and the answer, on the same session."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp

from tests.support import gateway_http, stdio_upstream, write_config

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def _events(resp: aiohttp.ClientResponse, stop_after: int | None = None) -> list[Any]:
    """(id, data) of each SSE event; stop after `stop_after` events with data."""
    out: list[Any] = []
    eid, data = None, []
    while True:
        line = await resp.content.readline()
        if not line:
            break
        line = line.rstrip(b"\r\n")
        if not line:
            if data:
                out.append((eid, json.loads(b"\n".join(data))))
                if stop_after is not None and len(out) >= stop_after:
                    break
            eid, data = None, []
        elif line.startswith(b"id:"):
            eid = line[3:].strip().decode()
        elif line.startswith(b"data:") and line[5:].strip():
            data.append(line[5:].strip())
    return out


async def test_a_dropped_stream_resumes_with_last_event_id(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "m.yaml", {"demo": stdio_upstream("basic_server.py")})
    with gateway_http(cfg, tmp_path / "gw.log") as url:
        async with asyncio.timeout(30), aiohttp.ClientSession() as http:
            params = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            }
            init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
            async with http.post(url, json=init, headers=HEADERS) as r:
                sid = r.headers["Mcp-Session-Id"]
            session = {**HEADERS, "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
            args = {"name": "demo__progress", "arguments": {"steps": 40}}
            call_params = {**args, "_meta": {"progressToken": "p"}}
            call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call_params}
            r = await http.post(url, json=call, headers=session)
            assert r.headers["Content-Type"].startswith("text/event-stream")
            first = await _events(r, stop_after=2)
            r.close()  # the connection drops mid-call
            last_id = first[-1][0]
            assert last_id and first[-1][1]["method"] == "notifications/progress"

            get_headers = {**session, "Accept": "text/event-stream", "Last-Event-ID": last_id}
            async with http.get(url, headers=get_headers) as g:
                assert g.status == 200
                rest = await _events(g)
    seen = [m.get("params", {}).get("progress") for _, m in first + rest if "method" in m]
    assert seen == sorted(seen) and seen[-1] == 40  # nothing missed, nothing twice
    assert len(seen) == len(set(seen)) == 40
    answer = rest[-1][1]
    assert answer["id"] == 7 and answer["result"]["content"][0]["text"] == "done"
