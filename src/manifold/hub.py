"""The gateway's face to its clients between calls: what it says about itself (`ServerFace`:
server info, merged capabilities, instructions), and who hears what (`SubscriptionHub`: the
client sessions, modern `subscriptions/listen` streams, resource subscriptions reference-counted
across clients, and the fan-out of list changes, resource updates and log messages).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from manifold.config import GatewayConfig
from manifold.downstream.session import DownstreamSession, Send
from manifold.hooks import Hooks, NotificationEvent
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import LOG_LEVEL_RANK, META_SUBSCRIPTION_ID, Era
from manifold.upstream.supervisor import Upstream

_LISTEN_FLAG = {
    "tools": "toolsListChanged",
    "prompts": "promptsListChanged",
    "resources": "resourcesListChanged",
}


class ResourceRoutes(Protocol):
    """What the hub needs of the catalog: which upstream owns a resource URI."""

    def route_resource(self, uri: str) -> str | None: ...


class ServerFace:
    """What the gateway tells clients about itself, merged from its upstreams."""

    def __init__(
        self, config: GatewayConfig, upstreams: Mapping[str, Upstream], version: str
    ) -> None:
        self.config = config
        self.upstreams = upstreams
        self.server_info = {
            "name": config.name,
            "title": "Manifold MCP gateway",
            "version": version,
        }

    def capabilities(self, era: Era) -> dict[str, Any]:
        caps: dict[str, Any] = {"tools": {"listChanged": True}}
        ups = [
            u.session.description
            for u in self.upstreams.values()
            if u.session and u.session.description
        ]
        if any("prompts" in d.capabilities for d in ups):
            caps["prompts"] = {"listChanged": True}
        if any("resources" in d.capabilities for d in ups):
            caps["resources"] = {"listChanged": True, "subscribe": True}
        if any("completions" in d.capabilities for d in ups):
            caps["completions"] = {}
        if era is Era.LEGACY and any("logging" in d.capabilities for d in ups):
            caps["logging"] = {}
        return caps

    def instructions(self) -> str | None:
        parts = []
        for name, u in self.upstreams.items():
            d = u.session.description if u.session else None
            if d and d.instructions:
                parts.append(f"[{name}] {d.instructions}")
        if self.config.instructions:
            parts.insert(0, self.config.instructions)
        return "\n\n".join(parts) or None


@dataclass(eq=False)
class Listener:
    """A modern client's open `subscriptions/listen` stream."""

    session: DownstreamSession
    id: Any
    wanted: dict[str, Any]
    out: Send
    done: asyncio.Future[None]

    def send(self, method: str, params: dict[str, Any]) -> None:
        meta = {**params.get("_meta", {}), META_SUBSCRIPTION_ID: self.id}
        self.out(rpc.encode_notification(method, {**params, "_meta": meta}))


class SubscriptionHub:
    """Client sessions and listen streams, resource subscriptions, and the fan-out to them."""

    def __init__(
        self,
        routes: ResourceRoutes,
        upstreams: Mapping[str, Upstream],
        hooks: Hooks,
        face: ServerFace,
        max_subscriptions: int = 1000,
        instances: Mapping[str, Sequence[Upstream]] | None = None,
    ) -> None:
        self.routes = routes
        self.upstreams = upstreams
        # Every instance of an upstream with replicas (the upstream itself first): resource
        # subscriptions and log levels go to each one that is up (docs/resilience.md).
        self.instances = instances or {}
        self.hooks = hooks
        self.face = face
        self.max_subscriptions = max_subscriptions  # per client session or listen stream
        self.sessions: set[DownstreamSession] = set()
        self.listeners: set[Listener] = set()
        self._subs: dict[str, set[object]] = {}

    def close(self) -> None:
        for listener in list(self.listeners):
            if not listener.done.done():
                listener.done.set_result(None)

    # ----------------------------------------------------------------- fan-out

    def _hooked(self, method: str, params: dict[str, Any], upstream: str) -> dict[str, Any] | None:
        """A notification for every client that asked, through the notification hooks."""
        if not self.hooks.has_notification:
            return params
        return self.hooks.notification(NotificationEvent(method, params, upstream))

    def resource_updated(self, upstream: str, params: dict[str, Any]) -> None:
        uri = params.get("uri")
        hooked = self._hooked("notifications/resources/updated", params, upstream)
        if hooked is None:
            return
        clean = {k: v for k, v in hooked.items() if k != "_meta"}
        for s in self.sessions:
            if uri in s.subscriptions and s.send is not None:
                s.send(rpc.encode_notification("notifications/resources/updated", clean))
        for listener in self.listeners:
            if uri in (listener.wanted.get("resourceSubscriptions") or []):
                listener.send("notifications/resources/updated", clean)

    def log(self, upstream: str, params: dict[str, Any]) -> None:
        if self.hooks.has_notification:
            self._log_hooked(upstream, params)
            return
        level = LOG_LEVEL_RANK.get(str(params.get("level")), 0)
        frame = rpc.encode_notification("notifications/message", params)
        for s in self.sessions:
            if (
                s.send is not None
                and s.log_level is not None
                and level >= LOG_LEVEL_RANK[s.log_level]
            ):
                s.send(frame)

    def _log_hooked(self, upstream: str, params: dict[str, Any]) -> None:
        """A log message of no call, through the hooks once per principal among the sessions
        that set a level: an addon (the tenants) may keep it from a principal."""
        frames: dict[str, tuple[int, bytes] | None] = {}
        for s in self.sessions:
            if s.send is None or s.log_level is None:
                continue
            if s.principal not in frames:
                event = NotificationEvent("notifications/message", params, upstream, s.principal)
                hooked = self.hooks.notification(event)
                frames[s.principal] = (
                    None
                    if hooked is None
                    else (
                        LOG_LEVEL_RANK.get(str(hooked.get("level")), 0),
                        rpc.encode_notification("notifications/message", hooked),
                    )
                )
            f = frames[s.principal]
            if f is not None and f[0] >= LOG_LEVEL_RANK[s.log_level]:
                s.send(f[1])

    def list_changed(self, kind: str) -> None:
        if self._hooked(f"notifications/{kind}/list_changed", {}, "") is None:
            return
        frame = rpc.encode_notification(f"notifications/{kind}/list_changed", None)
        for s in self.sessions:
            if s.handshake and s.send is not None:
                s.send(frame)
        flag = _LISTEN_FLAG[kind]
        for listener in self.listeners:
            if listener.wanted.get(flag):
                listener.send(f"notifications/{kind}/list_changed", {})

    # ----------------------------------------------------------------- subscriptions

    async def subscribe(self, who: object, uri: str) -> None:
        owner = self.routes.route_resource(uri)
        if owner is None:
            raise rpc.RpcError(
                rpc.RESOURCE_NOT_FOUND_LEGACY, f"Resource not found: {uri}", {"uri": uri}
            )
        if isinstance(who, DownstreamSession):
            if uri not in who.subscriptions and len(who.subscriptions) >= self.max_subscriptions:
                raise rpc.RpcError(
                    rpc.INVALID_PARAMS,
                    f"too many resource subscriptions for this session (max_subscriptions "
                    f"{self.max_subscriptions}): unsubscribe from some first",
                )
            who.subscriptions.add(uri)
        holders = self._subs.setdefault(uri, set())
        first = not holders
        holders.add(who)
        if first:
            await self._upstream_subscribe(owner, uri, True)

    async def unsubscribe(self, who: object, uri: str) -> None:
        if isinstance(who, DownstreamSession):
            who.subscriptions.discard(uri)
        holders = self._subs.get(uri)
        if not holders:
            return
        holders.discard(who)
        if not holders:
            del self._subs[uri]
            owner = self.routes.route_resource(uri)
            if owner is not None:
                await self._upstream_subscribe(owner, uri, False)

    async def drop_session(self, session: DownstreamSession) -> None:
        """A client session ended: its subscriptions end with it."""
        self.sessions.discard(session)
        for uri in list(session.subscriptions):
            with contextlib.suppress(rpc.RpcError, OSError, TimeoutError):
                await self.unsubscribe(session, uri)

    def _all(self, name: str) -> Sequence[Upstream]:
        return self.instances.get(name) or (self.upstreams[name],)

    async def _upstream_subscribe(self, owner: str, uri: str, on: bool) -> None:
        ups = self._all(owner)
        if len(ups) == 1:
            await self._subscribe_one(ups[0], owner, uri, on)
            return
        # Replicas: each one that is up (each sees only its own changes); none up: the first,
        # started, or its error.
        live = [u for u in ups if u.session is not None and u.session.alive] or [ups[0]]
        done, failure = False, None
        for up in live:
            try:
                await self._subscribe_one(up, owner, uri, on)
                done = True
            except (rpc.RpcError, OSError, TimeoutError) as e:
                failure = failure or e
        if not done and failure is not None:
            raise failure

    async def _subscribe_one(self, up: Upstream, owner: str, uri: str, on: bool) -> None:
        session = await up.ensure()
        if session.era is Era.MODERN:
            self._relisten_one(owner, up)
            return
        method = "resources/subscribe" if on else "resources/unsubscribe"
        await up.request(method, {"uri": uri})

    async def resubscribe(self, name: str, up: Upstream | None = None) -> None:
        """An upstream (or one replica, `up`) (re)connected: subscribe it again to what
        clients hold of it."""
        up = up or self.upstreams[name]
        for uri in list(self._subs):
            if self.routes.route_resource(uri) == name:
                with contextlib.suppress(rpc.RpcError, OSError, TimeoutError):
                    await self._subscribe_one(up, name, uri, True)

    def relisten(self, name: str) -> None:
        """Open (or renew) a modern upstream's listen streams for what clients want of it."""
        for up in self._all(name):
            self._relisten_one(name, up)

    def _relisten_one(self, name: str, up: Upstream) -> None:
        if up.session is None or up.session.description is None:
            return
        caps = up.session.description.capabilities
        wanted: dict[str, Any] = {}
        for kind, flag in _LISTEN_FLAG.items():
            if isinstance(caps.get(kind), dict) and caps[kind].get("listChanged"):
                wanted[flag] = True
        uris = [u for u in self._subs if self.routes.route_resource(u) == name]
        if uris:
            wanted["resourceSubscriptions"] = uris
        if wanted:
            up.session.listen(wanted)

    async def listen(
        self, session: DownstreamSession, rid: Any, wanted: dict[str, Any], out: Send
    ) -> dict[str, Any]:
        honoured: dict[str, Any] = {}
        caps = self.face.capabilities(Era.MODERN)
        for kind, flag in _LISTEN_FLAG.items():
            if wanted.get(flag) and kind in caps:
                honoured[flag] = True
        uris = wanted.get("resourceSubscriptions")
        if isinstance(uris, list) and "resources" in caps:
            honoured["resourceSubscriptions"] = [u for u in uris if isinstance(u, str)]
            if len(honoured["resourceSubscriptions"]) > self.max_subscriptions:
                raise rpc.RpcError(
                    rpc.INVALID_PARAMS,
                    f"too many resourceSubscriptions (max_subscriptions {self.max_subscriptions})",
                )
        listener = Listener(session, rid, honoured, out, asyncio.get_running_loop().create_future())
        listener.send("notifications/subscriptions/acknowledged", {"notifications": honoured})
        self.listeners.add(listener)
        for uri in honoured.get("resourceSubscriptions", []):
            with contextlib.suppress(rpc.RpcError):
                await self.subscribe(listener, uri)
        try:
            await listener.done
        finally:
            self.listeners.discard(listener)
            for uri in honoured.get("resourceSubscriptions", []):
                with contextlib.suppress(rpc.RpcError):
                    await self.unsubscribe(listener, uri)
        return {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: rid}}

    # ----------------------------------------------------------------- towards upstreams

    def _every(self) -> list[Upstream]:
        """Every instance of every upstream."""
        if not self.instances:
            return list(self.upstreams.values())
        return [u for n in self.upstreams for u in self._all(n)]

    async def broadcast_upstream(self, method: str, params: dict[str, Any] | None) -> None:
        for u in self._every():
            if u.session is not None and u.session.alive and u.session.era is Era.LEGACY:
                await u.session.notify(method, params)

    async def update_log_level(self) -> None:
        levels = [s.log_level for s in self.sessions if s.log_level]
        if not levels:
            return
        lowest = min(levels, key=lambda lv: LOG_LEVEL_RANK[lv])
        for u in self._every():
            d = u.session.description if u.session else None
            if d is not None and d.era is Era.LEGACY and "logging" in d.capabilities:
                with contextlib.suppress(rpc.RpcError):
                    await u.request("logging/setLevel", {"level": lowest})
