"""Supervision of one configured upstream: start (eagerly or on first use), restart with backoff.

A crash fails the calls in flight at once (they get a JSON-RPC error, not a hang), then the
upstream is restarted after a backoff that doubles up to its limit and resets once a start
succeeds; listeners are told when it is back so its tools reappear. `max_in_flight` caps the
calls sent to it at once; callers beyond the cap queue in order. A slow call holds one slot
and never blocks the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Collection
from typing import Any

from manifold.config import UpstreamConfig
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import Era
from manifold.upstream.session import CallSink, SessionEvents, UpstreamSession
from manifold.upstream.slots import Slots
from manifold.upstream.stdio import StdioTransport, child_environment
from manifold.upstream.transport import Transport, TransportClosed

log = logging.getLogger("manifold.upstream")


def make_transport(name: str, cfg: UpstreamConfig) -> Transport:
    kind = cfg.kind
    if kind == "stdio":
        assert cfg.command is not None
        env = child_environment(cfg.env, cfg.env_passthrough)
        return StdioTransport(name, cfg.command, cfg.args, env, cfg.cwd)
    assert cfg.url is not None
    # Imported here: a gateway with only stdio upstreams never loads the HTTP client.
    from manifold.upstream.http import HttpTransport
    from manifold.upstream.sse import SseTransport

    if kind == "sse":
        return SseTransport(name, cfg.url, dict(cfg.headers), cfg.connect_timeout)
    return HttpTransport(name, cfg.url, dict(cfg.headers), cfg.connect_timeout)


class Upstream:
    def __init__(
        self,
        name: str,
        cfg: UpstreamConfig,
        events: SessionEvents,
        on_ready: Callable[[str], None],
        client_info: dict[str, Any],
    ) -> None:
        self.name = name
        self.cfg = cfg
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
            raise rpc.RpcError(
                rpc.UPSTREAM_UNAVAILABLE,
                f"upstream {self.name!r} is down{why}; restarting in {wait:.1f} s",
            )
        if self._starting is None or self._starting.done():
            self._starting = asyncio.ensure_future(self._start())
        try:
            return await asyncio.shield(self._starting)
        except TransportClosed as e:
            raise rpc.RpcError(rpc.UPSTREAM_UNAVAILABLE, str(e)) from None
        except TimeoutError:
            raise rpc.RpcError(
                rpc.UPSTREAM_UNAVAILABLE,
                f"upstream {self.name!r} did not answer its handshake in time",
            ) from None

    async def _start(self) -> UpstreamSession:
        self.state = "starting"
        session = UpstreamSession(
            self.name, make_transport(self.name, self.cfg), self, self.client_info
        )
        try:
            await session.open(self.cfg.connect_timeout)
        except BaseException as e:
            self.state = "failed"
            self.last_error = str(e) or type(e).__name__
            with contextlib.suppress(Exception):
                await session.close()
            if not self._stopping and not isinstance(e, asyncio.CancelledError):
                self._schedule_restart()
            raise
        self.session = session
        self.state = "ready"
        self.last_error = None
        self.started_at = time.monotonic()
        self._backoff = self.cfg.restart_backoff_initial
        log.info(
            "upstream %s ready (%s, %s)",
            self.name,
            session.description.era.value if session.description else "?",
            session.description.protocol_version if session.description else "?",
        )
        self.on_ready(self.name)
        if self.cfg.health_interval > 0 and (self._health is None or self._health.done()):
            self._health = asyncio.ensure_future(self._health_loop())
        return session

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
        log.warning("upstream %s went away: %s", upstream, why)
        self.events.on_closed(upstream, why)
        if not self._stopping:
            self._schedule_restart()

    def _schedule_restart(self) -> None:
        if self._restart_task is not None and not self._restart_task.done():
            return
        delay = self._backoff
        self._backoff = min(self._backoff * 2, self.cfg.restart_backoff_max)
        self._restart_task = asyncio.ensure_future(self._restart_after(delay))

    async def _restart_after(self, delay: float) -> None:
        self.state = "backoff"
        self.restarting_at = time.monotonic() + delay
        await asyncio.sleep(delay)
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
        with contextlib.suppress(Exception):
            await self.ensure()

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
    ) -> rpc.Incoming:
        """One request under this upstream's concurrency cap and timeout.

        With `isolation: per_client`, a client session (`client_key`) gets a server process
        (or HTTP session) of its own, so the server's state and its requests to the client
        belong to that client alone; stateless requests (no key) use the shared session."""
        t = self.cfg.timeout if timeout is None else timeout
        slots = self.slots
        if not slots.try_acquire():
            await slots.acquire()
        try:
            if client_key and self.cfg.isolation == "per_client":
                session = await self._client_session(client_key)
            else:
                s = self.session
                session = s if s is not None and s.alive else await self.ensure()
            return await session.request(
                method, params, sink=sink, timeout=t, client_caps=client_caps, headers=headers
            )
        except TimeoutError:
            raise rpc.RpcError(
                rpc.REQUEST_TIMEOUT,
                f"upstream {self.name!r} did not answer {method} within {t:g} s",
            ) from None
        finally:
            slots.release()

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
                raise rpc.RpcError(
                    rpc.UPSTREAM_UNAVAILABLE,
                    f"upstream {self.name!r} already runs {self.cfg.max_clients} client sessions",
                )
            pending = asyncio.ensure_future(self._open_client(key))
            self._client_starts[key] = pending
            pending.add_done_callback(lambda _t: self._client_starts.pop(key, None))
        try:
            return await asyncio.shield(pending)
        except (TransportClosed, TimeoutError) as e:
            raise rpc.RpcError(rpc.UPSTREAM_UNAVAILABLE, f"upstream {self.name!r}: {e}") from None

    async def _open_client(self, key: str) -> UpstreamSession:
        events = _ClientEvents(self, key)
        session = UpstreamSession(
            self.name, make_transport(self.name, self.cfg), events, self.client_info
        )
        try:
            await session.open(self.cfg.connect_timeout)
        except BaseException:
            with contextlib.suppress(Exception):
                await session.close()
            raise
        self._clients[key] = session
        log.info("upstream %s: started a session for client %s", self.name, key[:8])
        return session

    def release(self, key: str) -> None:
        """The client is gone: end its own session of this upstream, if it has one."""
        s = self._clients.pop(key, None)
        if s is not None:
            task = asyncio.ensure_future(s.close())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def stop(self) -> None:
        for t in list(self._client_starts.values()):
            t.cancel()
        for key in list(self._clients):
            self.release(key)
        self._stopping = True
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        if self._health is not None:
            self._health.cancel()
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

    def __init__(self, upstream: Upstream, key: str) -> None:
        self.upstream = upstream
        self.key = key

    def on_list_changed(self, upstream: str, kind: str) -> None:
        pass  # the shared session's lists are the catalog's; a client's copy changes with them

    def on_resource_updated(self, upstream: str, params: dict[str, Any]) -> None:
        self.upstream.on_resource_updated(upstream, params)

    def on_log(self, upstream: str, params: dict[str, Any]) -> None:
        self.upstream.on_log(upstream, params)

    def on_closed(self, upstream: str, why: str) -> None:
        # The next call of this client starts a fresh one.
        if self.upstream._clients.get(self.key) is not None:
            self.upstream._clients.pop(self.key, None)
        log.warning("upstream %s: the session of client %s ended: %s", upstream, self.key[:8], why)
