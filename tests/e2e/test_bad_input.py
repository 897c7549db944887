"""Bad input, end to end: raw lines to `manifold run` and raw POSTs to `manifold serve`.

Each bad message gets the JSON-RPC error the spec asks for (-32700 parse error with id null,
-32600 invalid request, -32601 unknown method, -32602 bad params or unknown tool), a message over
the 32 MiB frame limit gets "message too large", and after every one of them a normal request on
the same connection still works. A client that goes away mid-call does not disturb the others
(over HTTP the gateway logs it; over stdio the gateway exits cleanly and leaves nothing). On
stdio, nothing but JSON-RPC ever reaches stdout, even while upstreams write to stderr and put
junk on their own stdout.
"""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.test_supervision import (
    MODERN_META,
    StdioGateway,
    assert_nothing_left,
    descendants,
    error_of,
    poll,
    recorder,
    text_of,
)
from tests.support import (
    MANIFOLD,
    gateway_http,
    marked_pids,
    stdio_upstream,
    test_env,
    write_config,
)

MB = 1024 * 1024
PARSE, INVALID, NO_METHOD, BAD_PARAMS = -32700, -32600, -32601, -32602


def _config(path: Path) -> Path:
    return write_config(
        path,
        {
            "a": stdio_upstream("basic_server.py", "--name", "a"),
            "rec": recorder("rec", "--stderr-chatter"),
        },
    )


def _req(rid: Any, method: str, params: Any = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg).encode()


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def _call(rid: Any, name: Any, arguments: Any = None) -> bytes:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return _req(rid, "tools/call", params)


# (case id, raw message, expected error code, expected id in the answer)
BAD: list[tuple[str, bytes, int, Any]] = [
    ("malformed-json", b'{"jsonrpc": "2.0", "id": 1, "method": ', PARSE, None),
    ("not-json-at-all", b"hello there", PARSE, None),
    ("invalid-utf8", b'{"jsonrpc":"2.0","id":2,"method":"ping\xff\xfe"}', PARSE, None),
    ("too-deep", b"[" * 5000 + b"]" * 5000, PARSE, None),
    ("array", b'[{"jsonrpc":"2.0","id":3,"method":"ping"}]', INVALID, None),
    ("empty-array", b"[]", INVALID, None),
    ("number", b"42", INVALID, None),
    ("string", b'"ping"', INVALID, None),
    ("null", b"null", INVALID, None),
    ("empty-object", b"{}", INVALID, None),
    ("id-null", b'{"jsonrpc":"2.0","id":null,"method":"ping"}', INVALID, None),
    ("id-bool", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', INVALID, None),
    ("id-object", b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', INVALID, None),
    ("missing-jsonrpc", b'{"id":4,"method":"ping"}', INVALID, 4),
    ("wrong-jsonrpc", b'{"jsonrpc":"1.0","id":5,"method":"ping"}', INVALID, 5),
    ("method-not-string", b'{"jsonrpc":"2.0","id":6,"method":5}', INVALID, 6),
    ("params-array", b'{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}', INVALID, 7),
    ("unknown-method", _req(8, "tools/frobnicate", {}), NO_METHOD, 8),
    ("name-not-string", _call(9, 5, {}), BAD_PARAMS, 9),
    ("arguments-list", _call(10, "a__echo", ["x"]), BAD_PARAMS, 10),
    ("arguments-string", _call("s-11", "a__echo", "x"), BAD_PARAMS, "s-11"),
    ("no-name", _req(12, "tools/call", {"arguments": {}}), BAD_PARAMS, 12),
    ("no-params", _req(13, "tools/call"), BAD_PARAMS, 13),
    ("unknown-tool", _call(14, "a__no_such_tool", {}), BAD_PARAMS, 14),
    ("unknown-tool-bare", _call(15, "nothing_here", {}), BAD_PARAMS, 15),
    # Parsed (under the parser's 1,024 levels), but deeper than the gateway can write on.
    ("arguments-nested-300", _call(16, "a__echo", {"text": "x", "d": _nested(300)}), INVALID, 16),
    ("params-nested-900", _req(17, "ping", {"d": _nested(900)}), INVALID, 17),
]


def _check_error(msg: dict[str, Any], code: int, rid: Any) -> None:
    assert msg.get("jsonrpc") == "2.0", msg
    assert "result" not in msg, msg
    err = error_of(msg)
    assert err["code"] == code, msg
    assert msg["id"] == rid, msg


# --------------------------------------------------------------------------- stdio


@pytest.fixture(scope="module")
def stdio_gw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioGateway]:
    work = tmp_path_factory.mktemp("bad-stdio")
    with StdioGateway(_config(work / "gw.yaml"), work / "gw.log") as gw:
        gw.initialize()
        yield gw


def _stdio_ping_works(gw: StdioGateway) -> None:
    assert gw.call("ping", timeout=60)["result"] == {}


def _stdio_expect_error(gw: StdioGateway, line: bytes, code: int, rid: Any) -> dict[str, Any]:
    seen = len(gw.null_errors)
    gw.write(line + b"\n")
    msg = gw.wait_null_error(seen, 60) if rid is None else gw.wait_answer(rid, 60)
    _check_error(msg, code, rid)
    return msg


@pytest.mark.parametrize(("line", "code", "rid"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_stdio_bad_message(stdio_gw: StdioGateway, line: bytes, code: int, rid: Any) -> None:
    if rid is not None:
        stdio_gw.answers.pop(rid, None)  # ids repeat across cases only here
    _stdio_expect_error(stdio_gw, line, code, rid)
    _stdio_ping_works(stdio_gw)


def test_stdio_messages_that_get_no_answer(stdio_gw: StdioGateway) -> None:
    """A stray response, an unknown notification and blank lines are dropped quietly."""
    answers = len(stdio_gw.answers) + len(stdio_gw.null_errors)
    stdio_gw.write(b'{"jsonrpc":"2.0","id":"stray","result":{}}\n')
    stdio_gw.write(b'{"jsonrpc":"2.0","id":"stray-err","error":{"code":1,"message":"x"}}\n')
    stdio_gw.write(b'{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}\n')
    stdio_gw.write(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}\n')
    stdio_gw.write(b"\n   \n\t\n")
    _stdio_ping_works(stdio_gw)
    assert len(stdio_gw.answers) + len(stdio_gw.null_errors) == answers + 1


def test_stdio_ten_megabytes_valid_is_relayed(stdio_gw: StdioGateway) -> None:
    text = "x" * (10 * MB)
    for name, tag in (("a__echo", "a"), ("rec__echo", "rec")):
        rid = stdio_gw.send("tools/call", {"name": name, "arguments": {"text": text}})
        assert text_of(stdio_gw.wait_answer(rid, 120)) == f"{tag}:{text}"
        stdio_gw.answers.pop(rid)
    _stdio_ping_works(stdio_gw)


def test_stdio_ten_megabytes_of_garbage(stdio_gw: StdioGateway) -> None:
    _stdio_expect_error(stdio_gw, b"g" * (10 * MB), PARSE, None)
    _stdio_ping_works(stdio_gw)
    # Valid JSON, 10 MB, but not a request.
    _stdio_expect_error(stdio_gw, json.dumps(["y" * (10 * MB)]).encode(), INVALID, None)
    _stdio_ping_works(stdio_gw)


@pytest.mark.timeout(180)
def test_stdio_forty_megabytes_is_too_large(stdio_gw: StdioGateway) -> None:
    msg = _stdio_expect_error(stdio_gw, b"z" * (40 * MB), INVALID, None)
    assert "too large" in msg["error"]["message"]
    _stdio_ping_works(stdio_gw)
    # A valid request that is too large is refused the same way, and does not reach the upstream.
    big = _call(77, "a__echo", {"text": "w" * (40 * MB)})
    msg = _stdio_expect_error(stdio_gw, big, INVALID, None)
    assert "too large" in msg["error"]["message"]
    assert 77 not in stdio_gw.answers
    assert text_of(stdio_gw.tool("a__echo", {"text": "after"})) == "a:after"
    assert "rejected a stdin frame over" in stdio_gw.log_text()


def test_stdio_bad_input_is_logged(stdio_gw: StdioGateway) -> None:
    log = stdio_gw.log_text()
    assert "parse error on a downstream frame" in log
    assert "invalid downstream message" in log


def test_stdio_stdout_carries_only_json_rpc(stdio_gw: StdioGateway) -> None:
    """Runs last in this module: checks every line the gateway ever wrote on stdout."""
    assert text_of(stdio_gw.tool("rec__noisy", {"lines": 50})) == "noisy done"
    assert text_of(stdio_gw.tool("rec__echo", {"text": "x"})) == "rec:x"
    log = stdio_gw.log_text()
    assert "[rec stderr] rec noise 49" in log  # the upstream's stderr went to the log
    assert "upstream rec sent a frame that is not JSON-RPC" in log
    with stdio_gw.cond:
        lines = list(stdio_gw.raw)
    assert len(lines) >= 3
    for line in lines:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        msg = json.loads(line)
        assert isinstance(msg, dict) and msg.get("jsonrpc") == "2.0", line[:200]
        assert "method" in msg or ("id" in msg and ("result" in msg) != ("error" in msg)), line
        assert b"noise" not in line and b"starting" not in line


def test_stdio_client_vanishing_mid_call_ends_gateway_cleanly(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "gw.yaml", {"rec": recorder("rec")})
    others = set(marked_pids())  # this module's shared gateways
    with StdioGateway(cfg, tmp_path / "gw.log") as gw:
        gw.initialize()
        tree = descendants(gw.proc.pid)
        assert tree
        gw.send("tools/call", {"name": "rec__hold", "arguments": {"seconds": 60}})
        gw.send("tools/call", {"name": "rec__hold", "arguments": {"seconds": 60}})
        time.sleep(0.3)
        gw.close_stdin()
        assert gw.proc.wait(timeout=30) == 0, gw.log_text()[-3000:]
        assert_nothing_left(tree, ignore=others)
        assert "Traceback" not in gw.log_text()


def test_stdio_stdin_and_stdout_that_are_not_pipes(tmp_path: Path) -> None:
    """`manifold run < requests.jsonl > answers.jsonl`, and `< /dev/null`: no crash, clean exit."""
    cfg = write_config(tmp_path / "gw.yaml", {"rec": recorder("rec")})
    others = set(marked_pids())
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(_req(1, "ping") + b"\n{oops\n" + _req(2, "nope") + b"\n")
    answers = tmp_path / "answers.jsonl"
    cmd = [MANIFOLD, "run", "--config", str(cfg)]
    with requests.open("rb") as fin, answers.open("wb") as fout:
        proc = subprocess.run(
            cmd, stdin=fin, stdout=fout, stderr=subprocess.PIPE, env=test_env(), timeout=60
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = [json.loads(line) for line in answers.read_bytes().splitlines()]
    assert {"jsonrpc": "2.0", "id": 1, "result": {}} in got
    assert sorted((m["id"] is None, m.get("error", {}).get("code", 0)) for m in got) == [
        (False, NO_METHOD),
        (False, 0),
        (True, PARSE),
    ]
    proc = subprocess.run(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=test_env(),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert_nothing_left(set(), ignore=others)


# --------------------------------------------------------------------------- HTTP


class Http:
    """A raw HTTP/1.1 client on one keep-alive connection, with a legacy MCP session."""

    def __init__(self, url: str) -> None:
        u = urlsplit(url)
        assert u.hostname and u.port
        self.host, self.port, self.path = u.hostname, u.port, u.path
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        self.headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }

    def close(self) -> None:
        self.conn.close()

    def post(self, body: bytes, **headers: str) -> tuple[int, dict[str, Any] | None]:
        self.conn.request("POST", self.path, body=body, headers={**self.headers, **headers})
        resp = self.conn.getresponse()
        data = resp.read()
        if resp.getheader("Content-Type", "").startswith("text/event-stream"):
            datas = [ln[5:] for ln in data.splitlines() if ln.startswith(b"data:")]
            data = datas[-1] if datas else b""
        return resp.status, (json.loads(data) if data.strip() else None)

    def initialize(self) -> None:
        params = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "e2e", "version": "1"},
        }
        self.conn.request(
            "POST", self.path, body=_req(1, "initialize", params), headers=self.headers
        )
        resp = self.conn.getresponse()
        resp.read()
        assert resp.status == 200
        self.headers["Mcp-Session-Id"] = resp.getheader("Mcp-Session-Id") or ""
        self.headers["MCP-Protocol-Version"] = "2025-11-25"
        status, _ = self.post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        assert status == 202

    def ping_works(self) -> None:
        status, msg = self.post(_req("p", "ping"))
        assert status == 200 and msg == {"jsonrpc": "2.0", "id": "p", "result": {}}

    def tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        status, msg = self.post(_call("t", name, arguments))
        assert status == 200 and msg is not None
        return msg


@pytest.fixture(scope="module")
def http_gw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    work = tmp_path_factory.mktemp("bad-http")
    log = work / "gw.log"
    with gateway_http(_config(work / "gw.yaml"), log) as url:
        yield url, log


@pytest.fixture
def client(http_gw: tuple[str, Path]) -> Iterator[Http]:
    c = Http(http_gw[0])
    c.initialize()
    yield c
    c.close()


@pytest.mark.parametrize(("body", "code", "rid"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_http_bad_message(client: Http, body: bytes, code: int, rid: Any) -> None:
    client.ping_works()
    sock = client.conn.sock
    status, msg = client.post(body)
    assert msg is not None
    _check_error(msg, code, rid)
    if code in (PARSE, INVALID):
        assert status == 400
    else:
        assert status == 200  # a legacy-era request: the error travels in a 200
    client.ping_works()
    assert client.conn.sock is sock  # the same connection kept serving


def test_http_ten_megabytes(client: Http) -> None:
    text = "x" * (10 * MB)
    msg = client.tool("a__echo", {"text": text})
    assert text_of(msg) == f"a:{text}"
    status, err = client.post(b"g" * (10 * MB))
    assert status == 400 and err is not None
    _check_error(err, PARSE, None)
    client.ping_works()


def test_http_forty_megabytes_is_too_large(client: Http, http_gw: tuple[str, Path]) -> None:
    status, msg = client.post(b"z" * (40 * MB))
    assert status == 413 and msg is not None
    _check_error(msg, INVALID, None)
    assert "too large" in msg["error"]["message"]
    client.ping_works()
    assert text_of(client.tool("rec__echo", {"text": "after"})) == "rec:after"
    assert "rejected a 41943040-byte request body" in http_gw[1].read_text(errors="replace")


def _raw_post(port: int, body: bytes, headers: dict[str, str]) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {len(body)}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    s.sendall(head.encode() + b"\r\n" + body)
    return s


def _stats(c: Http) -> dict[str, Any]:
    return dict(json.loads(text_of(c.tool("rec__stats", {}))))


def test_http_client_vanishing_mid_call(client: Http, http_gw: tuple[str, Path]) -> None:
    log = http_gw[1]
    other = Http(http_gw[0])
    other.initialize()
    try:
        before = _stats(other)
        # Legacy era: a disconnect is not a cancel (the call runs on), and others are served.
        s = _raw_post(client.port, _call(50, "rec__hold", {"seconds": 2}), client.headers)
        time.sleep(0.5)
        s.close()
        other.ping_works()
        assert text_of(other.tool("a__echo", {"text": "hi"})) == "a:hi"
        poll(lambda: _stats(other)["current"] == 0, 30)
        assert _stats(other)["cancelled"] == before["cancelled"]
        # Modern era: closing the stream is the cancellation, and it reaches the upstream.
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "rec__hold",
        }
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 51,
                "method": "tools/call",
                "params": {"name": "rec__hold", "arguments": {"seconds": 30}, "_meta": MODERN_META},
            }
        ).encode()
        s = _raw_post(client.port, body, headers)
        time.sleep(0.5)
        s.close()
        after = poll(lambda: (st := _stats(other))["cancelled"] != before["cancelled"] and st, 15)
        assert len(after["cancelled"]) == len(before["cancelled"]) + 1
        other.ping_works()
        client.ping_works()
        text = log.read_text(errors="replace")
        assert "client went away during request 50" in text, text[-3000:]
        assert "client closed the stream of request 51" in text, text[-3000:]
        assert "Traceback" not in text, text[-3000:]
    finally:
        other.close()
