"""Supervision of one configured upstream: start (eagerly or on first use), restart with backoff.

A crash, or a failed start, fails the calls in flight at once (they get a JSON-RPC error, not a
hang); then one restart loop retries, for as long as the gateway runs, after a backoff that
doubles from `restart_backoff_initial` to `restart_backoff_max` (plus up to 20% jitter, so many
upstreams do not restart in step). The backoff resets only once the upstream has stayed up for
`restart_reset_after` seconds, so a server that dies just after its handshake backs off like
one that cannot start. While it waits, calls fail at once and say when the next attempt is
(`data.retry_after`); listeners are told when it is back so its tools reappear.

`max_in_flight` caps the calls sent to it at once; callers beyond the cap queue in order, and
the time queued counts against the call's timeout. A slow call holds one slot and never blocks
the others. `restart_after_timeouts` calls in a row that time out mark it wedged: it is
restarted even with health checks off. Error reasons: `errors.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any

from manifold.config import UpstreamConfig
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import Era
from manifold.upstream import errors
from manifold.upstream.session import CallSink, SessionEvents, UpstreamError, UpstreamSession
from manifold.upstream.slots import Slots
from manifold.upstream.stdio import StdioTransport, child_environment
from manifold.upstream.transport import Transport, TransportClosed

if TYPE_CHECKING:
    from manifold.credentials.exchange import TokenExchanger
    from manifold.upstream.http import AuthProvider

    # Per-tenant credentials (`credentials/upstreams.py`): a principal -> its session key ("":
    # the shared session), the config and the auth provider that session opens with.
    TenantOpener = Callable[[str], tuple[str, UpstreamConfig, AuthProvider | None]]

log = logging.getLogger("manifold.upstream")


def make_transport(name: str, cfg: UpstreamConfig, auth: AuthProvider | None = None) -> Transport:
    kind = cfg.kind
    if kind == "stdio":
        assert cfg.command is not None
        env = child_environment(cfg.env, cfg.env_passthrough)
        return StdioTransport(
            name,
            cfg.command,
            cfg.args,
            env,
            cfg.cwd,
            stderr_max_line=cfg.stderr_max_line,
            stderr_lines_per_second=cfg.stderr_lines_per_second,
            stderr_burst=cfg.stderr_burst,
            stderr_tail=cfg.stderr_tail,
        )
    assert cfg.url is not None
    # Imported here: a gateway with only stdio upstreams never loads the HTTP client.
    from manifold.upstream.http import HttpTransport
    from manifold.upstream.sse import SseTransport

    if kind == "sse":
        return SseTransport(
            name, cfg.url, dict(cfg.headers), cfg.connect_timeout, cfg.max_event_bytes
        )
    return HttpTransport(
        name, cfg.url, dict(cfg.headers), cfg.connect_timeout, cfg.max_event_bytes, auth
    )


class ProcessBudget:
    """The cap on stdio processes running at once (`max_processes`), over every upstream:
    shared children, `per_client` children, and those starting. Counted when one would start
    (never per message)."""

    def __init__(self, limit: int, *pools: Mapping[str, Upstream]) -> None:
        self.limit = limit
        self.pools = pools  # the upstreams, and their extra replicas

    def running(self) -> int:
        return sum(u.processes() for pool in self.pools for u in pool.values())

    def check(self, name: str) -> None:
        if self.running() >= self.limit:
            log.warning("upstream %s not started: %d stdio processes run", name, self.limit)
            raise errors.process_limit(name, self.limit)


class Upstream:
    def __init__(
        self,
        name: str,
        cfg: UpstreamConfig,
        events: SessionEvents,
        on_ready: Callable[[str], None],
        client_info: dict[str, Any],
        auth: AuthProvider | None = None,
        for_tenant: TenantOpener | None = None,
        shared_cfg: UpstreamConfig | None = None,
        budget: ProcessBudget | None = None,
    ) -> None:
        self.name = name
        self.cfg = cfg
        self.auth = auth  # OAuth credentials of an HTTP upstream (`credentials/`), or None
        # Per-tenant credentials: a session per tenant (`_tenant_session`); the shared one
        # opens with `shared_cfg` (the catalog tenant's values).
        self.for_tenant = for_tenant
        # RFC 8693 token exchange (`credentials/exchange.py`), or None: what each call of a
        # client with an access token carries instead of the shared session's token.
        self.exchange: TokenExchanger | None = None
        self.shared_cfg = shared_cfg or cfg
        self._tenants: dict[str, UpstreamSession] = {}
        self._tenant_starts: dict[str, asyncio.Task[UpstreamSession]] = {}
        self.events = events
        self.on_ready = on_ready
        self.client_info = client_info
        self.session: UpstreamSession | None = None
        self.state = "stopped"
        self.last_error: str | None = None
        self.restarts = 0
        self.started_at: float | None = None
        self._starting: asyncio.Task[UpstreamSession] | None = None
        self._backoff = cfg.restart_backoff_initial
        self._restart_task: asyncio.Task[None] | None = None
        self._stopping = False
        self.restarting_at = 0.0
        self.last_health: float | None = None
        self._health: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()
        self._clients: dict[str, UpstreamSession] = {}  # isolation: per_client
        self._client_starts: dict[str, asyncio.Task[UpstreamSession]] = {}
        # At max_clients: may end an abandoned client session (its holder releases it here).
        self.reclaim: Callable[[str, Collection[str]], bool] | None = None
        self.slots = Slots(cfg.max_in_flight)
        self._timeouts = 0  # calls in a row that timed out
        # stdio lifecycle: the process cap, and idle children stopped (idle_timeout).
        self.budget = budget if cfg.kind == "stdio" else None
        self.last_used = time.monotonic()
        self._client_used: dict[str, float] = {}
        self._idle: asyncio.Task[None] | None = None
        self.idle_stops = 0
        self._refused: rpc.RpcError | None = None  # the last start refused by max_processes

    def processes(self) -> int:
        """The stdio processes this upstream runs (or is starting) now."""
        if self.cfg.kind != "stdio":
            return 0
        s, starting = self.session, self._starting
        n = (
            1
            if (s is not None and s.alive) or (starting is not None and not starting.done())
            else 0
        )
        n += sum(1 for c in self._clients.values() if c.alive) + len(self._client_starts)
        return n + sum(1 for t in self._tenants.values() if t.alive) + len(self._tenant_starts)

    async def ensure(self) -> UpstreamSession:
        s = self.session
        if s is not None and s.alive:
            return s
        if self._stopping:
            raise rpc.RpcError(rpc.UPSTREAM_UNAVAILABLE, f"upstream {self.name!r} is stopping")
        if self._restart_task is not None and not self._restart_task.done() and self.restarting_at:
            # Waiting out a restart backoff: calls fail fast instead of restarting a
            # crash-looping server on every call.
            wait = max(0.0, self.restarting_at - time.monotonic())
            why = f": {self.last_error}" if self.last_error else ""
            raise errors.unavailable(
                self.name,
                f"upstream {self.name!r} is down{why}; next start attempt in {wait:.1f} s",
                wait,
            )
        if self._starting is None or self._starting.done():
            if self.budget is not None:
                try:
                    self.budget.check(self.name)
                except rpc.RpcError as e:
                    self.state, self.last_error, self._refused = "refused", e.message, e
                    raise
            self._starting = asyncio.ensure_future(self._start())
        try:
            return await asyncio.shield(self._starting)
        except (TransportClosed, TimeoutError, rpc.RpcError):
            retry = self.restarting_at - time.monotonic() if self.restarting_at else None
            why = self.last_error or "failed to start"
            if not why.startswith(f"upstream {self.name!r}"):
                why = f"upstream {self.name!r}: {why}"
            raise errors.unavailable(self.name, why, retry) from None

    def unavailable(self, what: str) -> rpc.RpcError:
        """The error for a call that cannot reach this upstream now: why, and when it retries."""
        if self.state == "refused" and self._refused is not None:
            return rpc.RpcError(self._refused.code, self._refused.message, self._refused.data)
        retry = self.restarting_at - time.monotonic() if self.restarting_at else None
        why = f" ({self.last_error})" if self.last_error else ""
        when = f"; next start attempt in {max(0.0, retry):.1f} s" if retry is not None else ""
        msg = f"upstream {self.name!r} is unavailable{why}{when}: {what}"
        return errors.unavailable(self.name, msg, retry)

    async def _start(self) -> UpstreamSession:
        self.state = "starting"
        session = UpstreamSession(
            self.name, make_transport(self.name, self.shared_cfg, self.auth), self, self.client_info
        )
        try:
            await session.open(self.cfg.connect_timeout)
        except BaseException as e:
            self.state = "failed"
            why = str(e) or type(e).__name__
            failure = getattr(session.transport, "failure", None)
            if failure is not None and not isinstance(e, asyncio.CancelledError):
                why = await failure() or why  # a child that exited: its code and stderr
            self.last_error = why
            with contextlib.suppress(Exception):
                await session.close()
            if not self._stopping and not isinstance(e, asyncio.CancelledError):
                self._schedule_restart()
            raise
        self.session = session
        self.state = "ready"
        self.last_error = None
        self.started_at = time.monotonic()
        self._timeouts = 0
        log.info(
            "upstream %s ready (%s, %s)",
            self.name,
            session.description.era.value if session.description else "?",
            session.description.protocol_version if session.description else "?",
        )
        self.last_used = time.monotonic()
        self.on_ready(self.name)
        if self.cfg.health_interval > 0 and (self._health is None or self._health.done()):
            self._health = asyncio.ensure_future(self._health_loop())
        self._watch_idle()
        return session

    # ----------------------------------------------------------------- idle children

    def retune(self, cfg: UpstreamConfig) -> None:
        """A reload changed only settings read per call or per list: keep the sessions."""
        self.cfg = cfg
        if self.processes():
            self._watch_idle()

    def _watch_idle(self) -> None:
        idle_on = self.cfg.idle_timeout > 0 and self.cfg.kind == "stdio"
        if idle_on and (self._idle is None or self._idle.done()):
            self._idle = asyncio.ensure_future(self._idle_loop())

    async def _idle_loop(self) -> None:
        """Stop a child (shared or a client's) that served no call for `idle_timeout` seconds.

        Checked every half of it, so a child goes within 1.5 times the idle time; one with a
        call in flight is never stopped. The next call starts it again."""
        while not self._stopping:
            idle = self.cfg.idle_timeout
            if idle <= 0:
                return
            await asyncio.sleep(max(idle / 2, 0.05))
            now = time.monotonic()
            s = self.session
            if (
                s is not None
                and s.alive
                and self.state == "ready"
                and self.slots.in_use == 0
                and s.in_flight == 0
                and now - self.last_used >= idle
            ):
                log.info(
                    "upstream %s: no call for %g s: stopping it (the next call starts it)",
                    self.name,
                    idle,
                )
                self.state = "idle"
                self.idle_stops += 1
                s.retire(f"stopped after {idle:g} s idle")  # at once: the next call starts one
                self._close_later(s)  # closed by us: no restart follows
            for key, c in list(self._clients.items()):
                used = self._client_used.get(key, 0.0)
                if c.alive and c.in_flight == 0 and now - used >= idle:
                    log.info(
                        "upstream %s: client %s idle for %g s: stopped", self.name, key[:8], idle
                    )
                    self.idle_stops += 1
                    self.release(key)
            if not self.processes():
                return  # nothing left to watch: the next start watches again

    def _close_later(self, session: UpstreamSession) -> None:
        task = asyncio.ensure_future(session.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _health_loop(self) -> None:
        """Ping the live session now and then; one that does not answer is hung: restart it."""
        interval, limit = self.cfg.health_interval, self.cfg.health_timeout
        while not self._stopping:
            await asyncio.sleep(interval)
            s = self.session
            if s is None or not s.alive or s.description is None:
                continue
            # Modern servers have no ping; server/discover is their cheap, side-effect-free call.
            method = "ping" if s.era is Era.LEGACY else "server/discover"
            try:
                await s.request(method, {} if method == "ping" else None, timeout=limit)
                self.last_health = time.monotonic()
            except TimeoutError:
                log.warning(
                    "upstream %s did not answer a health check in %g s: restarting",
                    self.name,
                    limit,
                )
                self._retire(s, f"no answer to a health check within {limit:g} s")
            except rpc.RpcError:
                self.last_health = time.monotonic()  # it answered, if only with an error

    def _retire(self, session: UpstreamSession, why: str) -> None:
        """Take a wedged session out of service: fail its calls, reap it, restart."""
        task = asyncio.ensure_future(session.close())
        self._closing.add(task)  # reaping goes on whatever happens to the caller
        task.add_done_callback(self._closing.discard)
        self.on_closed(self.name, why)

    # SessionEvents: forward, and restart on close.
    def on_list_changed(self, upstream: str, kind: str) -> None:
        self.events.on_list_changed(upstream, kind)

    def on_resource_updated(self, upstream: str, params: dict[str, Any]) -> None:
        self.events.on_resource_updated(upstream, params)

    def on_log(self, upstream: str, params: dict[str, Any]) -> None:
        self.events.on_log(upstream, params)

    def on_closed(self, upstream: str, why: str) -> None:
        self.state = "down"
        self.last_error = why
        started = self.started_at
        if started is not None and time.monotonic() - started >= self.cfg.restart_reset_after:
            self._backoff = self.cfg.restart_backoff_initial  # it was up long enough: healthy
        log.warning("upstream %s went away: %s", upstream, why)
        self.events.on_closed(upstream, why)
        if not self._stopping:
            self._schedule_restart()

    def _schedule_restart(self) -> None:
        """Start the restart loop, unless it runs (a failed attempt of its own lands here)."""
        if self._restart_task is not None and not self._restart_task.done():
            return
        self.restarting_at = time.monotonic() + self._backoff  # until the loop sets it exactly
        self._restart_task = asyncio.ensure_future(self._restart_loop())

    def _next_delay(self) -> float:
        base = self._backoff
        self._backoff = min(base * 2, self.cfg.restart_backoff_max)
        return base * (1.0 + 0.2 * random.random())

    async def _restart_loop(self) -> None:
        """Wait out the backoff, start; again with a longer backoff until a start succeeds."""
        while not self._stopping:
            delay = self._next_delay()
            log.info("upstream %s: next start attempt in %.2f s", self.name, delay)
            self.state = "backoff"
            self.restarting_at = time.monotonic() + delay
            try:
                await asyncio.sleep(delay)
            finally:
                self.restarting_at = 0.0
            if self._stopping:
                return
            old = self.session
            if old is not None and old.alive:
                return  # a call already brought it back
            if old is not None:
                with contextlib.suppress(Exception):
                    await old.close()
            self.restarts += 1
            if self._starting is None or self._starting.done():
                self._starting = asyncio.ensure_future(self._start())
            try:
                await asyncio.shield(self._starting)
                return
            except asyncio.CancelledError:
                raise
            except Exception as e:
                if self._stopping:
                    return
                log.warning(
                    "upstream %s: start attempt %d failed: %s",
                    self.name,
                    self.restarts,
                    self.last_error or e,
                )

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None,
        *,
        sink: CallSink | None = None,
        timeout: float | None = None,
        client_caps: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        client_key: str = "",
        tenant: str = "",
    ) -> rpc.Incoming:
        """One request under this upstream's concurrency cap and timeout.

        With `isolation: per_client`, a client session (`client_key`) gets a server process
        (or HTTP session) of its own, so the server's state and its requests to the client
        belong to that client alone; stateless requests (no key) use the shared session.
        With per-tenant credentials, a tenant (`tenant`, the principal) gets a session of its
        own, opened with its credentials."""
        t = self.cfg.timeout if timeout is None else timeout
        slots = self.slots
        self.last_used = time.monotonic()
        left = t
        if not slots.try_acquire():
            # Time queued for a slot is part of the call's time.
            queued_at = time.monotonic()
            try:
                await slots.acquire(t)
            except TimeoutError:
                raise errors.timed_out(
                    self.name,
                    f"upstream {self.name!r}: no free slot for {method} within {t:g} s "
                    f"(max_in_flight {slots.capacity})",
                ) from None
            left = t - (time.monotonic() - queued_at)
        session: UpstreamSession | None = None
        try:
            if tenant and self.for_tenant is not None:
                session = await self._tenant_session(tenant)
            elif client_key and self.cfg.isolation == "per_client":
                session = await self._client_session(client_key)
                self._client_used[client_key] = time.monotonic()
            else:
                s = self.session
                session = s if s is not None and s.alive else await self.ensure()
            if left <= 0:  # its slot came just as its time ran out: it never left the queue
                raise errors.timed_out(
                    self.name,
                    f"upstream {self.name!r}: no free slot for {method} within {t:g} s "
                    f"(max_in_flight {slots.capacity})",
                )
            msg = await session.request(
                method, params, sink=sink, timeout=left, client_caps=client_caps, headers=headers
            )
            if self._timeouts:
                self._timeouts = 0
            return msg
        except TimeoutError:
            if session is not None:
                self._timed_out(session)
            raise errors.timed_out(
                self.name, f"upstream {self.name!r} did not answer {method} within {t:g} s"
            ) from None
        except UpstreamError:
            self._timeouts = 0  # it answered
            raise
        except rpc.RpcError as e:
            if errors.reason_of(e) == errors.UNAVAILABLE and self.restarting_at:
                assert isinstance(e.data, dict)
                e.data["retry_after"] = round(max(0.0, self.restarting_at - time.monotonic()), 1)
            raise
        finally:
            slots.release()
            self.last_used = time.monotonic()
            if client_key and client_key in self._client_used:
                self._client_used[client_key] = self.last_used

    def _timed_out(self, session: UpstreamSession) -> None:
        """Count a timeout; a streak of them means a wedged server: take it out of service."""
        self._timeouts += 1
        limit = self.cfg.restart_after_timeouts
        if not limit or self._timeouts < limit or not session.alive:
            return
        self._timeouts = 0
        why = f"{limit} calls in a row timed out"
        log.warning("upstream %s: %s: restarting it", self.name, why)
        if session is self.session:
            self._retire(session, why)
            return
        for key, s in list(self._clients.items()):
            if s is session:
                self.release(key)  # its client's next call starts a fresh one
        for key, s in list(self._tenants.items()):
            if s is session:  # its tenant's next call starts a fresh one
                del self._tenants[key]
                task = asyncio.ensure_future(s.close())
                self._closing.add(task)
                task.add_done_callback(self._closing.discard)

    async def _client_session(self, key: str) -> UpstreamSession:
        s = self._clients.get(key)
        if s is not None and s.alive:
            return s
        pending = self._client_starts.get(key)
        if pending is None:
            full = len(self._clients) >= self.cfg.max_clients
            if full and self.reclaim is not None and self.reclaim(self.name, list(self._clients)):
                full = len(self._clients) >= self.cfg.max_clients
            if full:
                raise errors.busy(
                    self.name,
                    f"upstream {self.name!r} already runs {self.cfg.max_clients} client sessions",
                )
            if self.budget is not None:
                self.budget.check(self.name)
            pending = asyncio.ensure_future(self._open_client(key))
            self._client_starts[key] = pending
            pending.add_done_callback(lambda _t: self._client_starts.pop(key, None))
        try:
            return await asyncio.shield(pending)
        except (TransportClosed, TimeoutError) as e:
            raise errors.unavailable(self.name, f"upstream {self.name!r}: {e}") from None

    async def _open_client(self, key: str) -> UpstreamSession:
        events = _ClientEvents(self, key)
        session = UpstreamSession(
            self.name, make_transport(self.name, self.cfg, self.auth), events, self.client_info
        )
        try:
            await session.open(self.cfg.connect_timeout)
        except BaseException:
            with contextlib.suppress(Exception):
                await session.close()
            raise
        self._clients[key] = session
        self._client_used[key] = time.monotonic()
        log.info("upstream %s: started a session for client %s", self.name, key[:8])
        self._watch_idle()
        return session

    async def _tenant_session(self, principal: str) -> UpstreamSession:
        assert self.for_tenant is not None
        key, cfg, auth = self.for_tenant(principal)
        if not key:
            s = self.session
            return s if s is not None and s.alive else await self.ensure()
        s = self._tenants.get(key)
        if s is not None and s.alive:
            return s
        pending = self._tenant_starts.get(key)
        if pending is None:
            if len(self._tenants) >= self.cfg.max_tenants:
                raise errors.busy(
                    self.name,
                    f"upstream {self.name!r} already runs sessions for {self.cfg.max_tenants} "
                    "tenants (max_tenants)",
                )
            pending = asyncio.ensure_future(self._open_tenant(key, cfg, auth))
            self._tenant_starts[key] = pending
            pending.add_done_callback(lambda _t: self._tenant_starts.pop(key, None))
        try:
            return await asyncio.shield(pending)
        except (TransportClosed, TimeoutError) as e:
            raise errors.unavailable(self.name, f"upstream {self.name!r}: {e}") from None

    async def _open_tenant(
        self, key: str, cfg: UpstreamConfig, auth: AuthProvider | None
    ) -> UpstreamSession:
        session = UpstreamSession(
            self.name,
            make_transport(self.name, cfg, auth),
            _ClientEvents(self, key, self._tenants),
            self.client_info,
        )
        try:
            await session.open(self.cfg.connect_timeout)
        except BaseException:
            with contextlib.suppress(Exception):
                await session.close()
            raise
        self._tenants[key] = session
        log.info("upstream %s: started a session for tenant %s", self.name, key)
        return session

    def release(self, key: str) -> None:
        """The client is gone: end its own session of this upstream, if it has one."""
        s = self._clients.pop(key, None)
        self._client_used.pop(key, None)
        if s is not None:
            self._close_later(s)

    async def stop(self) -> None:
        for t in [*self._client_starts.values(), *self._tenant_starts.values()]:
            t.cancel()
        for key in list(self._clients):
            self.release(key)
        for key in list(self._tenants):
            s = self._tenants.pop(key)
            task = asyncio.ensure_future(s.close())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        self._stopping = True
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        if self._health is not None:
            self._health.cancel()
        if self._idle is not None:
            self._idle.cancel()
        if self._restart_task is not None:
            self._restart_task.cancel()
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
            with contextlib.suppress(BaseException):
                await self._starting
        if self.session is not None:
            await self.session.close()
        self.state = "stopped"


class _ClientEvents:
    """A client's own session reports to the upstream, except its end: that is the client's."""

    def __init__(
        self, upstream: Upstream, key: str, table: dict[str, UpstreamSession] | None = None
    ) -> None:
        self.upstream = upstream
        self.key = key
        self.table = upstream._clients if table is None else table  # where the session is kept

    def on_list_changed(self, upstream: str, kind: str) -> None:
        pass  # the shared session's lists are the catalog's; a client's copy changes with them

    def on_resource_updated(self, upstream: str, params: dict[str, Any]) -> None:
        self.upstream.on_resource_updated(upstream, params)

    def on_log(self, upstream: str, params: dict[str, Any]) -> None:
        self.upstream.on_log(upstream, params)

    def on_closed(self, upstream: str, why: str) -> None:
        # The next call of this client starts a fresh one.
        if self.table.get(self.key) is not None:
            self.table.pop(self.key, None)
            self.upstream._client_used.pop(self.key, None)
        log.warning("upstream %s: the session of client %s ended: %s", upstream, self.key[:8], why)
