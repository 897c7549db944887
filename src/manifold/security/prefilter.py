"""The injection guard's prefilter: which of its triggers occur in a result's raw bytes.

As one case-insensitive RE2 set (about 400 patterns with word boundaries, case folding and
gaps) the automaton thrashed on varied prose: each new text built new states, 0.8 to 1.4 ms
per 2 KB (a benchmark repeating one text kept it warm and hid it). Here:

- each trigger's needed literals are read from its pattern (`needed`: strings one of which
  occurs in any match), and RE2 sets of those literals alone (case-insensitive, RE2's own
  folding, so the long s still reads as "s" and Cyrillic or accented capitals as their small
  letters) name the triggers that may match: one of the literals a text of ASCII bytes can
  hold, matched on every input, and one of the others, matched only on an input that is not
  all ASCII (as one set of thousands of literals the automaton outgrew its budget on prose);
- a trigger that is only its literals ("ignor", "set aside", a phrase of another language)
  fired when one of them occurs; any other is confirmed by its own small RE2 automaton over
  the same bytes (built when first needed), or past `_LONG_BYTES` in sets of `_BATCH`
  candidates built for the input (one pass each, not one a trigger);
- the triggers with no literal of three bytes or more (runs of hex, leetspeak, invisible
  characters, ...) are one small set run on every input, and the base64 run a byte-table
  search (`Run`; in that set, with the common phrasings' leetspeak trigger, it made the
  automaton run out of room on random tokens; with the literals, any such trigger made theirs
  thrash on prose).

Memory: the ASCII literals' set and the set of triggers with no literal are built at start
(smaller than the one set was); the other literals' set on the first input that is not all
ASCII (0.2 to 0.4 MiB a gateway whose results are all ASCII does not hold); a trigger's own
set only once it was a candidate, so at most one a trigger, each with the budget the caller
gives (the guard: 4 MiB, as its other sets); the sets built for a long input are dropped after
it.

The answer is the one set's (tests/security/test_prefilter.py runs both over the corpora,
varied prose and source, and fold and escape cases).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from typing import Any, Final

import re2  # type: ignore[import-untyped]

# The standard library's regular expression parser (no stubs: typed as Any), for the literals.
_sp: Any = importlib.import_module("re._parser")
_sc: Any = importlib.import_module("re._constants")
_MAX_EXACT: Final = 64  # strings a part of a pattern may spell before it counts as open-ended
_MIN_LITERAL: Final = 3  # bytes: a shorter needed literal fires on too much to filter
_MAX_CLASS: Final = 8  # characters of a class spelled out as literals
# Past this many bytes the candidates are confirmed together (`Prefilter._confirm`): a set
# built for the input costs less than one pass over it a trigger.
_LONG_BYTES: Final = 256 * 1024
_BATCH: Final = 8
_RE2_HEX: Final = re.compile(r"\\x\{([0-9A-Fa-f]+)\}")
# RE2's case folding maps these onto ASCII letters (long s, Kelvin sign): in a run they count
# as one letter each (`Run`).
_FOLDS: Final = ((b"\xc5\xbf", b"s"), (b"\xe2\x84\xaa", b"k"))

Strings = frozenset[str] | None  # None: no finite set


class _Info:
    """What a part of a pattern spells: `exact`, every string it matches (lower case), when
    they are few; `needed`, strings one of which occurs in any match; `plain`: no assertion
    or open class, so `exact` is all there is to it."""

    __slots__ = ("exact", "needed", "plain")

    def __init__(self, exact: Strings, needed: Strings, plain: bool) -> None:
        self.exact, self.needed, self.plain = exact, needed, plain


_OPEN: Final = _Info(None, None, False)


def _cross(a: frozenset[str], b: frozenset[str]) -> Strings:
    if len(a) * len(b) > _MAX_EXACT:
        return None
    return frozenset(x + y for x in a for y in b)


def _score(s: frozenset[str]) -> tuple[int, int]:
    return (min((len(x.encode()) for x in s), default=0), -len(s))


def _seq(items: Iterable[tuple[Any, Any]]) -> _Info:
    cur: frozenset[str] = frozenset({""})
    exact = True
    plain = True
    candidates: list[frozenset[str]] = []
    for op, av in items:
        info = _item(op, av)
        plain = plain and info.plain
        if info.exact is not None:
            joined = _cross(cur, info.exact)
            if joined is not None:
                cur = joined
                continue
            exact = False  # too many strings: the parts are needed one by one
            candidates.append(cur)
            cur = info.exact
            continue
        exact = False
        candidates.append(cur)
        cur = frozenset({""})
        if info.needed is not None:
            candidates.append(info.needed)
    candidates.append(cur)
    return _Info(cur if exact else None, max(candidates, key=_score), plain and exact)


def _item(op: Any, av: Any) -> _Info:
    if op is _sc.LITERAL:
        return _Info(frozenset({chr(av)}), None, True)
    if op is _sc.AT:  # an assertion matches the empty string
        return _Info(frozenset({""}), None, False)
    if op is _sc.SUBPATTERN:
        _, add, remove, sub = av
        return _OPEN if add or remove else _seq(sub)
    if op is _sc.BRANCH:
        infos = [_seq(alt) for alt in av[1]]
        exact: Strings = frozenset()
        needed: Strings = frozenset()
        for info in infos:
            if exact is not None:
                exact = None if info.exact is None else exact | info.exact
                if exact is not None and len(exact) > _MAX_EXACT:
                    exact = None
            got = info.exact if info.exact is not None else info.needed
            if needed is not None:
                needed = None if not got or _score(got)[0] == 0 else needed | got
        return _Info(exact, needed, all(i.plain for i in infos) and exact is not None)
    if op is _sc.IN:
        chars: set[str] = set()
        for o, a in av:
            if o is _sc.LITERAL:
                chars.add(chr(a))
            elif o is _sc.RANGE and a[1] - a[0] < _MAX_CLASS:
                chars.update(chr(c) for c in range(a[0], a[1] + 1))
            else:
                return _OPEN
        return _OPEN if len(chars) > _MAX_CLASS else _Info(frozenset(chars), None, True)
    if op is _sc.MAX_REPEAT or op is _sc.MIN_REPEAT:
        lo, hi, sub = av
        info = _seq(sub)
        if lo == 0:
            return _OPEN
        if lo == hi == 1:
            return info
        return _Info(None, info.exact if info.exact is not None else info.needed, False)
    return _OPEN


def needed(pattern: str) -> tuple[frozenset[str] | None, bool]:
    """Strings (lower case) one of which occurs in any match of `pattern` (RE2 syntax, read
    case-insensitively), or None when it has none of `_MIN_LITERAL` bytes or more; and
    whether a match is exactly one of them (no assertion, nothing open)."""
    # (RE2's `\x{...}` as Python's `\U...`, an escape either way; a pattern Python's parser
    # does not read, or reads as another syntax error, has no literals: it is run on every input)
    py = _RE2_HEX.sub(lambda m: f"\\U{int(m.group(1), 16):08x}", pattern)
    try:
        info = _seq(_sp.parse(py))
    except (re.error, ValueError, OverflowError, RecursionError):
        return None, False
    got = info.exact if info.exact is not None else info.needed
    if not got or _score(got)[0] < _MIN_LITERAL:
        return None, False
    return got, info.exact is not None and info.plain


class Run:
    """A trigger that is a run of `n` or more of `chars` (ASCII, read case-insensitively), found
    without an automaton: the bytes mapped to one byte for the run's characters and one for
    the rest, then searched for `n` of the first (in an automaton with the common phrasings'
    leetspeak trigger, a run of base64 made it run out of room on random tokens)."""

    __slots__ = ("_table", "index", "n", "pattern")

    def __init__(self, index: int, pattern: str, chars: bytes, n: int) -> None:
        self.index, self.pattern, self.n = index, pattern, n
        table = bytearray(b" " * 256)
        for c in chars + chars.swapcase():
            table[c] = ord("a")
        self._table = bytes(table)

    def fn(self) -> Callable[[Any], bool]:
        table, need = self._table, b"a" * self.n

        def found(raw: bytes | memoryview) -> bool:
            b = raw if isinstance(raw, bytes) else bytes(raw)
            if not b.isascii():
                for a, z in _FOLDS:
                    if a in b:
                        b = b.replace(a, z)
            return need in b.translate(table)

        return found


def compile_set(patterns: list[str], max_mem: int, case_sensitive: bool = True) -> Any:
    """One RE2 set of `patterns` (a search set, `max_mem` bytes of automaton): its `Match`
    answers which of them occur."""
    opts = re2.Options()
    opts.case_sensitive = case_sensitive
    opts.max_mem = max_mem
    s = re2.Set.SearchSet(opts)
    for p in patterns:
        s.Add(p)
    s.Compile()
    return s


def _set(patterns: list[str], max_mem: int) -> Any:
    """A case-insensitive set over bytes, as the C++ set itself (its Python wrapper costs a
    call a match)."""
    return compile_set(patterns, max_mem, case_sensitive=False)._set


# Characters RE2's case folding maps onto ASCII letters (long s, Kelvin sign):
# a literal of ASCII and these can match a text of ASCII bytes alone.
_FOLDS_TO_ASCII: Final = frozenset("\u017f\u212a")


def _ascii_matchable(literal: str) -> bool:
    return all(c.isascii() or c in _FOLDS_TO_ASCII for c in literal)


class Prefilter:
    """The triggers that occur in bytes, as one case-insensitive RE2 set of `patterns` then
    `common` would say; `common` are asked only when no other trigger fired (`match`)."""

    __slots__ = (
        "_check",
        "_checks",
        "_first",
        "_gate",
        "_loose",
        "_max_mem",
        "_other",
        "_patterns",
        "_run",
        "_second",
        "base",
    )

    def __init__(self, patterns: list[str], common: list[str], max_mem: int, run: Run) -> None:
        every = [*patterns, *common]
        if every[run.index] != run.pattern:
            raise ValueError(f"trigger {run.index} is not {run.pattern!r}")
        self._run = run
        self.base = len(patterns)  # the common triggers' indices follow the others'
        self._patterns = every
        self._max_mem = max_mem
        atoms: dict[str, list[int]] = {}
        loose: list[int] = []
        plain: set[int] = set()
        for i, p in enumerate(every):
            if i == run.index:
                continue
            got, exact = needed(p)
            if got is None:
                loose.append(i)
                continue
            if exact:
                plain.add(i)
            for a in got:
                atoms.setdefault(a, []).append(i)
        # The literals are sets of their own: with any pattern that is not a literal in them,
        # their automaton thrashed on prose again (5 to 40 times slower). Those a text of
        # ASCII bytes alone can hold (`_ascii_matchable`) are one set, matched on every input;
        # the others (other scripts, accented letters) a second one, matched only on an input
        # that is not all ASCII: as one set of 3,300 literals the automaton outgrew its memory
        # budget on varied prose and kept starting over (167 us a 2 KB chunk of package text;
        # the ASCII set alone 23 us).
        first = [a for a in atoms if _ascii_matchable(a)]
        second = [a for a in atoms if not _ascii_matchable(a)]
        gate = _set([re2.escape(a) for a in first], max_mem).Match
        table = tuple(tuple(atoms[a]) for a in (*first, *second))
        self._gate = (gate, table, frozenset(plain))
        # Built on the first input that is not all ASCII (`_other_match`): a gateway whose
        # results are all ASCII never holds it.
        self._second = [re2.escape(a) for a in second]
        self._other: tuple[Callable[[Any], Any], int] | None = None
        self._first = len(first)
        # The triggers with no literal, the common phrasings' among them, are one more set.
        self._loose = self._set_of(loose)
        self._checks: dict[int, Callable[[Any], Any]] = {}
        self._check = self._checker

    def _set_of(self, ids: list[int]) -> tuple[Callable[[Any], Any], tuple[int, ...]]:
        if not ids:
            return (lambda raw: None), ()
        return _set([self._patterns[i] for i in ids], self._max_mem).Match, tuple(ids)

    def _other_match(self, raw: bytes | memoryview) -> list[int]:
        """The non-ASCII literals that occur in `raw`, as indices after the ASCII set's (their
        set built on first use)."""
        other = self._other
        if other is None:
            if not self._second:
                return []
            other = self._other = (_set(self._second, self._max_mem).Match, self._first)
        return [k + other[1] for k in other[0](raw) or ()]

    def _checker(self, i: int) -> Callable[[Any], Any]:
        """Trigger `i`'s own automaton (built when first needed: most never are)."""
        m = self._checks.get(i)
        if m is None:
            m = self._checks[i] = _set([self._patterns[i]], self._max_mem).Match
        return m

    def _confirm(self, todo: list[int], raw: bytes | memoryview) -> list[int]:
        """Which of the candidate triggers `todo` occur in a long `raw`: in sets of up to
        `_BATCH` built for this input (one pass each over it, not one a trigger)."""
        out: list[int] = []
        for n in range(0, len(todo), _BATCH):
            batch = todo[n : n + _BATCH]
            m = _set([self._patterns[j] for j in batch], self._max_mem).Match
            out.extend(batch[i] for i in m(raw) or ())
        return out

    def match_fn(self, run_holds: Callable[[Any], bool]) -> Callable[[Any], list[int]]:
        """The prefilter's match (hot path: every result): the triggers (indices below `base`)
        that occur in the bytes, or when none does, the common ones (from `base`) that do.
        The run trigger alone counts only when `run_holds` says so (the base64 one); it holds
        only where the run is (so alone, it is asked instead of the run, not after it)."""
        gate, table, plain = self._gate
        other = self._other_match if self._second else None
        loose, loose_ids = self._loose
        base, check = self.base, self._check
        run, run_found = self._run.index, self._run.fn()
        confirm = self._confirm

        def match(raw: bytes | memoryview) -> list[int]:
            loose_hits = loose(raw)
            hits = gate(raw)
            if other is not None and not (
                raw.isascii() if type(raw) is bytes else bytes(raw).isascii()
            ):
                more = other(raw)
                if more:
                    hits = [*(hits or ()), *more]
            if not hits and not loose_hits:  # most results: no trigger's literal, no other
                return [run] if run_holds(raw) else []
            main: list[int] = []
            common: list[int] = []
            for i in loose_hits or ():
                j = loose_ids[i]
                (main if j < base else common).append(j)
            if hits:
                seen = set(main)
                todo: list[int] = []
                for k in hits:
                    for j in table[k]:
                        if j not in seen:
                            seen.add(j)
                            if j in plain:
                                (main if j < base else common).append(j)
                            else:
                                todo.append(j)
                if len(todo) > 1 and len(raw) > _LONG_BYTES:
                    todo = confirm(todo, raw)
                else:
                    todo = [j for j in todo if check(j)(raw)]
                for j in todo:
                    (main if j < base else common).append(j)
            if run_found(raw) if main else run_holds(raw):
                main.append(run)
            return main or common

        return match
