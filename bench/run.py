"""End-to-end benchmark: every measurement DIRECT (driver -> mock upstream) and THROUGH the
gateway (driver -> ``manifold run``/``manifold serve`` -> mock upstreams), then a report.

    python -m bench.run [--quick] [--only paced,burst,...] [--gateway-cmd CMD] [--direct-only]
                        [--security default|off]

``--security off`` runs every gateway with secret redaction and argument validation turned off
(a config overlay); the ``security`` measure compares, in one run, the gateway as configured
(by default both on) with the same gateway with both off (paced p50, burst, warm RSS).

Writes ``bench-results/report.md`` and ``bench-results/report.json`` (and gateway/mock stderr
logs under ``bench-results/logs/``). Exit status: 0 when every selected measurement ran (targets
MET or MISSED; with ``--strict`` a MISSED target gives 1), 2 when a measurement could not run
(for instance the gateway is not runnable).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import yaml

from bench import driver
from bench.driver import HttpProc, RpcError, StdioConn

REPO = Path(__file__).resolve().parent.parent
CATALOG = REPO / "bench" / "data" / "leanproxy-catalog.json"
UPSTREAMS = ("github", "jira", "slack", "garmin", "postgres")
MEASURES = (
    "paced",
    "burst",
    "parallel",
    "blob",
    "http",
    "rss",
    "soak",
    "load",
    "resilience",
    "security",
    "restartsoak",
)
MAX_IN_FLIGHT = 32
BLOB_BYTES = 5 * 1024 * 1024
MiB = 1024.0

JsonObj = dict[str, Any]


class GatewayUnavailable(Exception):
    """The gateway is not runnable at all (its side is NOT RUN)."""


class GatewayFailed(RpcError):
    """The gateway started but did not serve what the harness needs (its side is an ERROR)."""


@dataclass
class Row:
    measure: str
    unit: str
    direct: float | None
    gateway: float | None
    target: str
    status: str  # MET, MISSED, NOT RUN or ERROR
    note: str = ""
    ratio: float | None = None  # gateway / direct


@dataclass
class Ctx:
    out: Path
    logs: Path
    tmp: Path
    tag: str
    quick: bool
    era: str
    gateway_cmd: list[str] | None
    gateway_problem: str | None
    rows: list[Row] = field(default_factory=list)
    details: dict[str, JsonObj] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    failed: bool = False
    overlay: JsonObj = field(default_factory=dict)  # merged into every gateway config

    def n(self, full: int, quick: int) -> int:
        return quick if self.quick else full


# --------------------------------------------------------------------------------------------
# Starting things


def mock_argv(ctx: Ctx, server: str, *extra: str, owner: str = "direct") -> list[str]:
    """The mock's command line. Its ``--tag`` names the run and the owner ("direct": the harness
    spawned it; "gw": a gateway did), so leftovers of a gateway can be told apart."""
    return [
        sys.executable,
        "-m",
        "bench.mock_upstream",
        "--catalog",
        str(CATALOG),
        "--server",
        server,
        "--tag",
        f"{ctx.tag}-{owner}",
        *extra,
    ]


def stdio_upstreams(ctx: Ctx) -> JsonObj:
    return {
        name: {
            "command": sys.executable,
            "args": mock_argv(ctx, name, owner="gw")[1:],
            "cwd": str(REPO),
            "max_in_flight": MAX_IN_FLIGHT,
        }
        for name in UPSTREAMS
    }


def write_config(ctx: Ctx, name: str, upstreams: JsonObj) -> Path:
    path = ctx.tmp / f"{name}.yaml"
    # The core harness measures the relay: every tool listed (passthrough), no counters kept.
    cfg = {"exposure": {"mode": "passthrough"}, "state": {"path": ""}, "upstreams": upstreams}
    cfg = merge_config(cfg, ctx.overlay)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


SECURITY_OFF: JsonObj = {
    "security": {
        "redaction": {"enabled": False},
        "validation": {"enabled": False},
        "guard": {"enabled": False},
        "pins": {"mode": "off"},
    }
}


def merge_config(base: JsonObj, overlay: JsonObj) -> JsonObj:
    """``base`` with ``overlay`` merged in (mappings merged key by key, anything else replaced)."""
    out = dict(base)
    for key, value in overlay.items():
        old = out.get(key)
        out[key] = (
            merge_config(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
        )
    return out


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def start_mock(ctx: Ctx, server: str = "github") -> StdioConn:
    conn = await StdioConn.spawn(
        mock_argv(ctx, server), name=f"mock {server}", cwd=REPO, stderr_path=ctx.logs / "mock.log"
    )
    try:
        await conn.handshake(ctx.era, timeout=30)
    except BaseException:
        await conn.close()
        raise
    return conn


def _need_gateway(ctx: Ctx) -> list[str]:
    if ctx.gateway_cmd is None:
        raise GatewayUnavailable(ctx.gateway_problem or "gateway not configured")
    return ctx.gateway_cmd


async def start_gateway_stdio(ctx: Ctx, label: str, upstreams: JsonObj) -> StdioConn:
    cmd = _need_gateway(ctx)
    cfg = write_config(ctx, label, upstreams)
    log = ctx.logs / f"gateway-{label}.log"
    conn = await StdioConn.spawn(
        [*cmd, "run", "--config", str(cfg)], name="gateway", cwd=REPO, stderr_path=log
    )
    try:
        await conn.handshake(ctx.era, timeout=30)
        await wait_for_tools(ctx, conn, {f"{u}__echo" for u in upstreams}, timeout=30)
    except GatewayFailed:
        await close_gateway(ctx, conn)
        raise
    except RpcError as exc:
        await close_gateway(ctx, conn)
        raise GatewayFailed(f"gateway `run` failed: {exc} (log: {log})") from exc
    except BaseException:
        await close_gateway(ctx, conn)
        raise
    return conn


async def wait_for_tools(ctx: Ctx, conn: StdioConn, wanted: set[str], timeout: float) -> None:
    """List the gateway's tools until ``wanted`` are all there (upstreams may still start)."""
    deadline = time.monotonic() + timeout
    names: set[str] = set()
    while True:
        try:
            names = {str(t.get("name")) for t in await conn.list_tools(timeout=timeout)}
        except RpcError as exc:
            if exc.code != -32602 or time.monotonic() > deadline:
                raise
            warning = f"gateway rejected its own tools/list cursor while starting ({exc})"
            if warning not in ctx.warnings:
                ctx.warnings.append(warning)
            await asyncio.sleep(0.1)
            continue
        missing = sorted(wanted - names)
        if not missing:
            return
        if time.monotonic() > deadline:
            some = ", ".join(sorted(names)[:8])
            raise GatewayFailed(f"gateway lists no {missing} (it lists {len(names)}: {some})")
        await asyncio.sleep(0.2)


async def close_gateway(ctx: Ctx, conn: StdioConn) -> None:
    """Close the gateway's stdin, check it leaves none of its upstreams behind, clean up."""
    if conn.stdin is not None and not conn.stdin.is_closing():
        conn.stdin.close()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(conn.exited), 5.0)
    if not conn.exited.done():
        ctx.warnings.append("gateway (run) did not exit within 5 s of its stdin closing")
    await conn.close()
    await reap_leftovers(ctx, "gateway run")


async def close_gateways(ctx: Ctx, conns: Mapping[str, StdioConn]) -> None:
    """Close several gateways run side by side: all of them stop before leftovers are looked
    for (one's upstreams are not the other's leftovers)."""
    for gw in conns.values():
        if gw.stdin is not None and not gw.stdin.is_closing():
            gw.stdin.close()
    for gw in conns.values():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(gw.exited), 5.0)
        if not gw.exited.done():
            ctx.warnings.append("gateway (run) did not exit within 5 s of its stdin closing")
        await gw.close()
    await reap_leftovers(ctx, "gateway run")


async def reap_leftovers(ctx: Ctx, who: str, tag: str | None = None) -> None:
    """Kill (and report) any process of this run still alive after ``who`` was shut down
    (by default the upstreams a gateway spawned)."""
    left: list[int] = []
    for _ in range(30):
        left = driver.tagged_pids(tag or f"{ctx.tag}-gw")
        if not left:
            return
        await asyncio.sleep(0.1)
    ctx.warnings.append(f"{who} left {len(left)} upstream process(es) behind; killed them")
    for pid in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


async def start_gateway_http(ctx: Ctx, label: str, upstreams: JsonObj) -> HttpProc:
    cmd = _need_gateway(ctx)
    cfg = write_config(ctx, label, upstreams)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = ctx.logs / f"gateway-{label}.log"
    argv = [*cmd, "serve", "--config", str(cfg), "--port", str(port)]
    try:
        return await driver.spawn_http(argv, cwd=REPO, stderr_path=log, url=url, timeout=60)
    except RpcError as exc:
        raise GatewayFailed(f"gateway `serve` failed: {exc} (log: {log})") from exc


async def close_http(ctx: Ctx, proc: HttpProc, who: str) -> None:
    # Ask the leader alone first, so that leftovers are the gateway's own doing.
    if proc.proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.proc.wait(), 5.0)
    await proc.close()
    await reap_leftovers(ctx, who)


# --------------------------------------------------------------------------------------------
# Measurements


async def side(fn: Callable[[], Awaitable[JsonObj]]) -> JsonObj:
    """Run one side of a measurement; a failure becomes {"error": ...} instead of a crash."""
    try:
        return await fn()
    except GatewayUnavailable as exc:
        return {"error": str(exc), "not_run": True}
    except (RpcError, OSError, TimeoutError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def verdict(
    ctx: Ctx,
    measure: str,
    unit: str,
    target: str,
    sides: tuple[JsonObj, JsonObj],
    key: str,
    judge: Callable[[JsonObj, JsonObj], tuple[bool, str]],
    with_ratio: bool = True,
) -> None:
    """Append one report row: MET/MISSED as ``judge(direct, gateway)`` says (with a note), or
    ERROR / NOT RUN with the reason when a side could not be measured."""
    d, g = sides
    if "error" in d:
        ctx.failed = True
        ctx.rows.append(
            Row(measure, unit, None, g.get(key), target, "ERROR", f"direct: {d['error']}")
        )
        return
    if "error" in g:
        status = "NOT RUN" if g.get("not_run") else "ERROR"
        ctx.failed = ctx.failed or status == "ERROR"
        reason = "see the Gateway line above" if g["error"] == ctx.gateway_problem else g["error"]
        ctx.rows.append(Row(measure, unit, d[key], None, target, status, reason))
        return
    ok, note = judge(d, g)
    ratio = g[key] / d[key] if with_ratio and d[key] else None
    status = "MET" if ok else "MISSED"
    ctx.rows.append(Row(measure, unit, d[key], g[key], target, status, note, ratio))


async def measure_paced(ctx: Ctx) -> None:
    n = ctx.n(200, 50)
    block = 10
    warm = ctx.n(30, 10)
    direct: list[float] = []
    through: list[float] = []
    gw_error: JsonObj | None = None
    async with contextlib.AsyncExitStack() as stack:
        mock = await start_mock(ctx)
        stack.push_async_callback(mock.close)
        gw: StdioConn | None = None
        try:
            gw = await start_gateway_stdio(ctx, "paced", stdio_upstreams(ctx))
            stack.push_async_callback(close_gateway, ctx, gw)
            await driver.paced_calls(gw, "github__echo", warm, tag="wg")
        except GatewayUnavailable as exc:
            gw, gw_error = None, {"error": str(exc), "not_run": True}
        except RpcError as exc:
            gw, gw_error = None, {"error": f"{type(exc).__name__}: {exc}"}
        await driver.paced_calls(mock, "echo", warm, tag="wd")
        # Alternate short blocks, so that load changes and spikes hit both sides alike.
        for b in range(0, n, block):
            k = min(block, n - b)
            direct += await driver.paced_calls(mock, "echo", k, tag=f"d{b}")
            if gw is not None:
                try:
                    through += await driver.paced_calls(gw, "github__echo", k, tag=f"g{b}")
                except RpcError as exc:
                    gw, gw_error = None, {"error": f"RpcError: {exc}"}
    d = driver.summary_ms(direct)
    g = gw_error or driver.summary_ms(through)
    ctx.details["paced"] = {
        "direct": d,
        "gateway": g,
        "interval_ms": 2,
        "calls_per_side": n,
        "samples_ms": {  # in call order, for looking at outliers
            "direct": [round(x, 4) for x in direct],
            "gateway": [round(x, 4) for x in through],
        },
    }
    for q, limit in (("p50", 0.25), ("p99", 0.6)):

        def judge(d: JsonObj, g: JsonObj, q: str = q, limit: float = limit) -> tuple[bool, str]:
            overhead = g[f"{q}_ms"] - d[f"{q}_ms"]
            g[f"overhead_{q}_ms"] = overhead
            return overhead <= limit, f"overhead {overhead:+.3f} ms; {n} calls a side"

        target = f"overhead <= {limit} ms"
        verdict(ctx, f"stdio paced echo {q}", "ms", target, (d, g), f"{q}_ms", judge)


async def measure_burst(ctx: Ctx) -> None:
    rounds = ctx.n(10, 3)
    total = 500

    async def run_rounds(routes: list[tuple[StdioConn, str]], cpu_pid: int) -> JsonObj:
        cpu0 = driver.cpu_seconds(cpu_pid)
        await driver.burst(routes, total, tag="warm")
        results = [await driver.burst(routes, total, tag=f"r{r}") for r in range(rounds)]
        cpu = driver.cpu_seconds(cpu_pid) - cpu0
        rps = [r.rps for r in results]
        return {
            "cpu_us_per_call": cpu * 1e6 / ((rounds + 1) * total),
            "rounds": rounds,
            "calls_per_round": total,
            "rps_median": statistics.median(rps),
            "rps_min": min(rps),
            "rps_max": max(rps),
            "errors": sum(r.errors for r in results),
            "mismatched": sum(r.mismatched for r in results),
            "first_error": next((r.first_error for r in results if r.first_error), ""),
        }

    async def direct() -> JsonObj:
        async with contextlib.AsyncExitStack() as stack:
            conns = []
            for u in UPSTREAMS:
                c = await start_mock(ctx, u)
                stack.push_async_callback(c.close)
                conns.append(c)
            return await run_rounds([(c, "echo") for c in conns], conns[0].pid)

    async def gateway() -> JsonObj:
        gw = await start_gateway_stdio(ctx, "burst", stdio_upstreams(ctx))
        try:
            return await run_rounds([(gw, f"{u}__echo") for u in UPSTREAMS], gw.pid)
        finally:
            await close_gateway(ctx, gw)

    d = await side(direct)
    g = await side(gateway)
    ctx.details["burst"] = {"direct": d, "gateway": g}

    def judge(d: JsonObj, g: JsonObj) -> tuple[bool, str]:
        ok = g["rps_median"] >= 15_000 and g["errors"] == 0 and g["mismatched"] == 0
        note = (
            f"median of {rounds}; errors {g['errors']}, mismatched {g['mismatched']}; "
            f"gateway CPU {g['cpu_us_per_call']:.0f} us/call"
        )
        if g["first_error"]:
            note += f"; first: {g['first_error'][:120]}"
        return ok, note

    target = ">= 15,000 req/s, 0 errors, all matched"
    verdict(
        ctx, "stdio burst 500 calls / 5 upstreams", "req/s", target, (d, g), "rps_median", judge
    )


async def measure_parallel(ctx: Ctx) -> None:
    reps = ctx.n(3, 2)

    async def run(conn: StdioConn, tool: str) -> JsonObj:
        runs = [await driver.parallel_sleeps(conn, tool, 50, 100) for _ in range(reps)]
        walls = [w for w, _ in runs]
        return {
            "wall_ms_median": statistics.median(walls),
            "wall_ms_all": walls,
            "errors": sum(e for _, e in runs),
        }

    async def direct() -> JsonObj:
        mock = await start_mock(ctx)
        try:
            return await run(mock, "sleep")
        finally:
            await mock.close()

    async def gateway() -> JsonObj:
        gw = await start_gateway_stdio(ctx, "parallel", stdio_upstreams(ctx))
        try:
            return await run(gw, "github__sleep")
        finally:
            await close_gateway(ctx, gw)

    d = await side(direct)
    g = await side(gateway)
    ctx.details["parallel"] = {"direct": d, "gateway": g, "max_in_flight": MAX_IN_FLIGHT}

    def judge(d: JsonObj, g: JsonObj) -> tuple[bool, str]:
        ok = g["wall_ms_median"] <= 210 and g["errors"] == 0
        return ok, f"median of {reps}; errors {g['errors']}"

    name = f"50 parallel sleep 100 ms, max_in_flight {MAX_IN_FLIGHT}"
    verdict(ctx, name, "ms", "<= 210 ms, 0 errors", (d, g), "wall_ms_median", judge)


async def measure_blob(ctx: Ctx) -> None:
    reps = ctx.n(5, 3)

    def stats(walls: list[float]) -> JsonObj:
        return {"wall_ms_median": statistics.median(walls), "wall_ms_all": walls}

    async def direct() -> JsonObj:
        mock = await start_mock(ctx)
        try:
            return stats(await driver.blob_calls(mock, "blob", BLOB_BYTES, reps))
        finally:
            await mock.close()

    async def gateway() -> JsonObj:
        gw = await start_gateway_stdio(ctx, "blob", stdio_upstreams(ctx))
        try:
            return stats(await driver.blob_calls(gw, "github__blob", BLOB_BYTES, reps))
        finally:
            await close_gateway(ctx, gw)

    d = await side(direct)
    g = await side(gateway)
    ctx.details["blob"] = {"direct": d, "gateway": g, "bytes": BLOB_BYTES}

    def judge(d: JsonObj, g: JsonObj) -> tuple[bool, str]:
        ratio = g["wall_ms_median"] / d["wall_ms_median"]
        g["ratio"] = ratio
        note = f"{ratio:.2f}x; median of {reps}; product target <= 100 ms with redaction on"
        return ratio <= 3.0, note

    verdict(ctx, "5 MiB text result relayed", "ms", "<= 3x direct", (d, g), "wall_ms_median", judge)


async def measure_http(ctx: Ctx) -> None:
    duration = 1.0 if ctx.quick else 3.0
    clients = 8
    mock = await driver.spawn_http(
        [*mock_argv(ctx, "github"), "--http", "--port", "0"],
        cwd=REPO,
        stderr_path=ctx.logs / "mock-http.log",
    )

    async def run(url: str, tool: str, pids: dict[str, int]) -> JsonObj:
        cpu0 = {k: driver.cpu_seconds(p) for k, p in pids.items()}
        r = await driver.http_throughput(url, tool, clients, duration, era=ctx.era)
        calls = max(r.attempts, 1)
        return {
            **{
                f"{k}_cpu_us_per_call": (driver.cpu_seconds(p) - cpu0[k]) * 1e6 / calls
                for k, p in pids.items()
            },
            "rps": r.rps,
            "calls": r.calls,
            "errors": r.errors,
            "first_error": r.first_error,
            "clients": clients,
            "duration_s": duration,
            **driver.summary_ms(r.latencies_ms),
        }

    async def direct() -> JsonObj:
        return await run(mock.url, "echo", {"driver": os.getpid(), "mock": mock.pid})

    async def gateway() -> JsonObj:
        gw = await start_gateway_http(ctx, "http", {"web": {"url": mock.url}})
        try:
            pids = {"driver": os.getpid(), "mock": mock.pid, "gateway": gw.pid}
            return await run(gw.url, "web__echo", pids)
        finally:
            await close_http(ctx, gw, "gateway serve")

    try:
        d = await side(direct)
        g = await side(gateway)
    finally:
        await mock.close()
    ctx.details["http"] = {"direct": d, "gateway": g}

    def judge(d: JsonObj, g: JsonObj) -> tuple[bool, str]:
        ratio = g["rps"] / d["rps"] if d["rps"] else 0.0
        g["ratio"] = ratio
        note = (
            f"{ratio:.0%} of direct; errors {g['errors']}; {duration:.0f} s each; p50 "
            f"{d['p50_ms']:.2f} / {g['p50_ms']:.2f} ms; CPU per call: gateway "
            f"{g['gateway_cpu_us_per_call']:.0f} us, mock {d['mock_cpu_us_per_call']:.0f} us"
        )
        return ratio >= 0.60 and g["errors"] == 0, note

    name = f"HTTP {clients} concurrent sessions, throughput"
    verdict(ctx, name, "req/s", ">= 60% of direct, 0 errors", (d, g), "rps", judge)


async def measure_rss(ctx: Ctx) -> None:
    warm_calls = ctx.n(500, 200)
    calls = ctx.n(10_000, 2_000)

    async def run(conn: StdioConn, routes: list[tuple[StdioConn, str]]) -> JsonObj:
        await driver.sustained_calls(routes, warm_calls, tag="warm")
        await asyncio.sleep(0.5)
        warm, _ = driver.rss_kib(conn.pid)
        r = await driver.sustained_calls(routes, calls, tag="main")
        await asyncio.sleep(0.5)
        after, hwm = driver.rss_kib(conn.pid)
        return {
            "warm_mib": warm / MiB,
            "after_mib": after / MiB,
            "growth_mib": (after - warm) / MiB,
            "peak_mib": hwm / MiB,
            "calls": calls,
            "errors": r.errors,
            "mismatched": r.mismatched,
        }

    async def direct() -> JsonObj:
        mock = await start_mock(ctx)
        try:
            return await run(mock, [(mock, "echo")])
        finally:
            await mock.close()

    async def gateway() -> JsonObj:
        gw = await start_gateway_stdio(ctx, "rss", stdio_upstreams(ctx))
        try:
            return await run(gw, [(gw, f"{u}__echo") for u in UPSTREAMS])
        finally:
            await close_gateway(ctx, gw)

    d = await side(direct)
    g = await side(gateway)
    ctx.details["rss"] = {"direct": d, "gateway": g, "warm_calls": warm_calls, "calls": calls}

    def judge_warm(d: JsonObj, g: JsonObj) -> tuple[bool, str]:
        note = f"after {warm_calls} warm-up calls; direct = one mock upstream process"
        return g["warm_mib"] <= 60, note

    def judge_growth(d: JsonObj, g: JsonObj) -> tuple[bool, str]:
        ok = g["growth_mib"] <= 1.0 and g["errors"] == 0 and g["mismatched"] == 0
        note = (
            f"{g['warm_mib']:.1f} -> {g['after_mib']:.1f} MiB (peak {g['peak_mib']:.1f}); "
            f"errors {g['errors']}, mismatched {g['mismatched']}"
        )
        return ok, note

    verdict(ctx, "RSS, 5 upstreams warm", "MiB", "<= 60 MiB", (d, g), "warm_mib", judge_warm)
    verdict(
        ctx,
        f"RSS growth after {calls:,} calls",
        "MiB",
        "no growth (<= 1 MiB)",
        (d, g),
        "growth_mib",
        judge_growth,
        with_ratio=False,
    )


async def _http_mock(ctx: Ctx) -> HttpProc:
    return await driver.spawn_http(
        [*mock_argv(ctx, "github"), "--http", "--port", "0"],
        cwd=REPO,
        stderr_path=ctx.logs / "mock-http.log",
    )


async def measure_soak(ctx: Ctx) -> None:
    """One legacy session, sequential calls for a long while: does the gateway's memory stay
    flat? (Each answer once left a stream log behind, about 0.9 KB a call.)"""
    warm_calls = ctx.n(2_000, 500)
    calls = ctx.n(18_000, 3_000)
    mock = await _http_mock(ctx)

    async def run(url: str, tool: str, pid: int) -> JsonObj:
        conn = driver.HttpConn(url, ctx.era)
        await conn.handshake()
        errors, first_error = 0, ""

        async def sequential(tag: str, n: int) -> None:
            nonlocal errors, first_error
            for i in range(n):
                args = {"soak": tag, "seq": i}
                try:
                    result = await conn.request("tools/call", {"name": tool, "arguments": args})
                    why = "" if driver.echo_matches(result, args) else f"wrong answer {result}"
                except (RpcError, OSError, TimeoutError) as exc:
                    why = str(exc) or type(exc).__name__
                if why:
                    errors += 1
                    first_error = first_error or why[:200]

        try:
            await sequential("warm", warm_calls)
            await asyncio.sleep(0.5)
            start, _ = driver.rss_kib(pid)
            t0 = time.perf_counter()
            await sequential("main", calls)
            wall = time.perf_counter() - t0
            await asyncio.sleep(0.5)
            end, hwm = driver.rss_kib(pid)
        finally:
            await conn.close()
        return {
            "start_mib": start / MiB,
            "end_mib": end / MiB,
            "growth_mib": (end - start) / MiB,
            "peak_mib": hwm / MiB,
            "calls": calls,
            "calls_per_s": calls / wall if wall else 0.0,
            "errors": errors,
            "first_error": first_error,
        }

    async def direct() -> JsonObj:
        return await run(mock.url, "echo", mock.pid)

    async def gateway() -> JsonObj:
        gw = await start_gateway_http(ctx, "soak", {"web": {"url": mock.url}})
        try:
            return await run(gw.url, "web__echo", gw.pid)
        finally:
            await close_http(ctx, gw, "gateway serve")

    try:
        d = await side(direct)
        g = await side(gateway)
    finally:
        await mock.close()
    ctx.details["soak"] = {"direct": d, "gateway": g, "warm_calls": warm_calls, "calls": calls}

    def judge(d: JsonObj, g: JsonObj) -> tuple[bool, str]:
        note = (
            f"RSS {g['start_mib']:.1f} -> {g['end_mib']:.1f} MiB (peak {g['peak_mib']:.1f}) "
            f"after {warm_calls:,} warm-up calls; {g['calls_per_s']:,.0f} calls/s; "
            f"errors {g['errors']}; direct = the mock's own RSS"
        )
        return g["growth_mib"] < 3.0 and g["errors"] == 0, note

    verdict(
        ctx,
        f"HTTP soak, one legacy session, RSS growth over {calls:,} calls",
        "MiB",
        "< 3 MiB, 0 errors",
        (d, g),
        "growth_mib",
        judge,
        with_ratio=False,
    )


async def measure_load(ctx: Ctx) -> None:
    """Many legacy sessions calling at once: latency and errors."""
    sessions = 32
    per_session = ctx.n(300, 50)
    mock = await _http_mock(ctx)

    async def run(url: str, tool: str) -> JsonObj:
        conns = [driver.HttpConn(url, ctx.era) for _ in range(sessions)]
        latencies: list[float] = []
        errors, first_error = 0, ""

        async def worker(k: int, conn: driver.HttpConn) -> None:
            nonlocal errors, first_error
            for i in range(per_session):
                args = {"client": k, "seq": i}
                t0 = time.perf_counter()
                try:
                    result = await conn.request("tools/call", {"name": tool, "arguments": args})
                    why = "" if driver.echo_matches(result, args) else f"wrong answer {result}"
                except (RpcError, OSError, TimeoutError) as exc:
                    why = str(exc) or type(exc).__name__
                if why:
                    errors += 1
                    first_error = first_error or why[:200]
                else:
                    latencies.append((time.perf_counter() - t0) * 1000)

        try:
            await asyncio.gather(*(c.handshake() for c in conns))
            t0 = time.perf_counter()
            await asyncio.gather(*(worker(k, c) for k, c in enumerate(conns)))
            wall = time.perf_counter() - t0
        finally:
            await asyncio.gather(*(c.close() for c in conns))
        return {
            "sessions": sessions,
            "calls": sessions * per_session,
            "rps": sessions * per_session / wall if wall else 0.0,
            "errors": errors,
            "first_error": first_error,
            **driver.summary_ms(latencies),
        }

    async def direct() -> JsonObj:
        return await run(mock.url, "echo")

    async def gateway() -> JsonObj:
        gw = await start_gateway_http(ctx, "load", {"web": {"url": mock.url}})
        try:
            return await run(gw.url, "web__echo")
        finally:
            await close_http(ctx, gw, "gateway serve")

    try:
        d = await side(direct)
        g = await side(gateway)
    finally:
        await mock.close()
    ctx.details["load"] = {"direct": d, "gateway": g}

    def judge(d: JsonObj, g: JsonObj) -> tuple[bool, str]:
        note = (
            f"p50 {d['p50_ms']:.2f} / {g['p50_ms']:.2f} ms, p99 {d['p99_ms']:.2f} / "
            f"{g['p99_ms']:.2f} ms (direct / gateway); {g['rps']:,.0f} req/s; "
            f"errors {g['errors']}" + (f" ({g['first_error']})" if g["errors"] else "")
        )
        return g["errors"] == 0, note

    verdict(
        ctx,
        f"HTTP load, {sessions} sessions x {per_session} calls, p50",
        "ms",
        "0 errors",
        (d, g),
        "p50_ms",
        judge,
    )
    verdict(
        ctx,
        f"HTTP load, {sessions} sessions x {per_session} calls, p99",
        "ms",
        "0 errors",
        (d, g),
        "p99_ms",
        judge,
    )


# The loaded resilience config: every mechanism on for every upstream, and the echo tool
# marked safe to retry and to cache, so each call passes the cache (a miss: every call has
# distinct arguments), coalescing, the breaker and the retry addon.
LOADED_RESILIENCE: JsonObj = {
    "retry": {"enabled": True},
    "breaker": {"enabled": True},
    "cache": {"enabled": True},
    "tools": {"echo": {"retry": True, "cache": True}},
}


async def measure_resilience(ctx: Ctx) -> None:
    """Paced echo calls: direct, through the default config, and through the loaded resilience
    config (timeout, retries, breaker, cache and coalescing), one call on each in turn (the
    order rotated every round), in one run. Target: the loaded config adds at most 10% to the
    default config's p50 overhead."""
    n = ctx.n(400, 60)
    warm = ctx.n(30, 10)
    samples: dict[str, list[float]] = {"direct": [], "default": [], "loaded": []}
    g_error: JsonObj | None = None
    async with contextlib.AsyncExitStack() as stack:
        mock = await start_mock(ctx)
        stack.push_async_callback(mock.close)
        conns: dict[str, StdioConn] = {}
        stack.push_async_callback(close_gateways, ctx, conns)
        try:
            for label in ("default", "loaded"):
                ups = stdio_upstreams(ctx)
                if label == "loaded":
                    for u in ups.values():
                        u["timeout"] = 30
                        u["resilience"] = LOADED_RESILIENCE
                conn = await start_gateway_stdio(ctx, f"resilience-{label}", ups)
                conns[label] = conn
                await driver.paced_calls(conn, "github__echo", warm, tag=f"w{label}")
        except GatewayUnavailable as exc:
            g_error = {"error": str(exc), "not_run": True}
        except RpcError as exc:
            g_error = {"error": f"{type(exc).__name__}: {exc}"}
        await driver.paced_calls(mock, "echo", warm, tag="wd")
        # One call on each side in turn, 2 ms between rounds, the order rotated every round:
        # the sides meet the same moments of load, and each goes first (just after the pause,
        # when the machine is coldest) as often as the others.
        sides: list[tuple[str, StdioConn, str]] = [("direct", mock, "echo")]
        sides += [(label, conn, "github__echo") for label, conn in conns.items()]
        cpu0 = {label: driver.cpu_seconds(conn.pid) for label, conn in conns.items()}
        for i in range(n):
            k = i % len(sides)
            for label, conn, tool in sides[k:] + sides[:k]:
                if label != "direct" and g_error is not None:
                    continue
                try:
                    samples[label] += await driver.paced_calls(conn, tool, 1, tag=f"{label}{i}")
                except RpcError as exc:
                    if label == "direct":
                        raise
                    g_error = {"error": f"RpcError: {exc}"}
            await asyncio.sleep(0.002)
        # The gateway process's own CPU per call: what the config costs, whatever the load.
        cpu_us = {
            label: (driver.cpu_seconds(conn.pid) - cpu0[label]) * 1e6 / n
            for label, conn in conns.items()
            if g_error is None
        }
    d = driver.summary_ms(samples["direct"])
    base = driver.summary_ms(samples["default"]) if g_error is None else g_error
    loaded = driver.summary_ms(samples["loaded"]) if g_error is None else g_error
    for label, side_ in (("default", base), ("loaded", loaded)):
        if label in cpu_us:
            side_["cpu_us_per_call"] = cpu_us[label]
    ctx.details["resilience"] = {"direct": d, "default": base, "loaded": loaded, "calls": n}

    def judge(b: JsonObj, g: JsonObj) -> tuple[bool, str]:
        over_default = b["p50_ms"] - d["p50_ms"]
        over_loaded = g["p50_ms"] - d["p50_ms"]
        extra = over_loaded - over_default
        share = extra / over_default if over_default > 0 else 0.0
        g["extra_p50_ms"] = extra
        g["extra_share_of_overhead"] = share
        note = (
            f"p50 overhead over direct ({d['p50_ms']:.3f} ms): default {over_default:.3f} ms, "
            f"loaded {over_loaded:.3f} ms, extra {extra * 1000:+.0f} us ({share:+.0%}); "
            f"gateway CPU {b['cpu_us_per_call']:.0f} / {g['cpu_us_per_call']:.0f} us a call; "
            f"{n} calls a side"
        )
        return share <= 0.10, note

    verdict(
        ctx,
        "stdio paced echo p50, loaded resilience config vs default",
        "ms",
        "extra <= 10% of the default overhead",
        (base, loaded),
        "p50_ms",
        judge,
    )


async def measure_security(ctx: Ctx) -> None:
    """The cost of the protection layer on by default: the gateway as configured ("on") against
    the same gateway with redaction and validation off ("off"), in one run. Rows put "off" in
    the direct column and "on" in the gateway column."""
    on_ctx = replace(ctx, overlay=ctx.overlay)
    off_ctx = replace(ctx, overlay=merge_config(ctx.overlay, SECURITY_OFF))
    routes = lambda gw: [(gw, f"{u}__echo") for u in UPSTREAMS]  # noqa: E731
    n = ctx.n(400, 100)
    block = 10
    rounds = ctx.n(10, 3)
    res: dict[str, JsonObj] = {"on": {}, "off": {}}

    async def both() -> tuple[JsonObj, JsonObj]:
        async with contextlib.AsyncExitStack() as stack:
            gws: dict[str, StdioConn] = {}
            stack.push_async_callback(close_gateways, ctx, gws)
            for label, c in (("off", off_ctx), ("on", on_ctx)):
                gws[label] = await start_gateway_stdio(c, f"security-{label}", stdio_upstreams(ctx))
            # Paced calls, alternating short blocks so load changes hit both alike.
            lat: dict[str, list[float]] = {"on": [], "off": []}
            for label, gw in gws.items():
                await driver.paced_calls(gw, "github__echo", ctx.n(30, 10), tag=f"w{label}")
            for b in range(0, n, block):
                for label, gw in gws.items():
                    lat[label] += await driver.paced_calls(
                        gw, "github__echo", min(block, n - b), tag=f"{label}{b}"
                    )
            # Bursts, alternating rounds.
            rps: dict[str, list[float]] = {"on": [], "off": []}
            errors = {"on": 0, "off": 0}
            cpu = {"on": 0.0, "off": 0.0}
            for label, gw in gws.items():
                await driver.burst(routes(gw), 500, tag=f"warm{label}")
            for r in range(rounds):
                for label, gw in gws.items():
                    cpu0 = driver.cpu_seconds(gw.pid)
                    out = await driver.burst(routes(gw), 500, tag=f"{label}r{r}")
                    cpu[label] += driver.cpu_seconds(gw.pid) - cpu0
                    rps[label].append(out.rps)
                    errors[label] += out.errors + out.mismatched
            # Warm RSS, after the same sustained calls on each.
            for label, gw in gws.items():
                await driver.sustained_calls(routes(gw), ctx.n(500, 200), tag=f"rss{label}")
            await asyncio.sleep(0.5)
            for label, gw in gws.items():
                res[label] = {
                    **driver.summary_ms(lat[label]),
                    "rps_median": statistics.median(rps[label]),
                    "burst_errors": errors[label],
                    "cpu_us_per_call": cpu[label] * 1e6 / (rounds * 500),
                    "warm_mib": driver.rss_kib(gw.pid)[0] / MiB,
                }
        return res["off"], res["on"]

    try:
        off, on = await both()
        sides: tuple[JsonObj, JsonObj] = (off, on)
    except GatewayUnavailable as exc:
        sides = ({"p50_ms": 0.0}, {"error": str(exc), "not_run": True})
    except (RpcError, OSError, TimeoutError) as exc:
        sides = ({"p50_ms": 0.0}, {"error": f"{type(exc).__name__}: {exc}"})
    ctx.details["security"] = {"off": sides[0], "on": sides[1], "calls_per_side": n}

    def judge_paced(d: JsonObj, g: JsonObj) -> tuple[bool, str]:
        extra = g["p50_ms"] - d["p50_ms"]
        g["extra_p50_ms"] = extra
        return extra <= 0.05, f"on - off {extra:+.3f} ms; {n} calls a side; direct column = off"

    def judge_burst(d: JsonObj, g: JsonObj) -> tuple[bool, str]:
        ok = g["rps_median"] >= 0.9 * d["rps_median"] and g["burst_errors"] == 0
        note = (
            f"median of {rounds} alternating rounds; CPU {d['cpu_us_per_call']:.1f} (off) vs "
            f"{g['cpu_us_per_call']:.1f} (on) us/call; errors {g['burst_errors']}"
        )
        return ok, note

    def judge_rss(d: JsonObj, g: JsonObj) -> tuple[bool, str]:
        return g["warm_mib"] <= 60, f"on - off {g['warm_mib'] - d['warm_mib']:+.1f} MiB"

    name = "security on vs off"
    verdict(
        ctx, f"{name}: stdio paced p50", "ms", "on <= off + 0.05 ms", sides, "p50_ms", judge_paced
    )
    if "error" not in sides[1]:
        verdict(
            ctx, f"{name}: burst", "req/s", "on >= 90% of off", sides, "rps_median", judge_burst
        )
        verdict(ctx, f"{name}: warm RSS", "MiB", "on <= 60 MiB", sides, "warm_mib", judge_rss)


async def measure_restartsoak(ctx: Ctx) -> None:
    """32 sessions calling, one upstream killed every 1,000 calls (bench/restart_soak.py)."""
    from bench.restart_soak import measure

    await measure(ctx)


RUNNERS: dict[str, Callable[[Ctx], Awaitable[None]]] = {
    "paced": measure_paced,
    "burst": measure_burst,
    "parallel": measure_parallel,
    "blob": measure_blob,
    "http": measure_http,
    "rss": measure_rss,
    "soak": measure_soak,
    "load": measure_load,
    "resilience": measure_resilience,
    "security": measure_security,
    "restartsoak": measure_restartsoak,
}


# --------------------------------------------------------------------------------------------
# Gateway discovery and report


def default_gateway_cmd() -> list[str]:
    local = Path(sys.executable).parent / "manifold"
    if local.exists():
        return [str(local)]
    found = shutil.which("manifold")
    return [found] if found else [sys.executable, "-m", "manifold.cli"]


def probe_gateway(cmd: list[str]) -> str | None:
    """None if ``cmd --help`` works, else why not."""
    try:
        proc = subprocess.run(
            [*cmd, "--help"], cwd=REPO, capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`{shlex.join(cmd)} --help` failed: {exc}"
    if proc.returncode != 0:
        err = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip().splitlines()
        last = err[-1] if err else f"exit status {proc.returncode}"
        return f"gateway not runnable: `{shlex.join(cmd)} --help` -> {last}"
    return None


def _fmt(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    if unit == "req/s":
        return f"{v:,.0f}"
    if unit == "ms" and v < 10:
        return f"{v:.3f}"
    return f"{v:,.1f}"


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.stdout.decode().strip() or "unknown"


def write_report(ctx: Ctx, env: JsonObj) -> None:
    lines = [
        "# Manifold benchmark",
        "",
        f"{env['started']} · commit {env['commit']} · {env['cpus']} CPUs · Python "
        f"{env['python']} · load average {env['load_before']} before, {env['load_after']} after"
        + (" · **quick mode**" if ctx.quick else ""),
        "",
        f"Gateway: `{env['gateway']}`"
        + (f" — {ctx.gateway_problem}" if ctx.gateway_problem else ""),
        "",
        "| measure | unit | direct | gateway | gateway/direct | target | result | note |",
        "| --- | --- | ---: | ---: | ---: | --- | --- | --- |",
    ]
    for r in ctx.rows:
        note = r.note.replace("|", "/").replace("\n", " ")
        if len(note) > 300:
            note = note[:297] + "..."
        lines.append(
            f"| {r.measure} | {r.unit} | {_fmt(r.direct, r.unit)} | {_fmt(r.gateway, r.unit)} "
            f"| {'-' if r.ratio is None else f'{r.ratio:.2f}'} | {r.target} | {r.status} "
            f"| {note} |"
        )
    lines += [
        "",
        "Direct: the driver talks to the mock upstream itself. Gateway: the same calls through "
        f"`manifold run` (stdio; 5 upstreams, max_in_flight {MAX_IN_FLIGHT}, tools "
        "`<upstream>__<tool>`) or `manifold serve` (HTTP; upstream `web` = the mock over HTTP).",
        "Timings share the machine with the driver and the mocks, and with whatever else runs "
        "on it; compare figures from one run, and read the load average above as a noise hint.",
        "Throughput rows are CPU-bound when the driver, the mock and the gateway share few "
        "cores: the CPU-per-call figures (also in report.json) show where the time goes.",
    ]
    if ctx.warnings:
        lines += ["", "Warnings:", *(f"- {w}" for w in ctx.warnings)]
    (ctx.out / "report.md").write_text("\n".join(lines) + "\n")
    report = {
        "env": env,
        "rows": [asdict(r) for r in ctx.rows],
        "details": ctx.details,
        "warnings": ctx.warnings,
    }
    (ctx.out / "report.json").write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--only", default="", help=f"comma-separated subset of {','.join(MEASURES)}")
    p.add_argument("--quick", action="store_true", help="fewer iterations (a smoke test)")
    p.add_argument(
        "--gateway-cmd",
        default=None,
        help="command that starts the gateway (default: the venv's `manifold`)",
    )
    p.add_argument("--direct-only", action="store_true", help="measure the direct side only")
    p.add_argument(
        "--era",
        choices=("legacy", "modern"),
        default="legacy",
        help="downstream wire the driver speaks (legacy handshake or 2026-07-28)",
    )
    p.add_argument(
        "--security",
        choices=("default", "off"),
        default="default",
        help="off: every gateway runs with secret redaction and argument validation off",
    )
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--strict", action="store_true", help="exit 1 when a target is MISSED")
    args = p.parse_args(argv)
    only = [m.strip() for m in args.only.split(",") if m.strip()] or list(MEASURES)
    unknown = [m for m in only if m not in MEASURES]
    if unknown:
        p.error(f"unknown measure(s) {unknown}; choose from {', '.join(MEASURES)}")
    args.only = only
    return args


async def amain(args: argparse.Namespace) -> int:
    out: Path = args.out.resolve()
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    for old in logs.glob("*.log"):
        old.unlink()
    if args.direct_only:
        cmd: list[str] | None = None
        problem: str | None = "not measured (--direct-only)"
    else:
        cmd = shlex.split(args.gateway_cmd) if args.gateway_cmd else default_gateway_cmd()
        problem = probe_gateway(cmd)
        if problem:
            print(f"bench: {problem}; measuring the direct side only", file=sys.stderr)
    env = {
        "started": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "commit": git_commit(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_before": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "quick": args.quick,
        "era": args.era,
        "security": args.security,
        "gateway": shlex.join(cmd) if cmd else "-",
    }
    with tempfile.TemporaryDirectory(prefix="manifold-bench-") as tmp:
        ctx = Ctx(
            out=out,
            logs=logs,
            tmp=Path(tmp),
            tag=f"bench-{uuid.uuid4().hex[:12]}",
            quick=args.quick,
            era=args.era,
            gateway_cmd=None if problem else cmd,
            gateway_problem=problem,
            overlay=SECURITY_OFF if args.security == "off" else {},
        )
        try:
            for name in args.only:
                t0 = time.monotonic()
                print(f"bench: {name} ...", file=sys.stderr, flush=True)
                try:
                    await RUNNERS[name](ctx)
                except (RpcError, OSError, TimeoutError) as exc:
                    ctx.failed = True
                    ctx.rows.append(Row(name, "-", None, None, "-", "ERROR", f"{exc}"[:300]))
                print(f"bench: {name} done in {time.monotonic() - t0:.1f} s", file=sys.stderr)
        finally:
            await reap_leftovers(ctx, "the harness", ctx.tag)
        env["load_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
        write_report(ctx, env)
    print((out / "report.md").read_text())
    if ctx.failed or (problem and not args.direct_only):
        return 2
    if args.strict and any(r.status == "MISSED" for r in ctx.rows):
        return 1
    return 0


def run_async(main: Coroutine[Any, Any, int]) -> int:
    """Run a harness on uvloop when it is installed (as the gateway runs)."""
    loop_factory = None
    with contextlib.suppress(ImportError):
        import uvloop

        loop_factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(main)


def main(argv: list[str] | None = None) -> int:
    return run_async(amain(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
