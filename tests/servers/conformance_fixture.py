#!/usr/bin/env python3
"""Manifold's own MCP conformance fixture server.

A dual-era (2025-11-25 handshake wire and 2026-07-28 stateless wire) MCP server built on the
official SDK's `MCPServer`. It provides every fixture name that the
`@modelcontextprotocol/conformance` server scenarios call (`test_simple_text`,
`test://static-text`, `test_prompt_with_arguments`, the `test_input_required_result_*` tools,
...), with the outputs their descriptions ask for, so the suite can be run against it directly
or through Manifold with this server as the single, un-namespaced upstream.

Usage (from the repository root):

    python tests/servers/conformance_fixture.py                  # stdio
    python tests/servers/conformance_fixture.py --http --port N  # http://127.0.0.1:N/mcp

`--port 0` picks a free port; `--port-file PATH` writes the bound port there once the socket is
listening. Only loopback addresses are accepted for `--host`.

Interactive tools (sampling, elicitation, roots) are written once as *steps*: a step looks at
the responses gathered so far and either finishes or asks for more input. On the modern wire a
request for input becomes an `InputRequiredResult` (MRTR); on the legacy wire the same request
is sent to the client as a real server-to-client request on the originating request's stream,
and the step is re-run with the answer. So every interactive fixture works on both eras.

Background behaviour (both configurable, see `--help`):
- `test_dynamic_tool`, `test_dynamic_prompt` and `test://dynamic-resource` appear
  `--dynamic-delay` seconds after start-up, with list-changed notifications.
- `test://watched-resource` changes every `--watch-interval` seconds; subscribers
  (legacy `resources/subscribe`, modern `subscriptions/listen`) are told each time.
"""

import argparse
import asyncio
import base64
import contextlib
import json
import logging
import socket
import struct
import sys
import warnings
import weakref
import zlib
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, get_args

import anyio
import uvicorn
from mcp.server import NotificationOptions, ServerRequestContext
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts.base import Message, UserMessage
from mcp.server.mcpserver.resources import FunctionResource
from mcp.server.mcpserver.tools import Tool
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp.types import (
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    AudioContent,
    CallToolResult,
    ClientCapabilities,
    Completion,
    CompletionArgument,
    CompletionContext,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    EmbeddedResource,
    EmptyResult,
    ImageContent,
    InputRequest,
    InputRequiredResult,
    InputResponse,
    JSONRPCMessage,
    ListRootsRequest,
    ListRootsResult,
    LoggingLevel,
    PromptReference,
    ResourceTemplateReference,
    RootsCapability,
    SamplingCapability,
    SamplingMessage,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TextContent,
    TextResourceContents,
    UnsubscribeRequestParams,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

LOG = logging.getLogger("manifold.conformance_fixture")

SERVER_NAME = "manifold-conformance-fixture"
SERVER_VERSION = "1.0.0"
LOGGER_NAME = "conformance-fixture"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

WATCHED_URI = "test://watched-resource"
DYNAMIC_RESOURCE_URI = "test://dynamic-resource"
DYNAMIC_TOOL = "test_dynamic_tool"
DYNAMIC_PROMPT = "test_dynamic_prompt"

LOG_LEVELS: tuple[LoggingLevel, ...] = get_args(LoggingLevel)  # ascending severity


# --------------------------------------------------------------------------------------------
# Test media, built here rather than pasted in: a 1x1 red PNG and a short silent WAV.


def _png_1x1_red() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit, truecolour
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter byte + one RGB pixel
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def _wav_silence(samples: int = 8, rate: int = 8000) -> bytes:
    data = b"\x00\x00" * samples  # 16-bit mono silence
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    riff_body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    riff_body += b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(riff_body)) + riff_body


PNG_BYTES = _png_1x1_red()
PNG_B64 = base64.b64encode(PNG_BYTES).decode("ascii")
WAV_B64 = base64.b64encode(_wav_silence()).decode("ascii")


def _compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


# --------------------------------------------------------------------------------------------
# Fixture data taken from the conformance scenario descriptions.

# The canonical inputSchema of the `json-schema-2020-12` scenario (SEP-1613 / SEP-2106).
JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}

USER_INFO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}

DEFAULTS_SCHEMA: dict[str, Any] = {  # SEP-1034: a default for every primitive type
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
}

ENUMS_SCHEMA: dict[str, Any] = {  # SEP-1330: the five enum variants
    "type": "object",
    "properties": {
        "untitledSingle": {
            "type": "string",
            "description": "Untitled single-select",
            "enum": ["option1", "option2", "option3"],
        },
        "titledSingle": {
            "type": "string",
            "description": "Titled single-select",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "description": "Legacy titled enum (enumNames)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Untitled multi-select",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Titled multi-select",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}


def _object_schema(**props: str) -> dict[str, Any]:
    """`{"type":"object"}` with one required property per keyword (value: its JSON type)."""
    return {
        "type": "object",
        "properties": {name: {"type": kind} for name, kind in props.items()},
        "required": list(props),
    }


def _ask(message: str, schema: Mapping[str, Any]) -> ElicitRequest:
    return ElicitRequest(
        params=ElicitRequestFormParams(message=message, requested_schema=dict(schema))
    )


def _sample(text: str, max_tokens: int) -> CreateMessageRequest:
    return CreateMessageRequest(
        params=CreateMessageRequestParams(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text=text))],
            max_tokens=max_tokens,
        )
    )


def _accepted(response: InputResponse | None) -> dict[str, Any] | None:
    """The form content of an accepted elicitation, else None."""
    if isinstance(response, ElicitResult) and response.action == "accept":
        return dict(response.content or {})
    return None


def _sampled_text(response: InputResponse | None) -> str | None:
    if isinstance(response, CreateMessageResult) and isinstance(response.content, TextContent):
        return response.content.text
    return None


# --------------------------------------------------------------------------------------------
# Era-independent interaction: steps, and a driver per era.


@dataclass
class NeedInput:
    """What a step returns when it needs answers from the client first."""

    requests: dict[str, InputRequest]
    state: str | None = None


Responses = Mapping[str, InputResponse]
T = TypeVar("T")
Step = Callable[[Responses, str | None], Awaitable[T | NeedInput]]

_CAPABILITY_FOR: dict[str, tuple[str, ClientCapabilities]] = {
    "sampling/createMessage": ("sampling", ClientCapabilities(sampling=SamplingCapability())),
    "elicitation/create": ("elicitation", ClientCapabilities(elicitation=ElicitationCapability())),
    "roots/list": ("roots", ClientCapabilities(roots=RootsCapability())),
}
_RESULT_FOR: dict[str, type[CreateMessageResult | ElicitResult | ListRootsResult]] = {
    "sampling/createMessage": CreateMessageResult,
    "elicitation/create": ElicitResult,
    "roots/list": ListRootsResult,
}
MAX_LEGACY_ROUNDS = 8


def is_modern(ctx: Context) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def _missing_capabilities(ctx: Context, requests: Mapping[str, InputRequest]) -> dict[str, Any]:
    missing: dict[str, Any] = {}
    for request in requests.values():
        name, needed = _CAPABILITY_FOR[request.method]
        if not ctx.session.check_client_capability(needed):
            missing[name] = {}
    return missing


async def interact(ctx: Context, step: Step[T]) -> T | InputRequiredResult:
    """Run `step` to completion for whichever era `ctx` speaks.

    Modern: one round per wire request; a `NeedInput` becomes an `InputRequiredResult` (the SDK
    seals `request_state` on the way out and verifies it on the retry). Legacy: the requests are
    sent to the client on this request's own stream and the step is re-run locally.
    """
    if is_modern(ctx):
        outcome = await step(dict(ctx.input_responses or {}), ctx.request_state)
        if not isinstance(outcome, NeedInput):
            return outcome
        missing = _missing_capabilities(ctx, outcome.requests)
        if missing:
            raise MCPError(
                code=MISSING_REQUIRED_CLIENT_CAPABILITY,
                message=f"This request needs client capabilities: {', '.join(sorted(missing))}",
                data={"requiredCapabilities": missing},
            )
        return InputRequiredResult(input_requests=outcome.requests, request_state=outcome.state)

    responses: dict[str, InputResponse] = {}
    state: str | None = None
    for _ in range(MAX_LEGACY_ROUNDS):
        outcome = await step(responses, state)
        if not isinstance(outcome, NeedInput):
            return outcome
        missing = _missing_capabilities(ctx, outcome.requests)
        if missing:
            raise ToolError(f"The client did not declare: {', '.join(sorted(missing))}")
        related = ServerMessageMetadata(related_request_id=ctx.request_context.request_id)
        responses = {}
        for key, request in outcome.requests.items():
            responses[key] = await ctx.session.send_request(
                request, _RESULT_FOR[request.method], metadata=related
            )
        state = outcome.state
    raise ToolError(f"gave up after {MAX_LEGACY_ROUNDS} rounds of client input")


def _text_result(text: str, *, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


# --------------------------------------------------------------------------------------------
# Per-connection state for the legacy (handshake) wire, and broadcasting to both eras.


def _legacy_connection(ctx: Context | ServerRequestContext[Any, Any]) -> Connection | None:
    """The legacy `Connection` behind a request, or None on the modern (stateless) wire.

    The SDK keeps it on the request's `ServerSession` without a public accessor.
    """
    version = ctx.protocol_version
    if version is None or version in MODERN_PROTOCOL_VERSIONS:
        return None
    connection = getattr(ctx.session, "_connection", None)
    return connection if isinstance(connection, Connection) else None


@dataclass
class FixtureState:
    bus: InMemorySubscriptionBus = field(default_factory=InMemorySubscriptionBus)
    connections: "weakref.WeakSet[Connection]" = field(default_factory=weakref.WeakSet)
    watched_version: int = 0

    @property
    def watched_text(self) -> str:
        if self.watched_version == 0:
            return "Watched resource content"
        return f"Watched resource content (update {self.watched_version})"

    def track(self, connection: Connection) -> None:
        if connection not in self.connections:
            self.connections.add(connection)
            connection.exit_stack.callback(self.connections.discard, connection)

    async def broadcast_list_changed(self, kind: Literal["tools", "prompts", "resources"]) -> None:
        events: dict[str, ServerEvent] = {
            "tools": ToolsListChanged(),
            "prompts": PromptsListChanged(),
            "resources": ResourcesListChanged(),
        }
        event = events[kind]
        await self.bus.publish(event)  # modern: subscriptions/listen streams
        for connection in list(self.connections):  # legacy: each session's standalone stream
            with contextlib.suppress(Exception):
                await connection.notify(f"notifications/{kind}/list_changed", None)

    async def touch_watched(self) -> None:
        self.watched_version += 1
        await self.bus.publish(ResourceUpdated(uri=WATCHED_URI))
        for connection in list(self.connections):
            if WATCHED_URI in connection.state.get("subscriptions", ()):
                with contextlib.suppress(Exception):
                    await connection.send_resource_updated(WATCHED_URI)


def _legacy_log_allowed(ctx: Context, level: LoggingLevel) -> bool:
    """Legacy `logging/setLevel` filtering (modern per-request `logLevel` is the SDK's job)."""
    connection = _legacy_connection(ctx)
    if connection is None:
        return True
    threshold = connection.state.get("log_level")
    return threshold is None or LOG_LEVELS.index(level) >= LOG_LEVELS.index(threshold)


async def _log(ctx: Context, level: LoggingLevel, message: str) -> None:
    if _legacy_log_allowed(ctx, level):
        await ctx.session.send_log_message(  # deprecated by 2026-07-28, still the legacy way
            level=level, data=message, logger=LOGGER_NAME, related_request_id=ctx.request_id
        )


# --------------------------------------------------------------------------------------------
# Resumability for the legacy HTTP wire (SEP-1699): a bounded in-memory event log.


class BoundedEventStore(EventStore):
    """Keeps the last `capacity` SSE events; replays one stream after a given event id."""

    def __init__(self, capacity: int = 4096) -> None:
        self._events: deque[tuple[int, str, JSONRPCMessage | None]] = deque(maxlen=capacity)
        self._next_id = 1

    async def store_event(self, stream_id: str, message: JSONRPCMessage | None) -> str:
        event_id = self._next_id
        self._next_id += 1
        self._events.append((event_id, stream_id, message))
        return str(event_id)

    async def replay_events_after(
        self, last_event_id: str, send_callback: EventCallback
    ) -> str | None:
        try:
            after = int(last_event_id)
        except ValueError:
            return None
        stream = next((sid for eid, sid, _ in self._events if eid == after), None)
        if stream is None:
            return None
        for event_id, stream_id, message in list(self._events):
            if event_id > after and stream_id == stream and message is not None:
                await send_callback(EventMessage(message, str(event_id)))
        return stream


# --------------------------------------------------------------------------------------------
# The server.


@dataclass(frozen=True)
class FixtureOptions:
    dynamic_delay: float = 2.0  # < 0 disables the delayed registrations
    watch_interval: float = 3.0  # <= 0 disables the periodic watched-resource updates


def build_server(options: FixtureOptions | None = None) -> MCPServer[Any]:
    """Build a fresh fixture server (its own state, so tests may build several)."""
    opts = options or FixtureOptions()
    state = FixtureState()

    # ---- tools that need an explicit inputSchema are built before the server -------------
    def json_schema_2020_12_tool(
        name: str | None = None,
        address: dict[str, Any] | None = None,
        contactMethod: str | None = None,
        phone: str | None = None,
        email: str | None = None,
    ) -> str:
        """Tool with JSON Schema 2020-12 features"""
        via = phone if contactMethod == "phone" else email
        return f"json_schema_2020_12_tool: name={name!r} contact={via!r} address={address!r}"

    schema_tool = Tool.from_function(json_schema_2020_12_tool, structured_output=False)
    schema_tool.parameters = dict(JSON_SCHEMA_2020_12)

    @contextlib.asynccontextmanager
    async def lifespan(_server: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
        async with anyio.create_task_group() as background:
            if opts.dynamic_delay >= 0:
                background.start_soon(register_dynamic_items)
            if opts.watch_interval > 0:
                background.start_soon(tick_watched_resource)
            yield {}
            background.cancel_scope.cancel()

    async def track_legacy_sessions(
        ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        result = await call_next(ctx)
        # Checked after the call: `initialize` fixes the connection's version as it completes.
        connection = getattr(ctx.session, "_connection", None)
        if (
            isinstance(connection, Connection)
            and connection.protocol_version not in MODERN_PROTOCOL_VERSIONS
        ):
            state.track(connection)
        return result

    server: MCPServer[Any] = MCPServer(
        name=SERVER_NAME,
        version=SERVER_VERSION,
        instructions="Manifold's conformance fixture: every name the MCP conformance suite calls.",
        tools=[schema_tool],
        subscriptions=state.bus,
        lifespan=lifespan,
        middleware=[track_legacy_sessions],
    )
    low = server._lowlevel_server  # the SDK's low-level Server: for the legacy-only methods

    # Legacy clients learn about list changes only if `initialize` advertises listChanged; the
    # SDK derives those flags from NotificationOptions, which MCPServer leaves all-False.
    plain_init_options = low.create_initialization_options

    def init_options_with_list_changed(
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        every = NotificationOptions(
            prompts_changed=True, resources_changed=True, tools_changed=True
        )
        return plain_init_options(
            notification_options or every, experimental_capabilities, extensions
        )

    setattr(low, "create_initialization_options", init_options_with_list_changed)  # noqa: B010

    # ---- background behaviour ---------------------------------------------------------------
    async def register_dynamic_items() -> None:
        await anyio.sleep(opts.dynamic_delay)
        add_dynamic_tool()
        add_dynamic_prompt()
        server.add_resource(
            FunctionResource.from_function(
                dynamic_resource,
                uri=DYNAMIC_RESOURCE_URI,
                name="dynamic-resource",
                description="A resource registered after start-up",
                mime_type="text/plain",
            )
        )
        for kind in ("tools", "prompts", "resources"):
            await state.broadcast_list_changed(kind)

    async def tick_watched_resource() -> None:
        while True:
            await anyio.sleep(opts.watch_interval)
            await state.touch_watched()

    def dynamic_resource() -> str:
        return "This resource was added dynamically."

    def dynamic_tool() -> str:
        """A tool that is added (and removed) while the server runs"""
        return "This tool was added dynamically."

    async def dynamic_prompt() -> list[Message]:
        """A prompt that is added (and removed) while the server runs"""
        return [UserMessage(TextContent(type="text", text="This prompt was added dynamically."))]

    def has_tool(name: str) -> bool:
        return server._tool_manager.get_tool(name) is not None

    def has_prompt(name: str) -> bool:
        return server._prompt_manager.get_prompt(name) is not None

    def add_dynamic_tool() -> None:
        if not has_tool(DYNAMIC_TOOL):
            server.add_tool(dynamic_tool, name=DYNAMIC_TOOL, structured_output=False)

    def add_dynamic_prompt() -> None:
        if not has_prompt(DYNAMIC_PROMPT):
            server.prompt(name=DYNAMIC_PROMPT)(dynamic_prompt)

    # ---- content tools ----------------------------------------------------------------------
    @server.tool(structured_output=False)
    def test_simple_text() -> str:
        """Returns a simple text content block"""
        return "This is a simple text response for testing."

    @server.tool(structured_output=False)
    def test_image_content() -> list[ImageContent]:
        """Returns an image content block (a 1x1 red PNG)"""
        return [ImageContent(type="image", data=PNG_B64, mime_type="image/png")]

    @server.tool(structured_output=False)
    def test_audio_content() -> list[AudioContent]:
        """Returns an audio content block (a short silent WAV)"""
        return [AudioContent(type="audio", data=WAV_B64, mime_type="audio/wav")]

    @server.tool(structured_output=False)
    def test_embedded_resource() -> list[EmbeddedResource]:
        """Returns an embedded text resource"""
        return [
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(
                    uri="test://embedded-resource",
                    mime_type="text/plain",
                    text="This is an embedded resource content.",
                ),
            )
        ]

    @server.tool(structured_output=False)
    def test_multiple_content_types() -> list[TextContent | ImageContent | EmbeddedResource]:
        """Returns text, image and embedded-resource content together"""
        return [
            TextContent(type="text", text="Multiple content types test:"),
            ImageContent(type="image", data=PNG_B64, mime_type="image/png"),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(
                    uri="test://mixed-content-resource",
                    mime_type="application/json",
                    text=_compact_json({"test": "data", "value": 123}),
                ),
            ),
        ]

    @server.tool(structured_output=False)
    def test_error_handling() -> CallToolResult:
        """Always fails, as a tool execution error (isError: true)"""
        return _text_result("This tool intentionally returns an error for testing", error=True)

    # ---- notifications during a call ------------------------------------------------------
    @server.tool(structured_output=False)
    async def test_tool_with_logging(ctx: Context) -> str:
        """Sends three info log notifications about 50 ms apart while it runs"""
        await _log(ctx, "info", "Tool execution started")
        await anyio.sleep(0.05)
        await _log(ctx, "info", "Tool processing data")
        await anyio.sleep(0.05)
        await _log(ctx, "info", "Tool execution completed")
        return "Tool with logging executed successfully"

    @server.tool(structured_output=False)
    async def test_logging_tool(ctx: Context) -> str:
        """Logs one info message (on the modern wire only when the request set a logLevel)"""
        await _log(ctx, "info", "test_logging_tool ran")
        return "Logged one message"

    @server.tool(structured_output=False)
    async def test_tool_with_progress(ctx: Context) -> str:
        """Reports progress 0, 50 and 100 of 100, about 50 ms apart (given a progressToken)"""
        for step in (0, 50, 100):
            if step:
                await anyio.sleep(0.05)
            await ctx.report_progress(
                progress=step, total=100, message=f"Completed step {step} of 100"
            )
        return "Progress reporting completed"

    @server.tool(structured_output=False)
    async def test_reconnection(ctx: Context) -> str:
        """Closes its SSE stream mid-call so the client must resume (SEP-1699 polling)"""
        await _log(ctx, "info", "Before disconnect")
        await ctx.close_sse_stream()
        await anyio.sleep(0.2)
        await _log(ctx, "info", "After reconnect")
        return "Reconnection test completed"

    # ---- legacy server-to-client requests (MRTR on the modern wire) -----------------------
    @server.tool(structured_output=False)
    async def test_sampling(prompt: str, ctx: Context) -> str | InputRequiredResult:
        """Asks the client's LLM to answer `prompt` and returns its reply"""

        async def step(responses: Responses, _state: str | None) -> str | NeedInput:
            text = _sampled_text(responses.get("llm"))
            if text is None:
                return NeedInput({"llm": _sample(prompt, 100)})
            return f"LLM response: {text}"

        return await interact(ctx, step)

    def elicitation_tool(message: str, schema: dict[str, Any], label: str) -> Step[str]:
        async def step(responses: Responses, _state: str | None) -> str | NeedInput:
            answer = responses.get("form")
            if not isinstance(answer, ElicitResult):
                return NeedInput({"form": _ask(message, schema)})
            return f"{label}: action={answer.action}, content={_compact_json(answer.content or {})}"

        return step

    @server.tool(structured_output=False)
    async def test_elicitation(message: str, ctx: Context) -> str | InputRequiredResult:
        """Asks the user (elicitation) for a username and an email address"""
        return await interact(ctx, elicitation_tool(message, USER_INFO_SCHEMA, "User response"))

    @server.tool(structured_output=False)
    async def test_elicitation_sep1034_defaults(ctx: Context) -> str | InputRequiredResult:
        """Elicits a form whose fields all carry default values (SEP-1034)"""
        step = elicitation_tool(
            "Please review your details", DEFAULTS_SCHEMA, "Elicitation completed"
        )
        return await interact(ctx, step)

    @server.tool(structured_output=False)
    async def test_elicitation_sep1330_enums(ctx: Context) -> str | InputRequiredResult:
        """Elicits a form with all five enum schema variants (SEP-1330)"""
        step = elicitation_tool(
            "Please choose from each list", ENUMS_SCHEMA, "Elicitation completed"
        )
        return await interact(ctx, step)

    @server.tool(structured_output=False)
    async def test_streaming_elicitation(ctx: Context) -> str | InputRequiredResult:
        """Reports progress, then asks the user for a name (never sends a request on the stream)"""
        await ctx.report_progress(progress=1, total=2, message="About to ask for input")

        async def step(responses: Responses, _state: str | None) -> str | NeedInput:
            form = _accepted(responses.get("name"))
            if form is None:
                return NeedInput(
                    {"name": _ask("What is your name?", _object_schema(name="string"))}
                )
            return f"Thanks, {form.get('name')}!"

        return await interact(ctx, step)

    @server.tool(structured_output=False)
    async def test_missing_capability(ctx: Context) -> str:
        """Needs the client's sampling capability; fails with -32021 when it was not declared"""
        if not ctx.session.check_client_capability(
            ClientCapabilities(sampling=SamplingCapability())
        ):
            raise MCPError(
                code=MISSING_REQUIRED_CLIENT_CAPABILITY,
                message="test_missing_capability requires the client 'sampling' capability",
                data={"requiredCapabilities": {"sampling": {}}},
            )
        return "The client declared sampling."

    # ---- multi round-trip requests (SEP-2322) -----------------------------------------------
    @server.tool(structured_output=False)
    async def test_input_required_result_elicitation(ctx: Context) -> str | InputRequiredResult:
        """Asks for the user's name through one elicitation input request"""

        async def step(responses: Responses, _state: str | None) -> str | NeedInput:
            form = _accepted(responses.get("user_name"))
            if form is None or not isinstance(form.get("name"), str):
                return NeedInput(
                    {"user_name": _ask("What is your name?", _object_schema(name="string"))}
                )
            return f"Hello, {form['name']}!"

        return await interact(ctx, step)

    @server.tool(structured_output=False)
    async def test_input_required_result_sampling(ctx: Context) -> str | InputRequiredResult:
        """Asks the client's LLM one question through a sampling input request"""

        async def step(responses: Responses, _state: str | None) -> str | NeedInput:
            text = _sampled_text(responses.get("capital_question"))
            if text is None:
                return NeedInput(
                    {"capital_question": _sample("What is the capital of France?", 100)}
                )
            return f"The model answered: {text}"

        return await interact(ctx, step)

    @server.tool(structured_output=False)
    async def test_input_required_result_list_roots(ctx: Context) -> str | InputRequiredResult:
        """Asks for the client's roots through a roots/list input request"""

        async def step(responses: Responses, _state: str | None) -> str | NeedInput:
            answer = responses.get("client_roots")
            if not isinstance(answer, ListRootsResult):
                return NeedInput({"client_roots": ListRootsRequest()})
            uris = ", ".join(str(root.uri) for root in answer.roots) or "none"
            return f"The client has {len(answer.roots)} root(s): {uris}"

        return await interact(ctx, step)

    confirm_schema = _object_schema(ok="boolean")
    request_state_nonce = "confirm-round-1"

    @server.tool(structured_output=False)
    async def test_input_required_result_request_state(ctx: Context) -> str | InputRequiredResult:
        """Round-trips an opaque requestState alongside an elicitation"""

        async def step(responses: Responses, state: str | None) -> str | NeedInput:
            if state == request_state_nonce and isinstance(responses.get("confirm"), ElicitResult):
                return "state-ok: the requestState came back intact"
            return NeedInput(
                {"confirm": _ask("Please confirm", confirm_schema)}, request_state_nonce
            )

        return await interact(ctx, step)

    @server.tool(structured_output=False)
    async def test_input_required_result_multiple_inputs(ctx: Context) -> str | InputRequiredResult:
        """Asks for an elicitation, a sampling and a roots/list answer at once"""
        wanted = ("user_name", "greeting", "client_roots")

        async def step(responses: Responses, state: str | None) -> str | NeedInput:
            if state == "all-three" and all(key in responses for key in wanted):
                return "Received all three inputs: user_name, greeting, client_roots"
            return NeedInput(
                {
                    "user_name": _ask("What is your name?", _object_schema(name="string")),
                    "greeting": _sample("Generate a greeting", 50),
                    "client_roots": ListRootsRequest(),
                },
                "all-three",
            )

        return await interact(ctx, step)

    @server.tool(structured_output=False)
    async def test_input_required_result_multi_round(ctx: Context) -> str | InputRequiredResult:
        """Three rounds: asks for a name, then a colour, carrying the answers in requestState"""
        first = _ask("Step 1: What is your name?", _object_schema(name="string"))
        second = _ask("Step 2: What is your favorite color?", _object_schema(color="string"))

        async def step(responses: Responses, state: str | None) -> str | NeedInput:
            memory: dict[str, Any] = {}
            with contextlib.suppress(ValueError, TypeError):
                memory = dict(json.loads(state or "{}"))
            if memory.get("round") == 1 and (form := _accepted(responses.get("step1"))) is not None:
                return NeedInput(
                    {"step2": second}, _compact_json({"round": 2, "name": form.get("name")})
                )
            if memory.get("round") == 2 and (form := _accepted(responses.get("step2"))) is not None:
                return f"{memory.get('name')}'s favorite color is {form.get('color')}."
            return NeedInput({"step1": first}, _compact_json({"round": 1}))

        return await interact(ctx, step)

    @server.tool(structured_output=False)
    async def test_input_required_result_tampered_state(ctx: Context) -> str | InputRequiredResult:
        """Issues an integrity-protected requestState; a tampered echo is rejected by the SDK"""

        async def step(responses: Responses, state: str | None) -> str | NeedInput:
            if state is not None and "confirm" in responses:
                return f"state-ok: {state}"
            return NeedInput(
                {"confirm": _ask("Please confirm", confirm_schema)}, "tamper-evident-round-1"
            )

        return await interact(ctx, step)

    @server.tool(structured_output=False)
    async def test_input_required_result_capabilities(ctx: Context) -> str | InputRequiredResult:
        """Only asks for inputs whose client capability was declared"""
        offer: dict[str, InputRequest] = {
            "sample": _sample("Say hello", 50),
            "ask": _ask("What is your name?", _object_schema(name="string")),
            "roots": ListRootsRequest(),
        }
        allowed = {
            key: req for key, req in offer.items() if not _missing_capabilities(ctx, {key: req})
        }

        async def step(responses: Responses, _state: str | None) -> str | NeedInput:
            if not allowed:
                return "The client declared none of sampling, elicitation or roots."
            if all(key in responses for key in allowed):
                return f"Received: {', '.join(sorted(allowed))}"
            return NeedInput(allowed, "capability-gated")

        return await interact(ctx, step)

    # ---- list changes, headers, schemas ------------------------------------------------------
    @server.tool(structured_output=False)
    async def test_trigger_tool_change(
        action: Literal["toggle", "add", "remove"] = "toggle",
    ) -> str:
        """Adds or removes test_dynamic_tool and announces tools/list_changed"""
        present = has_tool(DYNAMIC_TOOL)
        if action == "add" or (action == "toggle" and not present):
            add_dynamic_tool()
        elif present:
            server.remove_tool(DYNAMIC_TOOL)
        await state.broadcast_list_changed("tools")
        return f"{DYNAMIC_TOOL} is now {'listed' if has_tool(DYNAMIC_TOOL) else 'not listed'}"

    @server.tool(structured_output=False)
    async def test_trigger_prompt_change(
        action: Literal["toggle", "add", "remove"] = "toggle",
    ) -> str:
        """Adds or removes test_dynamic_prompt and announces prompts/list_changed"""
        present = has_prompt(DYNAMIC_PROMPT)
        if action == "add" or (action == "toggle" and not present):
            add_dynamic_prompt()
        elif present:
            server.remove_prompt(DYNAMIC_PROMPT)
        await state.broadcast_list_changed("prompts")
        return f"{DYNAMIC_PROMPT} is now {'listed' if has_prompt(DYNAMIC_PROMPT) else 'not listed'}"

    @server.tool(structured_output=False)
    async def test_trigger_resource_update() -> str:
        """Changes test://watched-resource now and notifies its subscribers"""
        await state.touch_watched()
        return f"{WATCHED_URI} is at update {state.watched_version}"

    @server.tool(structured_output=False)
    def test_x_mcp_header(
        region: Annotated[
            str,
            Field(
                description="Mirrored in the Mcp-Param-Region header",
                json_schema_extra={"x-mcp-header": "Region"},
            ),
        ] = "unset",
    ) -> str:
        """Has a parameter mirrored into an Mcp-Param-* HTTP header (SEP-2243)"""
        return f"region={region}"

    # ---- resources -------------------------------------------------------------------------
    @server.resource(
        "test://static-text",
        name="static-text",
        description="A static text resource",
        mime_type="text/plain",
    )
    def static_text() -> str:
        return "This is the content of the static text resource."

    @server.resource(
        "test://static-binary",
        name="static-binary",
        description="A static binary resource (PNG)",
        mime_type="image/png",
    )
    def static_binary() -> bytes:
        return PNG_BYTES

    @server.resource(
        "test://template/{id}/data",
        name="template-data",
        description="A resource template with one parameter",
        mime_type="application/json",
    )
    def template_data(id: str) -> str:
        return _compact_json({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})

    @server.resource(
        WATCHED_URI,
        name="watched-resource",
        description="A subscribable resource that changes",
        mime_type="text/plain",
    )
    def watched() -> str:
        return state.watched_text

    # ---- prompts ---------------------------------------------------------------------------
    @server.prompt()
    async def test_simple_prompt() -> list[Message]:
        """A prompt without arguments"""
        return [UserMessage(TextContent(type="text", text="This is a simple prompt for testing."))]

    @server.prompt()
    async def test_prompt_with_arguments(
        arg1: Annotated[str, Field(description="First test argument")],
        arg2: Annotated[str, Field(description="Second test argument")],
    ) -> list[Message]:
        """A prompt with two required arguments"""
        return [
            UserMessage(
                TextContent(
                    type="text", text=f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
                )
            )
        ]

    @server.prompt()
    async def test_prompt_with_embedded_resource(
        resourceUri: Annotated[str, Field(description="URI of the resource to embed")],
    ) -> list[Message]:
        """A prompt that embeds a resource"""
        embedded = TextResourceContents(
            uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing."
        )
        return [
            UserMessage(EmbeddedResource(type="resource", resource=embedded)),
            UserMessage(
                TextContent(type="text", text="Please process the embedded resource above.")
            ),
        ]

    @server.prompt()
    async def test_prompt_with_image() -> list[Message]:
        """A prompt with image content"""
        return [
            UserMessage(ImageContent(type="image", data=PNG_B64, mime_type="image/png")),
            UserMessage(TextContent(type="text", text="Please analyze the image above.")),
        ]

    @server.prompt()
    async def test_input_required_result_prompt(
        ctx: Context,
    ) -> list[Message] | InputRequiredResult:
        """A prompt that first asks the user for context (SEP-2322 on prompts/get)"""

        async def step(responses: Responses, _state: str | None) -> list[Message] | NeedInput:
            form = _accepted(responses.get("user_context"))
            if form is None:
                schema = _object_schema(context="string")
                return NeedInput(
                    {"user_context": _ask("What context should the prompt use?", schema)}
                )
            text = f"Use this context: {form.get('context')}"
            return [UserMessage(TextContent(type="text", text=text))]

        return await interact(ctx, step)

    # ---- completion --------------------------------------------------------------------------
    suggestions: dict[tuple[str, str], tuple[str, ...]] = {
        ("test_prompt_with_arguments", "arg1"): ("paris", "park", "party", "test", "testValue1"),
        ("test_prompt_with_arguments", "arg2"): ("world", "word", "testValue2"),
        ("test_prompt_with_embedded_resource", "resourceUri"): (
            "test://static-text",
            "test://example-resource",
        ),
        ("test://template/{id}/data", "id"): ("1", "2", "3", "42", "123"),
    }

    @server.completion()  # type: ignore[no-untyped-call, untyped-decorator]
    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion:
        key = ref.name if isinstance(ref, PromptReference) else ref.uri
        prefix = argument.value.lower()
        values = [
            v for v in suggestions.get((key, argument.name), ()) if v.lower().startswith(prefix)
        ]
        return Completion(values=values, total=len(values), has_more=False)

    # ---- legacy-only methods -----------------------------------------------------------------
    async def set_level(
        ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams
    ) -> EmptyResult:
        connection = _legacy_connection(ctx)
        if params.level not in LOG_LEVELS:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown log level {params.level!r}")
        if connection is not None:
            connection.state["log_level"] = params.level
        return EmptyResult()

    def _subscriptions_of(ctx: ServerRequestContext[Any, Any]) -> set[str]:
        connection = _legacy_connection(ctx)
        if connection is None:  # pragma: no cover - the modern wire cannot dispatch these methods
            return set()
        state.track(connection)
        subs: set[str] = connection.state.setdefault("subscriptions", set())
        return subs

    async def subscribe(
        ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams
    ) -> EmptyResult:
        _subscriptions_of(ctx).add(str(params.uri))
        return EmptyResult()

    async def unsubscribe(
        ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams
    ) -> EmptyResult:
        _subscriptions_of(ctx).discard(str(params.uri))
        return EmptyResult()

    low.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)
    low.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
    low.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)

    return server


# --------------------------------------------------------------------------------------------
# Command line.


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--http", action="store_true", help="serve Streamable HTTP instead of stdio"
    )
    parser.add_argument("--host", default="127.0.0.1", help="loopback address to bind (HTTP)")
    parser.add_argument(
        "--port", type=int, default=3002, help="port to bind, 0 for any free one (HTTP)"
    )
    parser.add_argument(
        "--port-file", type=Path, help="write the bound port here once listening (HTTP)"
    )
    parser.add_argument("--path", default="/mcp", help="endpoint path (HTTP)")
    parser.add_argument(
        "--dynamic-delay",
        type=float,
        default=2.0,
        help="seconds before the dynamic items appear (<0: never)",
    )
    parser.add_argument(
        "--watch-interval",
        type=float,
        default=3.0,
        help="seconds between watched-resource updates (<=0: never)",
    )
    parser.add_argument("--log-level", default="WARNING", help="Python log level for stderr")
    args = parser.parse_args(argv)
    if args.http and args.host not in LOOPBACK_HOSTS:
        parser.error(f"--host must be a loopback address ({', '.join(sorted(LOOPBACK_HOSTS))})")
    return args


async def _serve_http(server: MCPServer[Any], args: argparse.Namespace) -> None:
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(128)
    port = sock.getsockname()[1]

    @server.custom_route("/health", methods=["GET"])  # type: ignore[untyped-decorator]
    async def health(_request: Request) -> Response:
        return PlainTextResponse("ok")

    app = server.streamable_http_app(
        streamable_http_path=args.path,
        event_store=BoundedEventStore(),
        retry_interval=100,
        host=args.host,
    )
    config = uvicorn.Config(app, log_level=args.log_level.lower(), lifespan="on")
    if args.port_file is not None:
        tmp = args.port_file.with_name(args.port_file.name + ".tmp")
        tmp.write_text(f"{port}\n")
        tmp.replace(args.port_file)
    print(
        f"conformance fixture listening on http://{args.host}:{port}{args.path}",
        file=sys.stderr,
        flush=True,
    )
    await uvicorn.Server(config).serve(sockets=[sock])


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr)
    # Sampling, roots and logging are deprecated by 2026-07-28 but are this fixture's job.
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    server = build_server(
        FixtureOptions(dynamic_delay=args.dynamic_delay, watch_interval=args.watch_interval)
    )
    if args.http:
        asyncio.run(_serve_http(server, args))
    else:
        server.run()  # stdio
    return 0


if __name__ == "__main__":
    sys.exit(main())
