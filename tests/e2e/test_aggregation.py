"""Aggregation, end to end: several upstreams at once behind the real `manifold` process, through
both front ends (`manifold run` on stdio, `manifold serve` on HTTP), driven by the official
`mcp` client in both protocol eras.

Upstreams (config order): `alpha` basic_server over stdio, `beta` basic_server over Streamable
HTTP, `ev` server-everything over legacy HTTP+SSE, `gamma` control_server over stdio (grows
its tool list, records cancellations) and `delta` control_server over Streamable HTTP. The HTTP
ones are separate processes started here, once per module.

What a user must see: prefixed names, one merged list paged with the gateway's own cursors,
every call / read / prompt / completion answered by the upstream that owns it, list changes
and resource updates delivered, progress and server-to-client requests reaching the caller that
caused them, and a cancelled call cancelled on its own upstream only.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
import warnings
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.session import ClientRequestContext
from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from tests import support
from tests.conftest import needs_node
from tests.support import (
    EVERYTHING_JS,
    MANIFOLD,
    NODE,
    PY,
    SERVERS,
    TOOLS,
    free_port,
    gateway_http,
    recording_sampler,
    spawn,
    stdio_upstream,
    stop_group,
    wait_http,
    write_config,
)

MODERN = "2026-07-28"
MODES = ("legacy", MODERN)
PAGE_SIZE = 3
pytestmark = [needs_node, pytest.mark.timeout(240)]

# server-everything 2026.8.31 with a client that declares sampling, elicitation and roots.
EV_TOOLS = [
    "echo",
    "get-annotated-message",
    "get-env",
    "get-resource-links",
    "get-resource-reference",
    "get-structured-content",
    "get-sum",
    "get-tiny-image",
    "gzip-file-as-resource",
    "toggle-simulated-logging",
    "toggle-subscriber-updates",
    "trigger-long-running-operation",
    "get-roots-list",
    "trigger-elicitation-request",
    "trigger-url-elicitation",
    "trigger-sampling-request",
    "simulate-research-query",
]
# Read at import only when the Node tools are there: without them the module is skipped (needs_node)
# with its reason, instead of breaking the collection of the whole run.
_EV_DOCS_DIR = EVERYTHING_JS.parent / "docs"
EV_DOCS = (
    sorted(p.name for p in _EV_DOCS_DIR.iterdir() if p.is_file()) if _EV_DOCS_DIR.is_dir() else []
)
EV_EXPECTED = {
    "tools": {f"ev__{t}" for t in EV_TOOLS},
    "prompts": {
        "ev__simple-prompt",
        "ev__args-prompt",
        "ev__completable-prompt",
        "ev__resource-prompt",
    },
    "resources": {f"demo://resource/static/document/{d}" for d in EV_DOCS},
    "templates": {
        "demo://resource/dynamic/text/{resourceId}",
        "demo://resource/dynamic/blob/{resourceId}",
    },
}


async def expected_lists(urls: dict[str, str]) -> dict[str, set[str]]:
    """What the gateway must list: server-everything's (pinned) lists, plus what beta
    (basic_server) and delta (control_server) list when asked directly, for both copies of
    each (alpha and gamma run the same scripts under their own names)."""
    want = {kind: set(keys) for kind, keys in EV_EXPECTED.items()}
    async with (
        Client(urls["beta"], mode=MODERN, cache=None) as basic,
        Client(urls["delta"], mode=MODERN, cache=None) as control,
    ):
        for direct, names in ((basic, ("alpha", "beta")), (control, ("gamma", "delta"))):
            listed = {
                "tools": [t.name for t in (await direct.list_tools()).tools],
                "prompts": [p.name for p in (await direct.list_prompts()).prompts],
            }
            for kind, items in listed.items():
                want[kind] |= {f"{n}__{x}" for n in names for x in items}
            uris = [str(r.uri) for r in (await direct.list_resources()).resources]
            templates = await direct.list_resource_templates()
            tpls = [t.uri_template for t in templates.resource_templates]
            own = names[1] + "://"
            for kind, keys in (("resources", uris), ("templates", tpls)):
                assert all(k.startswith(own) for k in keys), keys
                want[kind] |= {n + "://" + k[len(own) :] for n in names for k in keys}
    return want


# ------------------------------------------------------------------------------------------
# upstream processes and the gateway


@contextlib.contextmanager
def http_process(cmd: list[str], probe: str, log: Path, **env: str) -> Iterator[None]:
    proc = spawn(cmd, log, env=support.test_env(**env))
    try:
        try:
            wait_http(probe, 30, proc)
        except (TimeoutError, RuntimeError) as e:
            tail = log.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{e}\n--- log ---\n{tail}") from None
        yield
    finally:
        stop_group(proc)


@pytest.fixture(scope="module")
def upstream_urls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """beta (basic, Streamable HTTP), delta (control, Streamable HTTP), ev (everything, SSE)."""
    logs = tmp_path_factory.mktemp("upstreams")
    ports = {name: free_port() for name in ("beta", "delta", "ev")}
    basic = [PY, str(SERVERS / "basic_server.py"), "--http", "--name", "beta"]
    control = [PY, str(SERVERS / "control_server.py"), "--http", "--name", "delta"]
    urls = {name: f"http://127.0.0.1:{port}/mcp" for name, port in ports.items()}
    urls["ev"] = f"http://127.0.0.1:{ports['ev']}/sse"
    with (
        http_process([*basic, "--port", str(ports["beta"])], urls["beta"], logs / "beta.log"),
        http_process([*control, "--port", str(ports["delta"])], urls["delta"], logs / "delta.log"),
        http_process(
            [str(NODE), str(EVERYTHING_JS), "sse"],
            f"http://127.0.0.1:{ports['ev']}/",
            logs / "ev.log",
            PORT=str(ports["ev"]),
            NODE_OPTIONS=f"--require {TOOLS / 'loopback.cjs'}",
        ),
    ):
        yield urls


@dataclass
class Front:
    """One gateway front end; `client()` opens an `mcp` Client on it."""

    kind: str
    config: Path
    url: str | None = None

    def client(self, mode: str, **kw: Any) -> Client:
        server: Any = self.url
        if self.kind == "stdio":
            server = StdioServerParameters(
                command=MANIFOLD, args=["run", "--config", str(self.config)], env=support.test_env()
            )
        return Client(server, mode=mode, cache=None, **kw)


@pytest.fixture(params=["stdio", "http"])
def front(
    request: pytest.FixtureRequest, tmp_path: Path, upstream_urls: dict[str, str]
) -> Iterator[Front]:
    config = write_config(
        tmp_path / "manifold.yaml",
        {
            "alpha": stdio_upstream("basic_server.py", "--name", "alpha"),
            "beta": {"url": upstream_urls["beta"]},
            "ev": {"url": upstream_urls["ev"]},
            "gamma": stdio_upstream("control_server.py", "--name", "gamma"),
            "delta": {"url": upstream_urls["delta"]},
        },
        page_size=PAGE_SIZE,
    )
    if request.param == "stdio":
        yield Front("stdio", config)
    else:
        with gateway_http(config, tmp_path / "gateway.log") as url:
            yield Front("http", config, url)


# ------------------------------------------------------------------------------------------
# helpers


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def walk(
    fetch: Callable[[str | None], Awaitable[Any]], field: str
) -> tuple[list[list[Any]], list[str]]:
    """Every page of a list: (pages of items, the cursors that led to pages 2..n)."""
    pages: list[list[Any]] = []
    cursors: list[str] = []
    cursor: str | None = None
    for _ in range(200):
        page = await fetch(cursor)
        pages.append(list(getattr(page, field)))
        cursor = page.next_cursor
        if cursor is None:
            return pages, cursors
        cursors.append(cursor)
    raise AssertionError(f"{field} list never ended")


async def tool_names(client: Client) -> set[str]:
    pages, _ = await walk(lambda c: client.list_tools(cursor=c), "tools")
    return {t.name for page in pages for t in page}


async def wait_for_tools(client: Client, *wanted: str, timeout: float = 30.0) -> set[str]:
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


async def ready(client: Client) -> None:
    """Wait until server-everything's late (capability-dependent) tools are listed."""
    await wait_for_tools(client, "ev__trigger-sampling-request", "alpha__echo", "delta__slow")


def key_of(kind: str, item: Any) -> str:
    if kind == "resources":
        return str(item.uri)
    if kind == "templates":
        return str(item.uri_template)
    return str(item.name)


def tampered(cursor: str) -> str:
    i = len(cursor) // 2
    return cursor[:i] + ("A" if cursor[i] != "A" else "B") + cursor[i + 1 :]


class Collector:
    """A message_handler that keeps server notifications and lets a test wait for one."""

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self._changed = asyncio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, Exception):
            return
        self.seen.append(message)
        self._changed.set()

    async def wait_for(
        self, pred: Callable[[Any], bool], start: int = 0, timeout: float = 15.0
    ) -> tuple[int, Any]:
        """The first matching notification at index `start` or later, and its index."""
        async with asyncio.timeout(timeout):
            while True:
                for i in range(start, len(self.seen)):
                    if pred(self.seen[i]):
                        return i, self.seen[i]
                self._changed.clear()
                await self._changed.wait()


async def next_event(sub: Any, kind: type, timeout: float = 15.0) -> Any:
    async with asyncio.timeout(timeout):
        async for event in sub:
            if isinstance(event, kind):
                return event
    raise AssertionError(f"the listen stream ended before a {kind.__name__} event")


class Gate:
    """Holds each arriving callback until `n` have arrived (bounded), so calls overlap."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.arrived = 0
        self._all = asyncio.Event()

    async def arrive(self) -> None:
        self.arrived += 1
        if self.arrived >= self.n:
            self._all.set()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(10):
                await self._all.wait()


# ------------------------------------------------------------------------------------------
# names, pagination, routing


async def test_prefixed_names_and_merged_pagination(
    front: Front, upstream_urls: dict[str, str]
) -> None:
    expected = await expected_lists(upstream_urls)
    assert {"beta__echo", "alpha__echo", "gamma__slow", "alpha://greeting"} <= set().union(
        *expected.values()
    )
    for mode in MODES:
        async with asyncio.timeout(90), front.client(mode) as c:
            await ready(c)
            lists: dict[str, tuple[Callable[[str | None], Awaitable[Any]], str]] = {
                "tools": (lambda cur: c.list_tools(cursor=cur), "tools"),
                "prompts": (lambda cur: c.list_prompts(cursor=cur), "prompts"),
                "resources": (lambda cur: c.list_resources(cursor=cur), "resources"),
                "templates": (
                    lambda cur: c.list_resource_templates(cursor=cur),
                    "resource_templates",
                ),
            }
            first_cursor: dict[str, str] = {}
            for kind, (fetch, field) in lists.items():
                pages, cursors = await walk(fetch, field)
                assert all(len(p) == PAGE_SIZE for p in pages[:-1]), (kind, pages)
                assert 1 <= len(pages[-1]) <= PAGE_SIZE
                key_pages = [[key_of(kind, x) for x in page] for page in pages]
                keys = [k for page in key_pages for k in page]
                assert len(keys) == len(set(keys)), f"{kind}: duplicates across pages"
                assert set(keys) == expected[kind], (mode, kind)
                # The gateway's cursors, not an upstream's: opaque, and pages run across
                # upstream boundaries.
                first_cursor[kind] = cursors[0]
                owners = [{k.split("__")[0].split(":")[0] for k in page} for page in key_pages]
                assert any(len(o) > 1 for o in owners), (kind, owners)

            # One kind's cursor is no good for another, and a tampered or made-up one is refused.
            for bad in (
                tampered(first_cursor["tools"]),
                first_cursor["prompts"],
                "bm90LWEtY3Vyc29y",
            ):
                with pytest.raises(MCPError) as err:
                    await c.list_tools(cursor=bad)
                assert err.value.code == types.INVALID_PARAMS, (mode, bad, err.value)


async def test_calls_reads_prompts_and_completion_reach_their_owner(front: Front) -> None:
    for mode in MODES:
        async with asyncio.timeout(90), front.client(mode) as c:
            await ready(c)
            # tools
            for up in ("alpha", "beta"):
                assert text_of(await c.call_tool(f"{up}__echo", {"text": "hi"})) == f"{up}:hi"
            assert text_of(await c.call_tool("ev__echo", {"message": "hi"})) == "Echo: hi"
            res = await c.call_tool("ev__get-sum", {"a": 20, "b": 22})
            assert text_of(res) == "The sum of 20 and 22 is 42."
            res = await c.call_tool("alpha__add", {"a": 20, "b": 22})
            assert res.structured_content == {"result": 42}
            assert "delta finished" in text_of(
                await c.call_tool("delta__slow", {"seconds": 0, "tag": f"route-{mode}"})
            )
            with pytest.raises(MCPError) as err:
                await c.call_tool("nobody__echo", {"text": "x"})
            assert err.value.code == types.INVALID_PARAMS

            # resources: exact URIs, templated URIs, per owner
            for up in ("alpha", "beta"):
                read = await c.read_resource(f"{up}://greeting")
                assert isinstance(read.contents[0], types.TextResourceContents)
                assert read.contents[0].text == f"hello from {up}"
                read = await c.read_resource(f"{up}://item/42")
                assert isinstance(read.contents[0], types.TextResourceContents)
                assert read.contents[0].text == f"{up} item 42"
            read = await c.read_resource("demo://resource/dynamic/text/5")
            assert isinstance(read.contents[0], types.TextResourceContents)
            assert read.contents[0].text.startswith("Resource 5: This is a plaintext resource")
            read = await c.read_resource(f"demo://resource/static/document/{EV_DOCS[0]}")
            assert isinstance(read.contents[0], types.TextResourceContents)
            assert read.contents[0].text

            # prompts
            for up in ("alpha", "beta"):
                got = await c.get_prompt(f"{up}__review", {"code": "x = 1"})
                msg = got.messages[0].content
                assert isinstance(msg, types.TextContent)
                assert msg.text == f"[{up}] Please review:\nx = 1"
            got = await c.get_prompt("ev__args-prompt", {"city": "Porto"})
            msg = got.messages[0].content
            assert isinstance(msg, types.TextContent) and msg.text == "What's weather in Porto?"

            # completion: prompt arguments (with context) and resource template variables
            prompt = types.PromptReference(type="ref/prompt", name="ev__completable-prompt")
            done = await c.complete(prompt, {"name": "department", "value": "Eng"})
            assert done.completion.values == ["Engineering"]
            done = await c.complete(
                prompt, {"name": "name", "value": ""}, context_arguments={"department": "Sales"}
            )
            assert done.completion.values == ["David", "Eve", "Frank"]
            template = types.ResourceTemplateReference(
                type="ref/resource", uri="demo://resource/dynamic/text/{resourceId}"
            )
            done = await c.complete(template, {"name": "resourceId", "value": "12"})
            assert done.completion.values == ["12"]


# ------------------------------------------------------------------------------------------
# notifications: list changes, resource updates, progress


async def test_tool_list_change_fans_out(front: Front) -> None:
    if front.kind == "stdio":
        # One client per gateway process: each era gets its own gateway (and its own gamma).
        for mode in MODES:
            tool = f"sprout_{mode[0]}"
            async with asyncio.timeout(90):
                await _grow_and_watch(front, [mode], tool)
    else:
        # Two legacy sessions and one modern listener on one gateway: all of them hear it.
        async with asyncio.timeout(90):
            await _grow_and_watch(front, ["legacy", "legacy", MODERN], "sprout")


async def _grow_and_watch(front: Front, modes: list[str], tool: str) -> None:
    async with contextlib.AsyncExitStack() as stack:
        clients: list[tuple[Client, Collector | None, Any]] = []
        for mode in modes:
            collector = Collector() if mode == "legacy" else None
            c = await stack.enter_async_context(front.client(mode, message_handler=collector))
            await ready(c)
            sub = None
            if mode == MODERN:
                sub = await stack.enter_async_context(c.listen(tools_list_changed=True))
                assert sub.honored is not None and sub.honored.tools_list_changed
            clients.append((c, collector, sub))

        marks = [len(collector.seen) if collector else 0 for _, collector, _ in clients]
        caller = clients[0][0]
        assert text_of(await caller.call_tool("gamma__grow", {"tool": tool})) == (
            f"gamma added {tool}"
        )
        # Each client hears a tools list_changed after which the new tool is listed. (Other
        # upstreams may announce changes of their own meanwhile: those are skipped.)
        for (c, collector, sub), mark in zip(clients, marks, strict=True):
            async with asyncio.timeout(20):
                while True:
                    if collector is not None:
                        i, _ = await collector.wait_for(
                            lambda m: isinstance(m, types.ToolListChangedNotification), mark
                        )
                        mark = i + 1
                    else:
                        await next_event(sub, ToolsListChanged)
                    if f"gamma__{tool}" in await tool_names(c):
                        break
            res = await c.call_tool(f"gamma__{tool}", {})
            assert text_of(res) == f"gamma grew {tool}"


async def test_resource_subscription_updates(front: Front) -> None:
    uri = "demo://resource/dynamic/text/3"
    if front.kind == "stdio":
        for mode in MODES:
            async with asyncio.timeout(90):
                await _subscribe_and_watch(front, [mode], uri)
    else:
        async with asyncio.timeout(90):
            await _subscribe_and_watch(front, ["legacy", MODERN], uri, bystander=True)


async def _subscribe_and_watch(
    front: Front, modes: list[str], uri: str, bystander: bool = False
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        watchers: list[tuple[Collector | None, Any]] = []
        for mode in modes:
            collector = Collector() if mode == "legacy" else None
            c = await stack.enter_async_context(front.client(mode, message_handler=collector))
            await ready(c)
            if mode == "legacy":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await c.session.subscribe_resource(uri)
                watchers.append((collector, None))
            else:
                sub = await stack.enter_async_context(c.listen(resource_subscriptions=[uri]))
                assert sub.honored is not None and sub.honored.resource_subscriptions == [uri]
                watchers.append((None, sub))
        idle = None
        if bystander:  # a session that did not subscribe hears nothing
            idle = Collector()
            await stack.enter_async_context(front.client("legacy", message_handler=idle))

        # server-everything sends an update for each subscribed URI when this is switched on.
        await c.call_tool("ev__toggle-subscriber-updates", {})
        for collector, sub in watchers:
            if collector is not None:
                _, got = await collector.wait_for(
                    lambda m: isinstance(m, types.ResourceUpdatedNotification)
                )
                assert str(got.params.uri) == uri
            else:
                event = await next_event(sub, ResourceUpdated)
                assert event.uri == uri
        if idle is not None:
            await asyncio.sleep(0.5)
            assert not [m for m in idle.seen if isinstance(m, types.ResourceUpdatedNotification)]


def progress_recorder() -> tuple[list[tuple[float, float | None]], Any]:
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, _message: str | None) -> None:
        seen.append((progress, total))

    return seen, on_progress


async def test_progress_reaches_its_caller(front: Front) -> None:
    if front.kind == "stdio":
        # Concurrent calls of one client, on three upstreams of three transports.
        for mode in MODES:
            async with asyncio.timeout(90), front.client(mode) as c:
                await ready(c)
                a, on_a = progress_recorder()
                b, on_b = progress_recorder()
                e, on_e = progress_recorder()
                await asyncio.gather(
                    c.call_tool("alpha__progress", {"steps": 4}, progress_callback=on_a),
                    c.call_tool("beta__progress", {"steps": 2}, progress_callback=on_b),
                    c.call_tool(
                        "ev__trigger-long-running-operation",
                        {"duration": 0.6, "steps": 3},
                        progress_callback=on_e,
                    ),
                )
                assert a == [(i, 4) for i in range(1, 5)]
                assert b == [(i, 2) for i in range(1, 3)]
                assert e == [(i, 3) for i in range(1, 4)]
    else:
        # Two clients (one per era) calling the same upstream tools at the same time.
        async with asyncio.timeout(90), front.client("legacy") as c1, front.client(MODERN) as c2:
            await ready(c1)
            await ready(c2)
            seen = [progress_recorder() for _ in range(4)]
            await asyncio.gather(
                c1.call_tool("alpha__progress", {"steps": 3}, progress_callback=seen[0][1]),
                c2.call_tool("alpha__progress", {"steps": 5}, progress_callback=seen[1][1]),
                c1.call_tool(
                    "ev__trigger-long-running-operation",
                    {"duration": 0.6, "steps": 2},
                    progress_callback=seen[2][1],
                ),
                c2.call_tool(
                    "ev__trigger-long-running-operation",
                    {"duration": 0.6, "steps": 4},
                    progress_callback=seen[3][1],
                ),
            )
            assert seen[0][0] == [(i, 3) for i in range(1, 4)]
            assert seen[1][0] == [(i, 5) for i in range(1, 6)]
            assert seen[2][0] == [(i, 2) for i in range(1, 3)]
            assert seen[3][0] == [(i, 4) for i in range(1, 5)]


# ------------------------------------------------------------------------------------------
# cancellation


async def recorded(c: Client, upstream: str, what: str, tag: str) -> bool:
    """Whether `upstream` says a `slow` call tagged `tag` was `what` (started, cancelled)."""
    res = await c.call_tool(f"{upstream}__{what}", {"tag": tag})
    assert not res.is_error and text_of(res) in ("yes", "no"), f"{upstream}__{what}: {res}"
    return text_of(res) == "yes"


async def wait_recorded(c: Client, upstream: str, what: str, tag: str) -> None:
    async with asyncio.timeout(15):
        while True:
            if await recorded(c, upstream, what, tag):
                return
            await asyncio.sleep(0.1)


async def test_cancellation_reaches_the_right_upstream(front: Front) -> None:
    for mode in MODES:
        async with asyncio.timeout(90), front.client(mode) as c:
            await ready(c)
            # Cancel the call on one upstream while a call on the other carries on; then the
            # other way round (gamma is stdio, delta is Streamable HTTP).
            for victim, bystander in (("gamma", "delta"), ("delta", "gamma")):
                cut = f"cut-{mode}-{uuid.uuid4().hex[:8]}"
                kept = f"kept-{mode}-{uuid.uuid4().hex[:8]}"
                doomed = asyncio.ensure_future(
                    c.call_tool(f"{victim}__slow", {"seconds": 60, "tag": cut})
                )
                survivor = asyncio.ensure_future(
                    c.call_tool(f"{bystander}__slow", {"seconds": 1.5, "tag": kept})
                )
                await wait_recorded(c, victim, "started", cut)
                await wait_recorded(c, bystander, "started", kept)
                doomed.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await doomed
                await wait_recorded(c, victim, "cancelled", cut)
                assert text_of(await survivor) == f"{bystander} finished {kept}"
                assert not await recorded(c, bystander, "cancelled", kept)
                assert not await recorded(c, bystander, "started", cut)
                assert not await recorded(c, victim, "started", kept)


# ------------------------------------------------------------------------------------------
# server-to-client requests go back to the client that caused them


@pytest.fixture(scope="module")
def interactive_gateway(
    tmp_path_factory: pytest.TempPathFactory, upstream_urls: dict[str, str]
) -> Iterator[str]:
    """`manifold serve` in front of three upstreams whose tools ask the client for input:
    gamma (stdio) and delta (HTTP) answer MRTR `input_required`; evh (server-everything over
    Streamable HTTP, legacy) sends real requests on the call's own stream."""
    logs = tmp_path_factory.mktemp("interactive")
    port = free_port()
    with http_process(
        [str(NODE), str(EVERYTHING_JS), "streamableHttp"],
        f"http://127.0.0.1:{port}/",
        logs / "evh.log",
        PORT=str(port),
        NODE_OPTIONS=f"--require {TOOLS / 'loopback.cjs'}",
    ):
        config = write_config(
            logs / "manifold.yaml",
            {
                "gamma": stdio_upstream("control_server.py", "--name", "gamma"),
                "delta": {"url": upstream_urls["delta"]},
                "evh": {"url": f"http://127.0.0.1:{port}/mcp"},
            },
        )
        with gateway_http(config, logs / "gateway.log") as url:
            yield url


@pytest.mark.parametrize("modes", [("legacy", "legacy"), (MODERN, MODERN), ("legacy", MODERN)])
async def test_sampling_and_elicitation_go_back_to_their_client(
    interactive_gateway: str, modes: tuple[str, str]
) -> None:
    """Two clients on one `manifold serve` call the same interactive tool at the same time;
    each client's own callback must answer its own call (the callbacks wait for each other, so
    both requests are open at once)."""
    asked: dict[str, list[str]] = {"one": [], "two": []}
    gates = [Gate(2)]  # a fresh one per round

    def callbacks(who: str, accept: bool) -> dict[str, Any]:
        async def sampling(
            _ctx: ClientRequestContext, params: types.CreateMessageRequestParams
        ) -> types.CreateMessageResult:
            content = params.messages[0].content
            asked[who].append(content.text if isinstance(content, types.TextContent) else "?")
            await gates[-1].arrive()
            return types.CreateMessageResult(
                role="assistant",
                content=types.TextContent(type="text", text=f"answer for {who}"),
                model="test",
            )

        async def elicitation(
            _ctx: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            asked[who].append(params.message)
            await gates[-1].arrive()
            if accept:
                return types.ElicitResult(action="accept", content={"ok": True})
            return types.ElicitResult(action="decline")

        return {"sampling_callback": sampling, "elicitation_callback": elicitation}

    async def both(tool: str, args1: dict[str, Any], args2: dict[str, Any]) -> tuple[str, str]:
        for who in asked:
            asked[who].clear()
        gates.append(Gate(2))
        r1, r2 = await asyncio.gather(c1.call_tool(tool, args1), c2.call_tool(tool, args2))
        assert not r1.is_error and not r2.is_error, (r1, r2)
        return text_of(r1), text_of(r2)

    async with (
        asyncio.timeout(150),
        Client(interactive_gateway, mode=modes[0], cache=None, **callbacks("one", True)) as c1,
        Client(interactive_gateway, mode=modes[1], cache=None, **callbacks("two", False)) as c2,
    ):
        await wait_for_tools(c1, "gamma__ask", "delta__ask", "evh__trigger-sampling-request")
        await wait_for_tools(c2, "evh__trigger-elicitation-request")
        for up in ("gamma", "delta"):
            t1, t2 = await both(
                f"{up}__ask", {"question": f"{up} q one"}, {"question": f"{up} q two"}
            )
            assert asked == {"one": [f"{up} q one"], "two": [f"{up} q two"]}
            assert (t1, t2) == (f"{up} got: answer for one", f"{up} got: answer for two")

            t1, t2 = await both(
                f"{up}__confirm", {"message": f"{up} sure, one?"}, {"message": f"{up} sure, two?"}
            )
            assert asked == {"one": [f"{up} sure, one?"], "two": [f"{up} sure, two?"]}
            assert (t1, t2) == (f"{up} accept:{{'ok': True}}", f"{up} decline:None")

        prefix = "Resource trigger-sampling-request context: "
        t1, t2 = await both(
            "evh__trigger-sampling-request", {"prompt": "evh one"}, {"prompt": "evh two"}
        )
        assert asked == {"one": [prefix + "evh one"], "two": [prefix + "evh two"]}
        assert '"text": "answer for one"' in t1 and '"text": "answer for two"' in t2

        t1, t2 = await both("evh__trigger-elicitation-request", {}, {})
        assert len(asked["one"]) == 1 and len(asked["two"]) == 1, asked
        assert "User provided the requested information" in t1
        assert "User declined to provide the requested information" in t2


@pytest.mark.parametrize("modes", [("legacy", "legacy"), (MODERN, MODERN), ("legacy", MODERN)])
async def test_unlinkable_server_request_never_reaches_another_client(
    tmp_path: Path, modes: tuple[str, str]
) -> None:
    """A legacy stdio (or HTTP+SSE) upstream's sampling request names no call. With only one
    call waiting it is that call's; with calls of two clients waiting, the gateway cannot know
    whose it is, and must not show one client's question to the other."""
    config = write_config(tmp_path / "manifold.yaml", {"old": stdio_upstream("legacy_server.py")})
    asked: dict[str, list[str]] = {"one": [], "two": []}

    def sampling(who: str) -> Any:
        return recording_sampler(asked, who)

    with gateway_http(config, tmp_path / "gateway.log") as url:
        async with (
            asyncio.timeout(60),
            Client(url, mode=modes[0], cache=None, sampling_callback=sampling("one")) as c1,
            Client(url, mode=modes[1], cache=None, sampling_callback=sampling("two")) as c2,
        ):
            # Alone, a call's request reaches its own client.
            res = await c1.call_tool("old__ask_later", {"question": "one alone"})
            assert text_of(res) == "old got: answer for one" and asked["one"] == ["one alone"]
            asked["one"].clear()

            # Both calls are waiting when the first request arrives.
            first = asyncio.ensure_future(
                c1.call_tool("old__ask_later", {"question": "one's secret", "delay": 1.0})
            )
            await asyncio.sleep(0.3)
            second = asyncio.ensure_future(
                c2.call_tool("old__ask_later", {"question": "two's secret", "delay": 1.0})
            )
            r1, r2 = await asyncio.gather(first, second)
            assert "two's secret" not in asked["one"], asked
            assert "one's secret" not in asked["two"], asked
            assert r1.is_error or text_of(r1) == "old got: answer for one", r1
            # By the time the second request arrives only its own call is waiting.
            assert text_of(r2) == "old got: answer for two", r2
