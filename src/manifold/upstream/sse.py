"""Upstream legacy HTTP+SSE transport (2024-11-05): GET an event stream, POST to its endpoint.

The stream's first `endpoint` event names where to POST (same origin); every answer,
notification and server-to-client request then comes back on the one stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from urllib.parse import urljoin, urlsplit

from manifold.upstream.httpclient import HttpClientError, HttpPool, status_hint
from manifold.upstream.sse_parse import DEFAULT_MAX_EVENT, SseEvent, iter_sse, refuse
from manifold.upstream.transport import CloseHandler, FrameHandler, TransportClosed

log = logging.getLogger("manifold.upstream.sse")


class SseTransport:
    def __init__(
        self,
        name: str,
        url: str,
        headers: dict[str, str],
        timeout: float,
        max_event: int = DEFAULT_MAX_EVENT,
    ) -> None:
        self.name = name
        self.max_event = max_event
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.on_frame: FrameHandler = lambda _f, _r: None
        self.on_close: CloseHandler = lambda _why: None
        self._pool = HttpPool(url, timeout)
        self._endpoint: str | None = None
        self._reader: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def pid(self) -> int | None:
        return None

    async def start(self) -> None:
        ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._reader = asyncio.ensure_future(self._read(ready))
        try:
            async with asyncio.timeout(self.timeout):
                self._endpoint = await ready
        except (TimeoutError, HttpClientError, OSError) as e:
            await self.close()
            why = f"no endpoint event within {self.timeout:g} s" if not str(e) else str(e)
            raise TransportClosed(f"SSE upstream {self.name!r} gave no endpoint: {why}") from e

    async def _read(self, ready: asyncio.Future[str]) -> None:
        resp = None
        try:
            resp = await self._pool.request("GET", {**self.headers, "Accept": "text/event-stream"})
            if resp.status != 200:
                raise HttpClientError(f"SSE stream answered {status_hint(resp.status)}")
            async for ev in iter_sse(resp.iter_chunks(), self.max_event):
                if ev.too_large:
                    self._refuse(ev, None)
                elif ev.event == "endpoint":
                    if not ready.done():
                        target = urljoin(self.url, ev.data.decode())
                        if urlsplit(target).netloc != urlsplit(self.url).netloc:
                            raise HttpClientError(f"endpoint {target!r} is on another origin")
                        ready.set_result(target)
                elif ev.event == "message" and ev.data:
                    self.on_frame(ev.data, None)
        except asyncio.CancelledError:
            return
        except (HttpClientError, OSError) as e:
            if not ready.done():
                ready.set_exception(e)
        finally:
            if resp is not None:
                resp.release()
        if not self._closed:
            self._closed = True
            self.on_close("SSE stream ended")

    def _refuse(self, ev: SseEvent, rid: int | None) -> None:
        refuse(ev, self.name, self.max_event, rid, self.on_frame)

    async def send(
        self,
        frame: bytes,
        request_id: int | None = None,
        method: str | None = None,
        name: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        if self._closed or self._endpoint is None:
            raise TransportClosed(f"upstream {self.name!r} is closed")
        u = urlsplit(self._endpoint)
        path = u.path + (f"?{u.query}" if u.query else "")
        try:
            resp = await self._pool.request(
                "POST", {**self.headers, "Content-Type": "application/json"}, frame, path
            )
            await resp.read()
            resp.release()
        except (HttpClientError, OSError) as e:
            raise TransportClosed(f"upstream {self.name!r}: {e}") from e
        if resp.status >= 400:
            log.warning("SSE upstream %s: POST answered %s", self.name, resp.status)

    def cancel(self, request_id: int) -> bool:
        return False

    async def close(self) -> None:
        self._closed = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._pool.close()
