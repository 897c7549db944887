"""The composition root: config -> upstreams, catalog, pipeline, dispatcher; and the fan-out of
upstream events (list changes, resource updates, unrelated log messages) to downstream clients.

Front ends (`downstream/stdio.py`, `downstream/http.py`) own the bytes; this object owns
everything the gateway knows between messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from manifold import __version__
from manifold.addons import as_addons, build_addons
from manifold.catalog import CHANGE_KINDS, KINDS, LIST_METHODS, Catalog
from manifold.config import GatewayConfig
from manifold.downstream.cursor import Cursors
from manifold.downstream.dispatch import Dispatcher
from manifold.downstream.mrtr import ParkingLot
from manifold.downstream.session import DownstreamSession, Send
from manifold.economy.exposure import Exposure
from manifold.economy.results import ResultStore
from manifold.economy.router_tools import GatewayTools
from manifold.economy.savings import Savings, open_store
from manifold.hooks import Hooks, NotificationEvent
from manifold.pipeline import Middleware
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import LOG_LEVEL_RANK, META_SUBSCRIPTION_ID, Era
from manifold.router import Router
from manifold.upstream.supervisor import Upstream

log = logging.getLogger("manifold.gateway")

_CAP_OF_KIND = {
    "tools": "tools",
    "prompts": "prompts",
    "resources": "resources",
    "resourceTemplates": "resources",
}
_LISTEN_FLAG = {
    "tools": "toolsListChanged",
    "prompts": "promptsListChanged",
    "resources": "resourcesListChanged",
}


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


class Gateway:
    def __init__(
        self,
        config: GatewayConfig,
        middleware: Sequence[Middleware] = (),
        exposure_override: str | None = None,
        addons: Sequence[object] = (),
    ) -> None:
        self.config = config
        self.server_info = {
            "name": config.name,
            "title": "Manifold MCP gateway",
            "version": __version__,
        }
        self.client_info = {"name": "manifold", "version": __version__}
        self.catalog = Catalog(config)
        self.upstreams: dict[str, Upstream] = {
            name: Upstream(name, cfg, self, self._on_upstream_ready, self.client_info)
            for name, cfg in config.enabled_upstreams.items()
        }
        self.exposure = Exposure(config.exposure, exposure_override)
        page_tokens = config.response.page_tokens or config.response.max_tokens or 4000
        self.results: ResultStore | None = ResultStore(page_tokens * 4, config.response.store_ttl)
        self.local_tools = GatewayTools(self)
        self.savings = Savings(store=open_store(config.state.path))
        self.router = Router(self.upstreams, self.catalog, self.local_tools)
        # `middleware` replaces the configured call chain (tests); `addons` join it.
        chain = as_addons(middleware) if middleware else build_addons(self, addons)
        self.hooks = Hooks(chain)
        self.pipeline = self.hooks.call_chain(self.router)
        self.dispatcher = Dispatcher(self)
        self.cursors = Cursors()
        self.parking = ParkingLot()
        self.list_ttl_ms = 0
        self.sessions: set[DownstreamSession] = set()
        self.listeners: set[Listener] = set()
        self._subs: dict[str, set[object]] = {}
        self._ready = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._refreshing: dict[str, asyncio.Task[None]] = {}
        self._stopping = False
        self.freeze_gc = False
        self._native_for: object = None
        self._native_tokens = 0

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Connect every eager upstream (concurrently, bounded), then serve."""
        self.savings.start()
        eager = [u for u in self.upstreams.values() if not u.cfg.lazy]
        await asyncio.gather(*(self._start_one(u) for u in eager))
        self._ready.set()
        if self.freeze_gc:
            # Everything allocated so far lives as long as the process: keep the collector
            # from walking it again and again (fewer, shorter pauses on the hot path).
            gc.collect()
            gc.freeze()

    async def _start_one(self, up: Upstream) -> None:
        try:
            await up.ensure()
            t = self._refreshing.get(up.name)
            if t is not None:
                await t
        except (rpc.RpcError, OSError) as e:
            log.error("upstream %s failed to start: %s", up.name, e)

    async def wait_ready(self) -> None:
        if not self._ready.is_set():
            await self._ready.wait()

    async def ensure_lazy(self) -> None:
        lazy = [u for u in self.upstreams.values() if u.cfg.lazy and u.state == "stopped"]
        if lazy:
            await asyncio.gather(*(self._start_one(u) for u in lazy))

    async def stop(self) -> None:
        self._stopping = True
        self.parking.close()
        for t in list(self._tasks) + list(self._refreshing.values()):
            t.cancel()
        for listener in list(self.listeners):
            if not listener.done.done():
                listener.done.set_result(None)
        await self.savings.flush()  # before the upstreams: a client may give us little time
        await asyncio.gather(*(u.stop() for u in self.upstreams.values()), return_exceptions=True)
        await self.savings.stop()

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def native_list_tokens(self) -> int:
        """Estimated tokens of the whole passthrough tool list (kept per catalog change)."""
        tools = self.catalog.tools
        if self._native_for is not tools:
            self._native_tokens = (len(rpc.dumps(tools)) + 40) // 4
            self._native_for = tools
        return self._native_tokens

    def end_session(self, session: DownstreamSession) -> None:
        """A client session ended: forget it, and end what upstreams kept for it alone."""
        self.sessions.discard(session)
        for up in self.upstreams.values():
            up.release(session.id)

    # ----------------------------------------------------------------- catalog refresh

    def _on_upstream_ready(self, name: str) -> None:
        self._refreshing[name] = asyncio.ensure_future(self._refresh(name, KINDS, initial=True))

    async def _refresh(self, name: str, kinds: Sequence[str], initial: bool = False) -> None:
        up = self.upstreams[name]
        session = up.session
        if session is None or session.description is None:
            return
        caps = session.description.capabilities
        changed: set[str] = set()
        for kind in kinds:
            if _CAP_OF_KIND[kind] not in caps:
                continue
            try:
                items = await self._fetch_all(up, kind)
            except (rpc.RpcError, TimeoutError) as e:
                log.warning("upstream %s: %s failed: %s", name, LIST_METHODS[kind], e)
                continue
            items = self.hooks.catalog(name, kind, items)
            before = self.catalog.upstream_items(name, kind)
            if items != before:
                self.catalog.set_items(name, kind, items)
                changed.add("resources" if kind == "resourceTemplates" else kind)
        if session.era is Era.MODERN:
            self._relisten(name)
        if initial:
            await self._resubscribe(name)
        if changed and (self._ready.is_set() or not initial):
            for kind in changed:
                self._notify_list_changed(kind)

    async def _fetch_all(self, up: Upstream, kind: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: Any = None
        for _ in range(1000):
            params = {"cursor": cursor} if cursor is not None else {}
            msg = await up.request(LIST_METHODS[kind], params)
            res = rpc.load_raw(msg.result) if msg.result else {}
            page = res.get(kind) or []
            items.extend(x for x in page if isinstance(x, dict))
            cursor = res.get("nextCursor")
            if cursor is None:
                break
        return items

    # ----------------------------------------------------------------- SessionEvents

    def on_list_changed(self, upstream: str, kind: str) -> None:
        kinds = CHANGE_KINDS.get(kind)
        if kinds:
            self.spawn(self._refresh(upstream, kinds))

    def _hooked(self, method: str, params: dict[str, Any], upstream: str) -> dict[str, Any] | None:
        """A notification for every client that asked, through the notification hooks."""
        if not self.hooks.has_notification:
            return params
        return self.hooks.notification(NotificationEvent(method, params, upstream))

    def on_resource_updated(self, upstream: str, params: dict[str, Any]) -> None:
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

    def on_log(self, upstream: str, params: dict[str, Any]) -> None:
        hooked = self._hooked("notifications/message", params, upstream)
        if hooked is None:
            return
        params = hooked
        level = LOG_LEVEL_RANK.get(str(params.get("level")), 0)
        frame = rpc.encode_notification("notifications/message", params)
        for s in self.sessions:
            if (
                s.send is not None
                and s.log_level is not None
                and level >= LOG_LEVEL_RANK[s.log_level]
            ):
                s.send(frame)

    def on_closed(self, upstream: str, why: str) -> None:
        pass  # the supervisor restarts it; its tools stay listed and calls fail until it is back

    def _notify_list_changed(self, kind: str) -> None:
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

    # ----------------------------------------------------------------- capabilities

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

    # ----------------------------------------------------------------- subscriptions

    async def subscribe(self, who: object, uri: str) -> None:
        owner = self.catalog.route_resource(uri)
        if owner is None:
            raise rpc.RpcError(
                rpc.RESOURCE_NOT_FOUND_LEGACY, f"Resource not found: {uri}", {"uri": uri}
            )
        if isinstance(who, DownstreamSession):
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
            owner = self.catalog.route_resource(uri)
            if owner is not None:
                await self._upstream_subscribe(owner, uri, False)

    async def _upstream_subscribe(self, owner: str, uri: str, on: bool) -> None:
        up = self.upstreams[owner]
        session = await up.ensure()
        if session.era is Era.MODERN:
            self._relisten(owner)
            return
        method = "resources/subscribe" if on else "resources/unsubscribe"
        await up.request(method, {"uri": uri})

    async def _resubscribe(self, name: str) -> None:
        for uri in list(self._subs):
            if self.catalog.route_resource(uri) == name:
                with contextlib.suppress(rpc.RpcError):
                    await self._upstream_subscribe(name, uri, True)

    def _relisten(self, name: str) -> None:
        up = self.upstreams[name]
        if up.session is None or up.session.description is None:
            return
        caps = up.session.description.capabilities
        wanted: dict[str, Any] = {}
        for kind, flag in _LISTEN_FLAG.items():
            if isinstance(caps.get(kind), dict) and caps[kind].get("listChanged"):
                wanted[flag] = True
        uris = [u for u in self._subs if self.catalog.route_resource(u) == name]
        if uris:
            wanted["resourceSubscriptions"] = uris
        if wanted:
            up.session.listen(wanted)

    async def listen(
        self, session: DownstreamSession, rid: Any, wanted: dict[str, Any], out: Send
    ) -> dict[str, Any]:
        honoured: dict[str, Any] = {}
        caps = self.capabilities(Era.MODERN)
        for kind, flag in _LISTEN_FLAG.items():
            if wanted.get(flag) and kind in caps:
                honoured[flag] = True
        uris = wanted.get("resourceSubscriptions")
        if isinstance(uris, list) and "resources" in caps:
            honoured["resourceSubscriptions"] = [u for u in uris if isinstance(u, str)]
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

    # ----------------------------------------------------------------- misc fan-out

    async def broadcast_upstream(self, method: str, params: dict[str, Any] | None) -> None:
        for u in self.upstreams.values():
            if u.session is not None and u.session.alive and u.session.era is Era.LEGACY:
                await u.session.notify(method, params)

    async def update_log_level(self) -> None:
        levels = [s.log_level for s in self.sessions if s.log_level]
        if not levels:
            return
        lowest = min(levels, key=lambda lv: LOG_LEVEL_RANK[lv])
        for u in self.upstreams.values():
            d = u.session.description if u.session else None
            if d is not None and d.era is Era.LEGACY and "logging" in d.capabilities:
                with contextlib.suppress(rpc.RpcError):
                    await u.request("logging/setLevel", {"level": lowest})
