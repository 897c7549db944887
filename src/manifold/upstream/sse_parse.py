"""A small incremental Server-Sent Events parser shared by the HTTP upstream transports."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass


@dataclass(slots=True)
class SseEvent:
    event: str
    data: bytes
    id: str | None
    retry: int | None


async def _lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    # Split by hand: one SSE data line can carry a multi-megabyte result.
    buf = b""
    async for chunk in chunks:
        buf += chunk
        if b"\n" not in chunk and b"\r" not in chunk:
            continue
        *lines, buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        for line in lines:
            yield line
    if buf:
        yield buf
    yield b""


async def iter_sse(chunks: AsyncIterator[bytes]) -> AsyncIterator[SseEvent]:
    """Yield events as they arrive; comment lines (keep-alives) are skipped."""
    event = "message"
    data: list[bytes] = []
    eid: str | None = None
    retry: int | None = None
    async for line in _lines(chunks):
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
