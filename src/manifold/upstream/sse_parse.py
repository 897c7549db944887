"""An incremental Server-Sent Events decoder shared by the HTTP upstream transports.

`SseDecoder.feed(chunk)` returns the events a chunk completes, following the WHATWG
event-stream rules: lines end with CR, LF or CRLF (a CRLF split across two chunks is one line
end), a leading byte order mark is skipped, `:` starts a comment, a field without a colon has
an empty value, one space after the colon is dropped, `data` lines join with LF, `event` sets
the type (default "message"), `id` sets the last event id (ignored when it holds NUL) and
`retry` the reconnection time (ASCII digits only); other fields are ignored; an event without
a `data` line is not dispatched, nor is the last one when the stream ends before its blank line.

The work is linear in the bytes fed: they go into one `bytearray`, each byte is scanned once
for line ends, and a complete line is copied out once. An event whose data would exceed
`max_event` bytes is not kept: the decoder drops it up to its blank line and hands on an
`SseEvent` with `too_large` set and no data, so memory stays bounded by `max_event` plus a
chunk while the stream goes on.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Final

import orjson

from manifold.protocol import jsonrpc as rpc

__all__ = ["DEFAULT_MAX_EVENT", "SseDecoder", "SseEvent", "iter_sse", "refusal", "refuse"]

DEFAULT_MAX_EVENT: Final = 32 * 1024 * 1024  # bytes; the gateway's own message limit
_BOM: Final = b"\xef\xbb\xbf"
HEAD_BYTES: Final = 128
# The id of a JSON-RPC response when it comes first (after "jsonrpc"), as the SDKs write it.
_LEADING_ID: Final = re.compile(
    rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,64}")\s*,\s*"(?:result|error)"'
)

log = logging.getLogger("manifold.upstream")


@dataclass(slots=True)
class SseEvent:
    event: str
    data: bytes
    id: str | None  # the last event id of the stream so far (None: never set)
    retry: int | None  # the last reconnection time (ms) the stream set (None: never set)
    too_large: int = 0  # > 0: the event was dropped; at least this many bytes of it were seen
    head: bytes = b""  # a dropped event: the first bytes of its data (to find its request id)


def refusal(
    ev: SseEvent, upstream: str, limit: int, fallback: Any = None
) -> tuple[Any, bytes] | None:
    """For an event dropped as too large: (the request id, a JSON-RPC error answering it), the
    id being the one at the head of the dropped message, else `fallback` (the id of the request
    whose response stream it was); None when neither is known."""
    m = _LEADING_ID.match(ev.head)
    rid = orjson.loads(m.group(1)) if m is not None else fallback
    if rid is None:
        return None
    msg = (
        f"upstream {upstream!r} sent a message over the {limit}-byte limit "
        "(max_event_bytes); it was refused"
    )
    return rid, rpc.encode_error(rid, rpc.INTERNAL_ERROR, msg, {"bytes_seen": ev.too_large})


def refuse(
    ev: SseEvent,
    upstream: str,
    limit: int,
    rid: Any,
    on_frame: Callable[[bytes, Any], None],
) -> None:
    """An event over `max_event_bytes`: log it, and answer its request with an error when the
    request is known (`refusal`)."""
    found = refusal(ev, upstream, limit, rid)
    log.warning(
        "upstream %s: refused an SSE event of over %d bytes (max_event_bytes)%s",
        upstream,
        limit,
        f"; answered request {found[0]!r} with an error" if found else "",
    )
    if found is not None:
        on_frame(found[1], rid)


class SseDecoder:
    def __init__(self, max_event: int = DEFAULT_MAX_EVENT) -> None:
        self.max_event = max(1, max_event)
        self._buf = bytearray()
        self._scan = 0  # bytes of _buf already scanned for a line end (a partial line)
        self._started = False  # past the possible BOM
        self._after_cr = False  # the last line ended with CR: a leading LF belongs to it
        self._data: list[bytes] = []
        self._size = 0  # bytes in _data, LFs included
        self._has_data = False
        self._type = ""
        self._id: str | None = None
        self._retry: int | None = None
        self._dropping = 0  # > 0: the current event is over the limit; bytes dropped so far
        self._rest_of_line = False  # the start of the current line was dropped: skip its end
        self._head = b""

    @property
    def pending(self) -> int:
        """Bytes held for the current event (the partial line and its data lines)."""
        return len(self._buf) + self._size

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[SseEvent]:
        """The events completed by `chunk` (a chunk may end anywhere, even inside a CRLF)."""
        buf = self._buf
        buf += chunk
        if not self._started:
            if len(buf) < len(_BOM) and _BOM.startswith(buf):
                return []  # maybe the start of a BOM: wait for more
            self._started = True
            if buf.startswith(_BOM):
                del buf[: len(_BOM)]
        events: list[SseEvent] = []
        start = 0  # the current line's first byte
        i = self._scan
        n = len(buf)
        if self._after_cr and n:
            self._after_cr = False
            if buf[0] == 0x0A:  # the LF of a CRLF split across chunks
                start = i = 1
        lf = cr = -2  # -2: not searched yet; -1: none left in buf
        while i < n:
            if lf != -1 and lf < i:
                lf = buf.find(b"\n", i)
            if cr != -1 and cr < i:
                cr = buf.find(b"\r", i)
            if lf == -1 and cr == -1:
                break
            if cr == -1 or (lf != -1 and lf < cr):
                end, i = lf, lf + 1
            else:
                end = cr
                if cr + 1 < n:
                    i = cr + 2 if buf[cr + 1] == 0x0A else cr + 1
                else:
                    i = n
                    self._after_cr = True
            if self._rest_of_line:
                self._rest_of_line = False
            else:
                self._line(buf, start, end, events)
            start = i
        # Only a partial line is left: keep it, or drop it when it makes the event too large.
        if start:
            del buf[:start]
        self._scan = len(buf)
        if buf and (self._dropping or self._size + len(buf) > self.max_event):
            data = buf.startswith(b"data:")
            self._drop(len(buf), bytes(buf[5 : 6 + HEAD_BYTES]).lstrip(b" ") if data else b"")
            self._rest_of_line = True
            del buf[:]
            self._scan = 0
        return events

    def _drop(self, more: int, head: bytes = b"") -> None:
        if not self._dropping:
            self._dropping = self._size
            self._head = (self._data[0] if self._data else head)[:HEAD_BYTES]
            self._data.clear()
            self._size = 0
        self._dropping += more

    def _line(self, buf: bytearray, start: int, end: int, events: list[SseEvent]) -> None:
        if start == end:
            self._dispatch(events)
            return
        first = buf[start]
        if first == 0x3A:  # ":" a comment (keep-alive)
            return
        colon = buf.find(b":", start, end)
        if colon < 0:
            field, vstart = bytes(buf[start:end]), end
        else:
            field = bytes(buf[start:colon])
            vstart = colon + 1
            if vstart < end and buf[vstart] == 0x20:
                vstart += 1
        if field == b"data":
            size = end - vstart + (1 if self._has_data else 0)
            if self._dropping or self._size + size > self.max_event:
                self._drop(size, bytes(buf[vstart : vstart + HEAD_BYTES]))
                return
            with memoryview(buf) as view:  # one copy of a line that may take megabytes
                self._data.append(view[vstart:end].tobytes())
            self._size += size
            self._has_data = True
        elif field == b"event":
            self._type = bytes(buf[vstart:end]).decode(errors="replace")
        elif field == b"id":
            value = bytes(buf[vstart:end])
            if b"\0" not in value:
                self._id = value.decode(errors="replace")
        elif field == b"retry":
            value = bytes(buf[vstart:end])
            if value.isdigit():  # bytes: ASCII digits only
                self._retry = int(value)

    def _dispatch(self, events: list[SseEvent]) -> None:
        kind = self._type or "message"
        if self._dropping:
            events.append(SseEvent(kind, b"", self._id, self._retry, self._dropping, self._head))
            self._head = b""
        elif self._has_data:
            data = self._data[0] if len(self._data) == 1 else b"\n".join(self._data)
            events.append(SseEvent(kind, data, self._id, self._retry))
        self._data.clear()
        self._size = 0
        self._has_data = False
        self._type = ""
        self._dropping = 0


async def iter_sse(
    chunks: AsyncIterator[bytes], max_event: int = DEFAULT_MAX_EVENT
) -> AsyncIterator[SseEvent]:
    """Yield events as they arrive (comments, keep-alives, are skipped). An event over
    `max_event` bytes is yielded with `too_large` set and empty data; the stream goes on."""
    decoder = SseDecoder(max_event)
    async for chunk in chunks:
        for ev in decoder.feed(chunk):
            yield ev
