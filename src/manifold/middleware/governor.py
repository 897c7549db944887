"""The response governor: what one tool result may cost the model (config `response:`).

On the way back from an upstream `tools/call`, in this order:

1. **Projection**: JSON text results lose the fields named by `response.drop` and the packs of
   `response.packs`, and keep only `ctx.fields` when the model asked for fields (invoke_tool);
   re-serialized compactly (economy/projection.py).
2. **Dedup**: in one client session, a result byte-identical to one given earlier becomes a
   short note naming the earlier call's tool and a `read_result` id (economy/dedup.py).
3. **Cap**: a result over `response.max_tokens` (the one estimator, economy/tokens.py, over the
   result JSON) becomes the first part of its full text plus a note naming the stored id and
   the page count; or, with `response.summarize`, a summary plus that note, falling back to the
   first part on any failure. The full text goes to the result store (`gw.results`) for
   `read_result`.

The full text of a result is the text of its `text` blocks and the `text` of its embedded
`resource` blocks, in order, joined with "\\n"; with no such block, the JSON of its
structuredContent. Pages of the stored text, joined, are byte-identical to it. Other blocks
(images, audio, links) go along while they fit in half the budget, otherwise the note counts
them as left out. A cut result keeps `resultType`; it drops `_meta`.

**The cap and dedup never change structuredContent.** A cut result and a repeat note carry
the upstream's structuredContent whole (an SDK client checks it against the tool's
outputSchema, and a program reads it): only the text is shortened. So the budget bounds the
rest of the result: a governed result never exceeds `max_tokens` plus what its
structuredContent takes, measured over the whole result JSON returned; room is kept for the
`"resultType":"complete",` the dispatcher adds for a modern client and for the JSON-RPC
envelope around it (ids of up to 24 characters), so the whole answer line fits. A result that
would not get smaller that way (structuredContent and no text to cut) is relayed as it is.
The savings count what was sent, structuredContent included. Projection by `response.drop`
and packs changes structuredContent only while the projected value still validates against
the tool's outputSchema (else the upstream's is kept); projection the model asked for
(`fields`) is its choice and applies as asked.
read_result pages are sized the same way against the page size (`response.page_tokens`, by
default `max_tokens`). A repeat note takes at most 70 tokens, line included, besides the
structuredContent.
Results under the budget are relayed untouched and undecoded when there is nothing to project
(the byte length alone decides). `isError` results, calls to the gateway's own tools (whose
inner call, for invoke_tool, passes here on its own) and results that are not complete are
relayed as they are. Every mechanism that changed a result is counted in `gw.savings`.
"""

from __future__ import annotations

import logging
import sys
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Final, Protocol

import msgspec
import orjson

from manifold.config import ConfigError, ResponseConfig
from manifold.economy.dedup import Seen, digest
from manifold.economy.projection import (
    Dropper,
    Keeper,
    PatternError,
    compile_drop,
    project_result,
)
from manifold.economy.results import owner_of
from manifold.economy.tokens import estimate, estimate_chars
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc
from manifold.router import GATEWAY

if TYPE_CHECKING:
    from manifold.catalog import Catalog
    from manifold.config import GatewayConfig
    from manifold.economy.savings import Savings
    from manifold.economy.summarize import Summarizer
    from manifold.state import DedupMemory, ResultPages, State


class GovernorHost(Protocol):
    """What the governor uses of the gateway."""

    @property
    def config(self) -> GatewayConfig: ...
    @property
    def savings(self) -> Savings: ...
    @property
    def results(self) -> ResultPages | None: ...
    @property
    def state(self) -> State: ...
    @property
    def catalog(self) -> Catalog: ...


__all__ = ["MIN_MAX_TOKENS", "Governor", "fit", "full_text", "most_pages", "page_bounds", "wanted"]

log = logging.getLogger("manifold.governor")

MIN_MAX_TOKENS: Final = 64  # a smaller budget cannot hold a note and an id; raised to this
DEDUP_MAX_TOKENS: Final = 70  # a dedup note, whole answer line
DEDUP_MIN_BYTES: Final = 400  # smaller results are not worth a note (nor a hash)
# The dispatcher splices this into a legacy-shaped result for a modern client.
RESULT_TYPE_RESERVE: Final = len(b'"resultType":"complete",')
# The JSON-RPC answer line around the result, for request ids of up to ID_CHARS characters:
# the budget holds for the whole line the client reads, not only for the result JSON.
ID_CHARS: Final = 24
ENVELOPE_RESERVE: Final = len(b'{"jsonrpc":"2.0","id":,"result":}') + ID_CHARS
_RID_PLACEHOLDER: Final = "r" + "9" * 13 + "ffffff"  # no shorter than any id the store mints
# What read_result adds around a page's text (router_tools.read_result): its result frame, the
# "page n/N" line (up to 99,999 pages; "\n" takes two bytes), resultType and the envelope.
PAGE_OVERHEAD: Final = (
    len(b'{"content":[{"type":"text","text":""}],"isError":false}')
    + len(f"\n[page 99999/99999; read_result(id={_RID_PLACEHOLDER!r}, page=99999) for more]")
    + 1
    + RESULT_TYPE_RESERVE
    + ENVELOPE_RESERVE
)
MIN_PAGE_BYTES: Final = 32
SC_KEY_BYTES: Final = len(b',"structuredContent":')


def wanted(cfg: ResponseConfig) -> bool:
    """Whether the governor has anything to do under this config."""
    return bool(cfg.max_tokens > 0 or cfg.drop or cfg.packs or cfg.dedup)


# ------------------------------------------------------------------ paging


def _jlen(s: str) -> int:
    """Bytes `s` takes inside a JSON string (orjson: UTF-8, short escapes)."""
    return len(orjson.dumps(s)) - 2


def fit(text: str, start: int, room: int) -> int:
    """The largest `end` such that `text[start:end]` JSON-encoded takes at most `room` bytes;
    cut just after a newline when there is one in the last fifth."""
    n = len(text)
    if room <= 0 or start >= n:
        return start
    hi = min(n, start + room)  # every character takes at least one byte
    if _jlen(text[start:hi]) <= room:
        end = hi
    else:
        lo = start
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _jlen(text[start:mid]) <= room:
                lo = mid
            else:
                hi = mid
        end = lo
    if start < end < n:
        nl = text.rfind("\n", start, end)
        if nl >= 0 and (nl + 1 - start) * 5 >= (end - start) * 4:
            end = nl + 1
    return end


def page_bounds(text: str, start: int, room: int) -> list[int]:
    """End offsets of the pages of `text[start:]`, each at most `room` bytes encoded."""
    bounds: list[int] = []
    pos = start
    n = len(text)
    while pos < n:
        end = fit(text, pos, room)
        if end == pos:
            end = pos + 1  # only when room < 6 (one escaped character); never loop
        bounds.append(end)
        pos = end
    return bounds


# ------------------------------------------------------------------ result parts


def full_text(result: dict[str, Any], structured: bool = True) -> tuple[str | None, list[Any]]:
    """(the result's full text or None, its blocks that are not part of that text); without
    text blocks, the JSON of structuredContent unless `structured` is false."""
    texts: list[str] = []
    others: list[Any] = []
    for block in result.get("content") or []:
        if isinstance(block, dict):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
                continue
            res = block.get("resource")
            if kind == "resource" and isinstance(res, dict) and isinstance(res.get("text"), str):
                texts.append(res["text"])
                continue
        others.append(block)
    if texts:
        return "\n".join(texts), others
    if not structured:
        return None, others
    sc = result.get("structuredContent")
    if sc is not None:
        try:
            return orjson.dumps(sc).decode(), others
        except orjson.JSONEncodeError:
            return None, others
    return None, others


def _governable(raw: bytes) -> dict[str, Any] | None:
    """The decoded result when the governor may change it: a complete, non-error result with
    a content list."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if (
        not isinstance(obj, dict)
        or obj.get("isError") is True
        or obj.get("resultType", "complete") != "complete"
        or not isinstance(obj.get("content"), list)
    ):
        return None
    return obj


def _sc_bytes(obj: dict[str, Any]) -> int:
    """Bytes the result's structuredContent takes in its JSON (member name included)."""
    if "structuredContent" not in obj:
        return 0
    return SC_KEY_BYTES + len(orjson.dumps(obj["structuredContent"]))


def _dumps(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj)


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


# ------------------------------------------------------------------ the middleware


class Governor:
    def __init__(self, gw: GovernorHost) -> None:
        cfg = gw.config.response
        self.gw = gw
        self.cfg = cfg
        mt = cfg.max_tokens
        if 0 < mt < MIN_MAX_TOKENS:
            log.warning(
                "response.max_tokens %d is below %d (too small for a note); using %d",
                mt,
                MIN_MAX_TOKENS,
                MIN_MAX_TOKENS,
            )
            mt = MIN_MAX_TOKENS
        self.max_tokens = mt
        self.cap_bytes = mt * 4 if mt else sys.maxsize
        try:
            self.drop: Dropper | None = compile_drop(cfg.drop, cfg.packs)
        except PatternError as e:
            raise ConfigError(f"response: {e}") from None
        self.dedup: DedupMemory | None = gw.state.dedup if cfg.dedup else None
        self.summarizer: Summarizer | None = None
        if cfg.summarize is not None:
            try:
                # (imported here: its HTTP client is not loaded by a gateway that never
                # summarizes)
                from manifold.economy.summarize import Summarizer

                self.summarizer = Summarizer(cfg.summarize)
            except ValueError as e:
                raise ConfigError(f"response.summarize.url: {e}") from None
        self._keepers: OrderedDict[tuple[str, ...], Keeper] = OrderedDict()
        self._validators: OrderedDict[int, tuple[dict[str, Any], Any]] = OrderedDict()

    # ------------------------------------------------------------- hot path

    async def __call__(self, ctx: CallContext, call_next: CallNext) -> rpc.Incoming:
        if ctx.method != "tools/call" or ctx.route.upstream == GATEWAY:
            return await call_next(ctx)
        res = await call_next(ctx)
        raw = res.result
        size = len(raw)
        if res.error is not None or not size:
            return res
        if self.drop is None and not ctx.fields:
            limit = self.cap_bytes
            if self.dedup is not None and ctx.session_key:
                limit = min(limit, DEDUP_MIN_BYTES)
            if size <= limit:
                return res  # nothing to look at: relayed undecoded
        return await self._govern(ctx, res, bytes(raw))

    # ------------------------------------------------------------- slow path

    async def _govern(self, ctx: CallContext, res: rpc.Incoming, raw: bytes) -> rpc.Incoming:
        if self.drop is None and not ctx.fields and len(raw) <= self.cap_bytes:
            # Only dedup has work: hash the bytes, decode only a repeat.
            assert self.dedup is not None
            key = digest(raw)
            hit = self.dedup.seen(ctx.session_key, key)
            if hit is None:
                self.dedup.remember(ctx.session_key, key, ctx.exposed)
                return res
            obj = _governable(raw)
            if obj is None:
                return res
            note = self._dedup_note(ctx, obj, hit, len(raw), _sc_bytes(obj))
            if note is None:
                return res
            self.gw.savings.record("dedup", estimate(raw), estimate(note))
            return rpc.Incoming(result=msgspec.Raw(note))
        obj = _governable(raw)
        if obj is None:
            return res
        savings = self.gw.savings
        cur = raw
        keep = self._keeper(ctx.fields) if ctx.fields else None
        if self.drop is not None or keep is not None:
            projected = project_result(obj, self.drop, keep)
            if projected is not None and keep is None:
                projected = self._schema_safe(ctx, obj, projected)
            if projected is not None:
                new = _dumps(projected)
                if len(new) < len(cur):
                    savings.record("projection", estimate(cur), estimate(new))
                    obj, cur = projected, new
        sc_bytes = _sc_bytes(obj)
        seen = None
        if self.dedup is not None and ctx.session_key and len(cur) > DEDUP_MIN_BYTES:
            key = digest(cur)
            hit = self.dedup.seen(ctx.session_key, key)
            if hit is not None:
                note = self._dedup_note(ctx, obj, hit, len(cur), sc_bytes)
                if note is not None:
                    # Without dedup the model would have read the result, capped if over.
                    would = estimate(cur)
                    if self.max_tokens and len(cur) - sc_bytes > self.cap_bytes:
                        would = min(would, self.max_tokens + estimate_chars(sc_bytes))
                    savings.record("dedup", would, estimate(note))
                    return rpc.Incoming(result=msgspec.Raw(note))
            seen = self.dedup.remember(ctx.session_key, key, ctx.exposed)
        if len(cur) - sc_bytes > self.cap_bytes:
            out, rid, mechanism = await self._cap(ctx, obj, cur, sc_bytes)
            if len(out) < len(cur):
                if seen is not None:
                    seen.rid = rid
                savings.record(mechanism, estimate(cur), estimate(out))
                cur = out
        if cur is raw:
            return res
        return rpc.Incoming(result=msgspec.Raw(cur))

    def _schema_safe(
        self, ctx: CallContext, obj: dict[str, Any], projected: dict[str, Any]
    ) -> dict[str, Any] | None:
        """`projected`, but with the upstream's structuredContent when the projected one would
        not validate against the tool's outputSchema; None when nothing else changed."""
        if projected.get("structuredContent") == obj.get("structuredContent"):
            return projected
        schema = self._output_schema(ctx)
        if schema is None or self._valid(schema, projected.get("structuredContent")):
            return projected
        log.debug("projection: %s keeps its structuredContent (outputSchema)", ctx.exposed)
        kept = {**projected, "structuredContent": obj["structuredContent"]}
        return None if kept.get("content") == obj.get("content") else kept

    def _valid(self, schema: dict[str, Any], value: Any) -> bool:
        """Whether `value` validates against `schema` (a schema that is itself invalid: no).
        `jsonschema` is imported here, on the first projection that needs it: with its
        metaschemas and `referencing` it costs about 2 MiB that most gateways never use."""
        import jsonschema

        hit = self._validators.get(id(schema))
        if hit is None or hit[0] is not schema:
            try:
                cls = jsonschema.validators.validator_for(schema)
                cls.check_schema(schema)
                validator: Any = cls(schema)
            except jsonschema.SchemaError:
                validator = None
            hit = self._validators[id(schema)] = (schema, validator)
            if len(self._validators) > 256:
                self._validators.popitem(last=False)
        try:
            return hit[1] is not None and bool(hit[1].is_valid(value))
        except (jsonschema.exceptions.JsonSchemaException, RecursionError):
            return False

    def _keeper(self, fields: list[str]) -> Keeper | None:
        key = tuple(fields)
        k = self._keepers.get(key)
        if k is None:
            k = self._keepers[key] = Keeper(fields)
            if len(self._keepers) > 64:
                self._keepers.popitem(last=False)
        return k if k.valid else None

    # ------------------------------------------------------------- pieces

    @property
    def store(self) -> ResultPages | None:
        return self.gw.results

    def page_room(self) -> int:
        store = self.store
        page_chars = store.page_chars if store is not None else self.cap_bytes
        return max(MIN_PAGE_BYTES, page_chars - PAGE_OVERHEAD)

    def _base(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The frame of a governed result: resultType and the upstream's structuredContent."""
        base: dict[str, Any] = {"content": []}
        if "resultType" in obj:
            base["resultType"] = obj["resultType"]
        if "structuredContent" in obj:
            base["structuredContent"] = obj["structuredContent"]
        return base

    def _output_schema(self, ctx: CallContext) -> dict[str, Any] | None:
        for t in self.gw.catalog.upstream_items(ctx.route.upstream, "tools"):
            if t.get("name") == ctx.route.name:
                schema = t.get("outputSchema")
                return schema if isinstance(schema, dict) else None
        return None

    def _budget(self, obj: dict[str, Any], limit: int, sc_bytes: int) -> int:
        """Bytes the governed result may take: `limit` for the answer line, besides the
        structuredContent it carries whole."""
        rt = 0 if "resultType" in obj else RESULT_TYPE_RESERVE
        return limit - ENVELOPE_RESERVE - rt + sc_bytes

    def _dedup_note(
        self, ctx: CallContext, obj: dict[str, Any], hit: Seen, size: int, sc_bytes: int
    ) -> bytes | None:
        """The repeat note, or None when it would not be smaller than the result (`size`)."""
        budget = self._budget(obj, min(DEDUP_MAX_TOKENS * 4, self.cap_bytes), sc_bytes)
        if budget >= size:
            budget = size - 1
        base = self._base(obj)
        if len(_dumps(base)) + 60 > budget:
            return None  # no room for a note beside the structuredContent
        rid = hit.rid
        store = self.store
        owner = owner_of(ctx.principal, ctx.subject)
        if store is not None and (
            rid is None or store.page(rid, 1, owner, ctx.session_key) is None
        ):
            # Not kept (it fitted) or expired: keep it now, so the note can point at it. The
            # note is this session's: so is the result it points at.
            text, _ = full_text(obj)
            if text:
                bounds = page_bounds(text, 0, self.page_room())
                rid = hit.rid = store.put(text, bounds, owner, ctx.session_key)
            else:
                rid = None
        where = f'; read_result(id="{rid}") shows it again' if rid else ""
        tool = hit.tool
        for _ in range(3):
            msg = f"Identical to the earlier {tool} result in this session{where}."
            base["content"] = [_text(msg)]
            out = _dumps(base)
            if len(out) <= budget:
                return out
            tool = tool[: max(8, len(tool) - (len(out) - budget) - 1)] + "…"
        return None

    async def _cap(
        self, ctx: CallContext, obj: dict[str, Any], cur: bytes, sc_bytes: int
    ) -> tuple[bytes, str | None, str]:
        """(the governed result, the stored id, the mechanism: governor or summarize)."""
        budget = self._budget(obj, self.cap_bytes, sc_bytes)
        total = estimate(cur)
        # The text of the content blocks only: structuredContent goes along whole anyway.
        text, others = full_text(obj, structured=False)
        base = self._base(obj)
        # Other blocks go along while they take at most half the budget.
        kept: list[Any] = []
        for block in others:
            trial = {**base, "content": [*kept, block]}
            if len(_dumps(trial)) - sc_bytes <= (budget - sc_bytes) // 2:
                kept.append(block)
        left_out = len(others) - len(kept)
        store = self.store
        if not text and not left_out:
            return cur, None, "governor"  # nothing to cut: relayed as it is
        if not text:
            note = f"[{left_out} content blocks left out: over the {self.max_tokens}-token budget.]"
            out = _dumps({**base, "content": [*kept, _text(note)] if left_out else kept})
            return out, None, "governor"
        if self.summarizer is not None and store is not None:
            summarized = await self._summarize(ctx, base, kept, text, total, budget)
            if summarized is not None:
                return summarized[0], summarized[1], "summarize"
        return self._truncate(ctx, base, kept, left_out, text, total, budget)

    def _cut_note(self, rid: str | None, pages: int, total: int, left_out: int, short: bool) -> str:
        extra = f" {left_out} other content blocks left out." if left_out else ""
        if rid is None:
            return f"[Cut to fit the {self.max_tokens}-token budget; the rest is not kept.{extra}]"
        if short:
            return f'[page 1/{pages}; read_result(id="{rid}", page=2)]'
        return (
            f"[Cut to fit the {self.max_tokens}-token budget: this is page 1 of {pages} "
            f'({total} tokens in all). Next: read_result(id="{rid}", page=2).{extra}]'
        )

    def _truncate(
        self,
        ctx: CallContext,
        base: dict[str, Any],
        kept: list[Any],
        left_out: int,
        text: str,
        total: int,
        budget: int,
    ) -> tuple[bytes, str | None, str]:
        store = self.store
        page_room = self.page_room()

        def frame(head: str, note: str | None) -> bytes:
            content = [_text(head), *kept]
            if note is not None:
                content.append(_text(note))
            return _dumps({**base, "content": content})

        # The note's widest form, to size the first page before the id and count exist.
        most_pages_ = most_pages(text, page_room) + 1
        rid_ph = _RID_PLACEHOLDER if store is not None else None
        short = False
        room = budget - len(frame("", self._cut_note(rid_ph, most_pages_, total, left_out, False)))
        if room < 32:
            short = True
            room = budget - len(
                frame("", self._cut_note(rid_ph, most_pages_, total, left_out, True))
            )
        end = fit(text, 0, min(room, page_room))  # page 1 must also fit as a page
        if end == len(text):
            # The text fits whole; only other blocks were too big.
            extra = f"[{left_out} other content blocks left out (over the budget).]"
            out = frame(text, extra if left_out else None)
            return (out if len(out) <= budget else frame(text, None)), None, "governor"
        if store is None:
            return (
                frame(text[:end], self._cut_note(None, 0, total, left_out, short)),
                None,
                "governor",
            )
        bounds = (
            [end, *page_bounds(text, end, page_room)] if end else page_bounds(text, 0, page_room)
        )
        rid = store.put(text, bounds, owner_of(ctx.principal, ctx.subject))
        out = frame(text[:end], self._cut_note(rid, len(bounds), total, left_out, short))
        if len(out) > budget or not end:  # never expected; keep the promise regardless
            note = f'[{len(bounds)} pages: read_result(id="{rid}", page=1)]'
            out = _dumps({**base, "content": [_text(note)]})
        return out, rid, "governor"

    async def _summarize(
        self,
        ctx: CallContext,
        base: dict[str, Any],
        kept: list[Any],
        text: str,
        total: int,
        budget: int,
    ) -> tuple[bytes, str] | None:
        assert self.summarizer is not None and self.store is not None
        page_room = self.page_room()
        model = self.summarizer.model

        def frame(summary: str, rid: str, pages: int) -> bytes:
            note = (
                f"[Summary by {model} of a {total}-token result. Full text in {pages} pages: "
                f'read_result(id="{rid}", page=1) to page={pages}.]'
            )
            return _dumps({**base, "content": [_text(summary), *kept, _text(note)]})

        most_pages_ = most_pages(text, page_room)
        room = budget - len(frame("", _RID_PLACEHOLDER, most_pages_))
        if room < 64:
            return None
        summary = await self.summarizer.summarize(text, ctx.exposed, room // 4)
        if summary is None:
            return None
        if len(frame(summary, _RID_PLACEHOLDER, most_pages_)) > budget:
            log.info("summarize: the summary of %s was over the budget; cut instead", ctx.exposed)
            return None
        bounds = page_bounds(text, 0, page_room)
        rid = self.store.put(text, bounds, owner_of(ctx.principal, ctx.subject))
        return frame(summary, rid, len(bounds)), rid


def most_pages(text: str, room: int) -> int:
    """At least as many pages as `page_bounds(text, 0, room)` makes (to size a note): a
    character takes at most 6 bytes in JSON, and a newline cut keeps 4/5 of a page."""
    per_page = max(1, (room // 6) * 4 // 5)
    return -(-len(text) // per_page) + 1
