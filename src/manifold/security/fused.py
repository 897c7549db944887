"""The guard's call step fused into redaction's, with one prefilter for both.

Both are on by default and sit next to each other in the chain (the guard outside redaction).
Run as two steps, every call pays for two steps and, on its result, two RE2 set matches
(each about 1 us of binding and automaton work on a small result that fires nothing). Fused
(`manifold.addons` does it when the guard is the call step right before redaction, and
redaction has no user rules), redaction's step hands the answer to `FusedAnswer`, which:

1. matches one RE2 set holding the guard's triggers (case-insensitive) and redaction's
   (built-in, relaxed) over the result's bytes as the guard's prefilter reads them
   (`guard.prefiltered`: the protocol's `_meta` key neutralised, each JSON `\\n` escape read
   as a line break, same length);
2. lets redaction redact with the rules whose triggers fired (`Redaction.answer`);
3. lets the guard judge with its part of the match (`Guard.after`), or match afresh when
   redaction changed the result.

The order is the one of two steps: redacted first, then judged. What each decides is the
same as with its own match: for the guard the bytes are its own prefilter's; for redaction,
the neutralised key only turns a `/` into a `.` inside a quoted object key no built-in
trigger can match across, and a line break where the JSON has `\\n` is where the strings
redaction walks have one (a trigger that fired only across an escaped line break found
nothing in them). Only results up to `SHARED_BYTES` (8 KiB) use the shared match; longer
ones, errors and methods the guard does not read get each module's own match.
"""

from __future__ import annotations

import re
from typing import Final

import re2  # type: ignore[import-untyped]

from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security.guard import Guard, b64_run, prefiltered
from manifold.security.redact import Redaction

_SET_MEM: Final = 16 << 20  # as the guard's own sets (see guard._SET_MEM)
# Results up to this size share the match; a longer one gets one match of each module, as the
# guard matches a long input by two sets of its own (guard._GAPPED: in one set with the rest,
# its line-bounded triggers made a long line of prose cost 150 ms instead of 2).
SHARED_BYTES: Final = 8 * 1024
# A JSON escape of a printable ASCII character: the guard and redaction decode a result that
# holds one even when nothing fired (their own `_ASCII_ESCAPE`, the same).
_ASCII_ESCAPE: Final = re.compile(rb"\\(?:/|u00[2-7][0-9A-Fa-f])")


class FusedAnswer:
    """Redaction's `on_answer`: redaction then the guard, one shared prefilter match."""

    __slots__ = ("guard", "match", "redaction", "run", "split")

    def __init__(self, guard: Guard, redaction: Redaction) -> None:
        self.guard = guard
        self.redaction = redaction
        opts = re2.Options()
        opts.max_mem = _SET_MEM
        s = re2.Set.SearchSet(opts)
        for t in guard.scanner.triggers:
            s.Add(f"(?i:{t})")
        for t in redaction.r.triggers:
            s.Add(t)
        s.Compile()
        self.match = s._set.Match  # the C++ set itself (its wrapper costs a call a match)
        self.split = len(guard.scanner.triggers)  # ids below: the guard's; from it: redaction's
        self.run = guard.scanner.run_id

    async def __call__(self, ctx: CallContext, res: rpc.Incoming) -> rpc.Incoming:
        guard, redaction = self.guard, self.redaction
        if not guard.reads(ctx, res) or len(res.result) > SHARED_BYTES:
            return await guard.after(ctx, redaction.answer(ctx, res))
        raw = res.result
        b = prefiltered(raw)
        ids = self.match(b)
        if not ids and (b"\\" not in b or _ASCII_ESCAPE.search(raw) is None):
            return res  # nothing fired, no escape to decode: what both steps would answer
        hit = False
        rules: list[int] = []
        if ids:
            split = self.split
            mine = [i for i in ids if i < split]
            rules = [i - split for i in ids if i >= split]
            hit = bool(mine) and (len(mine) > 1 or mine[0] != self.run or b64_run(b))
        new = redaction.answer(ctx, res, rules)
        if new is not res:  # redacted: the guard reads what the client will
            return await guard.after(ctx, new)
        return await guard.after(ctx, res, (b, hit))


def fusable(redaction: Redaction) -> bool:
    """Whether redaction's rules are the built-in ones only (a user rule may read the JSON's
    escapes; it keeps its own match)."""
    return not redaction.user_rules
