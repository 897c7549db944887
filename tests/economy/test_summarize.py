"""Summaries through a REAL local HTTP server speaking the Ollama API (aiohttp, 127.0.0.1, a
free port), alone and inside the governor: a good answer, and the fallbacks to truncation on a
timeout, an HTTP error, bad JSON, a missing field and an over-budget summary."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest
from aiohttp import web

from manifold.config import SummarizeConfig
from manifold.economy.summarize import PROMPT_CHARS, Summarizer
from manifold.economy.tokens import estimate
from tests.middleware.support import RESERVE, ctx, gateway, governed, read_all, text_result
from tests.servers.large_server import big_text

RID = re.compile(r'read_result\(id="([^"]+)"')


@dataclass
class Ollama:
    """What the fake server answers, and what it was asked."""

    url: str = ""
    mode: str = "ok"
    answer: str = "A short summary: widgets fail at small budgets."
    sleep: float = 5.0
    requests: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture
async def ollama() -> AsyncIterator[Ollama]:
    state = Ollama()

    async def generate(request: web.Request) -> web.StreamResponse:
        state.requests.append(await request.json())
        if state.mode == "slow":
            await asyncio.sleep(state.sleep)
        if state.mode == "http500":
            return web.Response(status=500, text="model crashed")
        if state.mode == "badjson":
            return web.Response(text="{not json", content_type="application/json")
        if state.mode == "noresponse":
            return web.json_response({"done": True})
        return web.json_response({"model": "tiny", "response": state.answer, "done": True})

    app = web.Application()
    app.router.add_post("/api/generate", generate)
    runner = web.AppRunner(app, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    state.url = f"http://127.0.0.1:{port}"
    try:
        yield state
    finally:
        await runner.cleanup()


def _summarizer(url: str, timeout: float = 2.0) -> Summarizer:
    return Summarizer(SummarizeConfig(url=url, model="tiny", timeout=timeout, max_tokens=100))


async def test_request_and_answer(ollama: Ollama) -> None:
    s = _summarizer(ollama.url)
    assert await s.summarize("some long text", "up__t", 80) == ollama.answer
    body = ollama.requests[-1]
    assert body["model"] == "tiny" and body["stream"] is False
    assert body["options"] == {"num_predict": 80}
    assert "some long text" in body["prompt"] and "up__t" in body["prompt"]
    # The configured max_tokens caps num_predict; a long input is cut for the prompt.
    await s.summarize("x" * (PROMPT_CHARS + 500), "up__t", 5000)
    body = ollama.requests[-1]
    assert body["options"] == {"num_predict": 100}
    assert "cut short" in body["prompt"] and len(body["prompt"]) < PROMPT_CHARS + 400
    s.close()


async def test_think_tags_are_dropped(ollama: Ollama) -> None:
    ollama.answer = "<think>reasoning...</think>\nThe answer."
    assert await _summarizer(ollama.url).summarize("t", "x", 50) == "The answer."


@pytest.mark.parametrize("mode", ["http500", "badjson", "noresponse"])
async def test_failures_give_none(ollama: Ollama, mode: str) -> None:
    ollama.mode = mode
    assert await _summarizer(ollama.url).summarize("text", "tool", 50) is None


async def test_timeout_gives_none_within_the_timeout(ollama: Ollama) -> None:
    ollama.mode = "slow"
    t0 = time.monotonic()
    assert await _summarizer(ollama.url, timeout=0.3).summarize("text", "tool", 50) is None
    assert time.monotonic() - t0 < 2.0


async def test_nobody_listening_gives_none() -> None:
    from tests.support import free_port

    url = f"http://127.0.0.1:{free_port()}"
    assert await _summarizer(url, timeout=1.0).summarize("text", "tool", 50) is None


# ------------------------------------------------------------------ through the governor


def _gov(url: str, timeout: float = 2.0, max_tokens: int = 200) -> Any:
    return gateway(
        max_tokens=max_tokens,
        dedup=False,
        summarize={"url": url, "model": "tiny", "timeout": timeout, "max_tokens": 150},
    )


async def test_governor_sends_the_summary_with_the_full_text_id(ollama: Ollama) -> None:
    gw = _gov(ollama.url)
    text = big_text(20_000)
    raw = text_result(text)
    _, handler, _ = governed(gw, raw)
    out = bytes((await handler(ctx())).result)
    assert len(out) + RESERVE <= 200 * 4
    obj = orjson.loads(out)
    assert obj["content"][0]["text"] == ollama.answer
    note = obj["content"][-1]["text"]
    assert "Summary by tiny" in note
    m = RID.search(note)
    assert m is not None
    back, _ = read_all(gw, m.group(1))
    assert back == text
    num_predict = ollama.requests[-1]["options"]["num_predict"]
    assert 16 <= num_predict <= 150
    c = gw.savings.counters["summarize"]
    assert c.events == 1 and c.before == estimate(raw) and c.after == estimate(out)
    assert "governor" not in gw.savings.counters


async def _falls_back(gw: Any) -> dict[str, Any]:
    text = big_text(20_000)
    _, handler, _ = governed(gw, text_result(text))
    out = bytes((await handler(ctx())).result)
    assert len(out) + RESERVE <= 200 * 4
    obj = orjson.loads(out)
    assert text.startswith(obj["content"][0]["text"])
    assert "Cut to fit" in obj["content"][-1]["text"]
    m = RID.search(obj["content"][-1]["text"])
    assert m is not None
    assert read_all(gw, m.group(1))[0] == text
    assert gw.savings.counters["governor"].events == 1
    assert "summarize" not in gw.savings.counters
    return obj


@pytest.mark.parametrize("mode", ["http500", "badjson", "noresponse"])
async def test_governor_falls_back_on_errors(ollama: Ollama, mode: str) -> None:
    ollama.mode = mode
    await _falls_back(_gov(ollama.url))


async def test_governor_falls_back_on_timeout(ollama: Ollama) -> None:
    ollama.mode = "slow"
    t0 = time.monotonic()
    await _falls_back(_gov(ollama.url, timeout=0.3))
    assert time.monotonic() - t0 < 2.5


async def test_governor_falls_back_on_an_over_budget_summary(ollama: Ollama) -> None:
    ollama.answer = "word " * 2000  # the model ignored num_predict
    await _falls_back(_gov(ollama.url))
