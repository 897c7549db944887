"""Micro-benchmark for ``manifold.security.policy``: what a 20-rule policy costs per call.

Usage: ``python -m bench.policy_bench [--calls 200000] [--write bench-results/security.md]``

The policy: 20 rules of the shapes a config holds (client and tool globs, annotations, argument
conditions with every operator: equals, glob, regex, numeric range, contains). Measured per
call, in microseconds (best of five, thread CPU):

- ``decide_worst_us``: a call to a tool that every one of the 20 rules can match, none does, and
  the default decides: every rule's client glob and argument checks run (the worst case);
- ``decide_typical_us``: a call to a tool that 4 of the rules can match (the rest were set aside
  when its list arrived), decided by the third;
- ``decide_other_args_us``: the worst-case tool called with arguments none of the rules read
  (the rules' argument conditions are skipped at once: a call to a tool whose rules are about
  other arguments);
- ``decide_unlisted_us``: the same as the worst case with no per-tool rule list (a tool the
  engine has not seen listed: its rules are picked per call), to show what the list saves;
- ``chain_off_us`` / ``chain_on_us``: the worst-case call through the hook chain around an
  in-process terminal, without and with the policy addon; ``overhead_us`` is the difference.

With ``--write`` the figures replace the "Policy" section of that markdown file (created if
missing; other sections are kept).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from manifold.catalog import Route
from manifold.config import PolicyConfig
from manifold.hooks import Hooks
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security.policy import Policy, PolicyEngine

RESULT = rpc.Incoming(result=msgspec.Raw(b'{"content":[]}'))


def rules() -> list[dict[str, Any]]:
    """Twenty rules; every one can match `files/write` (no annotations: presumed destructive)."""
    out: list[dict[str, Any]] = []
    ops: list[dict[str, Any]] = [
        {"path": "path", "glob": "/etc/*"},
        {"path": "path", "regex": "^/(root|boot|sys)/"},
        {"path": "size", "min": 1_000_000},
        {"path": "content", "contains": "BEGIN PRIVATE KEY"},
        {"path": "mode", "equals": "truncate"},
    ]
    for i in range(20):
        cond = dict(ops[i % len(ops)])
        match: dict[str, Any] = {"args": [cond]}
        if i % 4 == 1:
            match["client"] = f"agent-{i}-*"
        if i % 4 == 2:
            match["annotations"] = {"destructiveHint": True}
        if i % 4 == 3:
            match["server"] = "fil*"
        if i % 5 == 4:
            match["args"].append({"path": "opts.*.name", "glob": "danger*"})
        action = ["deny", "confirm", "deny", "allow"][i % 4]
        out.append({"name": f"rule-{i}", "match": match, "action": action})
    return out


TYPICAL: list[dict[str, Any]] = [
    *({"name": f"other-{i}", "match": {"tool": f"other_{i}"}, "action": "deny"} for i in range(16)),
    {
        "name": "no-etc",
        "match": {"tool": "read", "args": [{"path": "path", "glob": "/etc/*"}]},
        "action": "deny",
    },
    {
        "name": "big",
        "match": {"tool": "read", "args": [{"path": "n", "min": 100}]},
        "action": "deny",
    },
    {"name": "ask", "match": {"tool": "read", "client": "cursor*"}, "action": "confirm"},
    {"name": "rest", "match": {"tool": "re*"}, "action": "allow"},
]
OTHER_ARGS = {"query": "weekly report", "limit": 10}
ARGS = {"path": "/home/ann/notes.txt", "content": "hello " * 20, "size": 120, "mode": "append"}


def _best(fn: Callable[[], Any], n: int) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.thread_time()
        for _ in range(n):
            fn()
        best = min(best, time.thread_time() - start)
    return best / n * 1e6


class _Sink:
    log_level = None

    def progress(self, params: dict[str, Any]) -> None: ...

    def log(self, params: dict[str, Any]) -> None: ...

    async def server_request(
        self, method: str, params: dict[str, Any], key: str | None = None
    ) -> dict[str, Any]:
        return {}


async def _terminal(ctx: CallContext) -> rpc.Incoming:
    return RESULT


def _chain_cost(addons: list[object], n: int) -> float:
    hooks = Hooks(addons)
    hooks.catalog("files", "tools", [{"name": "write"}])
    chain = hooks.call_chain(_terminal)
    params = {"name": "write", "arguments": ARGS}
    ctx = CallContext(
        "tools/call", params, Route("files", "write"), "files__write", _Sink(), None, "claude"
    )

    def once() -> None:
        coro = chain(ctx)
        try:
            coro.send(None)  # the chain never suspends here: one step runs it to the end
        except StopIteration:
            pass

    return _best(once, n)


def measure(n: int) -> dict[str, Any]:
    cfg = PolicyConfig.from_data({"rules": rules()})
    engine = PolicyEngine(cfg)
    engine.learn("files", [{"name": "write"}])
    route = Route("files", "write")
    worst = engine.decide(route, ARGS, "claude-code", "")
    assert worst.action == "allow" and worst.rule is None, worst  # every rule checked
    unlisted = PolicyEngine(cfg)
    typical = PolicyEngine(PolicyConfig.from_data({"rules": TYPICAL}))
    typical.learn("files", [{"name": "read", "annotations": {"readOnlyHint": True}}])
    t_route = Route("files", "read")
    t_args = {"path": "/home/ann/a.txt", "n": 10}
    d = typical.decide(t_route, t_args, "cursor-vscode", "")
    assert d.rule == "ask", d
    off = _chain_cost([], n)
    on = _chain_cost([Policy(cfg, None, None)], n)
    return {
        "calls": n,
        "rules": len(cfg.rules),
        "decide_worst_us": round(_best(lambda: engine.decide(route, ARGS, "claude-code"), n), 3),
        "decide_typical_us": round(
            _best(lambda: typical.decide(t_route, t_args, "cursor-vscode"), n), 3
        ),
        "decide_other_args_us": round(
            _best(lambda: engine.decide(route, OTHER_ARGS, "claude-code"), n), 3
        ),
        "decide_unlisted_us": round(
            _best(lambda: unlisted.decide(route, ARGS, "claude-code"), max(1, n // 4)), 3
        ),
        "chain_off_us": round(off, 3),
        "chain_on_us": round(on, 3),
        "overhead_us": round(on - off, 3),
    }


def write_section(path: Path, out: dict[str, Any]) -> None:
    section = (
        "## Policy\n\n"
        f"`python -m bench.policy_bench --calls {out['calls']}` (one core, in process, best of "
        "five, thread CPU; target: a 20-rule policy <= 10 us per call)\n\n"
        "| measure | us per call |\n| --- | --- |\n"
        f"| decide, worst case (all {out['rules']} rules checked, the default decides) "
        f"| {out['decide_worst_us']} |\n"
        f"| decide, typical (4 of 20 rules apply to the tool, the third decides) "
        f"| {out['decide_typical_us']} |\n"
        f"| decide, arguments none of the rules read | {out['decide_other_args_us']} |\n"
        f"| decide, tool not listed (rules picked per call) | {out['decide_unlisted_us']} |\n"
        f"| hook chain without / with the policy (worst case) "
        f"| {out['chain_off_us']} / {out['chain_on_us']} |\n"
        f"| addon overhead in the chain | {out['overhead_us']} |\n"
    )
    text = path.read_text() if path.exists() else "# Security benchmarks\n"
    pattern = re.compile(r"^## Policy\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _m: section + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.rstrip("\n") + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200_000)
    ap.add_argument("--write", type=Path, default=None)
    a = ap.parse_args()
    logging.disable(logging.WARNING)
    out = measure(a.calls)
    print(json.dumps(out))
    if a.write is not None:
        write_section(a.write, out)


if __name__ == "__main__":
    main()
