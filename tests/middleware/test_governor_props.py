"""Properties of the governor over generated texts and budgets: a governed result never exceeds
max_tokens (room for a modern client's resultType included), every read_result page fits the
page size, and the pages joined are byte-identical to the full text."""

from __future__ import annotations

import asyncio
import os
import re
from typing import Any

import orjson
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from manifold.economy.tokens import estimate
from manifold.middleware.governor import fit, page_bounds
from tests.middleware.support import OWNER, RESERVE, ctx, gateway, governed, read_all, text_result

RID = re.compile(r'read_result\(id="([^"]+)"')
# Characters that cost more than one byte in JSON: escapes, control characters, multi-byte.
TRICKY = st.sampled_from(['"', "\\", "\n", "\t", "\x00", "\x1f", "é", "日", "😀", "\u2028", "a"])
BASE = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=300),
    st.lists(TRICKY, max_size=300).map("".join),
)
# Hypothesis draws short strings; repeat them so most results are over the budget.
TEXT = st.tuples(BASE, st.integers(1, 400)).map(lambda t: (t[0] * t[1])[:8000])
SETTINGS = settings(
    max_examples=int(os.environ.get("GOVERNOR_EXAMPLES", "150")),  # more for a deeper run
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _govern(response: dict[str, Any], raw: bytes) -> tuple[Any, bytes]:
    gw = gateway(**response)
    _, handler, _ = governed(gw, raw)

    async def go() -> bytes:
        return bytes((await handler(ctx())).result)

    return gw, asyncio.run(go())


@SETTINGS
@given(
    text=TEXT,
    max_tokens=st.integers(64, 700),
    page_tokens=st.one_of(st.just(0), st.integers(64, 900)),
    blocks=st.integers(1, 3),
)
def test_governed_results_fit_and_pages_join_back(
    text: str, max_tokens: int, page_tokens: int, blocks: int
) -> None:
    parts = [text[i::blocks] for i in range(blocks)]  # several text blocks
    raw = orjson.dumps({"content": [{"type": "text", "text": p} for p in parts]})
    gw, out = _govern({"max_tokens": max_tokens, "page_tokens": page_tokens, "dedup": False}, raw)
    if len(raw) <= max_tokens * 4:
        event("under budget")
        assert out == raw
        return
    assert estimate(out) <= max_tokens
    assert len(out) + RESERVE <= max_tokens * 4
    obj = orjson.loads(out)
    full = "\n".join(parts)
    m = RID.search(obj["content"][-1]["text"])
    event("paged" if m else "fitted once compact")
    if m is None:
        assert obj["content"][0]["text"] == full
        return
    back, frames = read_all(gw, m.group(1))
    assert back == full
    first = gw.results.page(m.group(1), 1, OWNER)
    assert first is not None
    assert obj["content"][0]["text"] == first.text  # the model saw page 1
    page_size = page_tokens or max_tokens
    for frame in frames:
        assert len(frame) + RESERVE <= page_size * 4


@SETTINGS
@given(text=TEXT, room=st.integers(6, 2000), start=st.integers(0, 50))
def test_pages_cover_the_text_exactly(text: str, room: int, start: int) -> None:
    start = min(start, len(text))
    bounds = page_bounds(text, start, room)
    starts = [start, *bounds][: len(bounds)]
    assert "".join(text[s:e] for s, e in zip(starts, bounds, strict=True)) == text[start:]
    for s, e in zip(starts, bounds, strict=True):
        assert e > s
        assert len(orjson.dumps(text[s:e])) - 2 <= room
    end = fit(text, start, room)
    assert start <= end <= len(text)


@SETTINGS
@given(text=st.text(max_size=3000), max_tokens=st.integers(64, 300))
def test_repeat_notes_fit(text: str, max_tokens: int) -> None:
    gw = gateway(max_tokens=max_tokens)
    raw = text_result(text)
    _, handler, _ = governed(gw, raw)

    async def go() -> list[bytes]:
        return [bytes((await handler(ctx())).result) for _ in range(2)]

    first, second = asyncio.run(go())
    if len(raw) > 400:  # repeats of results worth a note
        assert "Identical" in second.decode()
        assert len(second) + RESERVE <= min(70, max_tokens) * 4
    if len(raw) > max_tokens * 4:
        assert len(first) + RESERVE <= max_tokens * 4
