"""Hooks: where a module plugs into the messages the gateway relays.

An *addon* is any object; it takes part in a kind of message by defining the method of that
kind's name (in the spirit of mitmproxy's addons). Five kinds, each typed:

- `call(ctx, call_next)`: a routed request (`tools/call`, `prompts/get`, `resources/read`,
  `completion/complete`) on its way to an upstream, and its answer on the way back. The
  pipeline: addons run in order going out and in reverse coming back.
- `catalog(event) -> items`: an upstream's list (tools, prompts, resources, templates) arriving,
  before it is merged. Returns the items to keep: it may rewrite or hide them.
- `listing(event) -> items`: a list about to be answered to one client (principal, client name,
  era). Returns what that client may see.
- `server_request(ctx, call_next)`: a server-to-client request (sampling, elicitation, roots)
  on its way to a client, and the client's answer coming back.
- `notification(event) -> params | None`: progress, log messages, list changes and resource
  updates on their way to a client. Returns the params to send, or None to drop the message.
- `refused(event)`: a call refused before it could be routed (a tool or prompt name that routes
  nowhere); it never reaches the `call` hooks. For the record (the audit log), not to change.

`Hooks.build(addons)` collects the implementations once, in the given order (the order and the
set come from the config, in `manifold.addons`). A kind nobody implements costs nothing per
message: its runner is `None` and the caller skips it, or the call chain is its terminal.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from manifold.pipeline import CallContext, CallNext, Middleware, compose
from manifold.protocol.eras import Era

HOOK_KINDS = ("call", "catalog", "listing", "server_request", "notification", "refused")

Items = list[dict[str, Any]]


@dataclass(slots=True)
class CatalogEvent:
    """One upstream's list of one kind, as it arrived (after the upstream's own filters)."""

    upstream: str
    kind: str  # tools | prompts | resources | resourceTemplates | instructions (one item)
    items: Items


@dataclass(slots=True)
class ListingEvent:
    """A list (one kind, merged and namespaced) about to be answered to one client."""

    kind: str
    items: Items
    principal: str = ""
    client_name: str | None = None
    era: Era = Era.LEGACY
    session_key: str = ""


@dataclass(slots=True)
class ServerRequestContext:
    """A server-to-client request on its way to the client that caused it."""

    method: str  # sampling/createMessage | elicitation/create | roots/list
    params: dict[str, Any]
    upstream: str = ""
    principal: str = ""
    client_name: str | None = None
    era: Era = Era.LEGACY  # the client's


@dataclass(slots=True)
class NotificationEvent:
    """A notification on its way to a client (or to every client that asked for it)."""

    method: str  # notifications/progress | /message | /<kind>/list_changed | /resources/updated
    params: dict[str, Any]
    upstream: str = ""
    principal: str = ""  # "" when it goes to every client (list changes, server-wide logs)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class RefusedEvent:
    """A call the dispatcher refused before routing it (an unknown tool or prompt name)."""

    method: str  # tools/call | prompts/get
    target: str  # the name the client used
    arguments: Any
    code: int
    message: str
    principal: str = ""
    client_name: str | None = None
    session_key: str = ""
    subject: str = ""  # who within the principal (a key's name, a token's sub)


ServerRequestNext = Callable[[ServerRequestContext], Awaitable[dict[str, Any]]]


class Addon(Protocol):
    """Documentation only: an addon defines any subset of these methods."""

    async def call(self, ctx: CallContext, call_next: CallNext) -> Any: ...
    def catalog(self, event: CatalogEvent) -> Items: ...
    def listing(self, event: ListingEvent) -> Items: ...
    async def server_request(
        self, ctx: ServerRequestContext, call_next: ServerRequestNext
    ) -> dict[str, Any]: ...
    def notification(self, event: NotificationEvent) -> dict[str, Any] | None: ...
    def refused(self, event: RefusedEvent) -> None: ...


def _impls(addons: Iterable[object], kind: str) -> list[Any]:
    return [getattr(a, kind) for a in addons if callable(getattr(a, kind, None))]


class Hooks:
    """The implementations of each hook kind, in order. Build once; read per message."""

    __slots__ = (
        "addons",
        "aliases",
        "calls",
        "catalogs",
        "listings",
        "notifications",
        "refusals",
        "server_requests",
    )

    def __init__(self, addons: Sequence[object] = ()) -> None:
        self.addons = list(addons)
        self.calls: list[Middleware] = _impls(self.addons, "call")
        self.catalogs: list[Callable[[CatalogEvent], Items]] = _impls(self.addons, "catalog")
        self.listings: list[Callable[[ListingEvent], Items]] = _impls(self.addons, "listing")
        self.server_requests: list[
            Callable[[ServerRequestContext, ServerRequestNext], Awaitable[dict[str, Any]]]
        ] = _impls(self.addons, "server_request")
        self.notifications: list[Callable[[NotificationEvent], dict[str, Any] | None]] = _impls(
            self.addons, "notification"
        )
        # `alias(principal, kind, name) -> name`: a name a listing hook gave one principal, back
        # to the exposed one before routing (per-tenant renames). Not a kind of its own: an
        # addon with `listing` that renames defines it too.
        self.aliases: list[Callable[[str, str, str], str]] = _impls(self.addons, "alias")
        self.refusals: list[Callable[[RefusedEvent], None]] = _impls(self.addons, "refused")

    # --------------------------------------------------------------- calls

    def call_chain(self, terminal: CallNext) -> CallNext:
        """The pipeline around `terminal` (the terminal itself when no addon takes calls)."""
        return compose(self.calls, terminal)

    # --------------------------------------------------------------- lists

    def catalog(self, upstream: str, kind: str, items: Items) -> Items:
        if not self.catalogs:
            return items
        event = CatalogEvent(upstream, kind, items)
        for hook in self.catalogs:
            event.items = hook(event)
        return event.items

    @property
    def has_listing(self) -> bool:
        return bool(self.listings)

    def listing(self, event: ListingEvent) -> Items:
        for hook in self.listings:
            event.items = hook(event)
        return event.items

    def alias(self, principal: str, kind: str, name: str) -> str:
        for hook in reversed(self.aliases):
            name = hook(principal, kind, name)
        return name

    # --------------------------------------------------------------- side traffic

    @property
    def has_server_request(self) -> bool:
        return bool(self.server_requests)

    @property
    def fulfils_rounds(self) -> bool:
        """Whether a modern upstream's rounds (MRTR) must be fulfilled by the gateway: some
        addon takes server-to-client requests and does not also handle them in a relayed round
        (an addon that does says so with a true `sees_relayed_rounds` attribute)."""
        return any(
            not getattr(getattr(h, "__self__", None), "sees_relayed_rounds", False)
            for h in self.server_requests
        )

    async def server_request(
        self, ctx: ServerRequestContext, terminal: ServerRequestNext
    ) -> dict[str, Any]:
        handler = terminal
        for hook in reversed(self.server_requests):
            handler = _bind_sr(hook, handler)
        return await handler(ctx)

    @property
    def has_notification(self) -> bool:
        return bool(self.notifications)

    def notification(self, event: NotificationEvent) -> dict[str, Any] | None:
        """The params to send, or None when an addon dropped the message."""
        for hook in self.notifications:
            params = hook(event)
            if params is None:
                return None
            event.params = params
        return event.params

    # --------------------------------------------------------------- refusals before routing

    def refused(self, event: RefusedEvent) -> None:
        for hook in self.refusals:
            hook(event)


def _bind_sr(
    hook: Callable[[ServerRequestContext, ServerRequestNext], Awaitable[dict[str, Any]]],
    nxt: ServerRequestNext,
) -> ServerRequestNext:
    async def step(ctx: ServerRequestContext) -> dict[str, Any]:
        return await hook(ctx, nxt)

    return step


NO_HOOKS = Hooks()
