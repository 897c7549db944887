"""The stdio front end is bounded too: requests in flight are capped (one more is refused at
once, the others run on), and a client that stops reading its answers stops being read, so the
gateway's memory does not grow with what it cannot deliver; when the client reads again,
every answer arrives. Raw frames to the real `manifold run`."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

from tests.e2e.test_supervision import StdioGateway, error_of, recorder
from tests.support import MANIFOLD, stop_group, test_env, write_config

MiB = 1024 * 1024


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_requests_in_flight_are_capped(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "gw.yaml", {"rec": recorder("rec")}, stdio={"max_in_flight": 3})
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        held = [
            gw.send("tools/call", {"name": "rec__hold", "arguments": {"seconds": 30}})
            for _ in range(3)
        ]
        extra = gw.send("tools/call", {"name": "rec__echo", "arguments": {"text": "x"}})
        err = error_of(gw.wait_answer(extra, 30))
        assert err["data"] == {"reason": "busy"}
        assert "stdio.max_in_flight 3" in err["message"]
        assert not any(gw.has_answer(rid) for rid in held)  # the others run on
        for rid in held:
            gw.notify("notifications/cancelled", {"requestId": rid})
        # Once they are done, there is room again.
        deadline = time.monotonic() + 30
        while True:
            rid = gw.send("tools/call", {"name": "rec__echo", "arguments": {"text": "y"}})
            answer = gw.wait_answer(rid, 30)
            if "result" in answer or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert "result" in answer, answer


def test_a_client_that_stops_reading_is_not_buffered_without_limit(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path / "gw.yaml", {"rec": recorder("rec")}, stdio={"write_high_water": 256 * 1024}
    )
    log = tmp_path / "gw.log"
    with log.open("ab") as err:
        proc = subprocess.Popen(
            [MANIFOLD, "run", "--config", str(cfg), "--log-level", "info"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=test_env(),
            start_new_session=True,
        )
    assert proc.stdin is not None and proc.stdout is not None
    calls = 600
    text = "x" * 100_000  # each answer is about 100 KB (each one different, so none is a
    # repeat the governor would shorten): 60 MB in all
    try:
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}},
        }
        proc.stdin.write(json.dumps(init).encode() + b"\n")
        proc.stdin.flush()
        first = json.loads(proc.stdout.readline())
        assert first["id"] == 0
        base = _rss(proc.pid)
        sent = [0]

        def writer() -> None:
            assert proc.stdin is not None
            try:
                for i in range(1, calls + 1):
                    msg = {
                        "jsonrpc": "2.0",
                        "id": i,
                        "method": "tools/call",
                        "params": {"name": "rec__echo", "arguments": {"text": f"{i}:{text}"}},
                    }
                    proc.stdin.write(json.dumps(msg).encode() + b"\n")
                    proc.stdin.flush()
                    sent[0] = i
            except OSError:
                pass

        t = threading.Thread(target=writer, daemon=True)
        t.start()
        # Nobody reads stdout: the gateway stops reading stdin, so the writer blocks.
        deadline = time.monotonic() + 60
        while "stdin paused" not in log.read_text(errors="replace"):
            assert time.monotonic() < deadline, log.read_text(errors="replace")[-2000:]
            time.sleep(0.1)
        time.sleep(2)
        grown = _rss(proc.pid) - base
        assert sent[0] < calls, "the gateway kept reading while nobody read its answers"
        assert grown < 30 * MiB, f"RSS grew by {grown / MiB:.1f} MiB"
        # The client reads again: every answer arrives, in full.
        got: set[int] = set()
        while len(got) < calls:
            line = proc.stdout.readline()
            assert line, "the gateway closed stdout"
            msg = json.loads(line)
            assert len(msg["result"]["content"][0]["text"]) >= 100_000, msg.get("error")
            got.add(msg["id"])
        t.join(30)
        assert "stdin resumed" in log.read_text(errors="replace")
    finally:
        stop_group(proc)
