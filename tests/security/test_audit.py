"""The audit log's chain and its verification: a real writer thread appends to a real file; any
edit, deletion, insertion or reordering is named by `verify` at the first line it breaks, a
restart continues the chain, and a full queue drops (and counts) instead of blocking."""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest

from manifold.catalog import Route
from manifold.config import ConfigError
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security.audit import GENESIS, Audit, AuditLog, _digest, seal, tail, verify


def _entry(i: int) -> dict[str, Any]:
    return {"event": "call", "ts": 1_700_000_000.0 + i, "target": f"t{i}", "outcome": "ok"}


def _write(path: Path, n: int, start: int = 0) -> None:
    log = AuditLog(path, 100)
    for i in range(start, start + n):
        log.put(_entry(i))
    log.close()


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


@pytest.fixture
def five(tmp_path: Path) -> Path:
    path = tmp_path / "audit.jsonl"
    _write(path, 5)
    return path


def test_an_untouched_log_verifies(five: Path) -> None:
    v = verify(five)
    assert v.ok and v.entries == 5
    lines = [json.loads(line) for line in _lines(five)]
    assert [e["seq"] for e in lines] == [1, 2, 3, 4, 5]
    assert lines[0]["prev"] == GENESIS
    assert all(b["prev"] == a["hash"] for a, b in itertools.pairwise(lines))
    assert v.last_hash == lines[-1]["hash"]
    assert lines[0]["ts"].startswith("2023-11-14T22:13:20.000")


def test_editing_one_byte_names_that_line(five: Path) -> None:
    lines = _lines(five)
    lines[2] = lines[2].replace(b'"t2"', b'"t9"')
    five.write_bytes(b"".join(lines))
    v = verify(five)
    assert (v.bad_line, v.entries) == (3, 2)
    assert "hash" in v.reason


def test_editing_a_line_and_its_hash_breaks_the_next_link(five: Path) -> None:
    lines = _lines(five)
    e = orjson.loads(lines[1])
    e["outcome"] = "error"
    e.pop("hash")
    forged, _ = seal(e, e["prev"])
    lines[1] = forged
    five.write_bytes(b"".join(lines))
    assert verify(five).bad_line == 3


@pytest.mark.parametrize(("gone", "bad"), [(0, 1), (2, 3)])
def test_a_deleted_line_is_named(five: Path, gone: int, bad: int) -> None:
    lines = _lines(five)
    del lines[gone]
    five.write_bytes(b"".join(lines))
    assert verify(five).bad_line == bad


def test_an_inserted_line_is_named(five: Path) -> None:
    lines = _lines(five)
    lines.insert(2, lines[1])  # a copy of a genuine line
    five.write_bytes(b"".join(lines))
    assert verify(five).bad_line == 3


def test_reordered_lines_are_named(five: Path) -> None:
    lines = _lines(five)
    lines[1], lines[3] = lines[3], lines[1]
    five.write_bytes(b"".join(lines))
    assert verify(five).bad_line == 2


def test_a_truncated_last_line_is_named(five: Path) -> None:
    data = five.read_bytes()
    five.write_bytes(data[:-20])
    v = verify(five)
    assert (v.bad_line, v.entries) == (5, 4)
    assert "truncated" in v.reason


def test_a_restart_continues_the_chain(five: Path) -> None:
    _write(five, 3, start=5)
    v = verify(five)
    assert v.ok and v.entries == 8
    assert [json.loads(line)["seq"] for line in _lines(five)] == list(range(1, 9))


def test_a_restart_after_a_cut_line_continues_after_it(five: Path) -> None:
    """A crash mid-write: the fragment stays visible (verify names it); new entries are lines
    of their own, chained to the last whole entry."""
    whole = _lines(five)
    five.write_bytes(b"".join(whole[:4]) + whole[4][:30])
    assert tail(five) == (json.loads(whole[3])["hash"], 4, True)
    _write(five, 2, start=5)
    lines = _lines(five)
    assert len(lines) == 7 and lines[4] == whole[4][:30] + b"\n"
    assert json.loads(lines[5])["prev"] == json.loads(whole[3])["hash"]
    assert verify(five).bad_line == 5
    _write(five, 1, start=7)  # and a second restart finds the chain past the fragment
    assert json.loads(_lines(five)[-1])["prev"] == json.loads(lines[6])["hash"]


def test_a_file_that_is_not_an_audit_log_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("dear diary\n")
    with pytest.raises(ConfigError, match=r"security\.audit\.path"):
        AuditLog(path, 10)


def test_a_full_queue_drops_and_counts_instead_of_blocking(tmp_path: Path) -> None:
    gate = threading.Event()
    entered = threading.Event()

    class Slow(AuditLog):
        def _write(self, batch: list[dict[str, Any]]) -> None:
            if batch:
                entered.set()
                assert gate.wait(10)
            super()._write(batch)

    path = tmp_path / "audit.jsonl"
    log = Slow(path, 3)
    log.put(_entry(0))
    assert entered.wait(10)  # the writer holds entry 0 and waits: the queue is empty again
    for i in range(1, 10):
        log.put(_entry(i))  # 3 fit, 6 are dropped; none of these calls waits
    assert log.dropped == 6
    gate.set()
    log.close()
    entries = [json.loads(line) for line in _lines(path)]
    assert [e.get("target") for e in entries] == ["t0", None, "t1", "t2", "t3"]
    assert entries[1]["event"] == "dropped" and entries[1]["count"] == 6
    assert verify(path).ok


class _Sink:
    pass


def _ctx(args: dict[str, Any]) -> CallContext:
    return CallContext(
        "tools/call",
        {"name": "echo", "arguments": args},
        Route("up", "echo"),
        "up__echo",
        _Sink(),
        None,
        "client-x",  # type: ignore[arg-type]
    )


async def _call(tmp_path: Path, result: bytes | rpc.RpcError) -> dict[str, Any]:
    path = tmp_path / "a.jsonl"
    audit = Audit(AuditLog(path, 10))

    async def terminal(ctx: CallContext) -> rpc.Incoming:
        if isinstance(result, rpc.RpcError):
            raise result
        return rpc.Incoming(result=msgspec.Raw(result))

    try:
        await audit.call(_ctx({"text": "s3cr3t-value"}), terminal)
    except rpc.RpcError:
        pass
    audit.close()
    assert b"s3cr3t-value" not in path.read_bytes()
    assert verify(path).ok
    return dict(json.loads(_lines(path)[-1]))


async def test_an_is_error_result_and_a_refusal_name_their_outcome(tmp_path: Path) -> None:
    ok = await _call(tmp_path, b'{"content":[{"type":"text","text":"{\\"isError\\": true}"}]}')
    assert ok["outcome"] == "ok" and ok["arg_keys"] == ["text"]
    assert ok["client"] == "client-x" and ok["target"] == "up__echo" and ok["upstream"] == "up"
    bad = await _call(
        tmp_path,
        b'{"content":[],"isError" : true,"_meta":{"manifold/mechanism":"guard"}}',
    )
    assert (bad["outcome"], bad["mechanism"]) == ("tool_error", "guard")
    refused = await _call(tmp_path, rpc.RpcError(-32602, "no", {"mechanism": "validation"}))
    assert (refused["outcome"], refused["code"], refused["mechanism"]) == (
        "error",
        -32602,
        "validation",
    )
    assert ok["arg_digest"] == bad["arg_digest"] == refused["arg_digest"]


def test_one_file_one_gateway_and_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    first = AuditLog(path, 10)
    try:
        assert path.stat().st_mode & 0o777 == 0o600
        with pytest.raises(ConfigError, match="in use by another manifold process"):
            AuditLog(path, 10)
    finally:
        first.close()
    AuditLog(path, 10).close()  # free again once the first one closed


def test_an_unopenable_path_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "dir.jsonl").mkdir()
    with pytest.raises(ConfigError, match=r"security\.audit\.path: cannot open"):
        AuditLog(tmp_path / "dir.jsonl", 10)


def test_arguments_too_deep_for_the_encoder_still_get_a_digest() -> None:
    deep: Any = "x"
    for _ in range(400):
        deep = [deep]
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(deep)
    digest = _digest({"a": deep})
    assert digest is not None and len(digest) == 64
    assert digest != _digest({"a": [deep]})
