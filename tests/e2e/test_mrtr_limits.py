"""Parked calls (MRTR) are bounded: with `mrtr.max_parked` calls waiting for their clients'
input, one more is refused with a clear error and its upstream call ended, while the parked
ones still resume. Raw modern frames to `manifold run`, the control server as the upstream."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_supervision import MODERN_META, StdioGateway, error_of, text_of
from tests.support import stdio_upstream, write_config


def test_one_more_parked_call_than_allowed_is_refused(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "gw.yaml",
        {"ctl": stdio_upstream("control_server.py")},
        mrtr={"max_parked": 2},
    )
    with StdioGateway(config, tmp_path / "gw.log") as gw:
        caps = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}}

        def ask(question: str) -> dict[str, object]:
            rid = gw.send(
                "tools/call",
                {"name": "ctl__ask", "arguments": {"question": question}, "_meta": caps},
            )
            return gw.wait_answer(rid, timeout=60)

        first, second = ask("one"), ask("two")
        for answer in (first, second):
            assert answer["result"]["resultType"] == "input_required"  # type: ignore[index]
        third = ask("three")
        err = error_of(third)
        assert "too many calls are waiting for client input" in err["message"]
        assert "max_parked 2" in err["message"]
        # The parked ones were not disturbed: the first resumes with its input.
        state = first["result"]["requestState"]  # type: ignore[index]
        keys = list(first["result"]["inputRequests"])  # type: ignore[index]
        reply = {
            "role": "assistant",
            "content": {"type": "text", "text": "fine"},
            "model": "t",
        }
        rid = gw.send(
            "tools/call",
            {
                "name": "ctl__ask",
                "arguments": {"question": "one"},
                "requestState": state,
                "inputResponses": {k: reply for k in keys},
                "_meta": caps,
            },
        )
        assert text_of(gw.wait_answer(rid, timeout=60)).endswith("got: fine")
