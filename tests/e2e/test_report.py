"""Report honesty, end to end: `manifold report --json` against an independent count.

The same work is done twice through the real `manifold run`, driven by the official `mcp`
client, and this test reads every JSON-RPC line the client receives (the stdio transport's
line parser is wrapped) and counts it itself, chars/4 a line:

- governed: `exposure: router`, a response limit, a state file. tools/list, search_tools,
  list_servers, invoke_tool of a small and (twice) a large result, read_result of a page.
- native: `exposure: passthrough`, no limits, no dedup, no state. tools/list (every page)
  and the same tools called directly.

Then the gateway is stopped, `manifold report --json` rebuilds the figures from the state file,
and its `before` must agree within 1% with the native count (search_tools, list_servers and
read_result have no native cost), its `after` with what the governed run returned, each part
with its own share of the traffic, and the parts must sum to the total.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp.client.stdio
import pytest
from mcp import Client, StdioServerParameters, types

from manifold.economy import tokens
from tests import support
from tests.support import MANIFOLD, gateway_http, stdio_upstream, write_config

pytestmark = pytest.mark.timeout(180)
MODERN = "2026-07-28"
# A large result: ~40 KB of text (the echo tool also returns it as structured content).
BIG = " ".join(f"item{i}:value" for i in range(3200))
MAX_TOKENS = 800


def est(line: str) -> int:
    return (len(line) + 3) // 4


@dataclass
class Seen:
    """The responses one run's client received, counted per kind."""

    lines: list[str] = field(default_factory=list)

    def exact_total(self) -> int:
        """Exact tokens of the tools/list and tools/call responses."""
        total = 0
        for line in self.lines:
            res = json.loads(line).get("result")
            if isinstance(res, dict) and ("tools" in res or "content" in res):
                total += tokens.exact(line) or 0
        return total

    def structured(self) -> int:
        """Tokens of the structuredContent the tools/call answers carried (chars/4)."""
        total = 0
        for line in self.lines:
            res = json.loads(line).get("result")
            if isinstance(res, dict) and "structuredContent" in res:
                sc = json.dumps(res["structuredContent"], separators=(",", ":"))
                total += est(',"structuredContent":' + sc)
        return total

    def tally(self) -> dict[str, int]:
        out = {"list": 0, "call": 0, "lists": 0, "calls": 0}
        for line in self.lines:
            msg = json.loads(line)
            res = msg.get("result")
            if not isinstance(res, dict):
                continue
            if "tools" in res:
                out["list"] += est(line)
                out["lists"] += 1
            elif "content" in res:
                out["call"] += est(line)
                out["calls"] += 1
        return out


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Seen]]:
    """Every line the stdio client parses goes to the last Seen in the list."""
    runs: list[Seen] = []
    parse = mcp.client.stdio._parse_line

    def recording(line: str) -> Any:
        if runs:
            runs[-1].lines.append(line)
        return parse(line)

    monkeypatch.setattr(mcp.client.stdio, "_parse_line", recording)
    yield runs


def client(config: Path, mode: str) -> Client:
    server = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(config)], env=support.test_env()
    )
    return Client(server, mode=mode, cache=None)


async def walk(c: Client) -> list[types.ListToolsResult]:
    """Every page of tools/list, as a client that wants all tools reads them."""
    pages: list[types.ListToolsResult] = []
    cursor = None
    for _ in range(20):
        pages.append(await c.list_tools(cursor=cursor))
        cursor = pages[-1].next_cursor
        if cursor is None:
            return pages
    raise AssertionError("tools/list never ended")


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def report(*args: str) -> dict[str, Any]:
    proc = subprocess.run(
        [MANIFOLD, "report", "--json", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=support.test_env(),
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    rep: dict[str, Any] = json.loads(proc.stdout)
    return rep


def close(a: int, b: int, rel: float = 0.01) -> bool:
    return abs(a - b) <= rel * max(a, b, 1)


CALLS = [
    ("add", {"a": 20, "b": 22}),
    ("echo", {"text": "short"}),
    ("echo", {"text": BIG}),
    ("echo", {"text": BIG}),  # the same large result again (dedup, where it is on)
]


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_report_agrees_with_an_independent_count(
    tmp_path: Path, seen: list[Seen], mode: str
) -> None:
    upstreams = {"alpha": stdio_upstream("basic_server.py", "--name", "alpha")}
    state = tmp_path / "state" / "savings.db"
    governed_cfg = write_config(
        tmp_path / "governed.yaml",
        upstreams,
        exposure={"mode": "router"},
        state={"path": str(state)},
        response={"max_tokens": MAX_TOKENS},
        page_size=4,  # the native list has pages (basic_server has 9 tools)
    )
    native_cfg = write_config(
        tmp_path / "native.yaml",
        upstreams,
        exposure={"mode": "passthrough"},
        state={"path": ""},
        response={"max_tokens": 0, "dedup": False},
        page_size=4,
    )

    # ---- governed run: router mode, limits, state file
    governed = Seen()
    seen.append(governed)
    read_pages = 0
    async with client(governed_cfg, mode) as c:
        names = {t.name for page in await walk(c) for t in page.tools}
        assert names == {"search_tools", "list_servers", "list_tools", "invoke_tool", "read_result"}
        found = text_of(await c.call_tool("search_tools", {"query": "echo text back"}))
        assert "alpha echo(text*)" in found, found
        assert "alpha" in text_of(await c.call_tool("list_servers", {}))
        for tool, args in CALLS:
            res = await c.call_tool(
                "invoke_tool", {"server": "alpha", "tool": tool, "arguments": args}
            )
            assert not res.is_error, text_of(res)
            m = re.search(r'read_result\(id="([^"]+)"', text_of(res))
            if m and not read_pages:
                page = await c.call_tool("read_result", {"id": m.group(1), "page": 2})
                assert not page.is_error, text_of(page)
                read_pages += 1

    # ---- native run: every tool, no limits, the same calls made directly
    native = Seen()
    seen.append(native)
    async with client(native_cfg, mode) as c:
        assert len(await walk(c)) >= 3, "the native list should take several pages"
        for tool, args in CALLS:
            res = await c.call_tool(f"alpha__{tool}", args)
            assert not res.is_error, text_of(res)
    seen.pop()

    g, n = governed.tally(), native.tally()
    # The governed run listed once (two pages of router tools): one whole native listing.
    native_listing = n["list"]
    # search_tools and list_servers: 2 calls; read_result: read_pages calls.
    assert g["calls"] == 2 + len(CALLS) + read_pages

    rep = report("--config", str(governed_cfg))
    total, parts = rep["total"], rep["mechanisms"]
    figures = (
        f"report total before={total['before']} after={total['after']}; "
        f"independent native={native_listing + n['call']} governed={g['list'] + g['call']}; "
        f"parts={parts}; within_calls={rep['within_calls']}"
    )
    print(figures)

    # The parts sum to the total.
    for k in ("events", "before", "after", "saved"):
        assert sum(p[k] for p in parts.values()) == total[k], figures
    assert total["events"] == g["lists"] + g["calls"], figures

    # What native MCP would have cost, and what the model read.
    assert close(total["before"], native_listing + n["call"]), figures
    assert close(total["after"], g["list"] + g["call"]), figures

    # Part by part: the listing, the discovery answers (no native cost), the calls.
    assert parts["router_listing"]["events"] == g["lists"]
    assert close(parts["router_listing"]["before"], native_listing), figures
    assert close(parts["router_listing"]["after"], g["list"]), figures
    assert parts["search"]["events"] == 2 and parts["search"]["before"] == 0, figures
    assert parts["calls"]["events"] == len(CALLS) + read_pages, figures
    assert close(parts["calls"]["before"], n["call"]), figures
    assert close(parts["calls"]["after"] + parts["search"]["after"], g["call"]), figures
    assert total["saved"] > 0, figures
    if rep["within_calls"]["governor"]["events"]:  # the response limit cut the large results
        # The governor never changes structuredContent (echo mirrors its text there), so both
        # runs carry the same; of everything else, more than half was saved.
        sc_native, sc_governed = native.structured(), governed.structured()
        assert close(sc_native, sc_governed), figures
        before, after = total["before"] - sc_native, total["after"] - sc_governed
        assert parts["calls"]["saved"] > 0 and after < before / 2, figures

    # Exact counts (only where tiktoken loads offline): the events the gateway sampled, counted
    # with the tokenizer, against the test's own count of the same lines.
    if tokens.exact_available():
        ex = rep["exact"]
        assert ex, f"tiktoken loads here but the gateway sampled nothing: {rep}"
        sampled = sum(e["events"] for m, e in ex.items() if m in parts)
        if sampled == total["events"]:  # every event (the tokenizer loaded before the first)
            ex_before = sum(e["exact_before"] for m, e in ex.items() if m in parts)
            ex_after = sum(e["exact_after"] for m, e in ex.items() if m in parts)
            own_before = native.exact_total()
            own_after = governed.exact_total()
            mine = f"independent native={own_before} governed={own_after}"
            print(f"exact: report before={ex_before} after={ex_after}; {mine}")
            assert close(ex_before, own_before, 0.02) and close(ex_after, own_after, 0.02)

    # The store is the only source: a second report gives the same figures; --since 1 too.
    assert report("--state", str(state))["total"] == total
    assert report("--state", str(state), "--since", "1")["total"] == total


async def test_serve_flushes_at_sigterm(tmp_path: Path) -> None:
    """`manifold serve` stopped by SIGTERM writes what it counted (the run is shorter than the
    flush interval, so this is the flush at shutdown)."""
    state = tmp_path / "state.db"
    cfg = write_config(
        tmp_path / "serve.yaml",
        {"alpha": stdio_upstream("basic_server.py", "--name", "alpha")},
        exposure={"mode": "router"},
        state={"path": str(state)},
    )
    with gateway_http(cfg, tmp_path / "gateway.log") as url:
        async with Client(url, mode="legacy", cache=None) as c:
            await c.list_tools()
            await c.call_tool("search_tools", {"query": "add two numbers"})
            res = await c.call_tool(
                "invoke_tool", {"server": "alpha", "tool": "add", "arguments": {"a": 1, "b": 2}}
            )
            assert "3" in text_of(res)
    rep = report("--state", str(state))
    events = {m: e["events"] for m, e in rep["mechanisms"].items()}
    assert events == {"router_listing": 1, "search": 1, "calls": 1}, rep
    listing = rep["mechanisms"]["router_listing"]
    assert listing["before"] > listing["after"] > 0, rep


def test_report_without_a_store(tmp_path: Path) -> None:
    """No state file yet: zeros (and a note), not an error; an empty state.path is an error."""
    rep = report("--state", str(tmp_path / "none.db"))
    assert rep["found"] is False
    assert rep["total"] == {"events": 0, "before": 0, "after": 0, "saved": 0, "percent": None}
    assert not (tmp_path / "none.db").exists()
    cfg = write_config(tmp_path / "m.yaml", {}, state={"path": ""})
    proc = subprocess.run(
        [MANIFOLD, "report", "--config", str(cfg)],
        capture_output=True,
        text=True,
        timeout=60,
        env=support.test_env(),
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode != 0 and "memory only" in proc.stderr
