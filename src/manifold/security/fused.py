"""The guard's call step fused into redaction's.

Both are on by default and sit next to each other in the chain (the guard outside redaction).
Run as two steps, every call pays for two steps, and a result that fires nothing is looked at
twice over (two prefilter matches, two escape checks, two hooks' bookkeeping). Fused
(`manifold.addons` does it when the guard is the call step right before redaction, and
redaction has no user rules), redaction's step hands the answer to `FusedAnswer`, which, for
a result of up to `SMALL_BYTES`:

1. matches the guard's prefilter over the result's bytes as the guard reads them
   (`guard.prefiltered`) and redaction's own set over its raw bytes, each module's own set,
   as each would alone;
2. answers at once when neither fired and the result holds no JSON escape (what both steps
   would answer: the result as it came). A resource blob of text (`"blob": "..."`), which the
   guard decodes, fires redaction's own blob trigger (`redact._BLOB_TRIGGER`), so when
   redaction's set fired nothing there is none (the guard decodes only a string blob): no
   search of its own for the key;
3. else lets redaction redact with the rules that fired (`Redaction.answer`), then the guard
   judge with its own match (`Guard.after`), or match afresh when redaction changed the
   result.

The order is the one of two steps: redacted first, then judged; each module's decisions are
its own (tests/security/test_fused.py runs both chains over the corpora). A result the guard
reads as a large one (`Guard.reads_large`) has the guard's prefilter read it in a worker thread
while redaction redacts it (`FusedAnswer._large`). Another result longer than `SMALL_BYTES`,
an error and a method the guard does not read go through `Redaction.answer` and `Guard.after`
as they are; an error raised by the upstream goes through `Redaction.redacted_error` then
`Guard.screened` (redaction's `on_error`).

(One RE2 set holding both modules' triggers, matched once, was tried: 0.7 us a call less on a
small clean result, but the two trigger lists in one automaton made it run out of room on
random tokens: 8 KB of them took 22 ms against 2 ms for the two sets.)
"""

from __future__ import annotations

import re
from typing import Final

from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security.guard import Guard, prefiltered
from manifold.security.redact import Redaction

SMALL_BYTES: Final = 8 * 1024
# A JSON escape of a printable ASCII character: the guard and redaction decode a result that
# holds one even when nothing fired (their own `_ASCII_ESCAPE`, the same).
_ASCII_ESCAPE: Final = re.compile(rb"\\(?:/|u00[2-7][0-9A-Fa-f])")


class FusedAnswer:
    """Redaction's `on_answer`: redaction then the guard, in one step."""

    __slots__ = ("guard", "guard_match", "redaction", "redaction_match")

    def __init__(self, guard: Guard, redaction: Redaction) -> None:
        self.guard = guard
        self.redaction = redaction
        self.guard_match = guard.match_fn()
        self.redaction_match = redaction.r.match_fn()

    async def __call__(self, ctx: CallContext, res: rpc.Incoming) -> rpc.Incoming:
        guard, redaction = self.guard, self.redaction
        if not guard.reads(ctx, res) or len(res.result) > SMALL_BYTES:
            if guard.reads_large(ctx, res):
                return await self._large(ctx, res)
            return await guard.after(ctx, redaction.answer(ctx, res))
        raw = res.result
        b = prefiltered(raw)
        hit = self.guard_match(b)
        rules = self.redaction_match(raw)
        # (the escape searched for in `b`, from its first backslash, found by memchr:
        # `prefiltered` changes no such escape)
        if (
            not hit
            and not rules
            and ((at := b.find(b"\\")) < 0 or _ASCII_ESCAPE.search(b, at) is None)
        ):
            return res  # nothing fired, no escape to decode: what both steps would answer
        new = redaction.answer(ctx, res, rules or ())
        if new is not res:  # redacted: the guard reads what the client will
            return await guard.after(ctx, new)
        return await guard.after(ctx, res, (b, bool(hit)))

    async def _large(self, ctx: CallContext, res: rpc.Incoming) -> rpc.Incoming:
        """A large result (`Guard.reads_large`): the guard's prefilter reads it in a worker
        thread while redaction redacts it here (both mostly in RE2, which lets go of the
        interpreter lock). Unless redaction changed it, the guard then scores what its
        prefilter kept; else it reads the redacted result afresh (the order of two steps)."""
        around = self.guard.around_soon(res.result)
        try:
            new = self.redaction.answer(ctx, res)
        finally:
            text = await around
        if new is not res:
            return await self.guard.after(ctx, new)
        return await self.guard.large(ctx, res, res.result, text)


def fusable(redaction: Redaction) -> bool:
    """Whether redaction's rules are the built-in ones only (a user rule keeps two steps, as
    it always did)."""
    return not redaction.user_rules
