import asyncio

import aiohttp
from aiohttp import web

from manifold.upstream.sse_parse import iter_sse


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
        ("message", None),
        ("message", None),
    ]
    assert events[0].data == b"/msg"
    assert events[1].data == big
    assert events[2].data == b"a\nb"
