"""Two tenants on one `manifold serve`, each with its API key, driven by the official client
(both eras) and by raw modern frames: each lists and calls only its own tools, resources and
prompts (also through `search_tools` and `invoke_tool`), sees its own renames and description
overlays, and cannot use the other's session id or `requestState`.
"""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import types
from mcp.shared.exceptions import MCPError

from tests.e2e.test_auth import client, initialize, raw
from tests.support import gateway_http, stdio_upstream, write_config

RED, BLUE = "red-key-0123456789abcdef", "blue-key-0123456789abcdef"
GREEN = "green-key-0123456789abcdef"
MODERN = "2026-07-28"
OVERLAY = "Red team: use this for every sum."


@pytest.fixture(scope="module")
def gw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("tenants")
    cfg = write_config(
        tmp / "gw.yaml",
        {
            "alpha": stdio_upstream("basic_server.py", "--name", "alpha"),
            "beta": stdio_upstream("basic_server.py", "--name", "beta"),
            "ask": stdio_upstream("asking_server.py"),
            "ctl": stdio_upstream("control_server.py"),
        },
        auth={
            "keys": [
                {"sha256": hashlib.sha256(RED.encode()).hexdigest(), "tenant": "red"},
                {"sha256": hashlib.sha256(BLUE.encode()).hexdigest(), "tenant": "blue"},
                {"sha256": hashlib.sha256(GREEN.encode()).hexdigest(), "tenant": "green"},
            ]
        },
        tenants={
            "profiles": {
                "green": {"upstreams": ["alpha"], "prompts": {"deny": ["alpha__review"]}},
                "red": {
                    "upstreams": ["alpha", "ask", "ctl"],
                    "tools": {"deny": ["alpha__crash"]},
                    "prompts": {"allow": ["alpha__*"]},
                    "rename": {"alpha__echo": "say"},
                    "overlay": {"alpha__add": OVERLAY},
                },
                "blue": {"upstreams": ["beta"], "exposure": "hybrid"},
            }
        },
    )
    with gateway_http(cfg, tmp / "gw.log") as url:
        yield url


def _text(res: Any) -> str:
    return str(res.content[0].text)


def _all_text(res: Any) -> str:
    return "\n".join(str(getattr(c, "text", "")) for c in res.content)


async def _refused(call: Any, text: str) -> None:
    """A call the client gets an error for: a JSON-RPC error, or an error result."""
    try:
        res = await call
    except MCPError as e:
        assert text in str(e), str(e)
        return
    assert res.is_error and text in _text(res), _text(res)


@pytest.mark.parametrize("mode", ["legacy", MODERN])
@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_each_tenant_sees_and_calls_only_its_own(gw: str, mode: str) -> None:
    async with asyncio.timeout(60), client(gw, RED, mode) as red, client(gw, BLUE, mode) as blue:
        red_tools = {t.name: t for t in (await red.list_tools()).tools}
        assert "say" in red_tools and "alpha__echo" not in red_tools
        assert "alpha__crash" not in red_tools
        assert not [n for n in red_tools if n.startswith("beta__")]
        desc = red_tools["alpha__add"].description or ""
        assert desc.startswith("Add two integers.") and desc.endswith(OVERLAY)
        assert _text(await red.call_tool("say", {"text": "hi"})) == "alpha:hi"
        for name in ("beta__echo", "alpha__crash"):
            await _refused(red.call_tool(name, {"text": "x"}), f"Unknown tool: {name}")

        blue_tools = {t.name: t for t in (await blue.list_tools()).tools}
        assert "beta__echo" in blue_tools and "search_tools" in blue_tools  # hybrid: its own
        assert not [n for n in blue_tools if n.startswith(("alpha__", "ask__", "ctl__"))]
        assert "say" not in blue_tools
        assert "Red team" not in (blue_tools["beta__add"].description or "")
        await _refused(blue.call_tool("alpha__echo", {"text": "x"}), "Unknown tool: alpha__echo")
        # Another tenant's rename is not a name for this one.
        await _refused(blue.call_tool("say", {"text": "x"}), "Unknown tool: say")
        found = _text(await blue.call_tool("search_tools", {"query": "echo the text back"}))
        assert "beta" in found and "alpha" not in found
        await _refused(
            blue.call_tool(
                "invoke_tool", {"server": "alpha", "tool": "echo", "arguments": {"text": "x"}}
            ),
            "No tool 'echo' on server 'alpha'",
        )

        # Resources and templates: the other's are not listed and cannot be read.
        red_res = {str(r.uri) for r in (await red.list_resources()).resources}
        blue_res = {str(r.uri) for r in (await blue.list_resources()).resources}
        assert "alpha://greeting" in red_res and "beta://greeting" not in red_res
        assert blue_res == {"beta://greeting"}
        templates = (await blue.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["beta://item/{item_id}"]
        read = await red.read_resource("alpha://greeting")
        assert read.contents[0].text == "hello from alpha"  # type: ignore[union-attr]
        with pytest.raises(MCPError, match="Resource not found"):
            await red.read_resource("beta://greeting")
        with pytest.raises(MCPError, match="Resource not found"):
            await blue.read_resource("alpha://item/7")

        if mode == "legacy":  # subscriptions are a session's (the modern era listens instead)
            await red.subscribe_resource("alpha://greeting")
            with pytest.raises(MCPError, match="Resource not found: beta://greeting"):
                await red.subscribe_resource("beta://greeting")
            with pytest.raises(MCPError, match="Resource not found: alpha://item/3"):
                await blue.subscribe_resource("alpha://item/3")

        # Prompts.
        red_prompts = {p.name for p in (await red.list_prompts()).prompts}
        blue_prompts = {p.name for p in (await blue.list_prompts()).prompts}
        assert red_prompts == {"alpha__review"} and blue_prompts == {"beta__review"}
        got = await blue.get_prompt("beta__review", {"code": "x = 1"})
        assert "[beta]" in got.messages[0].content.text  # type: ignore[union-attr]
        with pytest.raises(MCPError, match="Unknown prompt: alpha__review"):
            await blue.get_prompt("alpha__review", {"code": "x"})


def test_another_tenants_session_id_is_not_found(gw: str) -> None:
    status, headers, _ = initialize(gw, RED)
    assert status == 200
    sid = headers["mcp-session-id"]
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "say", "arguments": {"text": "mine"}},
    }
    status, _, body = raw(
        gw, body=call, headers={"Authorization": f"Bearer {BLUE}", "Mcp-Session-Id": sid}
    )
    assert status == 404 and b"alpha:mine" not in body
    for method in ("GET", "DELETE"):
        h = {
            "Authorization": f"Bearer {BLUE}",
            "Mcp-Session-Id": sid,
            "Accept": "text/event-stream",
        }
        assert raw(gw, method, headers=h)[0] == 404
    status, _, body = raw(
        gw, body=call, headers={"Authorization": f"Bearer {RED}", "Mcp-Session-Id": sid}
    )
    assert status == 200 and b"alpha:mine" in body


def _modern_call(gw: str, key: str, tool: str, **extra: Any) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    }
    msg = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": tool, "arguments": {"question": "q"}, "_meta": meta, **extra},
    }
    headers = {
        "Authorization": f"Bearer {key}",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool,
    }
    _, _, body = raw(gw, body=msg, headers=headers)
    frame: dict[str, Any] = json.loads(body)
    return frame


@pytest.mark.parametrize(("tool", "prefix"), [("ask__ask", "mf1."), ("ctl__ask", "mf2.")])
def test_another_tenants_request_state_is_refused(gw: str, tool: str, prefix: str) -> None:
    first = _modern_call(gw, RED, tool)["result"]
    assert first["resultType"] == "input_required"
    state = first["requestState"]
    assert state.startswith(prefix)
    reply = {"role": "assistant", "content": {"type": "text", "text": "fine"}, "model": "t"}
    answers = {k: reply for k in first["inputRequests"]}
    stolen = _modern_call(gw, BLUE, tool, requestState=state, inputResponses=answers)
    assert "result" not in stolen
    assert "requestState is invalid, expired or not yours" in stolen["error"]["message"]
    done = _modern_call(gw, RED, tool, requestState=state, inputResponses=answers)
    assert done["result"]["content"][0]["text"].endswith("got: fine")


# Red and blue on one upstream whose big result is cut and kept for `read_result` (router).
_RESULT_ID = re.compile(r'read_result\(id="([^"]+)"')
_BIG_CALL = {"server": "big", "tool": "big", "arguments": {"size": 20000}}


def _cut_results_config(tmp: Path) -> Path:
    return write_config(
        tmp / "gw.yaml",
        {"big": stdio_upstream("large_server.py")},
        auth={
            "keys": [
                {"sha256": hashlib.sha256(RED.encode()).hexdigest(), "tenant": "red"},
                {"sha256": hashlib.sha256(BLUE.encode()).hexdigest(), "tenant": "blue"},
            ]
        },
        tenants={"profiles": {"red": {}, "blue": {}}},
        response={"max_tokens": 300},
        exposure={"mode": "router"},
    )


async def test_another_tenants_stored_result_cannot_be_read(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A result cut to `response.max_tokens` is kept for `read_result` under an id. Ids are
    random: one tenant must not reach another's result by guessing an id from its own."""
    tmp = tmp_path_factory.mktemp("results")
    cfg = _cut_results_config(tmp)
    with gateway_http(cfg, tmp / "gw.log") as gw:
        async with asyncio.timeout(60), client(gw, RED) as red, client(gw, BLUE) as blue:
            mine = _RESULT_ID.findall(_all_text(await red.call_tool("invoke_tool", _BIG_CALL)))
            theirs = _RESULT_ID.findall(_all_text(await blue.call_tool("invoke_tool", _BIG_CALL)))
            assert len(mine) == 1 and len(theirs) == 1
            page = {"id": mine[0], "page": 2}
            red_page = _all_text(await red.call_tool("read_result", page))
            assert len(red_page) > 100
            # Blue guesses other ids from its own: each character changed in turn.
            own = theirs[0]
            guesses = [
                own[:i] + c + own[i + 1 :] for i in range(len(own)) for c in "0123456789abcdef"
            ]
            for guess in dict.fromkeys(g for g in guesses if g != own):
                res = await blue.call_tool("read_result", {"id": guess, "page": 2})
                assert res.is_error and "No stored result" in _all_text(res), guess


async def test_a_leaked_result_id_reads_nothing_for_another_tenant(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A `read_result` id that leaks to another tenant (a log, a shared transcript) reads
    nothing: the result is bound to the principal that made it, and the other tenant gets the
    answer of an unknown id (no oracle). Its owner still reads every page."""
    tmp = tmp_path_factory.mktemp("leak")
    cfg = _cut_results_config(tmp)
    with gateway_http(cfg, tmp / "gw.log") as gw:
        async with asyncio.timeout(60), client(gw, RED) as red, client(gw, BLUE) as blue:
            mine = _RESULT_ID.findall(_all_text(await red.call_tool("invoke_tool", _BIG_CALL)))
            assert len(mine) == 1
            leaked = {"id": mine[0], "page": 2}
            res = await blue.call_tool("read_result", leaked)
            assert res.is_error
            assert _all_text(res) == f"No stored result {mine[0]!r} (it may have expired)."
            unknown = await blue.call_tool("read_result", {"id": "rnosuchresult0000", "page": 2})
            assert _all_text(unknown).replace("rnosuchresult0000", mine[0]) == _all_text(res)
            # The owner is not affected by the attempt.
            red_page = await red.call_tool("read_result", leaked)
            assert not red_page.is_error and len(_all_text(red_page)) > 100


async def test_completing_a_prompt_the_tenant_may_not_see_is_refused(gw: str) -> None:
    """Green may use alpha but not its prompt `review`: completing that prompt's arguments is
    refused like getting it (the upstream never asked), while red, who may, reaches it."""
    prompt = types.PromptReference(type="ref/prompt", name="alpha__review")
    argument = {"name": "code", "value": "x"}
    async with asyncio.timeout(60), client(gw, GREEN) as green, client(gw, RED) as red:
        assert {p.name for p in (await green.list_prompts()).prompts} == set()
        with pytest.raises(MCPError, match="Unknown prompt: alpha__review"):
            await green.complete(prompt, argument)
        try:
            await red.complete(prompt, argument)
        except MCPError as e:  # what the upstream answers; not the tenant's refusal
            assert "Unknown prompt" not in str(e)


def test_a_modern_listen_hears_only_of_the_tenants_own_resources(gw: str) -> None:
    """`subscriptions/listen` (modern, stateless) asking for one resource of its tenant and
    one of another's: the acknowledgement honours only its own (as `resources/subscribe`
    refuses the other's), so no update of the other tenant's resource ever reaches it."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    }
    wanted = {"resourceSubscriptions": ["alpha://greeting", "beta://greeting"]}
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "subscriptions/listen",
            "params": {"notifications": wanted, "_meta": meta},
        }
    ).encode()
    u = httpx2.URL(gw)
    conn = http.client.HTTPConnection(u.host, u.port, timeout=20)
    conn.request(
        "POST",
        u.raw_path.decode(),
        body=body,
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {RED}",
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": "subscriptions/listen",
        },
    )
    try:
        resp = conn.getresponse()
        assert resp.status == 200, resp.read()
        ack: dict[str, Any] = {}
        for _ in range(50):  # the first event is the acknowledgement
            line = resp.readline()
            if line.startswith(b"data:"):
                ack = json.loads(line[5:])
                break
        assert ack.get("method") == "notifications/subscriptions/acknowledged", ack
        honoured = ack["params"]["notifications"]
        assert honoured.get("resourceSubscriptions") == ["alpha://greeting"], honoured
    finally:
        conn.close()


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_a_log_message_of_no_call_reaches_only_tenants_that_may_use_its_upstream(
    tmp_path: Path,
) -> None:
    """Each upstream (tests/servers/murmur_server.py) sends a log message of no call
    (server-wide) after an `echo`: a legacy
    session of tenant red hears alpha's and not beta's, blue's the other way round."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    cfg = write_config(
        tmp_path / "gw.yaml",
        {
            "alpha": stdio_upstream("murmur_server.py", "--name", "alpha"),
            "beta": stdio_upstream("murmur_server.py", "--name", "beta"),
        },
        auth={
            "keys": [
                {"sha256": hashlib.sha256(RED.encode()).hexdigest(), "tenant": "red"},
                {"sha256": hashlib.sha256(BLUE.encode()).hexdigest(), "tenant": "blue"},
            ]
        },
        tenants={"profiles": {"red": {"upstreams": ["alpha"]}, "blue": {"upstreams": ["beta"]}}},
    )
    heard: dict[str, list[str]] = {"red": [], "blue": []}

    def connect(url: str, key: str, who: str) -> Client:
        async def on_log(params: Any) -> None:
            heard[who].append(str(params.data))

        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30)
        transport = streamable_http_client(url, http_client=http)
        return Client(
            transport, mode="legacy", cache=None, logging_callback=on_log, log_level="debug"
        )

    async def until(cond: Any) -> None:
        async with asyncio.timeout(15):
            while not cond():  # noqa: ASYNC110
                await asyncio.sleep(0.05)

    with gateway_http(cfg, tmp_path / "gw.log") as url:
        async with connect(url, RED, "red") as red, connect(url, BLUE, "blue") as blue:
            await red.set_logging_level("debug")
            await blue.set_logging_level("debug")
            await red.call_tool("alpha__echo", {"text": "r"})
            await blue.call_tool("beta__echo", {"text": "b"})
            await until(lambda: "alpha murmurs r" in heard["red"])
            await until(lambda: "beta murmurs b" in heard["blue"])
            await asyncio.sleep(0.5)
    assert not any("beta" in m for m in heard["red"]), heard
    assert not any("alpha" in m for m in heard["blue"]), heard
