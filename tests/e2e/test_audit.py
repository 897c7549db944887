"""The audit log, end to end: `manifold run` with a real upstream and the official client; each
routed call becomes one line, in order, with who, what and the outcome but none of the
argument values; `manifold audit verify` accepts the chain, refuses it once one byte changed,
and a restarted gateway continues the chain in the same file."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.shared.exceptions import MCPError

from tests import support
from tests.support import MANIFOLD, stdio_upstream, write_config

MODERN = "2026-07-28"
SECRET = "hunter2-do-not-log"
pytestmark = pytest.mark.timeout(180)


def _params(config: Path, *extra: str) -> StdioServerParameters:
    return support.run_params(config, *extra, cwd=config.parent)  # type: ignore[no-any-return]


def _verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MANIFOLD, "audit", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=support.test_env(),
    )


def _entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_calls_are_audited_in_a_chain_that_verifies(tmp_path: Path, mode: str) -> None:
    config = write_config(
        tmp_path / "gw.yaml",
        {"basic": stdio_upstream("basic_server.py")},
        # The audit path is relative to the working directory; validation refuses a bad call.
        security={"audit": {"path": "logs/audit.jsonl"}, "validation": {"enabled": True}},
    )
    audit = tmp_path / "logs" / "audit.jsonl"

    async with Client(_params(config), mode=mode, cache=None) as c:
        ok = await c.call_tool("basic__echo", {"text": SECRET})
        assert not ok.is_error
        # Refused by argument validation before it leaves: audited with its mechanism.
        with pytest.raises(MCPError, match="validation: invalid arguments"):
            await c.call_tool("basic__add", {"a": SECRET, "b": 1})
        # Names the dispatcher does not know are refused before routing: audited as such.
        with pytest.raises(MCPError, match="Unknown prompt"):
            await c.get_prompt("basic__nope", {"x": SECRET})
        with pytest.raises(MCPError, match="Unknown tool"):
            await c.call_tool("basic__nope", {"x": SECRET})
        with pytest.raises(MCPError):  # the upstream answers with a JSON-RPC error
            await c.read_resource("basic://nothing-here")
        res = await c.read_resource("basic://item/7")
        assert res.contents

    entries = _entries(audit)
    assert b"hunter2" not in audit.read_bytes()
    assert [(e["method"], e["target"], e["outcome"], e.get("code")) for e in entries] == [
        ("tools/call", "basic__echo", "ok", None),
        ("tools/call", "basic__add", "error", -32602),
        ("prompts/get", "basic__nope", "error", -32602),
        ("tools/call", "basic__nope", "error", -32602),
        ("resources/read", "basic://nothing-here", "error", -32602),
        ("resources/read", "basic://item/7", "ok", None),
    ]
    echo, add = entries[0], entries[1]
    assert echo["upstream"] == "basic" and echo["arg_keys"] == ["text"]
    assert add["arg_keys"] == ["a", "b"] and len(add["arg_digest"]) == 64
    assert add.get("mechanism") == "validation"
    for unknown in entries[2:4]:
        assert unknown["mechanism"] == "routing" and unknown["upstream"] is None
        assert unknown["arg_keys"] == ["x"] and len(unknown["arg_digest"]) == 64
    assert echo["client"] and echo["ms"] >= 0 and echo["seq"] == 1
    assert [e["seq"] for e in entries] == list(range(1, len(entries) + 1))

    done = _verify(audit)
    assert done.returncode == 0, done.stderr
    assert f"{len(entries)} entries, chain intact" in done.stdout

    # A restart (here with the router tools) appends to the same chain; an unknown tool asked
    # of invoke_tool is a routed call of the gateway's own tool, refused with isError.
    async with Client(_params(config, "--exposure", "router"), mode=mode, cache=None) as c:
        # (invoke_tool looks a tool up without waiting for the upstreams: list first)
        assert {t.name for t in (await c.list_tools()).tools} >= {"invoke_tool"}
        unknown = await c.call_tool(
            "invoke_tool", {"server": "basic", "tool": "nope", "arguments": {"k": SECRET}}
        )
        assert unknown.is_error
        via = await c.call_tool(
            "invoke_tool", {"server": "basic", "tool": "echo", "arguments": {"text": "x"}}
        )
        assert not via.is_error
        assert isinstance(via.content[0], types.TextContent)

    after = _entries(audit)
    assert after[: len(entries)] == entries
    more = after[len(entries) :]
    assert more[0]["prev"] == entries[-1]["hash"] and more[0]["seq"] == len(entries) + 1
    assert (more[0]["target"], more[0]["upstream"], more[0]["outcome"]) == (
        "invoke_tool",
        "@manifold",
        "tool_error",
    )
    # invoke_tool's inner call passes the pipeline too: recorded before the outer one ends.
    assert [(e["target"], e["outcome"]) for e in more[1:]] == [
        ("basic echo", "ok"),
        ("invoke_tool", "ok"),
    ]
    assert b"hunter2" not in audit.read_bytes()
    assert _verify(audit).returncode == 0

    # One byte changed in the middle of the file: verify fails and names the line.
    lines = audit.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b"basic__add", b"basic__adD", 1)
    audit.write_bytes(b"".join(lines))
    failed = _verify(audit)
    assert failed.returncode == 1
    assert "line 2:" in failed.stderr and "1 entries before it verified" in failed.stderr


def test_a_file_that_is_not_an_audit_log_stops_the_start_with_a_clear_error(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("not an audit log\n")
    config = write_config(
        tmp_path / "gw.yaml",
        {"basic": stdio_upstream("basic_server.py")},
        security={"audit": {"path": str(tmp_path / "notes.txt")}},
    )
    done = subprocess.run(
        [MANIFOLD, "run", "--config", str(config)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=support.test_env(),
    )
    assert done.returncode == 2, done.stderr
    assert (
        "security.audit.path:" in done.stderr and "does not end with audit entries" in done.stderr
    )
    assert "Traceback" not in done.stderr
    assert (tmp_path / "notes.txt").read_text() == "not an audit log\n"


CI_KEY, ALICE_KEY = "ci-key-0123456789abcdef", "alice-key-0123456789abcdef"


async def test_entries_name_the_subject_within_the_tenant(tmp_path: Path) -> None:
    """Two API keys of one tenant on `manifold serve`: each entry (a routed call, and a name
    refused before routing) records the tenant as `principal` and the key's name as `subject`,
    on both eras (modern requests are stateless: the subject comes from the request), and the
    chain still verifies."""
    from tests.e2e.test_auth import client

    def key(secret: str, name: str) -> dict[str, str]:
        return {
            "sha256": hashlib.sha256(secret.encode()).hexdigest(),
            "tenant": "ops",
            "name": name,
        }

    config = write_config(
        tmp_path / "gw.yaml",
        {"basic": stdio_upstream("basic_server.py")},
        auth={"keys": [key(CI_KEY, "ci"), key(ALICE_KEY, "alice")]},
        security={"audit": {"path": str(tmp_path / "audit.jsonl")}},
    )
    with support.gateway_http(config, tmp_path / "gw.log") as url:
        for mode in ("legacy", MODERN):
            for secret in (CI_KEY, ALICE_KEY):
                async with asyncio.timeout(30), client(url, secret, mode) as c:
                    assert not (await c.call_tool("basic__echo", {"text": "x"})).is_error
                    with pytest.raises(MCPError, match="Unknown tool"):
                        await c.call_tool("basic__nope", {})
    audit = tmp_path / "audit.jsonl"
    entries = _entries(audit)  # the gateway has stopped: its writer has flushed
    seen = [(e["target"], e["principal"], e["subject"]) for e in entries]
    assert seen == 2 * [
        ("basic__echo", "ops", "ci"),
        ("basic__nope", "ops", "ci"),
        ("basic__echo", "ops", "alice"),
        ("basic__nope", "ops", "alice"),
    ], seen
    assert _verify(audit).returncode == 0
    # The subject is covered by the chain: changing it breaks the line.
    lines = audit.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"subject":"alice"', b'"subject":"ci"', 1)
    audit.write_bytes(b"".join(lines))
    failed = _verify(audit)
    assert failed.returncode == 1 and "line 3:" in failed.stderr
