"""One live MCP session with one upstream server, on either protocol era.

The session mints its own request ids and maps answers back, rewrites progress tokens so they
are unique across every downstream client sharing the upstream, routes the upstream's
server-to-client requests (sampling, elicitation, roots) to the call that caused them, and
turns a modern upstream's MRTR `input_required` rounds into the same server-to-client
requests, so the downstream side sees one shape whatever the upstream's era.

It does not restart anything (see `supervisor.py`) and knows nothing about names or policy.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import (
    LATEST_LEGACY,
    LEGACY_VERSIONS,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SUBSCRIPTION_ID,
    MODERN_VERSION,
    Era,
)
from manifold.upstream import errors
from manifold.upstream.transport import Transport, TransportClosed

log = logging.getLogger("manifold.upstream")

# What the gateway can relay back to a downstream client. A modern request narrows it to what
# that client declared; legacy upstreams are told all of it once, and a request for something
# the calling client lacks is refused there and then.
RELAYABLE_CLIENT_CAPABILITIES: dict[str, Any] = {
    "roots": {"listChanged": True},
    "sampling": {},
    "elicitation": {"form": {}, "url": {}},
}
MAX_INPUT_ROUNDS = 16


class CallSink(Protocol):
    """Where a call's side traffic goes: the downstream request that caused the call."""

    log_level: str | None

    def progress(self, params: dict[str, Any]) -> None: ...

    def log(self, params: dict[str, Any]) -> None: ...

    async def server_request(
        self, method: str, params: dict[str, Any], key: str | None = None
    ) -> dict[str, Any]: ...


class SessionEvents(Protocol):
    """Upstream traffic that belongs to no call."""

    def on_list_changed(self, upstream: str, kind: str) -> None: ...

    def on_resource_updated(self, upstream: str, params: dict[str, Any]) -> None: ...

    def on_log(self, upstream: str, params: dict[str, Any]) -> None: ...

    def on_closed(self, upstream: str, why: str) -> None: ...


@dataclass(slots=True)
class _Pending:
    future: asyncio.Future[rpc.Incoming]
    sink: CallSink | None
    progress_token: Any = None
    down_token: Any = None
    input_required: bool = False  # the answer may be an MRTR round (checked on the raw line)


@dataclass(slots=True)
class ServerDescription:
    era: Era
    protocol_version: str
    capabilities: dict[str, Any] = field(default_factory=dict)
    server_info: dict[str, Any] = field(default_factory=dict)
    instructions: str | None = None


class UpstreamError(rpc.RpcError):
    """The upstream answered with a JSON-RPC error; relayed with its code and data."""


def _names_modern(e: rpc.RpcError) -> bool:
    """An error that says the server speaks the modern era: -32022 naming its version."""
    data = e.data if isinstance(e.data, dict) else {}
    supported = data.get("supported")
    return (
        e.code == rpc.UNSUPPORTED_PROTOCOL_VERSION
        and isinstance(supported, list)
        and MODERN_VERSION in supported
    )


class UpstreamSession:
    def __init__(
        self,
        name: str,
        transport: Transport,
        events: SessionEvents,
        client_info: dict[str, Any],
    ) -> None:
        self.name = name
        self.transport = transport
        self.events = events
        self.client_info = client_info
        self.description: ServerDescription | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._progress: dict[int, _Pending] = {}
        self._relays: dict[Any, asyncio.Task[None]] = {}
        self._replies: set[asyncio.Task[None]] = set()
        self._closed: str | None = None
        self._listen_task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        transport.on_frame = self._on_frame
        transport.on_close = self._on_transport_close

    # ----------------------------------------------------------------- lifecycle

    @property
    def era(self) -> Era:
        return self.description.era if self.description else Era.LEGACY

    @property
    def alive(self) -> bool:
        return self._closed is None

    @property
    def in_flight(self) -> int:
        return len(self._pending)

    async def open(self, timeout: float, probe_timeout: float = 5.0) -> ServerDescription:
        """Start the transport and find the upstream's era: `server/discover`, else `initialize`."""
        await self.transport.start()
        found = await self._discover(min(timeout, probe_timeout))
        if found is not None:
            return found
        try:
            return await self._initialize(timeout)
        except rpc.RpcError as e:
            # A probe that timed out here but reached a slow-starting server locked that
            # connection to the modern era before the `initialize` arrived; the server then
            # refuses the handshake naming its versions. That is modern evidence: probe once
            # more, now that the server is up (the SDK's own client does the same).
            if not _names_modern(e):
                raise
            log.info("upstream %s: the handshake was refused as modern; probing again", self.name)
            found = await self._discover(timeout)
            if found is None:
                raise
            return found

    async def _discover(self, timeout: float) -> ServerDescription | None:
        """The era probe: the modern description, or None for a legacy server."""
        try:
            res = await self._request_raw(
                "server/discover", self._modern_params({}, None), timeout=timeout
            )
        except (rpc.RpcError, TimeoutError):
            return (
                None  # any failure of the probe means a legacy server (spec: not keyed to one code)
            )
        result = res if isinstance(res, dict) else {}
        versions = result.get("supportedVersions") or []
        if MODERN_VERSION not in versions:
            return None
        self.description = ServerDescription(
            era=Era.MODERN,
            protocol_version=MODERN_VERSION,
            capabilities=result.get("capabilities") or {},
            server_info=(result.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo", {})
            or result.get("serverInfo", {}),
            instructions=result.get("instructions"),
        )
        self.transport_negotiated()
        return self.description

    async def _initialize(self, timeout: float) -> ServerDescription:
        try:
            init = await self._request_raw(
                "initialize",
                {
                    "protocolVersion": LATEST_LEGACY,
                    "capabilities": RELAYABLE_CLIENT_CAPABILITIES,
                    "clientInfo": self.client_info,
                },
                timeout=timeout,
            )
        except TimeoutError:
            # Say what was waited for: a server that is not MCP answers nothing at all.
            raise TimeoutError(f"no answer to initialize within {timeout:g} s") from None
        if not isinstance(init, dict):
            raise rpc.RpcError(rpc.INTERNAL_ERROR, f"upstream {self.name!r}: bad initialize result")
        version = init.get("protocolVersion")
        if version not in LEGACY_VERSIONS:
            raise rpc.RpcError(
                rpc.INTERNAL_ERROR,
                f"upstream {self.name!r} answered with unsupported protocol version {version!r}",
            )
        self.description = ServerDescription(
            era=Era.LEGACY,
            protocol_version=version,
            capabilities=init.get("capabilities") or {},
            server_info=init.get("serverInfo") or {},
            instructions=init.get("instructions"),
        )
        self.transport_negotiated()
        await self.transport.send(rpc.encode_notification("notifications/initialized", None))
        return self.description

    def transport_negotiated(self) -> None:
        hook = getattr(self.transport, "negotiated", None)
        if hook is not None and self.description is not None:
            hook(self.description.era, self.description.protocol_version)

    def retire(self, why: str) -> None:
        """Out of service now (`alive` is False, no new request is sent); `close()` ends it."""
        self._fail_all(why)

    async def close(self) -> None:
        self._fail_all("upstream session closed")
        if self._listen_task:
            self._listen_task.cancel()
        for t in list(self._relays.values()):
            t.cancel()
        await self.transport.close()

    def _on_transport_close(self, why: str) -> None:
        if self._closed is None:
            self._closed = why
            self._fail_all(f"upstream {self.name!r} went away: {why}")
            self.events.on_closed(self.name, why)

    def _fail_all(self, why: str) -> None:
        if self._closed is None:
            self._closed = why
        err = errors.unavailable(self.name, why)
        for p in self._pending.values():
            if not p.future.done():
                p.future.set_exception(err)
        self._pending.clear()
        self._progress.clear()

    # ----------------------------------------------------------------- requests

    def _modern_params(
        self,
        params: dict[str, Any],
        client_caps: dict[str, Any] | None,
        log_level: str | None = None,
    ) -> dict[str, Any]:
        caps = RELAYABLE_CLIENT_CAPABILITIES if client_caps is None else client_caps
        meta = dict(params.get("_meta") or {})
        meta[META_PROTOCOL_VERSION] = MODERN_VERSION
        meta[META_CLIENT_CAPABILITIES] = caps
        meta[META_CLIENT_INFO] = self.client_info
        if log_level is not None:
            meta[META_LOG_LEVEL] = log_level
        return {**params, "_meta": meta}

    async def _request_raw(
        self, method: str, params: dict[str, Any] | None, timeout: float | None
    ) -> Any:
        msg = await self.request(method, params, timeout=timeout)
        return rpc.load_raw(msg.result) if msg.result else None

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None,
        *,
        sink: CallSink | None = None,
        timeout: float | None = None,
        client_caps: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> rpc.Incoming:
        """Send one request and return the upstream's answer frame (raw result kept raw).

        Raises UpstreamError for an error answer, RpcError when the upstream is gone, and
        TimeoutError past `timeout` (after telling the upstream to cancel).
        """
        if self._closed is not None:
            raise errors.unavailable(
                self.name, f"upstream {self.name!r} is not connected ({self._closed})"
            )
        modern = self.description is not None and self.description.era is Era.MODERN
        rounds = 0
        while True:
            if modern and method not in ("server/discover",):
                level = sink.log_level if sink is not None else None
                wire_params: dict[str, Any] | None = self._modern_params(
                    params or {}, client_caps, level
                )
            else:
                wire_params = params
            msg, maybe_input = await self._send_and_wait(
                method, wire_params, sink, timeout, headers
            )
            if msg.error is not None:
                err = msg.error if isinstance(msg.error, dict) else {}
                raise UpstreamError(
                    int(err.get("code", rpc.INTERNAL_ERROR)),
                    str(err.get("message", "upstream error")),
                    err.get("data"),
                )
            raw = msg.result
            if not maybe_input:
                return msg
            result = rpc.load_raw(raw)
            if result.get("resultType") != "input_required":
                return msg
            if getattr(sink, "relay_rounds", False):
                return msg  # the caller relays the round to its client (stateless MRTR)
            # Modern upstream MRTR: fulfil its input requests through the calling client,
            # then retry with the answers and the echoed state.
            rounds += 1
            if sink is None or rounds > MAX_INPUT_ROUNDS:
                raise rpc.RpcError(
                    rpc.INTERNAL_ERROR,
                    f"upstream {self.name!r} asked for input the gateway cannot obtain",
                )
            answers = await self._fulfil_inputs(sink, result.get("inputRequests") or {})
            params = dict(params or {})
            params.pop("inputResponses", None)
            params.pop("requestState", None)
            if answers:
                params["inputResponses"] = answers
            if result.get("requestState") is not None:
                params["requestState"] = result["requestState"]

    async def _fulfil_inputs(self, sink: CallSink, requests: dict[str, Any]) -> dict[str, Any]:
        keys = list(requests)

        async def one(key: str) -> Any:
            req = requests[key] or {}
            return await sink.server_request(str(req.get("method")), req.get("params") or {}, key)

        results = await asyncio.gather(*(one(k) for k in keys))
        return dict(zip(keys, results, strict=True))

    async def _send_and_wait(
        self,
        method: str,
        params: dict[str, Any] | None,
        sink: CallSink | None,
        timeout: float | None,
        headers: dict[str, str] | None = None,
    ) -> tuple[rpc.Incoming, bool]:
        rid = next(self._ids)
        loop = self._loop
        if loop is None:  # held: looking up the running loop costs a getpid() call each time
            loop = self._loop = asyncio.get_running_loop()
        fut: asyncio.Future[rpc.Incoming] = loop.create_future()
        pending = _Pending(fut, sink)
        if params is not None:
            meta = params.get("_meta")
            if meta and "progressToken" in meta:
                # Rewrite: tokens must be unique across every client sharing this upstream.
                pending.down_token = meta["progressToken"]
                pending.progress_token = rid
                params = {**params, "_meta": {**meta, "progressToken": rid}}
                self._progress[rid] = pending
        self._pending[rid] = pending
        frame = rpc.encode_request(rid, method, params)
        name = None
        if params is not None:
            n = params.get("name") or params.get("uri")
            name = n if isinstance(n, str) else None
        timer = None
        try:
            await self.transport.send(frame, rid, method, name, headers)
            if timeout is not None:
                # A plain timer on the future: cheaper than an asyncio.timeout() scope.
                timer = loop.call_later(timeout, _expire, fut)
            return await fut, pending.input_required
        except TransportClosed as e:
            raise errors.unavailable(self.name, str(e)) from None
        except (asyncio.CancelledError, TimeoutError):
            if self._pending.pop(rid, None) is not None and self._closed is None:
                self._cancel_upstream(rid, "request timed out or was cancelled downstream")
            raise
        finally:
            if timer is not None:
                timer.cancel()
            self._pending.pop(rid, None)
            if pending.progress_token is not None:
                self._progress.pop(rid, None)
            # A failed future holds its exception, whose traceback holds this frame, which holds
            # the future: a cycle only the collector frees (rarely, under the CLI's thresholds),
            # so every call failed by a crash would stay in memory until then.
            del fut, pending

    def _cancel_upstream(self, rid: int, reason: str) -> None:
        if self.transport.cancel(rid):
            return
        frame = rpc.encode_notification(
            "notifications/cancelled", {"requestId": rid, "reason": reason}
        )
        task = asyncio.ensure_future(self._send_quietly(frame))
        task.add_done_callback(lambda _t: None)

    async def _send_quietly(self, frame: bytes) -> None:
        with contextlib.suppress(TransportClosed, OSError):
            await self.transport.send(frame)

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        await self._send_quietly(rpc.encode_notification(method, params))

    # ----------------------------------------------------------------- incoming

    def _on_frame(self, line: bytes, related: int | None) -> None:
        try:
            msg = rpc.decode_incoming(line)
        except (msgspec.DecodeError, msgspec.ValidationError) as e:
            log.warning(
                "upstream %s sent a frame that is not JSON-RPC (%s): %.200r", self.name, e, line
            )
            return
        method = msg.method
        if method is None:
            rid = msg.id
            if not isinstance(rid, int):
                try:
                    rid = int(rid)
                except (TypeError, ValueError):
                    log.warning("upstream %s answered an unknown id %r", self.name, msg.id)
                    return
            p = self._pending.pop(rid, None)
            if p is not None and not p.future.done():
                if self.description is not None and self.description.era is Era.MODERN:
                    # find(), not `in`: on bytes `in` first tries the needle as an int
                    p.input_required = line.find(b'"input_required"') >= 0
                p.future.set_result(msg)
            return
        params = msg.params if isinstance(msg.params, dict) else {}
        if msg.id is not None:
            self._on_request(msg.id, method, params, related)
        else:
            self._on_notification(method, params, related)

    def _sink_for(self, related: int | None) -> CallSink | None:
        if related is not None:
            p = self._pending.get(related)
            if p is not None and p.sink is not None:
                return p.sink
        # stdio and HTTP+SSE carry no link between a server-to-client request and the call
        # that caused it. When every call that could take it speaks for one client, the most
        # recent is the best owner there is; when they speak for several, a guess could show
        # one client's request to another, so none of them gets it.
        sinks = [p.sink for p in self._pending.values() if p.sink is not None]
        if not sinks:
            return None
        party = getattr(sinks[-1], "party", sinks[-1])
        if any(getattr(s, "party", s) is not party for s in sinks):
            return None
        return sinks[-1]

    def _on_request(
        self, rid: Any, method: str, params: dict[str, Any], related: int | None
    ) -> None:
        if method == "ping":
            self._reply(rid, rpc.encode_result(rid, {}))
            return
        sink = self._sink_for(related)
        if sink is None:
            if any(p.sink is not None for p in self._pending.values()):
                code, why = (
                    rpc.INTERNAL_ERROR,
                    f"calls of several clients are waiting on this server and its {method!r} "
                    "request does not say which call it belongs to",
                )
            else:
                code, why = rpc.METHOD_NOT_FOUND, f"no client is waiting for {method!r}"
            self._reply(rid, rpc.encode_error(rid, code, why))
            return
        task = asyncio.ensure_future(self._relay(rid, method, params, sink))
        key = (rid,)
        self._relays[key] = task
        task.add_done_callback(lambda _t: self._relays.pop(key, None))

    async def _relay(self, rid: Any, method: str, params: dict[str, Any], sink: CallSink) -> None:
        try:
            result = await sink.server_request(method, params)
            frame = rpc.encode_result(rid, result)
        except rpc.RpcError as e:
            frame = rpc.encode_error(rid, e.code, e.message, e.data)
        except asyncio.CancelledError:
            return
        except Exception as e:  # a relay must always answer the upstream
            log.exception("relaying %s from %s failed", method, self.name)
            frame = rpc.encode_error(rid, rpc.INTERNAL_ERROR, f"gateway error: {e}")
        await self._send_quietly(frame)

    def _reply(self, rid: Any, frame: bytes) -> None:
        task = asyncio.ensure_future(self._send_quietly(frame))
        self._replies.add(task)
        task.add_done_callback(self._replies.discard)

    def _on_notification(self, method: str, params: dict[str, Any], related: int | None) -> None:
        if method == "notifications/progress":
            token = params.get("progressToken")
            p = self._progress.get(token) if isinstance(token, int) else None
            if p is not None and p.sink is not None:
                p.sink.progress({**params, "progressToken": p.down_token})
            return
        if method == "notifications/message":
            if not any(p.sink is not None for p in self._pending.values()):
                self.events.on_log(self.name, params)  # no call waiting: a server-wide message
                return
            # Like a server-to-client request: to its call's client when that can be told,
            # never to another client's call on a guess.
            sink = self._sink_for(related)
            if sink is not None:
                sink.log(params)
            else:
                log.debug("upstream %s: log message of no attributable call dropped", self.name)
            return
        if method.endswith("/list_changed") and method.startswith("notifications/"):
            kind = method.split("/")[1]
            self.events.on_list_changed(self.name, kind)
            return
        if method == "notifications/resources/updated":
            self.events.on_resource_updated(self.name, params)
            return
        if method == "notifications/cancelled":
            rid = params.get("requestId")
            # The upstream gave up a server-to-client request of its own, or ended a listen.
            task = self._relays.pop((rid,), None)
            if task is not None:
                task.cancel()
            return
        if method == "notifications/subscriptions/acknowledged":
            return
        meta = params.get("_meta") or {}
        if META_SUBSCRIPTION_ID in meta:
            return
        log.debug("upstream %s: ignored notification %s", self.name, method)

    # ----------------------------------------------------------------- modern listen

    def listen(self, notifications: dict[str, Any]) -> None:
        """(Re)open the modern `subscriptions/listen` stream with this filter."""
        if self._listen_task is not None:
            self._listen_task.cancel()
        self._listen_task = asyncio.ensure_future(self._listen(notifications))

    async def _listen(self, notifications: dict[str, Any]) -> None:
        with contextlib.suppress(rpc.RpcError, asyncio.CancelledError):
            await self.request("subscriptions/listen", {"notifications": notifications})


Callback = Callable[[], Awaitable[None]]


def _expire(fut: asyncio.Future[rpc.Incoming]) -> None:
    if not fut.done():
        fut.set_exception(TimeoutError())
