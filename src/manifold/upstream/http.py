"""Upstream Streamable HTTP transport, both eras.

Each request is one POST whose answer is JSON or an SSE stream carrying the call's own
notifications and server-to-client requests, then its response; those frames are delivered
with the request's id as `related`, which is how a sampling request finds the right client.
Legacy sessions keep the `Mcp-Session-Id`, open the standalone GET stream and end with DELETE;
modern requests carry the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, and
closing a request's stream is its cancellation. Calls share a pool of keep-alive connections
(`httpclient.py`): no connection per call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import MODERN_VERSION, Era
from manifold.protocol.headers import encode_value
from manifold.upstream.httpclient import (
    Exchange,
    HttpClientError,
    HttpPool,
    Response,
    status_hint,
)
from manifold.upstream.sse_parse import DEFAULT_MAX_EVENT, SseEvent, iter_sse, refuse
from manifold.upstream.transport import CloseHandler, FrameHandler, TransportClosed

log = logging.getLogger("manifold.upstream.http")

_NAMED = ("tools/call", "resources/read", "prompts/get")


class AuthProvider(Protocol):
    """Credentials put on each request (`credentials/provider.py`); both raise `rpc.RpcError`
    when there is no usable token, which answers the request."""

    async def header(self) -> str: ...
    async def after_401(self, sent: str) -> str: ...


class HttpTransport:
    def __init__(
        self,
        name: str,
        url: str,
        headers: dict[str, str],
        timeout: float,
        max_event: int = DEFAULT_MAX_EVENT,
        auth: AuthProvider | None = None,
    ) -> None:
        self.name = name
        self.max_event = max_event
        self.auth = auth  # None: the configured headers alone
        self.url = url
        self.headers = {
            **headers,
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        self.timeout = timeout
        self.on_frame: FrameHandler = lambda _f, _r: None
        self.on_close: CloseHandler = lambda _why: None
        self._pool = HttpPool(url, timeout)
        self._session_id: str | None = None
        self._era: Era | None = None
        # Requests in flight by id (a `_Post`, or the task of one sent on a new connection),
        # and the callback-answered notifications, to give them up on close.
        self._posts: dict[int, asyncio.Task[None] | _Post] = {}
        self._quiet: set[_Post] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._get_task: asyncio.Task[None] | None = None
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def pid(self) -> int | None:
        return None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()  # connections open on first use

    def negotiated(self, era: Era, version: str) -> None:
        self._era = era
        if era is Era.MODERN:
            self.headers["MCP-Protocol-Version"] = MODERN_VERSION
        else:
            self.headers["MCP-Protocol-Version"] = version
            if self._session_id:
                self.headers["Mcp-Session-Id"] = self._session_id
            self._get_task = asyncio.ensure_future(self._standalone_stream())

    async def send(
        self,
        frame: bytes,
        request_id: int | None = None,
        method: str | None = None,
        name: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        if self._closed:
            raise TransportClosed(f"upstream {self.name!r} is closed")
        extra = headers
        headers = self.headers
        if method is not None and (self._era is Era.MODERN or method == "server/discover"):
            headers = {**headers, "Mcp-Method": method}
            if method == "server/discover":
                headers["MCP-Protocol-Version"] = MODERN_VERSION
            if name is not None and method in _NAMED:
                headers["Mcp-Name"] = encode_value(name)
            if extra:
                headers.update(extra)
        elif extra is not None and "Authorization" in extra:
            # A call's own token (token exchange): on legacy requests too.
            headers = {**headers, "Authorization": extra["Authorization"]}
        if self.auth is None:
            # On a kept-alive connection the answer comes back through callbacks (`_Post`): no
            # task per call. Otherwise (connecting first, or an OAuth provider that may have to
            # refresh its token) a task does the same work.
            post = _Post(self, request_id, method)
            exchange = self._pool.send("POST", headers, frame, post)
            if exchange is not None:
                post.exchange = exchange
                if not post.open:  # already answered (a write that failed at once)
                    return
                if request_id is not None:
                    self._posts[request_id] = post
                else:
                    self._quiet.add(post)
                return
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        task = loop.create_task(self._post(frame, request_id, headers, method))
        if request_id is not None:
            self._posts[request_id] = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _post(
        self, frame: bytes, rid: int | None, headers: dict[str, str], method: str | None
    ) -> None:
        resp = None
        try:
            if self.auth is not None and "Authorization" not in headers:
                resp = await self._authorized("POST", headers, frame)
            else:
                resp = await self._pool.request("POST", headers, frame)
            if self._streamed(resp, rid, method):
                await self._read_stream(resp, rid)
                return
            self._answered(resp.status, await resp.read(), rid, method)
        except asyncio.CancelledError:
            raise
        except (HttpClientError, OSError) as e:
            self._fail(rid, 0, str(e))
        except rpc.RpcError as e:  # no usable credentials: the provider says what to do
            if rid is None:
                log.warning("upstream %s: %s", self.name, e.message)
            else:
                self.on_frame(rpc.encode_error(rid, e.code, e.message, e.data), rid)
        finally:
            if resp is not None:
                resp.release()
            if rid is not None:
                self._posts.pop(rid, None)

    async def _authorized(
        self, verb: str, headers: dict[str, str], body: bytes | None = None
    ) -> Response:
        """A request with the provider's token; on a 401, once more with a refreshed one
        (the server refused it before acting on it, so the retry is safe)."""
        assert self.auth is not None
        sent = await self.auth.header()
        resp = await self._pool.request(verb, {**headers, "Authorization": sent}, body)
        if resp.status != 401:
            return resp
        await resp.read()
        resp.release()
        fresh = await self.auth.after_401(sent)
        return await self._pool.request(verb, {**headers, "Authorization": fresh}, body)

    def _streamed(self, resp: Response, rid: int | None, method: str | None) -> bool:
        """Take in the head of a POST's answer; True when it is an SSE stream to relay as it
        comes (anything else is read whole, then `_answered`)."""
        if method == "initialize" and "mcp-session-id" in resp.headers:
            self._session_id = resp.headers["mcp-session-id"]
        status = resp.status
        if status == 202 or (rid is None and status < 300):
            return False
        if status == 404 and self._session_id and method != "initialize":
            return False
        ctype = resp.headers.raw(b"content-type")
        return ctype is not None and ctype.lstrip().startswith(b"text/event-stream")

    async def _read_stream(self, resp: Response, rid: int | None) -> None:
        async for ev in iter_sse(resp.iter_chunks(), self.max_event):
            if ev.too_large:
                self._refuse(ev, rid)
            elif ev.event == "message" and ev.data:
                self.on_frame(ev.data, rid)

    async def _stream_task(self, resp: Response, rid: int | None) -> None:
        """A callback-answered POST whose answer turned out to be a stream."""
        try:
            await self._read_stream(resp, rid)
        except asyncio.CancelledError:
            raise
        except (HttpClientError, OSError) as e:
            self._fail(rid, 0, str(e))
        finally:
            resp.release()
            if rid is not None:
                self._posts.pop(rid, None)

    def _answered(self, status: int, body: bytes, rid: int | None, method: str | None) -> None:
        """A POST's whole (non-stream) answer."""
        if status == 202 or (rid is None and status < 300):
            return
        if status == 404 and self._session_id and method != "initialize":
            self._fail(rid, status, "session expired")
            self._lost("the upstream ended our session (HTTP 404)")
            return
        if status >= 400:
            # Answer the request with the upstream's own error when the body has one
            # (its id may be null), else with the HTTP failure; for the era probe either
            # one is the sign of a legacy server.
            self._fail(rid, status, body[:500].decode(errors="replace"), body)
            return
        if body:
            self.on_frame(body, rid)

    def _fail(self, rid: int | None, status: int, detail: str, body: bytes = b"") -> None:
        if rid is None:
            log.warning("upstream %s: POST failed (%s %s)", self.name, status, detail)
            return
        code, msg, data = rpc.UPSTREAM_UNAVAILABLE, f"upstream {self.name!r} HTTP error", None
        if status:
            msg += f" {status}"
            if status in (401, 403, 404):
                msg = f"upstream {self.name!r}: {status_hint(status)}"
        else:
            msg = f"upstream {self.name!r}: {detail}"  # the connection failed: say how
        try:
            err = rpc.loads(body).get("error") if body.startswith(b"{") else None
        except (ValueError, AttributeError):
            err = None
        if isinstance(err, dict) and isinstance(err.get("code"), int):
            code, msg, data = err["code"], str(err.get("message", msg)), err.get("data")
        else:
            data = {"status": status, "detail": detail}
        self.on_frame(rpc.encode_error(rid, code, msg, data), rid)

    def _refuse(self, ev: SseEvent, rid: int | None) -> None:
        refuse(ev, self.name, self.max_event, rid, self.on_frame)

    def cancel(self, request_id: int) -> bool:
        if self._era is not Era.MODERN:
            return False
        post = self._posts.pop(request_id, None)
        if post is not None:
            post.cancel()  # closes the response stream: the modern cancellation
        return True

    async def _standalone_stream(self) -> None:
        """Legacy standalone GET stream: server notifications that belong to no request."""
        backoff = 0.5
        while not self._closed:
            resp = None
            try:
                headers = {k: v for k, v in self.headers.items() if k != "Content-Type"}
                headers["Accept"] = "text/event-stream"
                if self.auth is not None:
                    resp = await self._authorized("GET", headers)
                else:
                    resp = await self._pool.request("GET", headers)
                if resp.status >= 300:
                    await resp.read()
                    return  # the server offers no standalone stream (405) or refuses it
                backoff = 0.5
                async for ev in iter_sse(resp.iter_chunks(), self.max_event):
                    if ev.too_large:
                        self._refuse(ev, None)
                    elif ev.event == "message" and ev.data:
                        self.on_frame(ev.data, None)
            except asyncio.CancelledError:
                return
            except (HttpClientError, OSError):
                pass
            except rpc.RpcError as e:
                log.warning("upstream %s: standalone stream: %s", self.name, e.message)
            finally:
                if resp is not None:
                    resp.release()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 10.0)

    def _lost(self, why: str) -> None:
        if not self._closed:
            self._closed = True
            self.on_close(why)

    async def close(self) -> None:
        self._closed = True
        if self._get_task:
            self._get_task.cancel()
        for t in list(self._tasks):
            t.cancel()
        for p in [*self._posts.values(), *self._quiet]:
            p.cancel()
        self._quiet.clear()
        if self._session_id and self._era is Era.LEGACY:
            with contextlib.suppress(HttpClientError, OSError, TimeoutError, rpc.RpcError):
                async with asyncio.timeout(2):
                    if self.auth is not None:
                        resp = await self._authorized("DELETE", self.headers)
                    else:
                        resp = await self._pool.request("DELETE", self.headers)
                    await resp.read()
                    resp.release()
        self._pool.close()


class _Post:
    """One POST answered through its connection's callbacks (a `ResponseListener`): the plain
    JSON answer of the common call is delivered from the read callback, with no task. An
    answer that turns out to be an SSE stream is handed to a task at its head."""

    __slots__ = ("exchange", "method", "open", "rid", "transport")

    def __init__(self, transport: HttpTransport, rid: int | None, method: str | None) -> None:
        self.transport = transport
        self.rid = rid
        self.method = method
        self.exchange: Exchange | None = None
        self.open = True

    def on_head(self, resp: Response) -> bool:
        t = self.transport
        try:
            streamed = t._streamed(resp, self.rid, self.method)
        except Exception:  # never into the parser's callback: answer the call instead
            log.exception("upstream %s: bad answer head", t.name)
            streamed = False
        if not streamed:
            return True
        self._done()
        task = asyncio.get_running_loop().create_task(t._stream_task(resp, self.rid))
        if self.rid is not None:
            t._posts[self.rid] = task
        t._tasks.add(task)
        task.add_done_callback(t._tasks.discard)
        return False

    def on_complete(self, resp: Response | None, error: str | None) -> None:
        t, rid = self.transport, self.rid
        self._done()
        if rid is not None and t._posts.get(rid) is self:
            del t._posts[rid]
        try:
            if resp is None or error is not None:
                t._fail(rid, 0, error or "no answer")
                return
            body = resp.body()
            resp.release()
            t._answered(resp.status, body, rid, self.method)
        except Exception:  # a bug must not look like bad HTTP from the upstream
            log.exception("upstream %s: handling an answer failed", t.name)

    def _done(self) -> None:
        self.open = False
        self.transport._quiet.discard(self)

    def cancel(self) -> None:
        self._done()
        if self.exchange is not None:
            self.exchange.abandon()
