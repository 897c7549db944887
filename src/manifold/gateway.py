"""The composition root: config -> upstreams, catalog, pipeline, dispatcher; and the fan-out of
upstream events (list changes, resource updates, unrelated log messages) to downstream clients.

Front ends (`downstream/stdio.py`, `downstream/http.py`) own the bytes; this object owns
everything the gateway knows between messages.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from manifold import __version__
from manifold.addons import as_addons, build_addons
from manifold.catalog import CHANGE_KINDS, KINDS, LIST_METHODS, Catalog
from manifold.config import GatewayConfig
from manifold.downstream.cursor import Cursors
from manifold.downstream.dispatch import Dispatcher
from manifold.downstream.mrtr import RoundSeal
from manifold.downstream.session import DownstreamSession
from manifold.economy.exposure import Exposure
from manifold.economy.router_tools import NAMES as GATEWAY_TOOL_NAMES
from manifold.economy.router_tools import GatewayTools
from manifold.economy.savings import Savings
from manifold.hooks import Hooks
from manifold.hub import ServerFace, SubscriptionHub
from manifold.pipeline import Middleware
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import Era
from manifold.router import Router
from manifold.state import ResultPages, open_state
from manifold.upstream.supervisor import ProcessBudget, Upstream

if TYPE_CHECKING:
    from manifold.reload import ConfigDiff

log = logging.getLogger("manifold.gateway")

_CAP_OF_KIND = {
    "tools": "tools",
    "prompts": "prompts",
    "resources": "resources",
    "resourceTemplates": "resources",
}


class Gateway:
    def __init__(
        self,
        config: GatewayConfig,
        middleware: Sequence[Middleware] = (),
        exposure_override: str | None = None,
        addons: Sequence[object] = (),
    ) -> None:
        self.config = config
        self.client_info = {"name": "manifold", "version": __version__}
        self.catalog = Catalog(config)
        self.catalog.reserved = GATEWAY_TOOL_NAMES
        self.upstreams: dict[str, Upstream] = {}
        # More instances of an upstream's server (`count`, `replicas`): reached by the router
        # under their own names ("name#2") when resilience/replicas.py picks one for a call.
        self.replicas: dict[str, Upstream] = {}
        self._creds: Any = None  # credentials to upstreams (`credentials/`), when configured
        # An upstream exchanges its clients' tokens (RFC 8693): the HTTP front keeps a client's
        # validated token on its identity (set by `_credentials`, at start or on a reload).
        self.keep_client_tokens = False
        self.processes = ProcessBudget(config.max_processes, self.upstreams, self.replicas)
        for name, cfg in config.enabled_upstreams.items():
            self.upstreams[name] = self._make_upstream(name, cfg)
            for rname, rcfg in cfg.replica_configs(name):
                self.replicas[rname] = Upstream(
                    rname,
                    rcfg,
                    _ReplicaEvents(self, name),
                    functools.partial(self._on_replica_ready, name),
                    self.client_info,
                    budget=self.processes,
                )
        # Every instance of each upstream, the upstream itself first: its lists come from the
        # first that is up, and subscriptions and log levels go to each (docs/resilience.md).
        self.instances: dict[str, list[Upstream]] = {n: [u] for n, u in self.upstreams.items()}
        for rname, replica in self.replicas.items():
            self.instances[rname.partition("#")[0]].append(replica)
        if any(u.oauth or u.tenant_credentials for u in config.enabled_upstreams.values()):
            self._credentials(config)
        self.face = ServerFace(
            config, _Serving(self) if self.replicas else self.upstreams, __version__
        )
        self.exposure = Exposure(config.exposure, exposure_override)
        self.state = open_state(config)
        self.results: ResultPages | None = self.state.results
        self.local_tools = GatewayTools(self)
        self.savings = Savings(store=self.state.counters)
        self.router = Router(self.upstreams, self.catalog, self.local_tools, self.replicas)
        # `middleware` replaces the configured call chain (tests); `addons` join it.
        chain = as_addons(middleware) if middleware else build_addons(self, addons)
        self.hooks = Hooks(chain)
        self.pipeline = self.hooks.call_chain(self.router)
        # The retry addon, when on, also retries the gateway's own list fetches (reads).
        self._retrying = next(
            (r for a in chain if callable(r := getattr(a, "retrying", None))), None
        )
        self.dispatcher = Dispatcher(self)
        self.cursors = Cursors(self.state.secrets.key("cursor"))
        self.parking = self.state.parking
        self.rounds = RoundSeal(self.state.secrets.key("mrtr-round"), config.mrtr.ttl)
        self.list_ttl_ms = 0
        self.hub = SubscriptionHub(
            self.catalog,
            self.upstreams,
            self.hooks,
            self.face,
            config.max_subscriptions,
            self.instances if self.replicas else None,
        )
        self.sessions = self.hub.sessions  # the fronts add their client sessions here
        self._ready = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._refreshing: dict[str, asyncio.Task[None]] = {}
        self._stopping = False
        self.freeze_gc = False
        self._native_for: object = None
        self._native_tokens = 0
        self._reload_lock = asyncio.Lock()

    def _make_upstream(self, name: str, cfg: Any) -> Upstream:
        return Upstream(
            name, cfg, self, self._on_upstream_ready, self.client_info, budget=self.processes
        )

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Connect every eager upstream (concurrently, bounded), then serve."""
        self.savings.start()
        eager = [u for u in (*self.upstreams.values(), *self.replicas.values()) if not u.cfg.lazy]
        await asyncio.gather(*(self._start_one(u) for u in eager))
        self._ready.set()
        if self.freeze_gc:
            # Everything allocated so far lives as long as the process: keep the collector
            # from walking it again and again (fewer, shorter pauses on the hot path).
            gc.collect()
            gc.freeze()
            from manifold.memory import trim

            trim()  # what the start left free goes back to the system

    async def _start_one(self, up: Upstream) -> None:
        try:
            await up.ensure()
            t = self._refreshing.get(up.name)
            if t is not None:
                await asyncio.wait({t})  # a reload may cancel it: that is not our cancellation
                if not t.cancelled():
                    t.result()
        except (rpc.RpcError, OSError) as e:
            log.error("upstream %s failed to start: %s", up.name, e)

    async def wait_ready(self) -> None:
        if not self._ready.is_set():
            await self._ready.wait()

    async def catalog_settled(self, name: str) -> bool:
        """Wait out the catalog refreshes in flight that could bring `name` (a client-facing
        name that routes nowhere yet): an upstream that has just come up answers calls a
        moment before its lists arrive. With a prefix only that upstream's refresh counts.
        The wait is bounded by the upstream's call `timeout` (a list of many slow pages goes
        on after it; the call then hears "Unknown tool"). True when one was waited for."""
        cfg = self.config
        pending = {
            up: t
            for up, t in self._refreshing.items()
            if not t.done() and (not cfg.prefix or name.startswith(up + cfg.separator))
        }
        if not pending:
            return False
        ups = [self.upstreams.get(up) or self.replicas.get(up) for up in pending]
        bound = max((u.cfg.timeout for u in ups if u is not None), default=60.0)
        await asyncio.wait(pending.values(), timeout=bound)
        return True

    async def ensure_lazy(self) -> None:
        lazy = [
            u
            for u in self.upstreams.values()
            if u.cfg.lazy and u.state in ("stopped", "refused")  # refused: max_processes
        ]
        if lazy:
            await asyncio.gather(*(self._start_one(u) for u in lazy))

    async def stop(self) -> None:
        self._stopping = True
        self.parking.close()
        for t in list(self._tasks) + list(self._refreshing.values()):
            t.cancel()
        self.hub.close()
        await self.savings.flush()  # before the upstreams: a client may give us little time
        await asyncio.gather(
            *(u.stop() for u in (*self.upstreams.values(), *self.replicas.values())),
            return_exceptions=True,
        )
        await self.savings.stop()
        for addon in self.hooks.addons:  # addons that keep something (the audit log) flush it
            if callable(close := getattr(addon, "close", None)):
                await asyncio.to_thread(close)

    def _credentials(self, config: GatewayConfig, only: Sequence[Upstream] | None = None) -> None:
        """Credentials to upstream servers: OAuth tokens, per-tenant values. Imported only when
        an upstream has them. `only`: the upstreams a reload made (others keep theirs)."""
        from manifold.credentials.upstreams import UpstreamCredentials

        creds = UpstreamCredentials(config, self._upstream_auth_failed)
        for up in self.upstreams.values() if only is None else only:
            up.auth = creds.shared_auth(up.name)
            up.shared_cfg = creds.shared_config(up.name)
            up.for_tenant = creds.opener(up.name)
            up.exchange = creds.exchanger(up.name, self._token_exchange_failed)
            if up.exchange is not None:
                self.keep_client_tokens = True
        self._creds = creds

    def _upstream_auth_failed(self, upstream: str, tenant: str, why: str) -> None:
        """An upstream's OAuth token cannot be had (refresh refused, never logged in)."""
        from manifold.security.alerts import audit_event

        fields = {"mechanism": "credentials", "upstream": upstream, "detail": why}
        if tenant:
            fields["tenant"] = tenant
        audit_event(self, "upstream_auth_failed", fields)

    def _token_exchange_failed(self, upstream: str, tenant: str, subject: str, why: str) -> None:
        """A call could not be made as its user (RFC 8693 token exchange refused or failed)."""
        from manifold.security.alerts import audit_event

        fields = {"mechanism": "token_exchange", "upstream": upstream, "detail": why}
        if tenant:
            fields["tenant"] = tenant
        if subject:
            fields["subject"] = subject
        audit_event(self, "upstream_auth_failed", fields)

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def era_of(self, upstream: str) -> Era | None:
        """The protocol era an upstream speaks (None: unknown, not connected yet)."""
        up = self.upstreams.get(upstream)
        if up is not None and up.session is None and upstream in self.instances:
            up = next((u for u in self.instances[upstream] if u.session is not None), up)
        return up.session.era if up is not None and up.session is not None else None

    def serving(self, upstream: str) -> list[Upstream]:
        """The instances of an upstream that are up (connected and described), first first."""
        return [
            u
            for u in self.instances.get(upstream, ())
            if u.session is not None and u.session.alive and u.session.description is not None
        ]

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
        for up in (*self.upstreams.values(), *self.replicas.values()):
            up.release(session.id)
        if session.subscriptions:
            self.spawn(self.hub.drop_session(session))

    # ----------------------------------------------------------------- catalog refresh

    def _on_upstream_ready(self, name: str) -> None:
        self._screen_instructions(name)
        self._refreshing[name] = asyncio.ensure_future(self._refresh(name, KINDS, initial=True))

    def _screen_instructions(self, name: str) -> None:
        """An upstream's `instructions` reach clients in the gateway's own (and in the router's
        `list_servers`), where hosts give them to the model: they go through the `catalog`
        hooks as one item of kind `instructions` (`{"name": ..., "description": text}`), so
        redaction cleans them and the guard hides (drops) or marks them like a description.
        Done once per connection; the session's description keeps the result."""
        if not self.hooks.catalogs:
            return
        up = self.upstreams.get(name)
        d = up.session.description if up is not None and up.session is not None else None
        if d is None or not d.instructions:
            return
        items = self.hooks.catalog(
            name, "instructions", [{"name": name, "description": d.instructions}]
        )
        text = items[0].get("description") if items else None
        d.instructions = text if isinstance(text, str) else None

    def _on_replica_ready(self, upstream: str, replica: str) -> None:
        """A replica is (back) up: it takes the subscriptions clients hold; and when the
        upstream itself is not up, the lists come from it (the first instance that is)."""
        self._refreshing[replica] = asyncio.ensure_future(self._replica_up(upstream, replica))

    async def _replica_up(self, upstream: str, replica: str) -> None:
        first = self.upstreams[upstream]
        if first.session is None or not first.session.alive:
            await self._refresh(upstream, KINDS)
        await self.hub.resubscribe(upstream, self.replicas[replica])

    async def _refresh(self, name: str, kinds: Sequence[str], initial: bool = False) -> None:
        live = self.serving(name)
        if not live:
            return
        session = live[0].session
        assert session is not None and session.description is not None
        caps = session.description.capabilities
        changed: set[str] = set()
        for kind in kinds:
            if _CAP_OF_KIND[kind] not in caps:
                continue
            items = None
            for up in live:  # the first instance that answers
                try:
                    items = await self._fetch_all(up, kind)
                    break
                except (rpc.RpcError, TimeoutError) as e:
                    log.warning("upstream %s: %s failed: %s", up.name, LIST_METHODS[kind], e)
            if items is None:
                continue
            items = self.hooks.catalog(name, kind, items)
            before = self.catalog.upstream_items(name, kind)
            if items != before:
                self.catalog.set_items(name, kind, items)
                changed.add("resources" if kind == "resourceTemplates" else kind)
        if session.era is Era.MODERN:
            self.hub.relisten(name)
        if initial:
            await self.hub.resubscribe(name)
        if changed and (self._ready.is_set() or not initial):
            for kind in changed:
                self.hub.list_changed(kind)

    async def _fetch_all(self, up: Upstream, kind: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: Any = None
        for _ in range(1000):
            params = {"cursor": cursor} if cursor is not None else {}
            method = LIST_METHODS[kind]
            if self._retrying is None:
                msg = await up.request(method, params)
            else:
                msg = await self._retrying(
                    up.name.partition("#")[0],  # a replica retries as its upstream
                    method,
                    functools.partial(up.request, method, params),
                )
            res = rpc.load_raw(msg.result) if msg.result else {}
            page = res.get(kind) or []
            items.extend(x for x in page if isinstance(x, dict))
            cursor = res.get("nextCursor")
            if cursor is None:
                break
        return items

    # ----------------------------------------------------------------- hot reload

    async def reload(self, new: GatewayConfig) -> ConfigDiff:
        """Apply a new, already validated config: upstreams added, removed, restarted or retuned
        (see `manifold.reload`); the unchanged ones, and their sessions, are not touched.
        Clients are told about the lists that changed."""
        from manifold.reload import diff_configs

        async with self._reload_lock:
            if self._stopping:
                raise RuntimeError("the gateway is stopping")
            diff = diff_configs(self.config, new)
            if "security" in diff.needs_restart and self._reload_security(new):
                diff.needs_restart.remove("security")
                diff.live.append("security")
            for key in diff.needs_restart:
                log.warning("config reload: %r changed: it applies after a restart", key)
            if diff.empty:
                log.info("config reload: no change to apply")
                return diff
            loaded = any(type(a).__module__.endswith(".overrides") for a in self.hooks.addons)
            if not loaded and any(u.overrides for u in new.enabled_upstreams.values()):
                log.warning("config reload: tool overrides were off at start: restart to apply")
            update: dict[str, Any] = {
                "upstreams": new.upstreams,
                "max_processes": new.max_processes,
            }
            if "security" in diff.live:
                update["security"] = new.security
            self.config = self.config.replace(**update)
            self.processes.limit = new.max_processes
            # Per-client upstreams reclaim idle client sessions through the front end's hook.
            reclaim = next((u.reclaim for u in self.upstreams.values() if u.reclaim), None)
            going = [self.upstreams.pop(n) for n in (*diff.removed, *diff.changed)]
            for n in (*diff.removed, *diff.changed):
                self.instances.pop(n, None)
            for up in going:
                t = self._refreshing.pop(up.name, None)
                if t is not None:
                    t.cancel()
            changed = self.catalog.reconfigure(self.config)
            await asyncio.gather(*(u.stop() for u in going), return_exceptions=True)
            enabled = self.config.enabled_upstreams
            fresh = []
            for name in (*diff.changed, *diff.added):
                up = self._make_upstream(name, enabled[name])
                if up.cfg.isolation == "per_client":
                    up.reclaim = reclaim
                self.upstreams[name] = up
                self.instances[name] = [up]  # replicas of a reloaded upstream need a restart
                fresh.append(up)
            if any(u.cfg.oauth or u.cfg.tenant_credentials for u in fresh):
                self._credentials(self.config, fresh)
            for name in diff.retuned:
                self.upstreams[name].retune(enabled[name])
                self.spawn(self._refresh(name, ("tools",)))
            for kind in changed:
                self.hub.list_changed("resources" if kind == "resourceTemplates" else kind)
            for up in fresh:
                if not up.cfg.lazy:
                    self.spawn(self._start_one(up))
            log.info("config reloaded: %s", diff.summary())
            return diff

    def _reload_security(self, new: GatewayConfig) -> bool:
        """Apply a changed `security.policy` / `security.guard` to the running addons (each
        says whether it can); True when that covers every change to `security`. Nothing is
        applied unless all of it can be."""
        old = self.config.security
        live = {"policy", "guard"}
        if old.to_dict(exclude=live) != new.security.to_dict(exclude=live):
            return False
        # (an addon whose call step runs inside another's is wrapped: `addons._WithoutCall`)
        inner = [getattr(a, "addon", a) for a in self.hooks.addons]
        addons = {type(a).__module__.rsplit(".", 1)[-1]: a for a in inner}
        steps = []
        for key in live:
            before, after = getattr(old, key), getattr(new.security, key)
            if before == after:
                continue
            addon = addons.get(key)
            if addon is None or not hasattr(addon, "reconfigure"):
                return False
            steps.append((key, addon, before, after))
        for key, addon, _before, after in steps:
            if not addon.reconfigure(after):
                for undo_key, undo, undo_before, _ in steps:  # back to what ran before
                    if undo_key == key:
                        break
                    undo.reconfigure(undo_before)
                return False
            log.warning("config reload: security.%s applied live", key)
        return True

    # ----------------------------------------------------------------- SessionEvents

    def on_list_changed(self, upstream: str, kind: str) -> None:
        kinds = CHANGE_KINDS.get(kind)
        if kinds:
            self.spawn(self._refresh(upstream, kinds))

    def on_resource_updated(self, upstream: str, params: dict[str, Any]) -> None:
        self.hub.resource_updated(upstream, params)

    def on_log(self, upstream: str, params: dict[str, Any]) -> None:
        self.hub.log(upstream, params)

    def on_closed(self, upstream: str, why: str) -> None:
        pass  # the supervisor restarts it; its tools stay listed and calls fail until it is back


class _Serving(Mapping[str, Upstream]):
    """Each upstream by name as the first of its instances that is up (else the upstream
    itself): what the gateway tells clients of its upstreams (capabilities, instructions)."""

    def __init__(self, gw: Gateway) -> None:
        self.gw = gw

    def __getitem__(self, name: str) -> Upstream:
        live = self.gw.serving(name) if self.gw.replicas else ()
        return live[0] if live else self.gw.upstreams[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.gw.upstreams)

    def __len__(self) -> int:
        return len(self.gw.upstreams)


class _ReplicaEvents:
    """A replica reports under its upstream's name; its list changes are its upstream's."""

    def __init__(self, gw: Gateway, upstream: str) -> None:
        self.gw = gw
        self.upstream = upstream

    def on_list_changed(self, upstream: str, kind: str) -> None:
        first = self.gw.upstreams[self.upstream].session
        if first is None or not first.alive:  # the lists come from a replica meanwhile
            self.gw.on_list_changed(self.upstream, kind)

    def on_resource_updated(self, upstream: str, params: dict[str, Any]) -> None:
        self.gw.on_resource_updated(self.upstream, params)

    def on_log(self, upstream: str, params: dict[str, Any]) -> None:
        self.gw.on_log(self.upstream, params)

    def on_closed(self, upstream: str, why: str) -> None:
        pass  # its supervisor restarts it; the replica picker skips it meanwhile
