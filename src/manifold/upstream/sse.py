"""Upstream legacy HTTP+SSE transport (2024-11-05): GET an event stream, POST to its endpoint.

The stream's first `endpoint` event names where to POST; every answer, notification and
server-to-client request then comes back on the one stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from urllib.parse import urljoin

import aiohttp

from manifold.upstream.sse_parse import iter_sse
from manifold.upstream.transport import CloseHandler, FrameHandler, TransportClosed

log = logging.getLogger("manifold.upstream.sse")


class SseTransport:
    def __init__(self, name: str, url: str, headers: dict[str, str], timeout: float) -> None:
        self.name = name
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.on_frame: FrameHandler = lambda _f, _r: None
        self.on_close: CloseHandler = lambda _why: None
        self._http: aiohttp.ClientSession | None = None
        self._endpoint: str | None = None
        self._reader: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def pid(self) -> int | None:
        return None

    async def start(self) -> None:
        self._http = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=self.timeout),
        )
        ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._reader = asyncio.ensure_future(self._read(ready))
        try:
            async with asyncio.timeout(self.timeout):
                self._endpoint = await ready
        except (TimeoutError, aiohttp.ClientError, OSError) as e:
            await self.close()
            raise TransportClosed(f"SSE upstream {self.name!r} gave no endpoint: {e}") from e

    async def _read(self, ready: asyncio.Future[str]) -> None:
        assert self._http is not None
        try:
            headers = {**self.headers, "Accept": "text/event-stream"}
            async with self._http.get(self.url, headers=headers) as resp:
                if resp.status != 200:
                    raise aiohttp.ClientResponseError(
                        resp.request_info, (), status=resp.status, message="bad SSE status"
                    )
                async for ev in iter_sse(resp.content.iter_any()):
                    if ev.event == "endpoint":
                        if not ready.done():
                            ready.set_result(urljoin(self.url, ev.data.decode()))
                    elif ev.event == "message" and ev.data:
                        self.on_frame(ev.data, None)
        except asyncio.CancelledError:
            return
        except (aiohttp.ClientError, OSError, TimeoutError) as e:
            if not ready.done():
                ready.set_exception(e)
        if not self._closed:
            self._closed = True
            self.on_close("SSE stream ended")

    async def send(
        self,
        frame: bytes,
        request_id: int | None = None,
        method: str | None = None,
        name: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        if self._closed or self._http is None or self._endpoint is None:
            raise TransportClosed(f"upstream {self.name!r} is closed")
        try:
            async with self._http.post(
                self._endpoint,
                data=frame,
                headers={**self.headers, "Content-Type": "application/json"},
            ) as resp:
                if resp.status >= 400:
                    log.warning("SSE upstream %s: POST answered %s", self.name, resp.status)
        except (aiohttp.ClientError, OSError) as e:
            raise TransportClosed(f"upstream {self.name!r}: {e}") from e

    def cancel(self, request_id: int) -> bool:
        return False

    async def close(self) -> None:
        self._closed = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self._http is not None:
            await self._http.close()
