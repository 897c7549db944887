"""The response governor around a real terminal: cap, paging, relaying, dedup, projection,
accounting. The gateway is real (no upstream started); read_result is the real tool."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest

from manifold.addons import build_addons
from manifold.config import ConfigError, parse_config
from manifold.economy.dedup import Dedup
from manifold.economy.tokens import estimate
from manifold.middleware.governor import (
    DEDUP_MAX_TOKENS,
    MIN_MAX_TOKENS,
    Governor,
    fit,
    full_text,
    page_bounds,
)
from manifold.pipeline import CallContext, compose
from manifold.protocol.jsonrpc import Incoming
from tests.middleware.support import (
    ENVELOPE,
    OWNER,
    RESERVE,
    ctx,
    gateway,
    governed,
    read_all,
    text_result,
)
from tests.servers.large_server import big_text, issues_json

RID = re.compile(r'read_result\(id="([^"]+)"')


def _rid(obj: dict[str, Any]) -> str:
    for block in reversed(obj["content"]):
        m = RID.search(block.get("text", ""))
        if m:
            return m.group(1)
    raise AssertionError(f"no read_result id in {obj}")


def _fits(out: bytes, max_tokens: int, has_result_type: bool = False) -> None:
    extra = ENVELOPE if has_result_type else RESERVE
    assert estimate(out) <= max_tokens
    assert len(out) + extra <= max_tokens * 4, (len(out), extra, max_tokens)


# ------------------------------------------------------------------ cap and paging


async def test_under_budget_is_relayed_untouched_and_undecoded() -> None:
    gw = gateway(max_tokens=100, dedup=False)
    raw = b"this is not JSON at all, but it is short"
    _, handler, _ = governed(gw, raw)
    res = await handler(ctx())
    assert bytes(res.result) == raw  # not decoded: invalid JSON would not survive a decode
    # The exact boundary: bytes/4 <= max_tokens passes.
    exact = text_result("x" * (400 - len(text_result(""))))
    assert len(exact) == 400
    _, handler, _ = governed(gw, exact)
    assert bytes((await handler(ctx())).result) == exact


async def test_over_budget_is_cut_stored_and_read_back_byte_identical() -> None:
    gw = gateway(max_tokens=300, dedup=False)
    text = big_text(20_000)
    raw = text_result(text)
    _, handler, _ = governed(gw, raw)
    out = bytes((await handler(ctx())).result)
    _fits(out, 300)
    obj = orjson.loads(out)
    head, note = obj["content"][0]["text"], obj["content"][-1]["text"]
    assert text.startswith(head) and head
    rid = _rid(obj)
    assert f'read_result(id="{rid}", page=2)' in note
    assert "300-token budget" in note
    assert "structuredContent" not in obj and "isError" not in obj
    back, frames = read_all(gw, rid)
    assert back == text
    assert gw.results is not None
    p1 = gw.results.page(rid, 1, OWNER)
    assert p1 is not None and p1.text == head  # what the model saw is page 1
    assert f"page 1 of {p1.pages}" in note
    for frame in frames:  # every read_result page fits the page size (= max_tokens here)
        assert len(frame) + RESERVE <= 300 * 4
    c = gw.savings.counters["governor"]
    assert c.events == 1 and c.before == estimate(raw) and c.after == estimate(out)


async def test_page_tokens_sets_the_page_size() -> None:
    gw = gateway(max_tokens=200, page_tokens=1000, dedup=False)
    text = big_text(30_000)
    _, handler, _ = governed(gw, text_result(text))
    obj = orjson.loads(bytes((await handler(ctx())).result))
    back, frames = read_all(gw, _rid(obj))
    assert back == text
    assert all(len(f) + RESERVE <= 1000 * 4 for f in frames)
    assert max(len(f) for f in frames[1:-1]) > 200 * 4  # bigger than the cap's page


async def test_result_type_is_kept_and_uses_no_reserve() -> None:
    gw = gateway(max_tokens=100, dedup=False)
    raw = text_result(big_text(5000), resultType="complete", _meta={"k": "v" * 100})
    _, handler, _ = governed(gw, raw)
    out = bytes((await handler(ctx())).result)
    obj = orjson.loads(out)
    assert obj["resultType"] == "complete" and "_meta" not in obj
    _fits(out, 100, has_result_type=True)


async def test_iserror_and_incomplete_results_are_relayed() -> None:
    gw = gateway(max_tokens=64, dedup=False)
    for extra in ({"isError": True}, {"resultType": "input_required"}):
        raw = text_result(big_text(5000), **extra)
        _, handler, _ = governed(gw, raw)
        assert bytes((await handler(ctx())).result) == raw
    _, handler, _ = governed(gw, b"[1, 2, 3]" + b" " * 1000)
    assert bytes((await handler(ctx())).result).startswith(b"[1, 2, 3]")
    assert not gw.savings.counters


async def test_error_responses_and_other_methods_pass() -> None:
    gw = gateway(max_tokens=64)
    gov = Governor(gw)

    async def failing(c: CallContext) -> Incoming:
        return Incoming(error={"code": -1, "message": "x" * 5000})

    res = await compose([gov], failing)(ctx())
    assert res.error is not None
    big = text_result(big_text(5000))
    _, handler, _ = governed(gw, big)
    for c in (ctx(method="prompts/get"), ctx(upstream="@manifold", tool="invoke_tool")):
        assert bytes((await handler(c)).result) == big


async def test_several_text_blocks_and_other_blocks() -> None:
    gw = gateway(max_tokens=200, dedup=False)
    a, b = big_text(3000), "second block\n" * 50
    small_image = {"type": "image", "data": "QUJD", "mimeType": "image/png"}
    big_image = {"type": "image", "data": "A" * 4000, "mimeType": "image/png"}
    resource = {"type": "resource", "resource": {"uri": "x://y", "text": "embedded text"}}
    content = [
        {"type": "text", "text": a},
        small_image,
        big_image,
        {"type": "text", "text": b},
        resource,
    ]
    raw = orjson.dumps({"content": content})
    _, handler, _ = governed(gw, raw)
    out = bytes((await handler(ctx())).result)
    _fits(out, 200)
    obj = orjson.loads(out)
    assert small_image in obj["content"] and big_image not in obj["content"]
    assert "1 other content blocks left out" in obj["content"][-1]["text"]
    back, _ = read_all(gw, _rid(obj))
    assert back == f"{a}\n{b}\nembedded text"


async def test_structured_content_only_is_relayed_whole() -> None:
    """No text to cut beside the structuredContent, which is never changed: relayed as is."""
    gw = gateway(max_tokens=100, dedup=False)
    sc = {"rows": [{"i": i, "name": f"row {i}"} for i in range(200)]}
    raw = orjson.dumps({"content": [], "structuredContent": sc})
    _, handler, _ = governed(gw, raw)
    assert bytes((await handler(ctx())).result) == raw
    assert "governor" not in gw.savings.counters


async def test_only_big_images_over_budget() -> None:
    gw = gateway(max_tokens=100, dedup=False)
    raw = orjson.dumps({"content": [{"type": "image", "data": "A" * 4000, "mimeType": "x/y"}]})
    _, handler, _ = governed(gw, raw)
    out = bytes((await handler(ctx())).result)
    _fits(out, 100)
    assert "1 content blocks left out" in orjson.loads(out)["content"][0]["text"]


async def test_short_text_beside_large_structured_content_is_relayed_whole() -> None:
    gw = gateway(max_tokens=300, dedup=False)
    text = "short text that fits"
    raw = text_result(text, structuredContent={"blob": "z" * 3000})
    _, handler, _ = governed(gw, raw)
    assert bytes((await handler(ctx())).result) == raw


OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {"result": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["result", "n"],
}


def _declare_output_schema(gw: Any, schema: dict[str, Any]) -> None:
    gw.catalog.set_items(
        "up", "tools", [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}]
    )


async def test_a_cut_result_keeps_the_structured_content_whole() -> None:
    gw = gateway(max_tokens=100, dedup=False)
    _declare_output_schema(gw, OUTPUT_SCHEMA)
    text = big_text(4000)
    sc = {"result": text, "n": 7}
    raw = text_result(text, structuredContent=sc)
    _, handler, _ = governed(gw, raw)
    out = bytes((await handler(ctx())).result)
    obj = orjson.loads(out)
    assert obj["structuredContent"] == sc  # the upstream's, not a placeholder
    head = obj["content"][0]["text"]
    assert head and text.startswith(head) and len(head) < len(text)
    back, _ = read_all(gw, _rid(obj))
    assert back == text
    # Only the text is held to the budget; the structuredContent comes on top of it.
    rest = orjson.dumps({k: v for k, v in obj.items() if k != "structuredContent"})
    _fits(rest, 100)
    sc_part = len(b',"structuredContent":') + len(orjson.dumps(sc))
    assert len(out) == len(rest) + sc_part
    # The savings count what was sent, structuredContent included.
    c = gw.savings.counters["governor"]
    assert c.before == estimate(raw) and c.after == estimate(out)


async def test_a_repeat_keeps_the_structured_content_whole() -> None:
    gw = gateway(max_tokens=0)
    _declare_output_schema(gw, OUTPUT_SCHEMA)
    sc = {"result": "Europe/Warsaw 2026-01-01T10:00:00+01:00 " * 20, "n": 3}
    raw = text_result(orjson.dumps(sc).decode(), structuredContent=sc)
    _, handler, _ = governed(gw, raw)
    assert bytes((await handler(ctx())).result) == raw
    second = orjson.loads(bytes((await handler(ctx())).result))
    assert "Identical" in second["content"][0]["text"]
    assert second["structuredContent"] == sc
    c = gw.savings.counters["dedup"]
    assert c.events == 1 and c.before == estimate(raw) and c.after < c.before
    # A repeat note that would not be smaller than the result is not made.
    gw = gateway(max_tokens=0)
    raw = orjson.dumps({"content": [{"type": "text", "text": "ok"}], "structuredContent": sc})
    _, handler, _ = governed(gw, raw)
    assert bytes((await handler(ctx())).result) == raw
    assert bytes((await handler(ctx())).result) == raw
    assert "dedup" not in gw.savings.counters


async def test_drop_packs_never_make_structured_content_invalid() -> None:
    """A pack that drops a field the outputSchema requires leaves structuredContent as the
    upstream sent it; the text is still projected. `fields` asked by the model apply."""
    schema = {
        "type": "object",
        "properties": {"node_id": {"type": "string"}, "number": {"type": "integer"}},
        "required": ["node_id", "number"],
    }
    sc = {"node_id": "I_kw1", "number": 1, "title": "x" * 600}
    raw = text_result(orjson.dumps(sc).decode(), structuredContent=sc)
    gw = gateway(packs=["github"], dedup=False)
    _declare_output_schema(gw, schema)
    _, handler, _ = governed(gw, raw)
    obj = orjson.loads(bytes((await handler(ctx())).result))
    assert obj["structuredContent"] == sc
    assert "node_id" not in orjson.loads(obj["content"][0]["text"])
    # Where the projected structuredContent still validates, it is projected.
    _declare_output_schema(gw, {"type": "object", "properties": {"number": {"type": "integer"}}})
    obj = orjson.loads(bytes((await handler(ctx())).result))
    assert "node_id" not in obj["structuredContent"]
    # No outputSchema: nothing to break.
    gw.catalog.set_items("up", "tools", [{"name": "t", "inputSchema": {"type": "object"}}])
    obj = orjson.loads(bytes((await handler(ctx())).result))
    assert "node_id" not in obj["structuredContent"]
    # The model's own `fields` choice applies even against the schema.
    _declare_output_schema(gw, schema)
    obj = orjson.loads(bytes((await handler(ctx(fields=["title"]))).result))
    assert obj["structuredContent"] == {"title": sc["title"]}


async def test_no_store_says_the_rest_is_not_kept() -> None:
    gw = gateway(max_tokens=100, dedup=False)
    gw.results = None
    _, handler, _ = governed(gw, text_result(big_text(5000)))
    out = bytes((await handler(ctx())).result)
    _fits(out, 100)
    assert "the rest is not kept" in out.decode()


async def test_tiny_budget_is_raised_to_the_minimum() -> None:
    gw = gateway(max_tokens=5, dedup=False)
    gov, handler, _ = governed(gw, text_result(big_text(5000)))
    assert gov.max_tokens == MIN_MAX_TOKENS
    out = bytes((await handler(ctx())).result)
    _fits(out, MIN_MAX_TOKENS)
    back, _ = read_all(gw, _rid(orjson.loads(out)))
    assert back == big_text(5000)


def test_fit_and_page_bounds() -> None:
    text = 'a"\\\n\x01é😀' * 50
    for room in (6, 7, 13, 64, 500):
        end = fit(text, 0, room)
        assert len(orjson.dumps(text[:end])) - 2 <= room
        assert end == len(text) or len(orjson.dumps(text[: end + 1])) - 2 > room or "\n" in text
        bounds = page_bounds(text, 0, room)
        assert bounds[-1] == len(text) and bounds == sorted(set(bounds))
        starts = [0, *bounds[:-1]]
        assert all(
            len(orjson.dumps(text[s:e])) - 2 <= room for s, e in zip(starts, bounds, strict=True)
        )
    assert fit("abc\n" + "x" * 10, 0, 12) == 11  # "\n" takes two bytes; no newline near the end
    assert fit("0123456789\nabc", 0, 12) == 11  # cut after the newline near the end


def test_full_text_definition() -> None:
    r = {
        "content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]
    }
    assert full_text(r) == ("a\nb", [{"type": "image"}])
    assert full_text({"content": [], "structuredContent": {"k": 1}}) == ('{"k":1}', [])
    assert full_text({"content": [{"type": "audio"}]}) == (None, [{"type": "audio"}])


# ------------------------------------------------------------------ dedup


async def test_repeat_in_a_session_becomes_a_short_note() -> None:
    gw = gateway(max_tokens=0)
    text = big_text(3000)
    raw = text_result(text)
    _, handler, _ = governed(gw, raw)
    first = bytes((await handler(ctx(session="A"))).result)
    assert first == raw
    second = bytes((await handler(ctx(session="A"))).result)
    assert estimate(second) <= DEDUP_MAX_TOKENS
    assert len(second) + RESERVE <= DEDUP_MAX_TOKENS * 4
    note = orjson.loads(second)["content"][0]["text"]
    assert "Identical" in note and "up__t" in note
    rid = _rid(orjson.loads(second))
    back, _ = read_all(gw, rid, session="A")  # kept at the repeat, readable in its session
    assert back == text
    # The note is this session's: so is the result it points at.
    other = orjson.loads(bytes(gw.local_tools.read_result(ctx(session="B"), {"id": rid}).result))
    assert other["isError"] and "No stored result" in other["content"][0]["text"]
    # Another session, or no session, gets the result itself.
    assert bytes((await handler(ctx(session="B"))).result) == raw
    assert bytes((await handler(ctx(session=""))).result) == raw
    assert bytes((await handler(ctx(session=""))).result) == raw
    c = gw.savings.counters["dedup"]
    assert c.events == 1 and c.before == estimate(raw) and c.after == estimate(second)


async def test_repeat_of_a_cut_result_names_the_stored_id() -> None:
    gw = gateway(max_tokens=150)
    _, handler, _ = governed(gw, text_result(big_text(9000)))
    first = orjson.loads(bytes((await handler(ctx())).result))
    rid = _rid(first)
    second = bytes((await handler(ctx())).result)
    assert _rid(orjson.loads(second)) == rid
    _fits(second, 150)
    assert gw.savings.counters["dedup"].before == 150


async def test_small_and_different_results_are_not_deduped() -> None:
    gw = gateway()
    _, handler, _ = governed(gw, text_result("tiny"))
    assert orjson.loads(bytes((await handler(ctx())).result))["content"][0]["text"] == "tiny"
    assert orjson.loads(bytes((await handler(ctx())).result))["content"][0]["text"] == "tiny"
    n = iter(range(100))
    _, handler, _ = governed(gw, lambda: text_result(big_text(2000) + str(next(n))))
    a = orjson.loads(bytes((await handler(ctx())).result))["content"][0]["text"]
    b = orjson.loads(bytes((await handler(ctx())).result))["content"][0]["text"]
    assert a != b and "Identical" not in b
    assert "dedup" not in gw.savings.counters


async def test_long_tool_names_still_fit_the_note() -> None:
    gw = gateway()
    raw = text_result(big_text(3000))
    _, handler, _ = governed(gw, raw)
    long = "x" * 300
    await handler(ctx(tool=long))
    out = bytes((await handler(ctx(tool=long))).result)
    assert len(out) + RESERVE <= DEDUP_MAX_TOKENS * 4
    assert "Identical" in out.decode()


def test_dedup_memory_is_bounded() -> None:
    d = Dedup(per_session=3, sessions=2)
    for s in ("a", "b", "c"):
        for i in range(5):
            d.remember(s, bytes([i]), "tool")
    assert len(d) == 2 and d.seen("a", b"\x04") is None
    assert d.seen("c", b"\x01") is None and d.seen("c", b"\x04") is not None
    d.seen("b", b"\x04")  # b is now the most recent
    d.remember("z", b"\x00", "tool")
    assert d.seen("c", b"\x04") is None and d.seen("b", b"\x04") is not None


# ------------------------------------------------------------------ projection in the chain


async def test_projection_drops_and_compacts_before_the_cap() -> None:
    gw = gateway(packs=["github"], drop=["**.reactions"], dedup=False)
    raw = text_result(issues_json(3))
    _, handler, _ = governed(gw, raw)
    out = bytes((await handler(ctx())).result)
    issues = orjson.loads(orjson.loads(out)["content"][0]["text"])
    assert [i["number"] for i in issues] == [1, 2, 3]
    assert "node_id" not in issues[0] and "avatar_url" not in issues[0]["user"]
    assert issues[0]["html_url"].startswith("https://github.com/")
    assert "reactions" not in issues[0] and "comments_url" not in issues[0]
    c = gw.savings.counters["projection"]
    assert c.before == estimate(raw) and c.after == estimate(out) and c.after < c.before / 2


async def test_fields_from_invoke_tool() -> None:
    gw = gateway(dedup=False)
    _, handler, _ = governed(gw, text_result(issues_json(4)))
    out = await handler(ctx(fields=["number", "title", "user.login"]))
    issues = orjson.loads(orjson.loads(bytes(out.result))["content"][0]["text"])
    assert issues[1] == {
        "number": 2,
        "title": "Widget 2 fails when the budget is 20 tokens",
        "user": {"login": "dev2"},
    }
    # Fields that match nothing leave the value whole (compacted).
    _, handler, _ = governed(gw, text_result(issues_json(1)))
    out = await handler(ctx(fields=["nope"]))
    text = orjson.loads(bytes(out.result))["content"][0]["text"]
    assert orjson.loads(text) == orjson.loads(issues_json(1)) and "\n" not in text


async def test_projection_then_cap_then_paging() -> None:
    gw = gateway(max_tokens=500, packs=["github"], dedup=False)
    _, handler, _ = governed(gw, text_result(issues_json(40)))
    out = bytes((await handler(ctx())).result)
    _fits(out, 500)
    back, _ = read_all(gw, _rid(orjson.loads(out)))
    issues = orjson.loads(back)
    assert len(issues) == 40 and "node_id" not in issues[0]
    assert {"projection", "governor"} <= set(gw.savings.counters)


# ------------------------------------------------------------------ config


def test_bad_pack_or_pattern_is_a_config_error() -> None:
    # Refused when the config is read, naming the key, before anything starts.
    with pytest.raises(ConfigError, match="response: unknown drop pack 'nope'"):
        parse_config({"response": {"packs": ["nope"]}}, env={})
    with pytest.raises(ConfigError, match="empty segment"):
        parse_config({"response": {"drop": ["a..b"]}}, env={})
    with pytest.raises(ConfigError, match="ends with"):
        parse_config({"response": {"drop": ["a.**"]}}, env={})


def test_chain_has_the_governor_only_when_configured() -> None:
    def has(gw: Any) -> bool:
        return any(isinstance(getattr(a, "call", None), Governor) for a in build_addons(gw))

    assert has(gateway())  # dedup is on by default
    assert not has(gateway(dedup=False))
    assert has(gateway(dedup=False, max_tokens=100))
    assert has(gateway(dedup=False, packs=["urls"]))


async def test_pipeline_of_a_real_gateway_governs_invoke_tool_inner_calls_once() -> None:
    """The gateway's own chain: the outer invoke_tool call is not governed again."""
    gw = gateway(max_tokens=100, dedup=False)
    gov = Governor(gw)
    seen: list[str] = []

    async def terminal(c: CallContext) -> Incoming:
        seen.append(c.route.upstream)
        if c.route.upstream == "@manifold":
            inner = ctx(tool="t")
            return await pipeline(inner)
        return Incoming(result=msgspec.Raw(text_result(big_text(5000))))

    pipeline = compose([gov], terminal)
    out = bytes((await pipeline(ctx(upstream="@manifold", tool="invoke_tool"))).result)
    assert seen == ["@manifold", "up"]
    _fits(out, 100)
    assert gw.savings.counters["governor"].events == 1


def test_jsonschema_is_imported_only_when_a_projection_meets_an_output_schema() -> None:
    """The gateway with the governor on does not load `jsonschema` (about 2 MiB) until a
    projected structuredContent has an outputSchema to check; then the check works (a fresh
    process, so no other test has imported it)."""
    code = """
import asyncio, sys, orjson
from tests.middleware.support import ctx, gateway, governed, text_result

async def main():
    schema = {"type": "object", "properties": {"node_id": {"type": "string"}},
              "required": ["node_id"]}
    sc = {"node_id": "I_kw1", "number": 1, "title": "x" * 600}
    raw = text_result(orjson.dumps(sc).decode(), structuredContent=sc)
    gw = gateway(packs=["github"], dedup=False)
    _, handler, _ = governed(gw, raw)
    obj = orjson.loads(bytes((await handler(ctx())).result))
    assert "node_id" not in obj["structuredContent"]  # projected: no schema to keep
    assert "jsonschema" not in sys.modules, "imported with no schema to check"
    gw.catalog.set_items("up", "tools", [
        {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}])
    obj = orjson.loads(bytes((await handler(ctx())).result))
    assert obj["structuredContent"] == sc  # the schema requires what the pack drops
    assert "jsonschema" in sys.modules

asyncio.run(main())
print("ok")
"""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=root,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
