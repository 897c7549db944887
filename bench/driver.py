"""A lean raw JSON-RPC driver for the benchmark harness.

Not the SDK client (which adds 1.3-2.4 ms per call): stdio is newline-delimited JSON over a
subprocess pipe, framed by hand in a protocol callback; HTTP is one raw keep-alive connection
per client, parsed with httptools. Every answer is matched to its request by id and its
content is checked against what was asked.

The measurement functions at the bottom take connected clients and tool names, so the same code
measures a mock upstream directly and through the gateway (where tools carry a prefix).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast
from urllib.parse import urlsplit

import httptools
import orjson

from bench.mock_upstream import blob_text, split_lines

LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
CLIENT_INFO = {"name": "manifold-bench", "version": "0.1.0"}
MODERN_META: dict[str, Any] = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
}
JsonObj = dict[str, Any]


class RpcError(Exception):
    """A JSON-RPC error answer, or a transport failure, for one request."""

    def __init__(self, message: str, code: int | None = None, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


def _result_of(msg: JsonObj) -> JsonObj:
    if "error" in msg:
        err = msg["error"] or {}
        raise RpcError(
            f"JSON-RPC error {err.get('code')}: {err.get('message')}",
            err.get("code"),
            err.get("data"),
        )
    result = msg.get("result")
    if not isinstance(result, dict):
        raise RpcError(f"answer without an object result: {str(msg)[:200]}")
    return result


def text_of(result: JsonObj) -> str:
    """The text of a tool result that must be exactly one text block and not an error."""
    content = result.get("content")
    if result.get("isError") or not isinstance(content, list) or len(content) != 1:
        raise RpcError(f"unexpected tool result: {str(result)[:200]}")
    block = content[0]
    if not isinstance(block, dict) or block.get("type") != "text":
        raise RpcError(f"unexpected content block: {str(block)[:200]}")
    text = block.get("text")
    if not isinstance(text, str):
        raise RpcError("text block without text")
    return text


def echo_matches(result: JsonObj, args: JsonObj) -> bool:
    """True when an echo/sleep answer carries exactly the arguments of its own request."""
    try:
        return bool(orjson.loads(text_of(result)) == args)
    except (RpcError, orjson.JSONDecodeError):
        return False


# --------------------------------------------------------------------------------------------
# Processes


def kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def tagged_pids(tag: str) -> list[int]:
    """PIDs of live processes whose command line contains ``tag`` (the harness's own)."""
    needle = tag.encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in cmdline and state != b"Z" and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


def rss_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of one process, in KiB, from /proc/PID/status (the process alone)."""
    rss = hwm = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        elif line.startswith("VmHWM:"):
            hwm = int(line.split()[1])
    return rss, hwm


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (clock-tick resolution)."""
    fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tail(path: Path | None, lines: int = 3, limit: int = 400) -> str:
    """The last few non-empty lines of a log, on one line (for error messages)."""
    if path is None or not path.exists():
        return ""
    text = path.read_bytes()[-8192:].decode("utf-8", "replace")
    last = [ln.strip() for ln in text.splitlines() if ln.strip()][-lines:]
    return " / ".join(last)[-limit:]


class _Proto(asyncio.SubprocessProtocol):
    def __init__(self, conn: StdioConn) -> None:
        self.conn = conn

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.conn._feed(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self.conn._fail_all("stdout closed")

    def process_exited(self) -> None:
        self.conn._exited()


class StdioConn:
    """One spawned MCP server (or gateway) on stdio, its own process group."""

    def __init__(self, name: str, stderr_path: Path | None) -> None:
        self.name = name
        self.stderr_path = stderr_path
        self.pending: dict[int, asyncio.Future[JsonObj]] = {}
        self.ids = itertools.count(1)
        self.buf = bytearray()
        self.era = "legacy"
        self.unsolicited = 0
        self.transport: asyncio.SubprocessTransport | None = None
        self.stdin: asyncio.WriteTransport | None = None
        self.exited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pid = 0

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        name: str,
        cwd: Path,
        stderr_path: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> StdioConn:
        conn = cls(name, stderr_path)
        loop = asyncio.get_running_loop()
        err: IO[bytes] | int = asyncio.subprocess.DEVNULL
        if stderr_path is not None:
            err = stderr_path.open("ab")
        try:
            transport, _ = await loop.subprocess_exec(
                lambda: _Proto(conn),
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
                cwd=str(cwd),
                env=env,
                start_new_session=True,
            )
        finally:
            if not isinstance(err, int):
                err.close()
        conn.transport = transport
        # uvloop's pipe transports do not subclass asyncio.WriteTransport: no isinstance here
        conn.stdin = cast(asyncio.WriteTransport, transport.get_pipe_transport(0))
        conn.pid = transport.get_pid()
        return conn

    # -- incoming ---------------------------------------------------------------------------

    def _feed(self, data: bytes) -> None:
        for line in split_lines(self.buf, data):
            self._line(line)

    def _line(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            msg = orjson.loads(line)
        except orjson.JSONDecodeError:
            self.unsolicited += 1
            return
        if type(msg) is not dict:
            self.unsolicited += 1
            return
        if "method" in msg:
            self.unsolicited += 1
            if "id" in msg:  # a server->client request: answer ping, refuse the rest
                reply: JsonObj = {"jsonrpc": "2.0", "id": msg["id"], "result": {}}
                if msg["method"] != "ping":
                    del reply["result"]
                    reply["error"] = {"code": -32601, "message": "not supported by the driver"}
                with contextlib.suppress(RpcError):
                    self._write(orjson.dumps(reply))
            return
        fut = self.pending.pop(msg.get("id"), None)  # type: ignore[arg-type]
        if fut is None:
            self.unsolicited += 1
        elif not fut.done():
            fut.set_result(msg)

    def _exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)
        self._fail_all("process exited")

    def _fail_all(self, why: str) -> None:
        if not self.pending:
            return
        rc = self.transport.get_returncode() if self.transport else None
        detail = tail(self.stderr_path)
        message = f"{self.name}: {why} (returncode {rc})" + (
            f"; stderr: {detail}" if detail else ""
        )
        pending, self.pending = self.pending, {}
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(RpcError(message))

    # -- outgoing ---------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        if self.stdin is None or self.stdin.is_closing():
            raise RpcError(f"{self.name}: stdin is closed")
        self.stdin.write(data + b"\n")

    def params(self, params: JsonObj | None) -> JsonObj | None:
        if self.era != "modern":
            return params
        return {**(params or {}), "_meta": MODERN_META}

    def start_many(
        self, calls: Sequence[tuple[str, JsonObj | None]]
    ) -> list[asyncio.Future[JsonObj]]:
        """Write many requests in one write; return one future per answer (full message)."""
        loop = asyncio.get_running_loop()
        futures = []
        lines = []
        for method, params in calls:
            rid = next(self.ids)
            fut: asyncio.Future[JsonObj] = loop.create_future()
            self.pending[rid] = fut
            futures.append(fut)
            msg: JsonObj = {"jsonrpc": "2.0", "id": rid, "method": method}
            p = self.params(params)
            if p is not None:
                msg["params"] = p
            lines.append(orjson.dumps(msg))
        self._write(b"\n".join(lines))
        return futures

    async def request(
        self, method: str, params: JsonObj | None = None, timeout: float = 30.0
    ) -> JsonObj:
        (fut,) = self.start_many([(method, params)])
        try:
            msg = await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            raise RpcError(f"{self.name}: no answer to {method} within {timeout:.0f} s") from None
        return _result_of(msg)

    def notify(self, method: str, params: JsonObj | None = None) -> None:
        msg: JsonObj = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self._write(orjson.dumps(msg))

    async def handshake(self, era: str = "legacy", timeout: float = 60.0) -> JsonObj:
        """Legacy: initialize + notifications/initialized. Modern: server/discover, then every
        request carries the modern ``_meta``."""
        if era == "modern":
            self.era = "modern"
            return await self.request("server/discover", {}, timeout)
        self.era = "legacy"
        result = await self.request(
            "initialize",
            {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO},
            timeout,
        )
        self.notify("notifications/initialized")
        return result

    async def list_tools(self, timeout: float = 30.0) -> list[JsonObj]:
        return await _list_all(self.request, timeout)

    async def close(self, timeout: float = 5.0) -> int | None:
        """Close stdin, wait for the exit, then SIGTERM and SIGKILL the process group."""
        if self.transport is None:
            return None
        if self.stdin is not None and not self.stdin.is_closing():
            self.stdin.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.exited), timeout)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.exited.done():
                break
            kill_group(self.pid, sig)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.exited), 3.0)
        kill_group(self.pid, signal.SIGKILL)  # whatever the process left in its group
        rc = self.transport.get_returncode()
        self.transport.close()
        return rc


async def _list_all(request: Callable[..., Any], timeout: float) -> list[JsonObj]:
    tools: list[JsonObj] = []
    cursor: str | None = None
    for _ in range(10_000):
        result = await request("tools/list", {"cursor": cursor} if cursor else {}, timeout)
        tools.extend(result.get("tools", []))
        cursor = result.get("nextCursor")
        if not cursor:
            return tools
    raise RpcError("tools/list pagination does not end")


# --------------------------------------------------------------------------------------------
# HTTP


class _RawHttp(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection, parsed with httptools: a lean client, so that the
    driver's own cost does not hide the gateway's (aiohttp's client costs ~160 us a call)."""

    def __init__(self) -> None:
        self.parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport | None = None
        self.fut: asyncio.Future[tuple[int, dict[bytes, bytes], bytes]] | None = None
        self.headers: dict[bytes, bytes] = {}
        self.body: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as e:
            self._fail(RpcError(f"bad HTTP: {e}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RpcError(f"connection lost: {exc}"))

    def _fail(self, exc: Exception) -> None:
        if self.fut is not None and not self.fut.done():
            self.fut.set_exception(exc)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.lower()] = value.strip()

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        if self.fut is not None and not self.fut.done():
            self.fut.set_result((self.parser.get_status_code(), self.headers, b"".join(self.body)))

    async def send(self, data: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
        assert self.transport is not None
        self.headers, self.body = {}, []
        self.fut = asyncio.get_running_loop().create_future()
        self.transport.write(data)
        return await self.fut


class HttpConn:
    """One MCP client over Streamable HTTP: a legacy session, or stateless modern POSTs, on
    one keep-alive connection of its own (as a real client keeps)."""

    def __init__(self, url: str, era: str = "legacy") -> None:
        u = urlsplit(url)
        self.host = u.hostname or "127.0.0.1"
        self.port = u.port or 80
        self.path = u.path or "/"
        self.url = url
        self.era = era
        self.ids = itertools.count(1)
        self.session_id: str | None = None
        self.version = MODERN_VERSION if era == "modern" else LEGACY_VERSION
        self._conn: _RawHttp | None = None

    def _headers(self, method: str | None, name: str | None) -> dict[str, str]:
        h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        if self.session_id:
            h["Mcp-Session-Id"] = self.session_id
        if method != "initialize":
            h["MCP-Protocol-Version"] = self.version
        if self.era == "modern" and method is not None:
            h["Mcp-Method"] = method
            if name is not None:
                h["Mcp-Name"] = name
        return h

    async def _exchange(
        self, verb: str, headers: dict[str, str], body: bytes, timeout: float
    ) -> tuple[int, dict[bytes, bytes], bytes]:
        if self._conn is None or self._conn.transport is None or self._conn.transport.is_closing():
            loop = asyncio.get_running_loop()
            _t, self._conn = await loop.create_connection(_RawHttp, self.host, self.port)
        lines = [f"{verb} {self.path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        lines.append(f"Content-Length: {len(body)}")
        data = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        async with asyncio.timeout(timeout):
            return await self._conn.send(data)

    async def post(self, msg: JsonObj, timeout: float) -> tuple[int, JsonObj | None]:
        method = msg.get("method")
        name = None
        params = msg.get("params")
        if method == "tools/call" and isinstance(params, dict):
            name = params.get("name")
        status, headers, body = await self._exchange(
            "POST", self._headers(method, name), orjson.dumps(msg), timeout
        )
        if method == "initialize" and b"mcp-session-id" in headers:
            self.session_id = headers[b"mcp-session-id"].decode()
        ctype = headers.get(b"content-type", b"")
        if status == 202 or not body:
            return status, None
        if ctype.startswith(b"text/event-stream"):
            return status, _answer_in_sse(body, msg.get("id"))
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise RpcError(f"HTTP {status}: {body[:200]!r}") from None
        return status, parsed if isinstance(parsed, dict) else None

    async def request(
        self, method: str, params: JsonObj | None = None, timeout: float = 30.0
    ) -> JsonObj:
        if self.era == "modern":
            params = {**(params or {}), "_meta": MODERN_META}
        msg: JsonObj = {"jsonrpc": "2.0", "id": next(self.ids), "method": method}
        if params is not None:
            msg["params"] = params
        try:
            status, answer = await self.post(msg, timeout)
        except TimeoutError:
            raise RpcError(f"no answer to {method} within {timeout:.0f} s") from None
        if answer is None:
            raise RpcError(f"HTTP {status} without a JSON-RPC answer to {method}")
        if answer.get("id") != msg["id"]:
            raise RpcError(f"answer id {answer.get('id')!r} for request {msg['id']!r}")
        return _result_of(answer)

    async def handshake(self, timeout: float = 30.0) -> JsonObj:
        if self.era == "modern":
            return await self.request("server/discover", {}, timeout)
        result = await self.request(
            "initialize",
            {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO},
            timeout,
        )
        self.version = str(result.get("protocolVersion", LEGACY_VERSION))
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, timeout)
        return result

    async def list_tools(self, timeout: float = 30.0) -> list[JsonObj]:
        return await _list_all(self.request, timeout)

    async def close(self) -> None:
        if self.session_id is not None:
            with contextlib.suppress(RpcError, OSError, TimeoutError):
                await self._exchange("DELETE", self._headers(None, None), b"", 5)
            self.session_id = None
        if self._conn is not None and self._conn.transport is not None:
            self._conn.transport.close()


def _answer_in_sse(body: bytes, rid: Any) -> JsonObj | None:
    for event in body.replace(b"\r\n", b"\n").split(b"\n\n"):
        data = b"\n".join(
            line[5:].lstrip() for line in event.split(b"\n") if line.startswith(b"data:")
        )
        if not data:
            continue
        with contextlib.suppress(orjson.JSONDecodeError):
            msg = orjson.loads(data)
            if isinstance(msg, dict) and "method" not in msg and msg.get("id") == rid:
                return msg
    return None


@dataclass
class HttpProc:
    """A process serving HTTP (the mock or the gateway), in its own process group."""

    proc: asyncio.subprocess.Process
    url: str
    stderr_path: Path | None

    @property
    def pid(self) -> int:
        return self.proc.pid

    async def close(self, timeout: float = 5.0) -> int | None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.proc.returncode is not None:
                break
            kill_group(self.proc.pid, sig)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), timeout)
        kill_group(self.proc.pid, signal.SIGKILL)
        return self.proc.returncode


async def spawn_http(
    argv: Sequence[str],
    *,
    cwd: Path,
    stderr_path: Path | None,
    url: str | None = None,
    timeout: float = 30.0,
) -> HttpProc:
    """Start an HTTP server. With ``url=None`` it must print ``{"url": ...}`` as its first stdout
    line (the mock does); otherwise wait until ``url``'s port accepts connections."""
    err = stderr_path.open("ab") if stderr_path is not None else None
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            # the mock (url=None) watches this pipe and exits if the harness dies
            stdin=asyncio.subprocess.PIPE if url is None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE if url is None else asyncio.subprocess.DEVNULL,
            stderr=err if err is not None else asyncio.subprocess.DEVNULL,
            cwd=str(cwd),
            start_new_session=True,
        )
    finally:
        if err is not None:
            err.close()
    served = HttpProc(proc, url or "", stderr_path)
    try:
        if url is None:
            assert proc.stdout is not None
            line = await asyncio.wait_for(proc.stdout.readline(), timeout)
            if not line:
                raise RpcError(f"{argv[0]} exited before listening: {tail(stderr_path)}")
            served.url = orjson.loads(line)["url"]
        else:
            await _wait_port(url, proc, timeout, stderr_path)
    except BaseException:
        await served.close()
        raise
    return served


async def _wait_port(
    url: str, proc: asyncio.subprocess.Process, timeout: float, stderr_path: Path | None
) -> None:
    hostport = url.split("://", 1)[1].split("/", 1)[0]
    host, port = hostport.rsplit(":", 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.returncode is not None:
            raise RpcError(f"exited with {proc.returncode} before listening: {tail(stderr_path)}")
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, int(port)), 1.0)
        except (OSError, TimeoutError):
            await asyncio.sleep(0.05)
            continue
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        return
    raise RpcError(f"nothing listening on {url} after {timeout:.0f} s: {tail(stderr_path)}")


# --------------------------------------------------------------------------------------------
# Measurements


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, q in [0, 100]."""
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * q / 100.0
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary_ms(latencies_ms: Sequence[float]) -> JsonObj:
    return {
        "n": len(latencies_ms),
        "p50_ms": percentile(latencies_ms, 50),
        "p90_ms": percentile(latencies_ms, 90),
        "p99_ms": percentile(latencies_ms, 99),
        "mean_ms": statistics.fmean(latencies_ms) if latencies_ms else float("nan"),
        "max_ms": max(latencies_ms) if latencies_ms else float("nan"),
    }


async def paced_calls(
    conn: StdioConn | HttpConn, tool: str, n: int, interval_s: float = 0.002, tag: str = "p"
) -> list[float]:
    """``n`` echo calls with unique arguments, one at a time, started ``interval_s`` apart.
    Returns per-call latency in ms; raises on a wrong answer."""
    latencies = []
    next_start = time.perf_counter()
    for i in range(n):
        delay = next_start - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        args = {"seq": i, "tag": tag, "nonce": f"{tag}-{i}-{time.perf_counter_ns()}"}
        t0 = time.perf_counter_ns()
        result = await conn.request("tools/call", {"name": tool, "arguments": args})
        t1 = time.perf_counter_ns()
        if not echo_matches(result, args):
            raise RpcError(f"paced call {i}: answer does not match its request: {result}")
        latencies.append((t1 - t0) / 1e6)
        next_start = max(next_start + interval_s, time.perf_counter())
    return latencies


@dataclass
class BurstResult:
    calls: int
    wall_s: float
    errors: int = 0
    mismatched: int = 0
    first_error: str = ""

    @property
    def rps(self) -> float:
        return self.calls / self.wall_s if self.wall_s > 0 else 0.0


async def burst(
    routes: Sequence[tuple[StdioConn, str]], total: int = 500, timeout: float = 60.0, tag: str = "b"
) -> BurstResult:
    """``total`` echo calls written at once, spread round-robin over ``routes`` (a connection and
    the echo tool name to use on it); one write per connection. Every answer is checked."""
    per_conn: dict[int, tuple[StdioConn, list[tuple[str, JsonObj | None]], list[JsonObj]]] = {}
    for i in range(total):
        conn, tool = routes[i % len(routes)]
        args = {"burst": tag, "seq": i, "via": tool}
        entry = per_conn.setdefault(id(conn), (conn, [], []))
        entry[1].append(("tools/call", {"name": tool, "arguments": args}))
        entry[2].append(args)
    t0 = time.perf_counter()
    pairs: list[tuple[asyncio.Future[JsonObj], JsonObj]] = []
    for conn, calls, expected in per_conn.values():
        pairs.extend(zip(conn.start_many(calls), expected, strict=True))
    _, not_done = await asyncio.wait([f for f, _ in pairs], timeout=timeout)
    wall = time.perf_counter() - t0
    out = BurstResult(calls=total, wall_s=wall)
    for fut, args in pairs:
        why = ""
        if fut in not_done:
            fut.cancel()
            out.errors += 1
            why = "no answer"
        elif fut.exception() is not None:
            out.errors += 1
            why = str(fut.exception())
        else:
            msg = fut.result()
            if "error" in msg:
                out.errors += 1
                why = str(msg["error"])
            elif not echo_matches(msg.get("result") or {}, args):
                out.mismatched += 1
                why = f"answer {str(msg)[:200]} for {args}"
        if why and not out.first_error:
            out.first_error = why
    return out


async def parallel_sleeps(
    conn: StdioConn, tool: str, n: int = 50, ms: int = 100, timeout: float = 60.0
) -> tuple[float, int]:
    """``n`` sleep calls of ``ms`` written at once on one route: (wall ms, errors)."""
    calls: list[tuple[str, JsonObj | None]] = []
    expected = []
    stamp = time.perf_counter_ns()
    for i in range(n):
        args = {"ms": ms, "seq": i, "nonce": stamp}
        calls.append(("tools/call", {"name": tool, "arguments": args}))
        expected.append(args)
    t0 = time.perf_counter()
    futures = conn.start_many(calls)
    done, not_done = await asyncio.wait(futures, timeout=timeout)
    wall_ms = (time.perf_counter() - t0) * 1000
    errors = len(not_done)
    for fut in not_done:
        fut.cancel()
    for fut, args in zip(futures, expected, strict=True):
        if fut in done:
            if fut.exception() is not None:
                errors += 1
                continue
            msg = fut.result()
            if "error" in msg or not echo_matches(msg.get("result") or {}, args):
                errors += 1
    return wall_ms, errors


async def blob_calls(
    conn: StdioConn, tool: str, nbytes: int, reps: int, timeout: float = 60.0
) -> list[float]:
    """``reps`` sequential blob calls (after one warm-up), wall ms each; content checked.
    Each call has its own seed, so no two answers are the same (a gateway may dedupe those)."""
    walls = []
    for i in range(reps + 1):
        seed = f"b{i}-{time.perf_counter_ns()}"
        expected = blob_text(nbytes, seed)
        args = {"bytes": nbytes, "seed": seed}
        t0 = time.perf_counter()
        result = await conn.request("tools/call", {"name": tool, "arguments": args}, timeout)
        wall = (time.perf_counter() - t0) * 1000
        got = text_of(result)
        if got != expected:
            at = next(
                (k for k, (x, y) in enumerate(zip(got, expected, strict=False)) if x != y),
                min(len(got), len(expected)),
            )
            raise RpcError(
                f"blob of {nbytes} bytes came back altered: {len(got)} bytes, first difference "
                f"at {at}: {got[max(0, at - 20) : at + 60]!r}"
            )
        if i > 0:
            walls.append(wall)
    return walls


@dataclass
class HttpResult:
    clients: int
    duration_s: float
    calls: int = 0
    errors: int = 0
    first_error: str = ""
    attempts: int = 0  # every call made, warm-up included (for CPU per call)
    latencies_ms: list[float] = field(default_factory=list)

    @property
    def rps(self) -> float:
        return self.calls / self.duration_s if self.duration_s > 0 else 0.0


async def http_throughput(
    url: str,
    tool: str,
    clients: int = 8,
    duration_s: float = 3.0,
    warmup_s: float = 0.3,
    era: str = "legacy",
) -> HttpResult:
    """``clients`` concurrent sessions, each doing sequential echo calls for ``duration_s``."""
    out = HttpResult(clients=clients, duration_s=duration_s)
    conns = [HttpConn(url, era) for _ in range(clients)]
    await asyncio.gather(*(c.handshake() for c in conns))
    start = time.perf_counter() + warmup_s
    stop = start + duration_s

    async def worker(k: int, conn: HttpConn) -> None:
        i = 0
        while True:
            t0 = time.perf_counter()
            if t0 >= stop:
                return
            args = {"client": k, "seq": i}
            i += 1
            out.attempts += 1
            try:
                result = await conn.request("tools/call", {"name": tool, "arguments": args})
                ok = echo_matches(result, args)
                why = "" if ok else f"wrong answer {str(result)[:200]}"
            except (RpcError, OSError, TimeoutError) as exc:
                ok, why = False, str(exc) or type(exc).__name__
            t1 = time.perf_counter()
            if t0 >= start and t1 <= stop:
                if ok:
                    out.calls += 1
                    out.latencies_ms.append((t1 - t0) * 1000)
                else:
                    out.errors += 1
                    out.first_error = out.first_error or why

    try:
        await asyncio.gather(*(worker(k, c) for k, c in enumerate(conns)))
    finally:
        await asyncio.gather(*(c.close() for c in conns))
    return out


async def sustained_calls(
    routes: Sequence[tuple[StdioConn, str]], total: int, tag: str, batch: int = 100
) -> BurstResult:
    """``total`` echo calls in pipelined batches over ``routes``; errors and mismatches summed.
    Arguments are unique for a given ``tag`` (so no cache or dedupe can answer a call)."""
    agg = BurstResult(calls=0, wall_s=0.0)
    for start in range(0, total, batch):
        n = min(batch, total - start)
        r = await burst(routes, n, tag=f"{tag}-{start}")
        agg.calls += r.calls
        agg.wall_s += r.wall_s
        agg.errors += r.errors
        agg.mismatched += r.mismatched
        agg.first_error = agg.first_error or r.first_error
    return agg
