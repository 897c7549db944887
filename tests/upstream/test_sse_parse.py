import asyncio
import re
from collections.abc import AsyncIterator

import aiohttp
from aiohttp import web
from hypothesis import given
from hypothesis import strategies as st

from manifold.upstream.sse_parse import SseDecoder, SseEvent, iter_sse, refusal

Ev = tuple[str, bytes, str | None, int | None]


def reference(stream: bytes) -> list[Ev]:
    """The WHATWG event-stream rules applied to a whole stream at once, written plainly."""
    if stream.startswith(b"\xef\xbb\xbf"):
        stream = stream[3:]
    lines = re.split(rb"\r\n|\r|\n", stream)
    lines.pop()  # the text after the last line end is not a line (the stream ended in it)
    out: list[Ev] = []
    data: bytes | None = None
    kind = ""
    last_id: str | None = None
    retry: int | None = None
    for line in lines:
        if line == b"":
            if data is not None:
                out.append((kind or "message", data[:-1], last_id, retry))
            data, kind = None, ""
            continue
        if line.startswith(b":"):
            continue
        name, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            data = (data or b"") + value + b"\n"
        elif name == b"event":
            kind = value.decode(errors="replace")
        elif name == b"id" and b"\0" not in value:
            last_id = value.decode(errors="replace")
        elif name == b"retry" and value and all(48 <= c <= 57 for c in value):
            retry = int(value)
    return out


def decode(chunks: list[bytes], max_event: int = 1 << 30) -> list[Ev]:
    dec = SseDecoder(max_event)
    events: list[SseEvent] = []
    for chunk in chunks:
        events.extend(dec.feed(chunk))
    assert all(not e.too_large for e in events)
    return [(e.event, e.data, e.id, e.retry) for e in events]


async def aiter(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for c in chunks:
        yield c


async def collect(chunks: list[bytes], max_event: int = 1 << 30) -> list[SseEvent]:
    return [e async for e in iter_sse(aiter(chunks), max_event)]


# ------------------------------------------------------------------ streams for hypothesis

_eol = st.sampled_from([b"\n", b"\r", b"\r\n"])
_text = st.binary(max_size=12).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))
_field = st.one_of(
    st.tuples(st.sampled_from([b"data", b"event", b"id", b"retry", b"other", b""]), _text),
    st.tuples(st.just(b"retry"), st.integers(0, 99999).map(lambda i: str(i).encode())),
    st.tuples(st.just(b"id"), st.just(b"a\0b")),
)


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    out = [b"\xef\xbb\xbf"] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(0, 6))):
        for name, value in draw(st.lists(_field, max_size=5)):
            form = draw(st.integers(0, 3))
            if form == 0:
                line = b":" + value  # a comment
            elif form == 1:
                line = name  # no colon: the value is empty
            else:
                line = name + b":" + (b" " if form == 2 else b"") + value
            out.append(line + draw(_eol))
        out.append(draw(_eol))  # end of event
    if draw(st.booleans()):
        out.append(b"data: cut off")  # an event the stream ends in: never dispatched
    return b"".join(out)


@given(streams(), st.lists(st.integers(0, 400), max_size=30))
def test_any_chunking_gives_the_events_of_one_chunk(stream: bytes, cuts: list[int]) -> None:
    points = sorted({c % (len(stream) + 1) for c in cuts})
    chunks = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]
    whole = decode([stream])
    assert whole == reference(stream)
    assert decode(chunks) == whole
    assert decode([stream[i : i + 1] for i in range(len(stream))]) == whole


async def test_crlf_split_across_chunks_is_one_line_end() -> None:
    events = await collect([b"data: a\r", b"\ndata: b\r\n\r\n"])
    assert [(e.event, e.data) for e in events] == [("message", b"a\nb")]
    events = await collect([b"data: a\r", b"\r", b"data: b\r", b"\n", b"\r\n"])
    assert [e.data for e in events] == [b"a", b"b"]


async def test_fields_comments_bom_and_ids() -> None:
    stream = [
        b"\xef\xbb",
        b"\xbf: hello\nretry: 1500\nid: 7\nevent: endpoint\ndata:/msg\n\n",
        b"data\n\nid: x\0y\ndata:  two spaces\nretry: 2s\n\n",
        b"id\nfoo: bar\n\nid: 9\n\n",  # no data: nothing dispatched, but the id is kept
        b"data: last\n\ndata: never finished",
    ]
    events = await collect(stream)
    assert [(e.event, e.data, e.id, e.retry) for e in events] == [
        ("endpoint", b"/msg", "7", 1500),
        ("message", b"", "7", 1500),
        ("message", b" two spaces", "7", 1500),
        ("message", b"last", "9", 1500),
    ]


async def test_a_20_mib_event_in_64_kib_chunks() -> None:
    body = b'{"jsonrpc":"2.0","id":1,"result":"' + b"x" * (20 * 1024 * 1024) + b'"}'
    stream = b"data: " + body + b"\r\n\r\n"
    chunks = [stream[i : i + 65536] for i in range(0, len(stream), 65536)]
    dec = SseDecoder()
    events: list[SseEvent] = []
    most = 0
    for chunk in chunks:
        events.extend(dec.feed(chunk))
        most = max(most, dec.pending)
    assert [e.data for e in events] == [body]
    assert most <= len(stream)  # held once, not copied around


async def test_an_event_over_the_limit_is_refused_and_the_stream_goes_on() -> None:
    big = b'{"jsonrpc":"2.0","id":42,"result":{"text":"' + b"y" * 5000 + b'"}}'
    for chunking in (1000, 7, len(big) + 100):
        stream = b"data: small\n\ndata: " + big + b"\n\ndata: a\ndata: b\n\n"
        stream += b"data: " + b"z" * 600 + b"\ndata: " + b"z" * 600 + b"\n\ndata: after\n\n"
        chunks = [stream[i : i + chunking] for i in range(0, len(stream), chunking)]
        dec = SseDecoder(1024)
        events: list[SseEvent] = []
        for chunk in chunks:
            events.extend(dec.feed(chunk))
            assert dec.pending <= 1024 + chunking
        assert [(e.data, e.too_large > 1024) for e in events] == [
            (b"small", False),
            (b"", True),
            (b"a\nb", False),
            (b"", True),  # two lines that fit alone, not together
            (b"after", False),
        ]
        rid, frame = refusal(events[1], "up", 1024) or (None, b"")
        assert rid == 42 and b'"code":-32603' in frame and b"1024-byte limit" in frame
        # No id at the head of the message: the request the stream answers, if known.
        assert refusal(events[3], "up", 1024) is None
        assert refusal(events[3], "up", 1024, 5) is not None


async def test_events_across_chunks_and_big_lines() -> None:
    big = b"x" * 300_000

    async def handler(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        await resp.write(b": keep-alive\n\nid: 1\nevent: endpoint\ndata: /msg\n\n")
        await resp.write(b"data: " + big[:100])
        await asyncio.sleep(0.01)
        await resp.write(big[100:] + b"\r\n\r\ndata: a\ndata: b\n\n")
        return resp

    app = web.Application()
    app.router.add_get("/", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        async with aiohttp.ClientSession() as s, s.get(f"http://127.0.0.1:{port}/") as r:
            events = [e async for e in iter_sse(r.content.iter_any())]
    finally:
        await runner.cleanup()
    assert [(e.event, e.id) for e in events] == [
        ("endpoint", "1"),
        ("message", "1"),  # the last event id stays until the stream sets another
        ("message", "1"),
    ]
    assert events[0].data == b"/msg"
    assert events[1].data == big
    assert events[2].data == b"a\nb"
