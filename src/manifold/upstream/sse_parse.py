"""A small incremental Server-Sent Events parser shared by the HTTP upstream transports."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import aiohttp


@dataclass(slots=True)
class SseEvent:
    event: str
    data: bytes
    id: str | None
    retry: int | None


async def _lines(content: aiohttp.StreamReader) -> AsyncIterator[bytes]:
    # Chunks, not readline(): aiohttp caps a line at its read buffer, and one SSE data line
    # can carry a multi-megabyte result.
    buf = b""
    async for chunk in content.iter_any():
        buf += chunk
        if b"\n" not in chunk and b"\r" not in chunk:
            continue
        *lines, buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        for line in lines:
            yield line
    if buf:
        yield buf
    yield b""


async def iter_sse(content: aiohttp.StreamReader) -> AsyncIterator[SseEvent]:
    """Yield events as they arrive; comment lines (keep-alives) are skipped."""
    event = "message"
    data: list[bytes] = []
    eid: str | None = None
    retry: int | None = None
    async for line in _lines(content):
        if not line:
            if data or eid is not None:
                yield SseEvent(event, b"\n".join(data), eid, retry)
            event, data, eid, retry = "message", [], None, None
            continue
        if line.startswith(b":"):
            continue
        field, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if field == b"data":
            data.append(value)
        elif field == b"event":
            event = value.decode(errors="replace")
        elif field == b"id":
            eid = value.decode(errors="replace")
        elif field == b"retry":
            try:
                retry = int(value)
            except ValueError:
                pass
