"""A fast mock MCP upstream for the benchmark harness.

Deliberately not built on the ``mcp`` SDK server (which costs about 1.8 ms per call): raw asyncio
and orjson, so that what the harness measures is the gateway and not the upstream.

Transports:
  * stdio (default): newline-delimited JSON-RPC, framed by hand (no line-length limit).
  * ``--http [--port N]``: Streamable HTTP at ``/mcp`` (aiohttp), plain ``application/json``
    answers, 202 for notifications and responses, ``Mcp-Session-Id`` minted on ``initialize``.
    Once listening it prints one JSON line ``{"url": ...}`` on stdout (useful with ``--port 0``);
    it stops on SIGTERM, or when its stdin is a pipe and that pipe closes.

Eras (``--era``):
  * ``dual`` (default): the legacy ``initialize`` handshake *and* modern (2026-07-28)
    stateless requests carrying ``_meta["io.modelcontextprotocol/protocolVersion"]``, plus
    ``server/discover``.
  * ``legacy``: a legacy-only server; ``server/discover`` gets -32601 (on HTTP, a request without
    a session gets a plain 400, as from an older server).
  * ``modern``: a modern-only server; ``initialize`` gets an error naming the supported versions.

Tools: the catalog tools of ``--server`` from ``--catalog`` (small deterministic answers, or with
``--large`` the five large results described in ``bench/data/leanproxy-large-results.md``), plus
three bench tools that are always present:
  * ``echo``: answers with its arguments as compact JSON text (unique arguments, unique answers);
  * ``sleep`` (``ms``): sleeps, then answers with its arguments as compact JSON text;
  * ``blob`` (``bytes``, optional ``seed``): one deterministic ASCII text block of exactly that
    many bytes, starting with ``<seed>:`` when a seed is given (so that calls can differ).
Every result is ``{"content":[{"type":"text","text":...}],"isError":false}`` (plus ``resultType``
and ``_meta`` serverInfo on the modern wire).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import os
import secrets
import signal
import stat
import sys
from collections.abc import Callable, Coroutine
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

LEGACY_VERSIONS: tuple[str, ...] = ("2025-11-25", "2025-06-18", "2025-03-26")
MODERN_VERSION = "2026-07-28"
MODERN_VERSIONS: tuple[str, ...] = (MODERN_VERSION,)
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
HEADER_MISMATCH = -32020
UNSUPPORTED_VERSION = -32022

BLOB_ALPHABET = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
DEFAULT_CATALOG = Path(__file__).resolve().parent / "data" / "leanproxy-catalog.json"

JsonObj = dict[str, Any]
Reply = JsonObj
# A handler answers synchronously (a reply) or asynchronously (a coroutine giving a reply).
Outcome = Reply | Coroutine[Any, Any, Reply] | None


# --------------------------------------------------------------------------------------------
# Deterministic payloads


def blob_text(n: int, seed: str = "") -> str:
    """Exactly ``n`` ASCII bytes, deterministic, JSON-safe (no escaping needed): ``<seed>:``
    (when a seed is given) followed by a repeated alphabet, cut at ``n``."""
    if n <= 0:
        return ""
    reps = n // len(BLOB_ALPHABET) + 1
    head = f"{seed}:".encode() if seed else b""
    return (head + BLOB_ALPHABET * reps)[:n].decode("ascii")


def _valid_seed(seed: Any) -> bool:
    return (
        type(seed) is str
        and len(seed) <= 64
        and all(c.isascii() and (c.isalnum() or c in "-_.") for c in seed)
    )


def _go_source(target: int = 200 * 1024) -> str:
    head = 'package main\n\nimport (\n\t"encoding/json"\n\t"net/http"\n)\n'
    parts = [head]
    size = len(head)
    n = 0
    while size < target:
        block = (
            f"\n// handleResource{n} serves GET /api/v1/resource{n}.\n"
            f"func handleResource{n}(w http.ResponseWriter, r *http.Request) {{\n"
            '\tw.Header().Set("Content-Type", "application/json")\n'
            f'\t_ = json.NewEncoder(w).Encode(map[string]any{{"resource": {n}, '
            '"path": r.URL.Path})\n'
            "}\n"
        )
        parts.append(block)
        size += len(block)
        n += 1
    return "".join(parts)


_ISSUE_BODY = (
    "Steps to reproduce: start the service with the default configuration, open the dashboard, "
    "create a project and upload a file larger than 10 MB. Expected: the upload completes and "
    "the file appears in the list. Actual: the request times out after 30 seconds, the progress "
    "bar stays at 99% and the server log shows 'context deadline exceeded' from the storage "
    "client. Reproduced on Linux and macOS with the latest release; rolling back to the previous "
    "release makes it work again. Logs and a HAR file are attached below."
)


def _list_issues() -> list[JsonObj]:
    issues = []
    for i in range(300):
        number = 1000 + i
        u = i % 17
        issues.append(
            {
                "url": f"https://api.github.com/repos/octo/demo/issues/{number}",
                "html_url": f"https://github.com/octo/demo/issues/{number}",
                "id": 2_000_000_000 + number,
                "node_id": f"I_kwDOBench{number:08d}",
                "number": number,
                "title": f"Upload of large files times out (report {i + 1})",
                "state": "open",
                "user": {
                    "login": f"octodev{u}",
                    "id": 58_000 + u,
                    "avatar_url": f"https://avatars.githubusercontent.com/u/{58_000 + u}?v=4",
                    "type": "User",
                },
                "labels": [{"name": "bug", "color": "d73a4a"}, {"name": "p2", "color": "fbca04"}],
                "comments": i % 9,
                "created_at": f"2026-0{1 + i % 9}-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
                "updated_at": f"2026-0{1 + i % 9}-{1 + i % 28:02d}T{i % 24:02d}:30:00Z",
                "body": _ISSUE_BODY,
            }
        )
    return issues


_CODE_FRAGMENT = (
    "cfg, err := parseConfig(path)\n"
    "if err != nil {\n"
    '\treturn nil, fmt.Errorf("load config %s: %w", path, err)\n'
    "}"
)


def _search_code() -> JsonObj:
    items = []
    for n in range(400):
        path = f"internal/pkg{n % 23}/config_{n}.go"
        items.append(
            {
                "name": f"config_{n}.go",
                "path": path,
                "sha": hashlib.sha1(path.encode()).hexdigest(),
                "html_url": f"https://github.com/octo/demo/blob/main/{path}",
                "repository": {"full_name": "octo/demo", "private": False},
                "text_matches": [{"fragment": _CODE_FRAGMENT}],
            }
        )
    return {"total_count": 400, "incomplete_results": False, "items": items}


_JIRA_DESCRIPTION = (
    "The checkout service intermittently returns HTTP 502 under load; investigate the "
    "connection pool settings and add a regression test."
)


def _jira_search() -> JsonObj:
    issues = []
    for i in range(250):
        a = i % 12
        issues.append(
            {
                "key": f"PROJ-{100 + i}",
                "self": f"https://jira.example.com/rest/api/2/issue/{10_100 + i}",
                "fields": {
                    "summary": f"Checkout returns 502 under load (case {i + 1})",
                    "status": {"name": "In Progress", "id": "3"},
                    "assignee": {
                        "displayName": f"Engineer {a}",
                        "accountId": f"5b10ac8d82e05b22cc7d4e{a:02d}",
                    },
                    "priority": {"name": "Medium"},
                    "customfield_10020": [{"name": "Sprint 42", "state": "active"}],
                    "updated": f"2026-03-{1 + i % 28:02d}T{i % 24:02d}:15:00.000+0000",
                    "description": _JIRA_DESCRIPTION,
                },
            }
        )
    return {"startAt": 0, "maxResults": 250, "total": 250, "issues": issues}


def _pg_query() -> JsonObj:
    plans = ("free", "pro", "team")
    rows = [
        {
            "id": i,
            "email": f"user{i}@example.com",
            "plan": plans[(i - 1) % 3],
            "created_at": "2026-01-15T09:30:00Z",
            "active": i % 4 != 0,
        }
        for i in range(1, 1501)
    ]
    return {"command": "SELECT", "rowCount": 1500, "rows": rows}


LARGE_RESULTS: dict[tuple[str, str], Callable[[], Any]] = {
    ("github", "get_file_contents"): _go_source,
    ("github", "list_issues"): _list_issues,
    ("github", "search_code"): _search_code,
    ("jira", "jira_search"): _jira_search,
    ("postgres", "pg_query"): _pg_query,
}


@lru_cache(maxsize=8)
def large_result_text(server: str, tool: str) -> str:
    """The large deterministic text of one of the five large-result tools."""
    value = LARGE_RESULTS[(server, tool)]()
    return value if isinstance(value, str) else orjson.dumps(value).decode()


# --------------------------------------------------------------------------------------------
# Protocol core (shared by stdio and HTTP)


def error_reply(rid: Any, code: int, message: str, data: Any = None) -> Reply:
    err: JsonObj = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": rid, "error": err}


def _text_content(text: str) -> orjson.Fragment:
    return orjson.Fragment(orjson.dumps([{"type": "text", "text": text}]))


BENCH_TOOLS: list[JsonObj] = [
    {
        "name": "echo",
        "description": "Answer with the arguments, as compact JSON text.",
        "inputSchema": {"type": "object", "additionalProperties": True},
    },
    {
        "name": "sleep",
        "description": "Sleep `ms` milliseconds, then answer with the arguments as JSON text.",
        "inputSchema": {
            "type": "object",
            "properties": {"ms": {"type": "number", "description": "Milliseconds to sleep."}},
            "required": ["ms"],
        },
    },
    {
        "name": "blob",
        "description": "Answer with one deterministic text block of exactly `bytes` bytes.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "bytes": {"type": "integer", "description": "Size of the text."},
                "seed": {"type": "string", "description": "Optional prefix ([A-Za-z0-9._-])."},
            },
            "required": ["bytes"],
        },
    },
]


class MockCore:
    """Answers JSON-RPC messages; transport-independent."""

    def __init__(
        self,
        *,
        era: str = "dual",
        catalog: Path | None = None,
        server: str | None = None,
        large: bool = False,
        page_size: int | None = None,
    ) -> None:
        self.era = era
        self.server = server or "bench"
        self.large = large
        self.page_size = page_size
        self.server_info = {"name": f"bench-mock-{self.server}", "version": "1.0.0"}
        self.catalog_tools: dict[str, JsonObj] = {}
        if catalog is not None:
            data = orjson.loads(catalog.read_bytes())
            match = [s for s in data["servers"] if s["name"] == server]
            if not match:
                names = [s["name"] for s in data["servers"]]
                raise SystemExit(f"mock_upstream: server {server!r} not in catalog ({names})")
            for tool in match[0]["tools"]:
                self.catalog_tools[tool["name"]] = tool
        self.tools: list[JsonObj] = [*self.catalog_tools.values(), *BENCH_TOOLS]
        self.tool_names = {t["name"] for t in self.tools}
        self._blob_cache: dict[int, bytes] = {}
        self._large_cache: dict[str, orjson.Fragment] = {}
        self.sleeping: dict[Any, asyncio.Task[Any]] = {}

    # -- helpers -----------------------------------------------------------------------------

    def _modern(self, params: JsonObj | None) -> JsonObj | None:
        """The modern ``_meta`` of a request, or None when it is a legacy-style request."""
        if params is None or self.era == "legacy":
            return None
        meta = params.get("_meta")
        if type(meta) is dict and META_VERSION in meta:
            return meta
        return None

    def _check_modern(self, rid: Any, meta: JsonObj) -> Reply | None:
        version = meta.get(META_VERSION)
        if version not in MODERN_VERSIONS:
            return error_reply(
                rid,
                UNSUPPORTED_VERSION,
                f"Unsupported protocol version: {version}",
                {"supported": list(MODERN_VERSIONS), "requested": version},
            )
        if META_CAPS not in meta:
            return error_reply(rid, INVALID_PARAMS, f"Missing _meta[{META_CAPS!r}]")
        return None

    def _complete(self, rid: Any, result: JsonObj, modern: bool) -> Reply:
        if modern:
            result["resultType"] = "complete"
            result["_meta"] = {META_SERVER_INFO: self.server_info}
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    def is_modern_request(self, msg: JsonObj) -> bool:
        params = msg.get("params")
        return type(params) is dict and self._modern(params) is not None

    # -- dispatch ----------------------------------------------------------------------------

    def handle(self, msg: Any) -> Outcome:
        """Answer one parsed message: a reply, a coroutine giving a reply, or None."""
        if type(msg) is not dict:
            return error_reply(None, INVALID_REQUEST, "Invalid Request: expected a JSON object")
        method = msg.get("method")
        has_id = "id" in msg
        rid = msg.get("id")
        if method is None:
            if has_id and ("result" in msg or "error" in msg):
                return None  # a response from the client: nothing to answer
            return error_reply(rid if _valid_id(rid) else None, INVALID_REQUEST, "Missing method")
        if msg.get("jsonrpc") != "2.0" or type(method) is not str:
            return error_reply(rid if _valid_id(rid) else None, INVALID_REQUEST, "Invalid Request")
        params = msg.get("params")
        if params is not None and type(params) is not dict:
            if not has_id:
                return None
            return error_reply(rid, INVALID_PARAMS, "params must be an object")
        if not has_id:
            self._notification(method, params)
            return None
        if not _valid_id(rid):
            return error_reply(None, INVALID_REQUEST, "Invalid Request: bad id")
        meta = self._modern(params)
        if meta is not None:
            bad = self._check_modern(rid, meta)
            if bad is not None:
                return bad
        modern = meta is not None
        if method == "tools/call":
            return self._tools_call(rid, params or {}, modern)
        if method == "tools/list":
            return self._tools_list(rid, params or {}, modern)
        if method == "initialize":
            return self._initialize(rid, params or {})
        if method == "server/discover":
            if self.era == "legacy":
                return error_reply(rid, METHOD_NOT_FOUND, "Method not found: server/discover")
            return self._discover(rid)
        if method == "ping":
            return self._complete(rid, {}, modern)
        return error_reply(rid, METHOD_NOT_FOUND, f"Method not found: {method}")

    def _notification(self, method: str, params: JsonObj | None) -> None:
        if method == "notifications/cancelled" and params is not None:
            task = self.sleeping.pop(params.get("requestId"), None)
            if task is not None:
                task.cancel()

    def _initialize(self, rid: Any, params: JsonObj) -> Reply:
        if self.era == "modern":
            return error_reply(
                rid,
                UNSUPPORTED_VERSION,
                "This server is modern-only; use server/discover",
                {"supported": list(MODERN_VERSIONS), "requested": params.get("protocolVersion")},
            )
        requested = params.get("protocolVersion")
        version = requested if requested in LEGACY_VERSIONS else LEGACY_VERSIONS[0]
        result: JsonObj = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": self.server_info,
        }
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    def _discover(self, rid: Any) -> Reply:
        result = {
            "supportedVersions": list(MODERN_VERSIONS),
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private",
        }
        return self._complete(rid, result, True)

    def _tools_list(self, rid: Any, params: JsonObj, modern: bool) -> Reply:
        cursor = params.get("cursor")
        start = 0
        if cursor is not None:
            if type(cursor) is not str or not cursor.isdigit() or int(cursor) > len(self.tools):
                return error_reply(rid, INVALID_PARAMS, f"Invalid cursor: {cursor!r}")
            start = int(cursor)
        end = len(self.tools)
        if self.page_size:
            end = min(start + self.page_size, end)
        result: JsonObj = {"tools": self.tools[start:end]}
        if end < len(self.tools):
            result["nextCursor"] = str(end)
        if modern:
            result["ttlMs"] = 0
            result["cacheScope"] = "private"
        return self._complete(rid, result, modern)

    def _tools_call(self, rid: Any, params: JsonObj, modern: bool) -> Outcome:
        name = params.get("name")
        args = params.get("arguments")
        if args is None:
            args = {}
        if type(name) is not str or type(args) is not dict:
            return error_reply(rid, INVALID_PARAMS, "tools/call needs a name and object arguments")
        if name == "echo":
            content: Any = _text_content(orjson.dumps(args).decode())
        elif name == "blob":
            n = args.get("bytes", 0)
            seed = args.get("seed", "")
            if type(n) is not int or n < 0 or n > 1 << 30 or not _valid_seed(seed):
                return error_reply(
                    rid,
                    INVALID_PARAMS,
                    "blob: 'bytes' must be an integer >= 0, 'seed' [A-Za-z0-9._-]",
                )
            content = self._blob_content(n, seed)
        elif name == "sleep":
            ms = args.get("ms", 0)
            if type(ms) not in (int, float) or ms < 0:
                return error_reply(rid, INVALID_PARAMS, "sleep: 'ms' must be a number >= 0")
            return self._sleep(rid, float(ms), args, modern)
        elif name in self.catalog_tools:
            if self.large and (self.server, name) in LARGE_RESULTS:
                content = self._large_cache.get(name)
                if content is None:
                    content = _text_content(large_result_text(self.server, name))
                    self._large_cache[name] = content
            else:
                text = {"server": self.server, "tool": name, "ok": True, "arguments": args}
                content = _text_content(orjson.dumps(text).decode())
        else:
            return error_reply(rid, INVALID_PARAMS, f"Unknown tool: {name}")
        return self._complete(rid, {"content": content, "isError": False}, modern)

    def _blob_content(self, n: int, seed: str) -> orjson.Fragment:
        """The serialized content list of a blob, spliced from a cached body (one copy)."""
        body = self._blob_cache.get(n)
        if body is None:
            body = blob_text(n).encode()
            if len(self._blob_cache) >= 4:
                self._blob_cache.pop(next(iter(self._blob_cache)))
            self._blob_cache[n] = body
        head = f"{seed}:".encode()[:n] if seed else b""
        view = memoryview(body)[: n - len(head)]
        return orjson.Fragment(b"".join((b'[{"type":"text","text":"', head, view, b'"}]')))

    async def _sleep(self, rid: Any, ms: float, args: JsonObj, modern: bool) -> Reply:
        await asyncio.sleep(ms / 1000.0)
        content = _text_content(orjson.dumps(args).decode())
        return self._complete(rid, {"content": content, "isError": False}, modern)


def _valid_id(rid: Any) -> bool:
    t = type(rid)
    return t is int or t is str


# --------------------------------------------------------------------------------------------
# stdio transport


def split_lines(buf: bytearray, data: bytes) -> list[bytes]:
    """Newline framing by hand (no length limit): the complete lines of ``buf`` + ``data``;
    an incomplete tail stays in ``buf`` for the next chunk."""
    lines = []
    start = 0
    while (nl := data.find(b"\n", start)) >= 0:
        if buf:
            buf += data[start:nl]
            lines.append(bytes(buf))
            buf.clear()
        else:
            lines.append(data[start:nl])
        start = nl + 1
    if start < len(data):
        buf += data[start:] if start else data
    return lines


class StdioServer(asyncio.Protocol):
    """Reads newline-delimited JSON-RPC from stdin, framed by hand (any message size)."""

    def __init__(self, core: MockCore, out: asyncio.WriteTransport | None) -> None:
        self.core = core
        self.out = out
        self.buf = bytearray()
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.tasks: set[asyncio.Task[Any]] = set()

    def data_received(self, data: bytes) -> None:
        replies = [r for line in split_lines(self.buf, data) if (r := self._line(line))]
        if replies:
            self._write(b"".join(replies))

    def _line(self, line: bytes) -> bytes | None:
        if not line.strip():
            return None
        try:
            msg = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            return _dump(error_reply(None, PARSE_ERROR, f"Parse error: {exc}"))
        outcome = self.core.handle(msg)
        if outcome is None:
            return None
        if isinstance(outcome, dict):
            return _dump(outcome)
        task = asyncio.ensure_future(outcome)
        rid = msg.get("id")
        self.core.sleeping[rid] = task
        self.tasks.add(task)
        task.add_done_callback(lambda t: self._finished(rid, t))
        return None

    def _finished(self, rid: Any, task: asyncio.Task[Reply]) -> None:
        self.tasks.discard(task)
        if self.core.sleeping.get(rid) is task:
            del self.core.sleeping[rid]
        if task.cancelled():
            return  # cancelled by notifications/cancelled: no answer, per the spec
        exc = task.exception()
        reply = error_reply(rid, INTERNAL_ERROR, str(exc)) if exc else task.result()
        self._write(_dump(reply))

    def _write(self, data: bytes) -> None:
        if self.out is not None:
            self.out.write(data)
        else:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


def _dump(reply: Reply) -> bytes:
    return orjson.dumps(reply) + b"\n"


async def serve_stdio(core: MockCore) -> None:
    loop = asyncio.get_running_loop()
    out: asyncio.WriteTransport | None
    try:
        out, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout)
    except (ValueError, OSError):
        out = None  # stdout is a regular file: write synchronously
    _, proto = await loop.connect_read_pipe(lambda: StdioServer(core, out), sys.stdin)
    await proto.done
    # stdin closed: give pending replies a bounded chance to drain, then exit.
    for _ in range(100):
        if out is None or out.get_write_buffer_size() == 0:
            break
        await asyncio.sleep(0.01)
    for task in list(proto.tasks):
        task.cancel()


# --------------------------------------------------------------------------------------------
# Streamable HTTP transport


class _OnEof(asyncio.Protocol):
    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback

    def connection_lost(self, exc: Exception | None) -> None:
        self.callback()


async def serve_http(core: MockCore, host: str, port: int) -> None:
    from aiohttp import web

    sessions: set[str] = set()
    terminated: set[str] = set()
    json_type = "application/json"

    def answer(
        reply: Reply, status: int = 200, headers: dict[str, str] | None = None
    ) -> web.Response:
        return web.Response(
            body=orjson.dumps(reply), status=status, content_type=json_type, headers=headers
        )

    async def post(request: web.Request) -> web.StreamResponse:
        body = await request.read()
        try:
            msg = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            return answer(error_reply(None, PARSE_ERROR, f"Parse error: {exc}"), 400)
        if type(msg) is not dict:
            return answer(error_reply(None, INVALID_REQUEST, "Expected one JSON object"), 400)
        method = msg.get("method")
        sid = request.headers.get("Mcp-Session-Id")
        modern = core.is_modern_request(msg)
        header_version = request.headers.get("MCP-Protocol-Version")
        if modern:
            meta_version = msg["params"]["_meta"].get(META_VERSION)
            if header_version is not None and header_version != meta_version:
                return answer(
                    error_reply(msg.get("id"), HEADER_MISMATCH, "MCP-Protocol-Version mismatch"),
                    400,
                )
            header_method = request.headers.get("Mcp-Method")
            if header_method is not None and header_method != method:
                return answer(
                    error_reply(msg.get("id"), HEADER_MISMATCH, "Mcp-Method mismatch"), 400
                )
        elif method not in ("initialize", "server/discover") and "id" in msg:
            # A legacy-era request: it needs a live session.
            if sid is None:
                return answer(error_reply(None, INVALID_REQUEST, "Bad Request: no session"), 400)
            if sid not in sessions:
                return answer(error_reply(None, INVALID_REQUEST, "Session not found"), 404)
            if header_version is not None and header_version not in LEGACY_VERSIONS:
                return answer(error_reply(None, INVALID_REQUEST, "Bad MCP-Protocol-Version"), 400)
        elif method == "server/discover" and core.era == "legacy" and sid is None:
            return answer(error_reply(None, INVALID_REQUEST, "Bad Request: no session"), 400)
        if not modern and sid is not None and sid in terminated:
            return answer(error_reply(None, INVALID_REQUEST, "Session terminated"), 404)
        outcome = core.handle(msg)
        if outcome is None:
            return web.Response(status=202)
        reply = outcome if isinstance(outcome, dict) else await outcome
        if method == "initialize" and "result" in reply:
            new_sid = secrets.token_hex(16)
            sessions.add(new_sid)
            return answer(reply, headers={"Mcp-Session-Id": new_sid})
        status = 200
        if modern and "error" in reply:
            code = reply["error"]["code"]
            status = 404 if code == METHOD_NOT_FOUND else 400
        return answer(reply, status)

    async def delete(request: web.Request) -> web.StreamResponse:
        sid = request.headers.get("Mcp-Session-Id")
        if sid is None or sid not in sessions:
            return web.Response(status=404)
        sessions.discard(sid)
        terminated.add(sid)
        return web.Response(status=200)

    async def get(request: web.Request) -> web.StreamResponse:
        return web.Response(status=405, headers={"Allow": "POST, DELETE"})

    app = web.Application(client_max_size=1 << 30)
    app.router.add_post("/mcp", post)
    app.router.add_delete("/mcp", delete)
    app.router.add_get("/mcp", get)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024)
    await site.start()
    bound = runner.addresses[0][1]
    sys.stdout.write(orjson.dumps({"url": f"http://{host}:{bound}/mcp"}).decode() + "\n")
    sys.stdout.flush()
    loop = asyncio.get_running_loop()
    stop: asyncio.Future[None] = loop.create_future()

    def finish() -> None:
        if not stop.done():
            stop.set_result(None)

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, finish)
    if stat.S_ISFIFO(os.fstat(0).st_mode):
        # Spawned with a pipe on stdin: exit when it closes (the parent went away).
        await loop.connect_read_pipe(lambda: _OnEof(finish), sys.stdin)
    try:
        await stop
    finally:
        await runner.cleanup()


# --------------------------------------------------------------------------------------------
# CLI


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.mock_upstream", description=__doc__)
    p.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="HTTP port (0: pick one, print the URL)")
    p.add_argument("--era", choices=("dual", "legacy", "modern"), default="dual")
    p.add_argument("--catalog", type=Path, help="catalog JSON ({servers:[{name, tools}]})")
    p.add_argument("--server", help="which catalog server's tools to serve")
    p.add_argument("--large", action="store_true", help="five catalog tools give large results")
    p.add_argument("--page-size", type=int, default=None, help="paginate tools/list")
    p.add_argument("--tag", default=None, help="ignored; lets a harness find its own processes")
    args = p.parse_args(argv)
    if args.catalog is not None and not args.server:
        p.error("--catalog needs --server")
    if args.page_size is not None and args.page_size <= 0:
        p.error("--page-size must be positive")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    core = MockCore(
        era=args.era,
        catalog=args.catalog,
        server=args.server,
        large=args.large,
        page_size=args.page_size,
    )
    coro = serve_http(core, args.host, args.port) if args.http else serve_stdio(core)
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    with contextlib.suppress(ImportError):
        import uvloop

        loop_factory = uvloop.new_event_loop
    with contextlib.suppress(KeyboardInterrupt), asyncio.Runner(loop_factory=loop_factory) as r:
        r.run(coro)
    # Exit fast, without waiting on interpreter teardown of anything left.
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
