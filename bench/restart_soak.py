"""The restart soak (`python -m bench.run --only restartsoak`): 10,000 calls over 32 legacy HTTP
sessions through `manifold serve`, half to an upstream that stays (`steady`) and half to one that
is killed (SIGKILL of its process) every 1,000 calls (`flappy`), which the gateway restarts.

What it checks: no request is lost (every one gets an answer: a result, or for `flappy` while it
is down a clear -32001 `upstream_unavailable` error; never a timeout, a dropped connection or a
wrong answer), `steady` sees no error at all, `flappy` comes back after each kill, and the
gateway's RSS stays flat. Writes the RSS curve (one point per 1,000 calls) to
`bench-results/restart-soak.md` and adds rows to the main report.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from typing import TYPE_CHECKING, Any

from bench import driver
from bench.driver import RpcError

if TYPE_CHECKING:
    from bench.run import Ctx

SESSIONS = 32
EVERY = 1_000
MiB = 1024.0


async def measure(ctx: Ctx) -> None:
    from bench.run import (
        REPO,
        GatewayFailed,
        GatewayUnavailable,
        Row,
        close_http,
        mock_argv,
        start_gateway_http,
    )

    total = ctx.n(10_000, 2_000)
    flappy_tag = f"{ctx.tag}-gw-flappy"

    def stdio(server: str, owner: str, **extra: Any) -> dict[str, Any]:
        argv = mock_argv(ctx, server, owner=owner)
        return {"command": argv[0], "args": argv[1:], "cwd": str(REPO), **extra}

    upstreams = {
        "steady": stdio("github", "gw"),
        # Back soon after each kill: a short backoff that resets after half a second up.
        "flappy": stdio(
            "jira",
            "gw-flappy",
            restart_backoff_initial=0.1,
            restart_backoff_max=1.0,
            restart_reset_after=0.5,
        ),
    }
    try:
        gw = await start_gateway_http(ctx, "restartsoak", upstreams)
    except GatewayUnavailable as exc:
        ctx.rows.append(Row("restart soak", "-", None, None, "-", "NOT RUN", str(exc)))
        return
    except (GatewayFailed, RpcError, OSError, TimeoutError) as exc:
        ctx.failed = True
        ctx.rows.append(Row("restart soak", "-", None, None, "-", "ERROR", str(exc)[:300]))
        return

    conns = [driver.HttpConn(gw.url, "legacy") for _ in range(SESSIONS)]
    counts = {"ok": 0, "refused": 0, "lost": 0, "steady_errors": 0, "wrong": 0}
    first_problem = ""
    curve: list[dict[str, Any]] = []
    kills = 0
    next_i = 0
    t_start = 0.0

    def sample(done: int) -> None:
        rss, hwm = driver.rss_kib(gw.pid)
        curve.append(
            {
                "calls": done,
                "rss_mib": rss / MiB,
                "peak_mib": hwm / MiB,
                "kills": kills,
                "refused": counts["refused"],
                "lost": counts["lost"],
                "s": time.perf_counter() - t_start,
            }
        )

    probe = driver.HttpConn(gw.url, "legacy")

    async def kill_flappy() -> None:
        """Wait (bounded) until flappy answers again after the last kill, then kill it again;
        the sessions wait meanwhile, so it restarts once per 1,000 calls however long that
        takes. (The probe's calls are not counted.)"""
        nonlocal kills
        deadline = time.monotonic() + 30
        while True:
            try:
                await probe.request("tools/call", _echo("flappy", -1), timeout=10)
                break
            except RpcError:
                if time.monotonic() > deadline:
                    raise TimeoutError("flappy did not come back within 30 s") from None
                await asyncio.sleep(0.05)
        pids = driver.tagged_pids(flappy_tag)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        kills += 1 if pids else 0

    async def one(conn: driver.HttpConn, i: int) -> None:
        nonlocal first_problem
        up = "steady" if i % 2 == 0 else "flappy"
        args = {"soak": "restart", "i": i}
        problem = ""
        try:
            result = await conn.request(
                "tools/call", {"name": f"{up}__echo", "arguments": args}, timeout=30
            )
            if driver.echo_matches(result, args):
                counts["ok"] += 1
            else:
                counts["wrong"] += 1
                problem = f"wrong answer {str(result)[:150]}"
        except RpcError as exc:
            reason = exc.data.get("reason") if isinstance(exc.data, dict) else None
            if exc.code is None:  # no answer at all: a timeout or a dropped connection
                counts["lost"] += 1
                problem = str(exc)
            elif up == "flappy" and exc.code == -32001 and reason == "upstream_unavailable":
                counts["refused"] += 1  # answered: down while it restarts
            else:
                counts["steady_errors" if up == "steady" else "wrong"] += 1
                problem = str(exc)
        except (OSError, TimeoutError) as exc:
            counts["lost"] += 1
            problem = f"{type(exc).__name__}: {exc}"
        if problem and not first_problem:
            first_problem = f"{up} call {i}: {problem}"[:300]

    gate = asyncio.Event()
    gate.set()

    async def worker(conn: driver.HttpConn) -> None:
        nonlocal next_i
        while next_i < total:
            await gate.wait()
            i = next_i
            next_i += 1
            if i and i % EVERY == 0:
                gate.clear()
                try:
                    sample(i)
                    await kill_flappy()
                finally:
                    gate.set()
            await one(conn, i)

    try:
        await asyncio.gather(*(c.handshake() for c in [*conns, probe]))
        # Warm-up: every session, both upstreams.
        await asyncio.gather(
            *(c.request("tools/call", _echo("steady", k)) for k, c in enumerate(conns))
        )
        await asyncio.gather(
            *(c.request("tools/call", _echo("flappy", k)) for k, c in enumerate(conns))
        )
        await asyncio.sleep(0.5)
        t_start = time.perf_counter()
        sample(0)
        await asyncio.gather(*(worker(c) for c in conns))
        wall = time.perf_counter() - t_start
        # flappy is back after the last kill.
        recovered = False
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not recovered:
            try:
                await conns[0].request("tools/call", _echo("flappy", 0), timeout=10)
                recovered = True
            except RpcError:
                await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
        sample(total)
    except (RpcError, OSError, TimeoutError) as exc:
        ctx.failed = True
        ctx.rows.append(Row("restart soak", "-", None, None, "-", "ERROR", str(exc)[:300]))
        return
    finally:
        await asyncio.gather(*(c.close() for c in [*conns, probe]))
        await close_http(ctx, gw, "gateway serve (restart soak)")

    answered = counts["ok"] + counts["refused"]
    growth = curve[-1]["rss_mib"] - curve[0]["rss_mib"]
    ok_lost = counts["lost"] == 0 and counts["wrong"] == 0 and counts["steady_errors"] == 0
    note = (
        f"{total:,} calls, {SESSIONS} sessions, flappy killed {kills} times; answered "
        f"{answered:,} ({counts['ok']:,} results, {counts['refused']:,} upstream_unavailable "
        f"while flappy was down); steady errors {counts['steady_errors']}; wrong "
        f"{counts['wrong']}; recovered {'yes' if recovered else 'NO'}; "
        f"{total / wall:,.0f} calls/s"
        + (f"; first problem: {first_problem}" if first_problem else "")
    )
    ctx.rows.append(
        Row(
            "restart soak: lost requests",
            "calls",
            None,
            float(counts["lost"]),
            "0 lost, 0 steady errors",
            "MET" if ok_lost and recovered else "MISSED",
            note,
        )
    )
    rss_note = (
        f"{curve[0]['rss_mib']:.1f} -> {curve[-1]['rss_mib']:.1f} MiB "
        f"(peak {max(p['peak_mib'] for p in curve):.1f}); curve in restart-soak.md"
    )
    ctx.rows.append(
        Row(
            f"restart soak: RSS growth over {total:,} calls",
            "MiB",
            None,
            growth,
            "flat (< 3 MiB)",
            "MET" if growth < 3.0 else "MISSED",
            rss_note,
        )
    )
    ctx.details["restartsoak"] = {
        "counts": counts,
        "kills": kills,
        "recovered": recovered,
        "curve": curve,
        "first_problem": first_problem,
    }
    lines = [
        "# Restart soak",
        "",
        f"`python -m bench.run --only restartsoak`{' --quick' if ctx.quick else ''}: "
        f"{total:,} `tools/call` over {SESSIONS} legacy HTTP sessions through `manifold serve`, "
        "alternating between `steady` (a stdio mock that stays up) and `flappy` (a stdio mock "
        f"killed with SIGKILL every {EVERY:,} calls and restarted by the gateway).",
        "",
        f"- lost requests (no answer, dropped connection, wrong answer): "
        f"**{counts['lost'] + counts['wrong']}**",
        f"- errors on `steady`: **{counts['steady_errors']}**",
        f"- results: {counts['ok']:,}; `upstream_unavailable` answers while `flappy` was down: "
        f"{counts['refused']:,}; `flappy` killed {kills} times, back after the last: "
        f"{'yes' if recovered else 'NO'}",
        f"- gateway RSS: {curve[0]['rss_mib']:.1f} MiB after warm-up, "
        f"{curve[-1]['rss_mib']:.1f} MiB at the end (growth {growth:+.2f} MiB); "
        f"{total / wall:,.0f} calls/s",
        "",
        "| calls | RSS (MiB) | peak (MiB) | flappy kills | unavailable answers | lost | s |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {p['calls']:,} | {p['rss_mib']:.1f} | {p['peak_mib']:.1f} | {p['kills']} "
        f"| {p['refused']} | {p['lost']} | {p['s']:.1f} |"
        for p in curve
    ]
    (ctx.out / "restart-soak.md").write_text("\n".join(lines) + "\n")


def _echo(up: str, k: int) -> dict[str, Any]:
    return {"name": f"{up}__echo", "arguments": {"soak": "warm", "k": k}}
