"""Hot reload through the real `manifold serve`, under load.

32 legacy HTTP sessions call an upstream that stays (`keep`) in a loop while the config file is
rewritten: an upstream added, one removed, one changed (restarted with new arguments), then a
broken file (an unknown key, then bad YAML), then a removal with an override changed. What a
user must see: every call of the 32 sessions answered (no error, no lost session), the `keep`
process untouched, the new upstream's tools listed and callable, the removed one's gone and its
process ended, the changed one answering as its new self, `tools/list_changed` notifications
(also for a removal and an override changed live, which keeps its upstream's process), and a
broken file refused with the error in the log and everything left as it was. SIGHUP reloads (it
no longer stops the gateway).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from mcp import Client, types

from tests.support import (
    MANIFOLD,
    free_port,
    gateway_http,
    http_server,
    stdio_upstream,
    write_config,
)

pytestmark = pytest.mark.timeout(180)

CLIENTS = 32


class LegacySession:
    """A minimal legacy-era HTTP client: initialize, then calls; answers as JSON or SSE."""

    def __init__(self, http: aiohttp.ClientSession, url: str) -> None:
        self.http = http
        self.url = url
        self.headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        self.ids = 0

    async def post(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        async with self.http.post(self.url, data=json.dumps(msg), headers=self.headers) as r:
            body = await r.read()
            if "Mcp-Session-Id" not in self.headers and "Mcp-Session-Id" in r.headers:
                self.headers["Mcp-Session-Id"] = r.headers["Mcp-Session-Id"]
            if r.headers.get("Content-Type", "").startswith("text/event-stream"):
                datas = [ln[5:] for ln in body.splitlines() if ln.startswith(b"data:")]
                body = datas[-1] if datas else b""
            if r.status >= 400 and not body.strip():
                return {"error": {"code": r.status, "message": body.decode(errors="replace")}}
        return json.loads(body) if body.strip() else None

    async def open(self) -> None:
        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "load", "version": "1"},
        }
        res = await self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        assert res is not None and "result" in res, res
        self.headers["MCP-Protocol-Version"] = "2025-11-25"
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.ids += 1
        msg = {
            "jsonrpc": "2.0",
            "id": self.ids,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        res = await self.post(msg)
        assert res is not None
        return res


def text(res: dict[str, Any]) -> str:
    if "result" not in res:
        return f"error: {res.get('error')}"
    return "\n".join(c.get("text", "") for c in res["result"].get("content", []))


def rec(name: str, *extra: str, **cfg: Any) -> dict[str, Any]:
    return stdio_upstream("recorder_server.py", "--name", name, *extra, **cfg)


def described(text: str) -> dict[str, Any]:
    return {"overrides": {"echo": {"description": text}}}


def write(path: Path, upstreams: dict[str, Any], **top: Any) -> None:
    top.setdefault("reload", {"debounce": 0.2})
    # Written whole, then moved into place, as editors and deploy tools do.
    tmp = path.with_suffix(".tmp")
    write_config(tmp, upstreams, **top)
    os.replace(tmp, path)


async def wait_until(check: Callable[[], Any], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if await check():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        await asyncio.sleep(0.1)


def pid_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return ") Z" not in stat


async def test_reload_under_load(tmp_path: Path) -> None:
    cfg = tmp_path / "gw.yaml"
    log = tmp_path / "gw.log"
    write(cfg, {"keep": rec("keep"), "gone": rec("gone"), "chg": rec("chg", **described("v1"))})
    errors: list[str] = []
    calls = [0] * CLIENTS
    stop = asyncio.Event()

    async def worker(i: int, session: LegacySession) -> None:
        n = 0
        while not stop.is_set():
            n += 1
            try:
                got = text(await session.call("keep__echo", {"text": f"{i}-{n}"}))
            except Exception as e:  # a dropped connection is an error too
                got = f"exception {e!r}"
            if got != f"keep:{i}-{n}":
                errors.append(f"client {i} call {n}: {got}")
            calls[i] += 1
            await asyncio.sleep(0.02)

    changed = asyncio.Event()

    async def on_message(m: Any) -> None:
        if isinstance(m, types.ToolListChangedNotification):
            changed.set()

    with gateway_http(cfg, log) as url:
        conn = aiohttp.TCPConnector(limit=CLIENTS + 4)
        async with (
            asyncio.timeout(150),
            aiohttp.ClientSession(connector=conn, timeout=aiohttp.ClientTimeout(30)) as http,
            Client(url, mode="legacy", cache=None, message_handler=on_message) as watcher,
        ):
            sessions = [LegacySession(http, url) for _ in range(CLIENTS)]
            await asyncio.gather(*(s.open() for s in sessions))
            probe = sessions[0]

            async def stats(up: str) -> dict[str, Any]:
                return json.loads(text(await probe.call(f"{up}__stats", {})))

            keep_pid, gone_pid, chg_pid = [(await stats(u))["pid"] for u in ("keep", "gone", "chg")]
            workers = [asyncio.ensure_future(worker(i, s)) for i, s in enumerate(sessions)]
            await asyncio.sleep(0.5)

            # Added, removed, changed (new arguments: restarted), in one write.
            chg2 = rec("chg2", **described("v1"))
            write(cfg, {"keep": rec("keep"), "chg": chg2, "extra": rec("extra")})

            async def applied() -> bool:
                names = {t.name for t in (await watcher.list_tools()).tools}
                if "extra__echo" not in names or "gone__echo" in names:
                    return False
                return text(await probe.call("chg__echo", {"text": "x"})) == "chg2:x"

            await wait_until(applied, "the new config applied")
            async with asyncio.timeout(10):
                await changed.wait()
            assert text(await probe.call("extra__echo", {"text": "hi"})) == "extra:hi"
            gone = await probe.call("gone__echo", {"text": "x"})
            assert "error" in gone and "Unknown tool" in gone["error"]["message"], gone
            await wait_until(
                lambda: asyncio.sleep(0, not pid_alive(gone_pid)), "the removed child ended"
            )
            assert not pid_alive(chg_pid)
            listed = {t.name for t in (await watcher.list_tools()).tools}

            # A broken file: refused, logged, nothing changes.
            good = cfg.read_text()
            bad = yaml.safe_load(good)
            bad["upstreams"]["keep"]["comand"] = "x"
            bad["upstreams"].pop("extra")
            cfg.write_text(yaml.safe_dump(bad))

            async def refused(n: int) -> bool:
                return log.read_text().count("config reload (file changed) refused") >= n

            await wait_until(lambda: refused(1), "the unknown key refused")
            cfg.write_text(good + "\n  extra: [unclosed\n")
            await wait_until(lambda: refused(2), "the bad YAML refused")
            assert {t.name for t in (await watcher.list_tools()).tools} == listed
            assert text(await probe.call("extra__echo", {"text": "still"})) == "extra:still"

            # A removal, and a new description for `chg`: the clients hear of both (no upstream
            # starts to announce them), and `chg` keeps its process (only its overrides changed).
            chg2_pid = (await stats("chg"))["pid"]
            changed.clear()
            write(cfg, {"keep": rec("keep"), "chg": rec("chg2", **described("v2"))})
            async with asyncio.timeout(30):
                await changed.wait()

            async def retuned() -> bool:
                tools = {t.name: t for t in (await watcher.list_tools()).tools}
                return "extra__echo" not in tools and tools["chg__echo"].description == "v2"

            await wait_until(retuned, "extra removed and chg's description changed")
            assert (await stats("chg"))["pid"] == chg2_pid

            await asyncio.sleep(0.5)
            stop.set()
            await asyncio.gather(*workers)
            assert (await stats("keep"))["pid"] == keep_pid  # never restarted
        logged = log.read_text()
    assert errors == [], errors[:5]
    assert min(calls) >= 5, calls  # every session kept calling through all of it
    assert "upstreams.keep.comand: unknown key (did you mean 'command'?)" in logged
    assert "not valid YAML" in logged
    assert "config reloaded: added extra; removed gone; restarted chg" in logged
    assert "config reloaded: removed extra; retuned chg" in logged


async def test_sighup_reloads_and_keeps_serving(tmp_path: Path) -> None:
    cfg = tmp_path / "gw.yaml"
    log = tmp_path / "gw.log"
    # The file watch off: only SIGHUP reloads.
    write(cfg, {"a": rec("a")}, reload={"watch": False})
    port = free_port()
    cmd = [MANIFOLD, "serve", "--config", str(cfg), "--port", str(port), "--log-level", "info"]
    url = f"http://127.0.0.1:{port}/mcp"
    with http_server(cmd, f"http://127.0.0.1:{port}/health", log) as proc:
        async with asyncio.timeout(60), aiohttp.ClientSession() as http:
            s = LegacySession(http, url)
            await s.open()
            write(cfg, {"a": rec("a"), "b": rec("b")}, reload={"watch": False})
            await asyncio.sleep(0.6)  # past the debounce a watch would have used
            assert "Unknown tool" in (await s.call("b__echo", {"text": "x"}))["error"]["message"]
            os.kill(proc.pid, signal.SIGHUP)

            async def b_up() -> bool:
                return text(await s.call("b__echo", {"text": "x"})) == "b:x"

            await wait_until(b_up, "b added by SIGHUP")
            os.kill(proc.pid, signal.SIGHUP)  # no change: still serving
            await wait_until(
                lambda: asyncio.sleep(0, "no change to apply" in log.read_text()), "no-op reload"
            )
            assert proc.poll() is None
            assert text(await s.call("a__echo", {"text": "y"})) == "a:y"
