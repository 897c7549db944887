"""Helpers for middleware tests: a real Gateway (no upstream started), a real terminal, and
reading a stored result back through the real read_result tool."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import orjson

from manifold.catalog import Route
from manifold.config import GatewayConfig, ResponseConfig, StateConfig, UpstreamConfig
from manifold.economy.results import owner_of
from manifold.gateway import Gateway
from manifold.middleware.governor import Governor
from manifold.pipeline import CallContext, compose
from manifold.protocol.jsonrpc import Incoming

# resultType (added for a modern client) and the JSON-RPC envelope with an id of 24 characters.
ENVELOPE = len(b'{"jsonrpc":"2.0","id":,"result":}') + 24
RESERVE = len(b'"resultType":"complete",') + ENVELOPE


class Sink:
    log_level = None

    def progress(self, params: dict[str, Any]) -> None: ...

    def log(self, params: dict[str, Any]) -> None: ...

    async def server_request(
        self, method: str, params: dict[str, Any], key: str | None = None
    ) -> dict[str, Any]:
        return {}


def gateway(**response: Any) -> Gateway:
    cfg = GatewayConfig(
        response=ResponseConfig(**response),
        state=StateConfig(path=""),
        upstreams={"up": UpstreamConfig(command="never-started")},
    )

    async def passthrough(ctx: CallContext, call_next: Any) -> Incoming:
        return await call_next(ctx)  # type: ignore[no-any-return]

    return Gateway(cfg, middleware=[passthrough])


OWNER = owner_of("", "")  # who `ctx()` calls as (no principal, no subject)


def ctx(
    tool: str = "t",
    session: str = "s1",
    fields: list[str] | None = None,
    upstream: str = "up",
    method: str = "tools/call",
) -> CallContext:
    c = CallContext(
        method, {"name": tool}, Route(upstream, tool), f"{upstream}__{tool}", Sink(), None
    )
    c.session_key = session
    c.fields = fields
    return c


def text_result(text: str, **extra: Any) -> bytes:
    return orjson.dumps({"content": [{"type": "text", "text": text}], **extra})


Handler = Callable[[CallContext], Awaitable[Incoming]]


def governed(gw: Gateway, raw: bytes | Callable[[], bytes]) -> tuple[Governor, Handler, list[int]]:
    """A governor around a terminal answering `raw`; the list counts terminal calls."""
    gov = Governor(gw)
    calls: list[int] = []

    async def terminal(c: CallContext) -> Incoming:
        calls.append(1)
        body = raw() if callable(raw) else raw
        return Incoming(result=msgspec.Raw(body))

    return gov, compose([gov], terminal), calls


def read_all(gw: Gateway, rid: str, session: str = "s1") -> tuple[str, list[bytes]]:
    """The stored text read back page by page with read_result (by the caller of `ctx()`, in
    `session`), and each page's result."""
    parts: list[str] = []
    frames: list[bytes] = []
    page, pages = 1, None
    while True:
        res = gw.local_tools.read_result(ctx(session=session), {"id": rid, "page": page})
        frame = bytes(res.result)
        frames.append(frame)
        obj = orjson.loads(frame)
        assert obj["isError"] is False, obj
        text = obj["content"][0]["text"]
        if pages is None:
            stored = gw.results.page(rid, 1, OWNER, session) if gw.results else None
            assert stored is not None
            pages = stored.pages
        if page < pages:
            more = f"\n[page {page}/{pages}; read_result(id={rid!r}, page={page + 1}) for more]"
            assert text.endswith(more)
            parts.append(text[: -len(more)])
            page += 1
        else:
            parts.append(text)
            return "".join(parts), frames
