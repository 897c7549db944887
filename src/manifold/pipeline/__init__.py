"""The call pipeline: a typed context and `(ctx, call_next)` middleware composed around a terminal.

Middleware run in config order on the way to the upstream and in reverse on the way back. An
empty chain costs nothing: the terminal is called directly.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from manifold.catalog import Route
from manifold.protocol.eras import Era
from manifold.protocol.jsonrpc import Incoming
from manifold.upstream.session import CallSink

if TYPE_CHECKING:
    from manifold.credentials.client_token import ClientToken


@dataclass(slots=True)
class CallContext:
    """One routed request on its way to an upstream."""

    method: str  # tools/call, prompts/get, resources/read, completion/complete, ...
    params: dict[str, Any]  # as the upstream will see them (its own names)
    route: Route
    exposed: str  # the name or URI the client used
    sink: CallSink
    client_caps: dict[str, Any] | None  # a modern client's declared capabilities
    client_name: str | None = None
    session_key: str = ""  # which client session (for per-session state such as dedup)
    fields: list[str] | None = None  # fields the model asked for (invoke_tool projection)
    principal: str = ""  # who is calling (a tenant or token subject; "" when unauthenticated)
    era: Era | None = None  # the upstream's protocol era (None: not connected yet, or local)
    subject: str = ""  # who within the principal (a key's name, a token's sub; "" on stdio)
    replica: str = ""  # the replica of route.upstream that serves it ("": the upstream itself)
    # The client's validated access token, set only on a call to an upstream configured for
    # token exchange (the router trades it for the upstream's own); never in repr.
    client_token: ClientToken | None = field(default=None, repr=False)


CallNext = Callable[[CallContext], Awaitable[Incoming]]
Middleware = Callable[[CallContext, CallNext], Awaitable[Incoming]]


def compose(middleware: Sequence[Middleware], terminal: CallNext) -> CallNext:
    """Wrap `terminal` so that `middleware[0]` runs first."""
    handler = terminal
    for mw in reversed(middleware):
        handler = _bind(mw, handler)
    return handler


def _bind(mw: Middleware, nxt: CallNext) -> CallNext:
    # A plain function handing back the middleware's own awaitable: an `async def` here would
    # add a coroutine (made, stepped and unwound on every call) per middleware.
    def step(ctx: CallContext) -> Awaitable[Incoming]:
        return mw(ctx, nxt)

    return step
