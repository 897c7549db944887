"""Cross-era translation, end to end: the real `manifold` process (stdio `run` and HTTP `serve`)
driven by the official `mcp` client.

(a) A modern (2026-07-28) client uses legacy-only upstreams: server-everything over stdio, and a
    hand-written 2025-11-25 server that answers a missing resource with -32002. Plain calls,
    lists, progress; the upstream's sampling and elicitation requests must reach the modern
    client as MRTR `input_required` and the call must finish with the client's answer; -32002
    must arrive as -32602.
(b) A legacy client uses a modern upstream (the conformance fixture) whose interactive tools
    answer `input_required`: the legacy client must get real server-to-client requests (its
    callbacks run) and the call must finish with the right content.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError

from tests import support
from tests.conftest import needs_node
from tests.support import (
    EVERYTHING_JS,
    MANIFOLD,
    everything_stdio,
    gateway_http,
    stdio_upstream,
    write_config,
)

MODERN = "2026-07-28"
FRONTS = ("stdio", "http")
pytestmark = pytest.mark.timeout(240)


@contextlib.asynccontextmanager
async def gateway_client(
    front: str, config: Path, tmp_path: Path, mode: str, **kw: Any
) -> AsyncIterator[Client]:
    """An `mcp` Client on the gateway: `manifold run` over stdio, or `manifold serve` over HTTP."""
    if front == "stdio":
        server = StdioServerParameters(
            command=MANIFOLD, args=["run", "--config", str(config)], env=support.test_env()
        )
        async with Client(server, mode=mode, cache=None, **kw) as client:
            yield client
    else:
        with gateway_http(config, tmp_path / "gateway.log") as url:
            async with Client(url, mode=mode, cache=None, **kw) as client:
                yield client


async def tool_names(client: Client) -> set[str]:
    names: set[str] = set()
    cursor = None
    for _ in range(100):
        page = await client.list_tools(cursor=cursor)
        names |= {t.name for t in page.tools}
        cursor = page.next_cursor
        if cursor is None:
            return names
    raise AssertionError("tools/list never ended")


async def wait_for_tools(client: Client, *wanted: str, timeout: float = 30.0) -> set[str]:
    """All tool names, once `wanted` are listed (server-everything adds some after init)."""
    names: set[str] = set()
    try:
        async with asyncio.timeout(timeout):
            while True:
                names = await tool_names(client)
                if set(wanted) <= names:
                    return names
                await asyncio.sleep(0.2)
    except TimeoutError:
        raise AssertionError(f"tools {set(wanted) - names} never appeared; have {names}") from None


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def sampled(text: str) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=text), model="test-model"
    )


def message_text(params: types.CreateMessageRequestParams) -> str:
    return "\n".join(
        m.content.text for m in params.messages if isinstance(m.content, types.TextContent)
    )


# ------------------------------------------------------------------------------------------
# (a) modern client, legacy upstreams


def legacy_config(tmp_path: Path) -> Path:
    return write_config(
        tmp_path / "legacy-upstreams.yaml",
        {"ev": everything_stdio(), "old": stdio_upstream("legacy_server.py")},
    )


@needs_node
@pytest.mark.parametrize("front", FRONTS)
async def test_modern_client_uses_legacy_upstream(front: str, tmp_path: Path) -> None:
    async with (
        asyncio.timeout(120),
        gateway_client(front, legacy_config(tmp_path), tmp_path, MODERN) as c,
    ):
        assert c.protocol_version == MODERN

        # tools/list and tools/call, with the modern-only fields a legacy upstream lacks
        names = await wait_for_tools(c, "ev__get-sum", "ev__echo", "old__hello")
        assert {"ev__trigger-long-running-operation", "ev__get-tiny-image"} <= names
        page = await c.list_tools()
        assert page.result_type == "complete"
        assert page.ttl_ms is not None and page.cache_scope in ("public", "private")
        res = await c.call_tool("ev__get-sum", {"a": 2, "b": 3})
        assert res.result_type == "complete" and not res.is_error
        assert text_of(res) == "The sum of 2 and 3 is 5."
        res = await c.call_tool("old__hello", {})
        assert res.result_type == "complete"
        assert text_of(res) == "hello from a legacy server"

        # resources/list and resources/read (static, templated, and the raw legacy server)
        docs = sorted(p.name for p in (EVERYTHING_JS.parent / "docs").iterdir() if p.is_file())
        listed = await c.list_resources()
        uris = {str(r.uri) for r in listed.resources}
        assert {f"demo://resource/static/document/{d}" for d in docs} <= uris
        assert "old://present" in uris
        assert listed.ttl_ms is not None and listed.cache_scope in ("public", "private")
        read = await c.read_resource(f"demo://resource/static/document/{docs[0]}")
        assert read.result_type == "complete" and read.contents
        assert isinstance(read.contents[0], types.TextResourceContents)
        assert read.contents[0].text
        read = await c.read_resource("demo://resource/dynamic/text/7")
        assert isinstance(read.contents[0], types.TextResourceContents)
        assert read.contents[0].text.startswith("Resource 7: This is a plaintext resource")
        read = await c.read_resource("old://present")
        assert isinstance(read.contents[0], types.TextResourceContents)
        assert read.contents[0].text == "still here"
        templates = await c.list_resource_templates()
        assert {t.uri_template for t in templates.resource_templates} >= {
            "demo://resource/dynamic/text/{resourceId}",
            "demo://resource/dynamic/blob/{resourceId}",
        }

        # prompts/list and prompts/get
        prompts = await c.list_prompts()
        assert {p.name for p in prompts.prompts} >= {"ev__simple-prompt", "ev__args-prompt"}
        got = await c.get_prompt("ev__args-prompt", {"city": "Lisbon", "state": "Lisboa"})
        assert got.result_type == "complete"
        said = [m.content.text for m in got.messages if isinstance(m.content, types.TextContent)]
        assert any("Lisbon" in s for s in said), said

        # progress notifications from the legacy upstream reach the modern client
        seen: list[tuple[float, float | None]] = []

        async def on_progress(progress: float, total: float | None, _msg: str | None) -> None:
            seen.append((progress, total))

        res = await c.call_tool(
            "ev__trigger-long-running-operation",
            {"duration": 0.6, "steps": 3},
            progress_callback=on_progress,
        )
        assert "Long running operation completed" in text_of(res)
        assert seen == [(1, 3), (2, 3), (3, 3)]

        # a legacy -32002 "resource not found" is -32602 on the modern wire
        with pytest.raises(MCPError) as err:
            await c.read_resource("old://missing")
        assert err.value.code == types.INVALID_PARAMS, err.value
        with pytest.raises(MCPError) as err:
            await c.read_resource("demo://resource/static/document/no-such-file.md")
        assert err.value.code == types.INVALID_PARAMS, err.value


@needs_node
@pytest.mark.parametrize("front", FRONTS)
async def test_legacy_upstream_sampling_and_elicitation_become_mrtr(
    front: str, tmp_path: Path
) -> None:
    sampling_calls: list[str] = []
    elicit_calls: list[types.ElicitRequestParams] = []

    async def sampling(
        _ctx: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        sampling_calls.append(message_text(params))
        return sampled("a capybara named Ruth")

    async def elicitation(
        _ctx: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        elicit_calls.append(params)
        return types.ElicitResult(
            action="accept", content={"name": "Ada Lovelace", "check": True, "integer": 7}
        )

    async with (
        asyncio.timeout(120),
        gateway_client(
            front,
            legacy_config(tmp_path),
            tmp_path,
            MODERN,
            sampling_callback=sampling,
            elicitation_callback=elicitation,
        ) as c,
    ):
        await wait_for_tools(c, "ev__trigger-sampling-request", "ev__trigger-elicitation-request")

        # On the wire: the first answer is `input_required` carrying the upstream's request.
        first = await c.session.call_tool(
            "ev__trigger-sampling-request",
            {"prompt": "name an animal", "maxTokens": 20},
            allow_input_required=True,
        )
        assert isinstance(first, types.InputRequiredResult), first
        assert first.request_state and first.input_requests and len(first.input_requests) == 1
        ((key, ask),) = first.input_requests.items()
        assert isinstance(ask, types.CreateMessageRequest)
        assert "name an animal" in message_text(ask.params)
        assert ask.params.max_tokens == 20
        done = await c.session.call_tool(
            "ev__trigger-sampling-request",
            {"prompt": "name an animal", "maxTokens": 20},
            input_responses={key: sampled("a wombat")},
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert isinstance(done, types.CallToolResult) and not done.is_error
        assert done.result_type == "complete"
        assert '"text": "a wombat"' in text_of(done)

        first = await c.session.call_tool(
            "ev__trigger-elicitation-request", {}, allow_input_required=True
        )
        assert isinstance(first, types.InputRequiredResult), first
        assert first.request_state and first.input_requests and len(first.input_requests) == 1
        ((key, ask),) = first.input_requests.items()
        assert isinstance(ask, types.ElicitRequest)
        assert ask.params.message == "Please provide inputs for the following fields:"
        done = await c.session.call_tool(
            "ev__trigger-elicitation-request",
            {},
            input_responses={key: types.ElicitResult(action="decline")},
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert isinstance(done, types.CallToolResult) and not done.is_error
        assert "User declined to provide the requested information" in text_of(done)

        # The SDK client drives the same loop itself through its callbacks.
        res = await c.call_tool("ev__trigger-sampling-request", {"prompt": "another animal"})
        assert sampling_calls == ["Resource trigger-sampling-request context: another animal"]
        assert res.result_type == "complete" and not res.is_error
        assert "LLM sampling result" in text_of(res)
        assert '"text": "a capybara named Ruth"' in text_of(res)

        res = await c.call_tool("ev__trigger-elicitation-request", {})
        assert len(elicit_calls) == 1
        assert isinstance(elicit_calls[0], types.ElicitRequestFormParams)
        assert elicit_calls[0].message == "Please provide inputs for the following fields:"
        assert "name" in elicit_calls[0].requested_schema["properties"]
        assert not res.is_error
        out = text_of(res)
        assert "User provided the requested information" in out
        assert "- Name: Ada Lovelace" in out and "- Favorite Integer: 7" in out


# ------------------------------------------------------------------------------------------
# (b) legacy client, modern upstream


def modern_config(tmp_path: Path) -> Path:
    return write_config(
        tmp_path / "modern-upstream.yaml", {"conf": stdio_upstream("conformance_fixture.py")}
    )


@pytest.mark.parametrize("front", FRONTS)
async def test_legacy_client_gets_real_requests_from_modern_upstream(
    front: str, tmp_path: Path
) -> None:
    sampling_calls: list[str] = []
    elicit_calls: list[str] = []
    colours = iter(["blue"])

    async def sampling(
        _ctx: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        sampling_calls.append(message_text(params))
        return sampled("Four.")

    async def elicitation(
        _ctx: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        elicit_calls.append(params.message)
        props = set(getattr(params, "requested_schema", {}).get("properties", {}))
        if props == {"username", "email"}:
            content: dict[str, Any] = {"username": "ada", "email": "ada@example.com"}
        elif props == {"name"}:
            content = {"name": "Ada"}
        else:
            content = {"color": next(colours)}
        return types.ElicitResult(action="accept", content=content)

    async with (
        asyncio.timeout(120),
        gateway_client(
            front,
            modern_config(tmp_path),
            tmp_path,
            "legacy",
            sampling_callback=sampling,
            elicitation_callback=elicitation,
        ) as c,
    ):
        assert c.protocol_version != MODERN
        await wait_for_tools(c, "conf__test_sampling", "conf__test_elicitation")

        # The low-level call refuses an `input_required` answer: the callbacks can only have
        # run through real server-to-client requests.
        res = await c.session.call_tool("conf__test_sampling", {"prompt": "What is 2+2?"})
        assert sampling_calls == ["What is 2+2?"]
        assert not res.is_error and text_of(res) == "LLM response: Four."

        res = await c.session.call_tool("conf__test_elicitation", {"message": "Who are you?"})
        assert elicit_calls == ["Who are you?"]
        assert not res.is_error
        assert text_of(res) == (
            'User response: action=accept, content={"username":"ada","email":"ada@example.com"}'
        )

        res = await c.session.call_tool("conf__test_input_required_result_multi_round", {})
        assert elicit_calls[1:] == [
            "Step 1: What is your name?",
            "Step 2: What is your favorite color?",
        ]
        assert not res.is_error and text_of(res) == "Ada's favorite color is blue."
