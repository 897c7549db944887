"""The benchmark's mock upstream speaks correct JSON-RPC on stdio and HTTP, on both eras.

Checked with raw lines/POSTs and with the official ``mcp`` client, in real processes; every test
also checks that no mock process is left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import orjson
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from bench import driver
from bench.mock_upstream import blob_text, large_result_text, split_lines

REPO = Path(__file__).resolve().parents[2]
CATALOG = REPO / "bench" / "data" / "leanproxy-catalog.json"
TAG = f"mocktest-{uuid.uuid4().hex[:10]}"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
}
CATALOG_COUNTS = {"github": 42, "jira": 24, "slack": 14, "garmin": 28, "postgres": 10}


def mock_args(*extra: str) -> list[str]:
    return ["-m", "bench.mock_upstream", "--tag", TAG, *extra]


@pytest.fixture(autouse=True)
def no_process_left_behind() -> Iterator[None]:
    yield
    left: list[int] = []
    for _ in range(50):  # up to 5 s for processes to finish exiting
        left = driver.tagged_pids(TAG)
        if not left:
            return
        import time

        time.sleep(0.1)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    pytest.fail(f"mock processes left behind: {left}")


class Raw:
    """A mock on stdio, driven line by line."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, *extra: str) -> Raw:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *mock_args(*extra),
            cwd=REPO,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
            limit=64 * 1024 * 1024,
        )
        return cls(proc)

    async def send(self, obj: Any) -> None:
        assert self.proc.stdin is not None
        data = obj if isinstance(obj, bytes) else orjson.dumps(obj)
        self.proc.stdin.write(data + b"\n")
        await self.proc.stdin.drain()

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        assert line.endswith(b"\n"), f"no complete line: {line[:100]!r}"
        assert line.count(b"\n") == 1
        msg = orjson.loads(line)
        assert isinstance(msg, dict)
        return msg

    async def call(self, method: str, params: dict[str, Any] | None = None, rid: Any = 1) -> Any:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        await self.send(msg)
        answer = await self.recv()
        assert answer["jsonrpc"] == "2.0"
        assert answer["id"] == rid
        return answer

    async def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return await asyncio.wait_for(self.proc.wait(), 5)
        finally:
            driver.kill_group(self.proc.pid, signal.SIGKILL)
            await asyncio.wait_for(self.proc.wait(), 5)


@pytest.fixture
async def raw() -> AsyncIterator[Raw]:
    r = await Raw.start("--catalog", str(CATALOG), "--server", "github")
    try:
        yield r
    finally:
        await r.close()


def text(answer: dict[str, Any]) -> str:
    result = answer["result"]
    assert result["isError"] is False
    assert len(result["content"]) == 1
    assert result["content"][0]["type"] == "text"
    value = result["content"][0]["text"]
    assert isinstance(value, str)
    return value


# --------------------------------------------------------------------------------------------
# stdio, raw lines


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26"])
async def test_legacy_initialize_echoes_supported_version(version: str) -> None:
    r = await Raw.start()
    try:
        init = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t"}}
        answer = await r.call("initialize", init)
        assert answer["result"]["protocolVersion"] == version
        assert answer["result"]["capabilities"] == {"tools": {}}
        assert answer["result"]["serverInfo"]["name"]
        await r.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        # the notification gets no answer: the next line is the ping's
        assert (await r.call("ping", rid="p"))["result"] == {}
    finally:
        assert await r.close() == 0


async def test_unknown_legacy_version_gets_the_latest() -> None:
    r = await Raw.start()
    try:
        answer = await r.call("initialize", {"protocolVersion": "1999-01-01", "capabilities": {}})
        assert answer["result"]["protocolVersion"] == "2025-11-25"
    finally:
        await r.close()


async def test_tools_catalog_and_bench_tools(raw: Raw) -> None:
    tools = (await raw.call("tools/list", {}))["result"]["tools"]
    names = [t["name"] for t in tools]
    assert len(names) == CATALOG_COUNTS["github"] + 3
    assert names[-3:] == ["echo", "sleep", "blob"]
    assert "create_issue" in names
    assert all(t["inputSchema"]["type"] == "object" for t in tools)
    catalog = orjson.loads(CATALOG.read_bytes())
    github = next(s for s in catalog["servers"] if s["name"] == "github")
    assert tools[: len(github["tools"])] == github["tools"]

    args = {"owner": "octo", "repo": "demo", "title": "t"}
    small = orjson.loads(
        text(await raw.call("tools/call", {"name": "create_issue", "arguments": args}))
    )
    assert small == {"server": "github", "tool": "create_issue", "ok": True, "arguments": args}


async def test_pagination() -> None:
    r = await Raw.start("--catalog", str(CATALOG), "--server", "postgres", "--page-size", "4")
    try:
        seen: list[str] = []
        cursor = None
        pages = 0
        while True:
            answer = await r.call("tools/list", {"cursor": cursor} if cursor else {}, rid=pages)
            page = answer["result"]
            assert len(page["tools"]) <= 4
            seen += [t["name"] for t in page["tools"]]
            pages += 1
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert pages == 4  # 10 catalog tools + 3 bench tools, 4 a page
        assert len(seen) == len(set(seen)) == 13
        bad = await r.call("tools/list", {"cursor": "nope"})
        assert bad["error"]["code"] == -32602
    finally:
        await r.close()


async def test_echo_sleep_blob(raw: Raw) -> None:
    args = {"a": 1, "nested": {"b": [1, 2, "x"]}, "u": "ünïcode"}
    assert (
        orjson.loads(text(await raw.call("tools/call", {"name": "echo", "arguments": args})))
        == args
    )
    t = text(await raw.call("tools/call", {"name": "sleep", "arguments": {"ms": 20, "k": 1}}))
    assert orjson.loads(t) == {"ms": 20, "k": 1}
    for n in (0, 1, 63, 64, 100_000):
        blob = text(await raw.call("tools/call", {"name": "blob", "arguments": {"bytes": n}}))
        assert len(blob.encode()) == n
        assert blob == blob_text(n)
    for n, seed, want in ((10, "s-1", "s-1:abcdef"), (2, "s-1", "s-"), (5, "", "abcde")):
        args = {"bytes": n, "seed": seed}
        assert text(await raw.call("tools/call", {"name": "blob", "arguments": args})) == want
        assert blob_text(n, seed) == want
    big = text(
        await raw.call("tools/call", {"name": "blob", "arguments": {"bytes": 70_000, "seed": "x9"}})
    )
    assert big == blob_text(70_000, "x9") and len(big) == 70_000 and big.startswith("x9:abc")
    for bad_args in ({"bytes": "big"}, {"bytes": 5, "seed": 'quote"'}, {"bytes": 5, "seed": 7}):
        bad = await raw.call("tools/call", {"name": "blob", "arguments": bad_args})
        assert bad["error"]["code"] == -32602


async def test_bad_input_gets_json_rpc_errors_and_the_server_keeps_going(raw: Raw) -> None:
    await raw.send(b"{not json")
    assert (await raw.recv())["error"]["code"] == -32700
    await raw.send(b"[1, 2]")
    assert (await raw.recv())["error"]["code"] == -32600
    await raw.send({"jsonrpc": "2.0", "id": None, "method": "ping"})
    answer = await raw.recv()
    assert answer["error"]["code"] == -32600 and answer["id"] is None
    await raw.send({"id": 5, "method": "ping"})  # no "jsonrpc"
    assert (await raw.recv())["error"]["code"] == -32600
    assert (await raw.call("nope/nothing", {}, rid=6))["error"]["code"] == -32601
    unknown = await raw.call("tools/call", {"name": "missing", "arguments": {}}, rid=7)
    assert unknown["error"]["code"] == -32602
    assert (await raw.call("tools/call", {"name": "echo", "arguments": {"ok": 1}}, rid=8))["result"]


async def test_large_messages_both_ways(raw: Raw) -> None:
    big = "x" * (3 * 1024 * 1024)  # far past asyncio's 64 KiB line default
    answer = await raw.call("tools/call", {"name": "echo", "arguments": {"big": big}})
    assert orjson.loads(text(answer)) == {"big": big}
    n = 5 * 1024 * 1024
    blob = text(await raw.call("tools/call", {"name": "blob", "arguments": {"bytes": n}}, rid=2))
    assert len(blob) == n


async def test_pipelined_requests_answer_out_of_order_and_concurrently(raw: Raw) -> None:
    await raw.send(
        b"\n".join(
            orjson.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": f"s{i}",
                    "method": "tools/call",
                    "params": {"name": "sleep", "arguments": {"ms": 300, "i": i}},
                }
            )
            for i in range(20)
        )
    )
    await raw.send(
        {
            "jsonrpc": "2.0",
            "id": "e",
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"first": True}},
        }
    )
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    first = await raw.recv()
    assert first["id"] == "e"
    ids = {(await raw.recv())["id"] for _ in range(20)}
    assert ids == {f"s{i}" for i in range(20)}
    assert loop.time() - t0 < 1.5  # twenty 300 ms sleeps ran concurrently


async def test_cancelled_sleep_gets_no_answer(raw: Raw) -> None:
    await raw.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "sleep", "arguments": {"ms": 300}},
        }
    )
    await raw.send(
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 1, "reason": "test"},
        }
    )
    await asyncio.sleep(0.5)
    assert (await raw.call("ping", rid=2))["id"] == 2  # the first line is the ping's answer


async def test_modern_requests_on_stdio(raw: Raw) -> None:
    d = (await raw.call("server/discover", {"_meta": META}))["result"]
    assert d["supportedVersions"] == ["2026-07-28"]
    assert d["capabilities"] == {"tools": {}}
    assert d["resultType"] == "complete"
    assert d["ttlMs"] >= 0 and d["cacheScope"] in ("public", "private")
    assert d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "bench-mock-github"

    listed = (await raw.call("tools/list", {"_meta": META}, rid=2))["result"]
    assert listed["resultType"] == "complete" and "ttlMs" in listed and "cacheScope" in listed
    called = await raw.call(
        "tools/call", {"name": "echo", "arguments": {"m": 1}, "_meta": META}, rid=3
    )
    assert called["result"]["resultType"] == "complete"
    assert orjson.loads(text(called)) == {"m": 1}

    wrong = {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    err = (await raw.call("tools/list", {"_meta": wrong}, rid=4))["error"]
    assert err["code"] == -32022 and err["data"]["supported"] == ["2026-07-28"]
    no_caps = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    assert (await raw.call("tools/list", {"_meta": no_caps}, rid=5))["error"]["code"] == -32602


async def test_legacy_era_refuses_discover() -> None:
    r = await Raw.start("--era", "legacy")
    try:
        assert (await r.call("server/discover", {"_meta": META}))["error"]["code"] == -32601
        # and it treats modern _meta as opaque: plain legacy answers
        listed = (await r.call("tools/list", {"_meta": META}, rid=2))["result"]
        assert "resultType" not in listed
    finally:
        await r.close()


async def test_exits_on_stdin_eof() -> None:
    r = await Raw.start()
    await r.call("ping")
    assert await r.close() == 0


def test_split_lines_across_chunks() -> None:
    stream = b'{"a":1}\n{"b":"' + b"x" * 100_000 + b'"}\n\n{"c":3}'
    for size in (1, 7, 4096, len(stream)):
        buf = bytearray()
        lines = []
        for i in range(0, len(stream), size):
            lines += split_lines(buf, stream[i : i + size])
        assert lines == stream.split(b"\n")[:-1]
        assert bytes(buf) == b'{"c":3}'


# --------------------------------------------------------------------------------------------
# Large results


def test_large_results_shapes_and_sizes() -> None:
    src = large_result_text("github", "get_file_contents")
    assert 200 * 1024 <= len(src) < 201 * 1024
    assert src.startswith("package main\n\nimport (\n")
    assert src.count("\nimport") == 1 and src.count('\t"') == 2
    assert "// handleResource0 serves GET /api/v1/resource0." in src
    n_handlers = src.count("\nfunc handleResource")
    assert n_handlers > 500 and src.count("/api/v1/resource") == n_handlers

    issues = orjson.loads(large_result_text("github", "list_issues"))
    assert len(issues) == 300
    assert [i["number"] for i in issues] == list(range(1000, 1300))
    fields = {
        "url",
        "html_url",
        "id",
        "node_id",
        "number",
        "title",
        "state",
        "user",
        "labels",
        "comments",
        "created_at",
        "updated_at",
        "body",
    }
    assert all(set(i) == fields for i in issues)
    assert {i["state"] for i in issues} == {"open"}
    assert len({i["user"]["login"] for i in issues}) == 17
    assert all(set(i["user"]) == {"login", "id", "avatar_url", "type"} for i in issues)
    assert all([lb["name"] for lb in i["labels"]] == ["bug", "p2"] for i in issues)
    assert len({i["body"] for i in issues}) == 1 and len(issues[0]["body"]) > 300

    code = orjson.loads(large_result_text("github", "search_code"))
    assert code["total_count"] == 400 and code["incomplete_results"] is False
    assert len(code["items"]) == 400
    assert len({it["path"].split("/")[1] for it in code["items"]}) == 23
    for it in code["items"]:
        assert it["path"] == f"internal/{it['path'].split('/')[1]}/{it['name']}"
        assert len(it["sha"]) == 40 and int(it["sha"], 16) >= 0
        assert it["repository"] == {"full_name": "octo/demo", "private": False}
        (match,) = it["text_matches"]
        assert "parseConfig" in match["fragment"] and match["fragment"].count("\n") == 3

    jira = orjson.loads(large_result_text("jira", "jira_search"))
    assert (jira["startAt"], jira["maxResults"], jira["total"]) == (0, 250, 250)
    assert [i["key"] for i in jira["issues"]][:2] == ["PROJ-100", "PROJ-101"]
    f = jira["issues"][0]["fields"]
    assert f["status"] == {"name": "In Progress", "id": "3"}
    assert f["priority"] == {"name": "Medium"}
    assert f["customfield_10020"] == [{"name": "Sprint 42", "state": "active"}]
    assert set(f["assignee"]) == {"displayName", "accountId"}
    assert len({i["fields"]["description"] for i in jira["issues"]}) == 1

    pg = orjson.loads(large_result_text("postgres", "pg_query"))
    assert (pg["command"], pg["rowCount"], len(pg["rows"])) == ("SELECT", 1500, 1500)
    rows = pg["rows"]
    assert rows[0] == {
        "id": 1,
        "email": "user1@example.com",
        "plan": "free",
        "created_at": rows[0]["created_at"],
        "active": True,
    }
    assert [r["plan"] for r in rows[:4]] == ["free", "pro", "team", "free"]
    assert [r["active"] for r in rows[:8]] == [True, True, True, False] * 2
    assert len({r["created_at"] for r in rows}) == 1

    # deterministic: the same bytes every time, in any process
    digest = hashlib.sha256(large_result_text("github", "list_issues").encode()).hexdigest()
    assert digest == hashlib.sha256(orjson.dumps(issues)).hexdigest()


@pytest.mark.parametrize(
    ("server", "tool", "minimum"),
    [
        ("github", "list_issues", 200_000),
        ("jira", "jira_search", 100_000),
        ("postgres", "pg_query", 100_000),
        ("github", "get_file_contents", 200 * 1024),
    ],
)
async def test_large_mode_over_stdio(server: str, tool: str, minimum: int) -> None:
    r = await Raw.start("--catalog", str(CATALOG), "--server", server, "--large")
    try:
        big = text(await r.call("tools/call", {"name": tool, "arguments": {}}))
        assert big == large_result_text(server, tool) and len(big) >= minimum
    finally:
        await r.close()
    plain = await Raw.start("--catalog", str(CATALOG), "--server", server)
    try:
        small = text(await plain.call("tools/call", {"name": tool, "arguments": {}}))
        assert orjson.loads(small)["tool"] == tool and len(small) < 200
    finally:
        await plain.close()


# --------------------------------------------------------------------------------------------
# The official client, stdio and HTTP


async def _exercise(client: Client) -> None:
    names: list[str] = []
    cursor = None
    for _ in range(100):
        page = await client.list_tools(cursor=cursor)
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if not cursor:
            break
    assert len(names) == CATALOG_COUNTS["slack"] + 3
    r = await client.call_tool("echo", {"x": [1, 2], "y": "z"})
    assert r.is_error is False
    assert orjson.loads(r.content[0].text) == {"x": [1, 2], "y": "z"}  # type: ignore[union-attr]
    b = await client.call_tool("blob", {"bytes": 70_000})
    assert b.content[0].text == blob_text(70_000)  # type: ignore[union-attr]


def _mcp_error_codes(exc: BaseException) -> list[int]:
    if isinstance(exc, BaseExceptionGroup):
        return [c for e in exc.exceptions for c in _mcp_error_codes(e)]
    return [exc.error.code] if isinstance(exc, MCPError) else []


SDK_CASES = [
    ("dual", "legacy", "2025-11-25"),
    ("dual", "auto", "2026-07-28"),
    ("dual", "2026-07-28", "2026-07-28"),
    ("legacy", "auto", "2025-11-25"),
    ("modern", "auto", "2026-07-28"),
]


@pytest.mark.parametrize(("era", "mode", "expected"), SDK_CASES)
async def test_sdk_client_stdio(era: str, mode: str, expected: str) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=mock_args(
            "--catalog", str(CATALOG), "--server", "slack", "--era", era, "--page-size", "5"
        ),
        cwd=str(REPO),
    )
    with anyio.fail_after(30):
        async with Client(params, mode=mode) as client:
            assert client.protocol_version == expected
            await _exercise(client)


@pytest.fixture(params=["dual", "legacy", "modern"])
async def http_mock(request: pytest.FixtureRequest) -> AsyncIterator[tuple[str, str]]:
    proc = await driver.spawn_http(
        [
            sys.executable,
            *mock_args(
                "--catalog",
                str(CATALOG),
                "--server",
                "slack",
                "--http",
                "--page-size",
                "5",
                "--era",
                request.param,
            ),
        ],
        cwd=REPO,
        stderr_path=None,
    )
    try:
        yield request.param, proc.url
    finally:
        await proc.close()


@pytest.mark.parametrize("mode", ["legacy", "auto", "2026-07-28"])
async def test_sdk_client_http(http_mock: tuple[str, str], mode: str) -> None:
    era, url = http_mock
    expected = {
        ("dual", "legacy"): "2025-11-25",
        ("dual", "auto"): "2026-07-28",
        ("dual", "2026-07-28"): "2026-07-28",
        ("legacy", "legacy"): "2025-11-25",
        ("legacy", "auto"): "2025-11-25",
        ("modern", "auto"): "2026-07-28",
        ("modern", "2026-07-28"): "2026-07-28",
    }.get((era, mode))
    if expected is None:  # a one-era server refuses a client pinned to the other era
        with anyio.fail_after(30):
            try:
                async with Client(url, mode=mode) as client:
                    await client.list_tools()
            except Exception as exc:  # an MCPError, possibly inside exception groups
                assert _mcp_error_codes(exc), exc
            else:
                pytest.fail(f"a {era}-only mock served a client pinned to {mode}")
        return
    with anyio.fail_after(30):
        async with Client(url, mode=mode) as client:
            assert client.protocol_version == expected
            await _exercise(client)


# --------------------------------------------------------------------------------------------
# HTTP, raw POSTs


async def _post(
    s: aiohttp.ClientSession, url: str, msg: Any, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with s.post(
        url,
        data=msg if isinstance(msg, bytes) else orjson.dumps(msg),
        headers={**h, **(headers or {})},
        timeout=aiohttp.ClientTimeout(total=10),
    ) as resp:
        body = await resp.read()
        if body:
            assert resp.headers["Content-Type"].startswith("application/json")
        return resp.status, dict(resp.headers), orjson.loads(body) if body else None


@pytest.fixture
async def http_dual() -> AsyncIterator[str]:
    proc = await driver.spawn_http(
        [sys.executable, *mock_args("--http")], cwd=REPO, stderr_path=None
    )
    try:
        yield proc.url
    finally:
        await proc.close()


async def test_http_legacy_session_lifecycle(http_dual: str) -> None:
    url = http_dual
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}},
    }
    async with aiohttp.ClientSession() as s:
        status, headers, body = await _post(s, url, init)
        assert status == 200 and body["result"]["protocolVersion"] == "2025-06-18"
        sid = headers["Mcp-Session-Id"]
        assert len(sid) >= 16 and sid.isascii() and sid.isprintable()
        h = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await _post(s, url, note, h))[0] == 202
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"q": 1}},
        }
        status, _, body = await _post(s, url, call, h)
        assert status == 200 and orjson.loads(body["result"]["content"][0]["text"]) == {"q": 1}
        assert (await _post(s, url, call))[0] == 400  # no session
        assert (await _post(s, url, call, {"Mcp-Session-Id": "unknown"}))[0] == 404
        bad_version = {**h, "MCP-Protocol-Version": "1999-01-01"}
        assert (await _post(s, url, call, bad_version))[0] == 400
        async with s.get(url, headers=h) as resp:
            assert resp.status == 405
        async with s.delete(url, headers=h) as resp:
            assert resp.status == 200
        assert (await _post(s, url, call, h))[0] == 404  # terminated
        assert (await _post(s, url, b"{oops"))[0] == 400  # parse error


async def test_http_modern_plain_posts(http_dual: str) -> None:
    url = http_dual
    modern_h = {"MCP-Protocol-Version": "2026-07-28"}
    async with aiohttp.ClientSession() as s:
        disc = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}}
        status, headers, body = await _post(
            s, url, disc, {**modern_h, "Mcp-Method": "server/discover"}
        )
        assert status == 200 and body["result"]["supportedVersions"] == ["2026-07-28"]
        assert "Mcp-Session-Id" not in headers
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"m": 2}, "_meta": META},
        }
        ok_h = {**modern_h, "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
        status, _, body = await _post(s, url, call, ok_h)
        assert status == 200 and body["result"]["resultType"] == "complete"
        status, _, body = await _post(s, url, call, {**ok_h, "Mcp-Method": "tools/list"})
        assert status == 400 and body["error"]["code"] == -32020
        nope = {"jsonrpc": "2.0", "id": 3, "method": "nope", "params": {"_meta": META}}
        status, _, body = await _post(s, url, nope, modern_h)
        assert status == 404 and body["error"]["code"] == -32601
        old = {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
        status, _, body = await _post(
            s, url, {**nope, "method": "tools/list", "params": {"_meta": old}}
        )
        assert status == 400 and body["error"]["code"] == -32022


async def test_http_legacy_era_rejects_modern_probe() -> None:
    proc = await driver.spawn_http(
        [sys.executable, *mock_args("--http", "--era", "legacy")], cwd=REPO, stderr_path=None
    )
    try:
        async with aiohttp.ClientSession() as s:
            disc = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "server/discover",
                "params": {"_meta": META},
            }
            status, _, body = await _post(s, proc.url, disc)
            assert status == 400 and body["error"]["code"] != -32022
    finally:
        assert await proc.close() is not None


async def test_http_mock_exits_when_its_stdin_pipe_closes() -> None:
    proc = await driver.spawn_http(
        [sys.executable, *mock_args("--http")], cwd=REPO, stderr_path=None
    )
    try:
        assert proc.proc.stdin is not None
        proc.proc.stdin.close()
        assert await asyncio.wait_for(proc.proc.wait(), 5) == 0
    finally:
        await proc.close()
