"""Modern clients' input rounds, raw modern frames to `manifold run`.

Parked calls are bounded: a legacy upstream waiting on its sampling request is held open, and
with `mrtr.max_parked` such calls waiting, one more is refused with a clear error and its
upstream call ended, while the parked ones still resume.

A modern upstream's rounds are relayed, not held: the client gets the upstream's input requests
with a sealed `requestState` that only the same caller, for the same call, can use; and a
round started on one gateway process continues on another that shares `state.secret`.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_supervision import MODERN_META, StdioGateway, error_of, text_of
from tests.support import stdio_upstream, write_config


def test_one_more_parked_call_than_allowed_is_refused(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "gw.yaml",
        {"ctl": stdio_upstream("asking_server.py")},
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
            assert answer["result"]["requestState"].startswith("mf1.")  # type: ignore[index]
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
        assert text_of(gw.wait_answer(rid, timeout=60)) == "asking got: fine"


def _ask(gw: StdioGateway, caps: dict[str, object], **extra: object) -> dict[str, object]:
    params = {"name": "ctl__ask", "arguments": {"question": "q"}, "_meta": caps, **extra}
    return gw.wait_answer(gw.send("tools/call", params), timeout=60)


REPLY = {"role": "assistant", "content": {"type": "text", "text": "fine"}, "model": "t"}


def test_a_modern_upstreams_round_is_relayed_sealed_and_resumes_on_another_process(
    tmp_path: Path,
) -> None:
    config = write_config(
        tmp_path / "gw.yaml",
        {"ctl": stdio_upstream("control_server.py")},
        mrtr={"max_parked": 1},
        state={"path": "", "secret": "a shared secret of the replicas"},
    )
    caps = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}}
    with (
        StdioGateway(config, tmp_path / "a.log") as a,
        StdioGateway(config, tmp_path / "b.log") as b,
    ):
        # Three rounds at once with max_parked 1: none is held, so none is refused.
        rounds = [_ask(a, caps)["result"] for _ in range(3)]
        for rnd in rounds:
            assert rnd["resultType"] == "input_required"  # type: ignore[index]
            assert rnd["requestState"].startswith("mf2.")  # type: ignore[index]
        state = rounds[0]["requestState"]  # type: ignore[index]
        keys = list(rounds[0]["inputRequests"])  # type: ignore[index]
        answers = {k: REPLY for k in keys}
        # Edited, or used for another call: refused.
        edited = state[:-2] + ("AA" if not state.endswith("AA") else "BB")
        err = error_of(_ask(b, caps, requestState=edited, inputResponses=answers))
        assert "requestState is invalid" in err["message"]
        other = {"name": "ctl__confirm", "arguments": {"message": "m"}, "_meta": caps}
        err = error_of(
            b.wait_answer(
                b.send("tools/call", {**other, "requestState": state, "inputResponses": answers}),
                timeout=60,
            )
        )
        assert "requestState is invalid" in err["message"]
        # The same call, retried on the other process: it completes there.
        done = _ask(b, caps, requestState=state, inputResponses=answers)
        assert text_of(done).endswith("got: fine")


def test_a_round_does_not_continue_on_a_process_without_the_secret(tmp_path: Path) -> None:
    ups = {"ctl": stdio_upstream("control_server.py")}
    caps = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}}
    one = write_config(tmp_path / "one.yaml", ups, state={"path": "", "secret": "x" * 20})
    two = write_config(tmp_path / "two.yaml", ups, state={"path": "", "secret": "y" * 20})
    with StdioGateway(one, tmp_path / "a.log") as a, StdioGateway(two, tmp_path / "b.log") as b:
        rnd = _ask(a, caps)["result"]
        answers = {k: REPLY for k in rnd["inputRequests"]}  # type: ignore[index]
        err = error_of(_ask(b, caps, requestState=rnd["requestState"], inputResponses=answers))  # type: ignore[index]
        assert "requestState is invalid" in err["message"]


def test_a_call_parked_for_a_legacy_upstream_resumes_only_on_its_own_process(
    tmp_path: Path,
) -> None:
    """A legacy upstream blocked on its sampling request holds its call open on the process that
    sent it, so the parked call cannot move: the other replica (same secret) says where it is,
    and the retry on the right process still completes."""
    config = write_config(
        tmp_path / "gw.yaml",
        {"ctl": stdio_upstream("asking_server.py")},
        state={"path": "", "secret": "a shared secret of the replicas"},
    )
    caps = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}}
    with (
        StdioGateway(config, tmp_path / "a.log") as a,
        StdioGateway(config, tmp_path / "b.log") as b,
    ):
        rnd = _ask(a, caps)["result"]
        assert rnd["requestState"].startswith("mf1.")  # type: ignore[index]
        retry = {
            "requestState": rnd["requestState"],  # type: ignore[index]
            "inputResponses": {k: REPLY for k in rnd["inputRequests"]},  # type: ignore[index]
        }
        err = error_of(_ask(b, caps, **retry))
        assert err["code"] == -32602
        assert "parked on another gateway process" in err["message"]
        assert text_of(_ask(a, caps, **retry)) == "asking got: fine"
