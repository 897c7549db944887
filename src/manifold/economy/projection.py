"""Field projection for JSON tool results: drop fields by path patterns, or keep only the
fields the model asked for.

Path patterns (compiled once, matched by a small automaton with a transition cache):

- segments are separated by `.`; a segment is an object key or a glob over keys (`*` any run
  of characters, `?` one character): `node_id`, `*_url`, `avatar?rl`;
- `*` alone is any one key; `**` is any number of keys, zero included;
- arrays are transparent: a path goes on into every element of an array at the same place, so
  `items.title` and `items[*].title` are the same path (`[*]` is accepted and means nothing);
- paths start at the top of the JSON value: `node_id` is a top-level key (or a key of each
  top-level array element), `**.node_id` is node_id at any depth;
- in a drop list, `!path` keeps a key that another pattern would drop (`**.*_url`,
  `!**.html_url`); it protects the key it names, not keys below a dropped one.

Keep lists (`fields`) use the same syntax. They are tried from the top first; when nothing
matches there, at any depth (so `title` finds `items[*].title` in a search result). When a keep
list matches nothing at all, the value is left whole rather than emptied.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

__all__ = [
    "PACKS",
    "Dropper",
    "Keeper",
    "PatternError",
    "compile_drop",
    "project_result",
]

# Built-in drop packs. Written from the public shapes of these APIs: fields that are links
# back into the API, ids meant for machines, and rendering hints a model does not need.
PACKS: Final[dict[str, tuple[str, ...]]] = {
    # GitHub REST: every object carries API links (`*_url`, URL templates) and GraphQL ids.
    "github": (
        "**.node_id",
        "**.gravatar_id",
        "**.*_url",
        "!**.html_url",  # the link a person opens
        "!**.browser_download_url",  # a release asset's download link
        "**._links",
        "**.user_view_type",
        "**.site_admin",
        "**.performed_via_github_app",
    ),
    # Jira REST: `self` links, avatar sets, expansion hints, icons, user account plumbing.
    "jira": (
        "**.self",
        "**.avatarUrls",
        "**.expand",
        "**.iconUrl",
        "**.avatarId",
        "**.accountType",
        "**.timeZone",
        "**.statusCategory.colorName",
    ),
    # Any API: fields that are only links.
    "urls": (
        "**.url",
        "**.*_url",
        "**.*_urls",
        "**.*Url",
        "**.*Urls",
        "**.href",
        "**._links",
    ),
}


class PatternError(ValueError):
    """A path pattern or pack name that cannot be used."""


# ------------------------------------------------------------------ patterns


_DEEP: Final = "**"


@dataclass(frozen=True, slots=True)
class _Seg:
    literal: str | None  # an exact key
    glob: re.Pattern[str] | None  # a glob over keys (None with literal None: any key)
    deep: bool = False

    def matches(self, key: str) -> bool:
        if self.literal is not None:
            return key == self.literal
        if self.glob is not None:
            return self.glob.fullmatch(key) is not None
        return True


def _segment(text: str) -> _Seg:
    if text == _DEEP:
        return _Seg(None, None, True)
    if text == "*":
        return _Seg(None, None)
    if "*" in text or "?" in text:
        rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in text)
        return _Seg(None, re.compile(rx, re.DOTALL))
    return _Seg(text, None)


def _compile(path: str) -> tuple[_Seg, ...]:
    raw = path.strip()
    if not raw:
        raise PatternError("empty path")
    segs: list[_Seg] = []
    for part in raw.split("."):
        key = part.replace("[*]", "")
        if not key:
            if part:
                continue  # `[*]` alone: an array step, which is implicit
            raise PatternError(f"empty segment in {path!r}")
        segs.append(_segment(key))
    if not segs:
        raise PatternError(f"{path!r} names no key")
    if segs[-1].deep:
        raise PatternError(f"{path!r} ends with '**' (name the key to match after it)")
    return tuple(segs)


_State = frozenset[tuple[int, int]]


class _Automaton:
    """All patterns of one list at once; a state is the set of (pattern, position) pairs
    still alive at the current depth. Transitions are cached per (state, key)."""

    _CACHE_LIMIT: Final = 50_000

    def __init__(self, patterns: Sequence[tuple[_Seg, ...]], keep_flags: Sequence[bool]) -> None:
        self.patterns = list(patterns)
        self.keep = list(keep_flags)  # True: a `!` exception (drop lists only)
        self._ids: dict[_State, int] = {}
        self._states: list[_State] = []
        self._cache: dict[tuple[int, str], tuple[int, int]] = {}
        self.empty = self._intern(frozenset())
        self.start = self._intern(self._closure({(i, 0) for i in range(len(self.patterns))}))

    def _closure(self, states: Iterable[tuple[int, int]]) -> _State:
        out: set[tuple[int, int]] = set()
        todo = list(states)
        while todo:
            s = todo.pop()
            if s in out:
                continue
            out.add(s)
            pi, pos = s
            if self.patterns[pi][pos].deep:
                todo.append((pi, pos + 1))  # `**` may match zero keys
        return frozenset(out)

    def _intern(self, state: _State) -> int:
        sid = self._ids.get(state)
        if sid is None:
            sid = self._ids[state] = len(self._states)
            self._states.append(state)
        return sid

    def step(self, sid: int, key: str) -> tuple[int, int]:
        """(next state, verdict) for `key` under state `sid`. Verdict bits: 1 a pattern ends
        at this key, 2 an exception (`!`) pattern ends at it."""
        hit = self._cache.get((sid, key))
        if hit is not None:
            return hit
        nxt: set[tuple[int, int]] = set()
        verdict = 0
        for pi, pos in self._states[sid]:
            pat = self.patterns[pi]
            seg = pat[pos]
            if seg.deep:
                nxt.add((pi, pos))
                continue
            if seg.matches(key):
                if pos + 1 == len(pat):
                    verdict |= 2 if self.keep[pi] else 1
                else:
                    nxt.add((pi, pos + 1))
        out = (self._intern(self._closure(nxt)) if nxt else self.empty, verdict)
        if len(self._cache) >= self._CACHE_LIMIT:
            self._cache.clear()
        self._cache[(sid, key)] = out
        return out


# ------------------------------------------------------------------ drop


class Dropper:
    """Drops the keys that match a list of patterns (with `!` exceptions)."""

    def __init__(self, patterns: Sequence[str]) -> None:
        compiled: list[tuple[_Seg, ...]] = []
        flags: list[bool] = []
        for p in patterns:
            keep = p.startswith("!")
            try:
                compiled.append(_compile(p[1:] if keep else p))
            except PatternError as e:
                raise PatternError(f"drop pattern {p!r}: {e}") from None
            flags.append(keep)
        if not any(not f for f in flags):
            raise PatternError("a drop list needs at least one pattern that is not '!'")
        self.patterns = tuple(patterns)
        self._a = _Automaton(compiled, flags)

    def apply(self, value: Any) -> tuple[Any, int]:
        """The value without the matched keys, and how many keys were dropped."""
        counter = [0]
        out = self._walk(value, self._a.start, counter)
        return out, counter[0]

    def _walk(self, v: Any, sid: int, counter: list[int]) -> Any:
        if isinstance(v, dict):
            out: dict[str, Any] = {}
            step = self._a.step
            empty = self._a.empty
            for k, child in v.items():
                nsid, verdict = step(sid, k)
                if verdict == 1:
                    counter[0] += 1
                    continue
                if nsid != empty and isinstance(child, dict | list):
                    child = self._walk(child, nsid, counter)
                out[k] = child
            return out
        if isinstance(v, list):
            return [self._walk(e, sid, counter) if isinstance(e, dict | list) else e for e in v]
        return v


def compile_drop(drop: Sequence[str], packs: Sequence[str]) -> Dropper | None:
    """The configured drop list (`response.drop` plus the named packs), or None when empty."""
    patterns: list[str] = []
    for name in packs:
        pack = PACKS.get(name)
        if pack is None:
            raise PatternError(f"unknown drop pack {name!r} (known: {', '.join(sorted(PACKS))})")
        patterns.extend(pack)
    patterns.extend(drop)
    return Dropper(patterns) if patterns else None


# ------------------------------------------------------------------ keep


_MISS: Final = object()


class Keeper:
    """Keeps only the named fields (the `fields` argument of invoke_tool)."""

    def __init__(self, fields: Sequence[str]) -> None:
        compiled: list[tuple[_Seg, ...]] = []
        for f in fields:
            try:
                compiled.append(_compile(f))
            except PatternError:
                continue  # a malformed field name keeps nothing; the others still apply
        self.valid = bool(compiled)
        deep = [p if p[0].deep else (_Seg(None, None, True), *p) for p in compiled]
        self._top = _Automaton(compiled, [False] * len(compiled))
        self._deep = _Automaton(deep, [False] * len(deep))

    def apply(self, value: Any) -> tuple[Any, bool]:
        """(projected value, whether anything matched); the value itself when nothing did."""
        if not self.valid or not isinstance(value, dict | list):
            return value, False
        for a in (self._top, self._deep):
            out = self._walk(a, value, a.start)
            if out is not _MISS:
                return out, True
        return value, False

    def _walk(self, a: _Automaton, v: Any, sid: int) -> Any:
        if isinstance(v, dict):
            out: dict[str, Any] = {}
            for k, child in v.items():
                nsid, verdict = a.step(sid, k)
                if verdict:
                    out[k] = child
                elif nsid != a.empty:
                    sub = self._walk(a, child, nsid)
                    if sub is not _MISS:
                        out[k] = sub
            return out if out else _MISS
        if isinstance(v, list):
            items = [r for e in v if (r := self._walk(a, e, sid)) is not _MISS]
            return items if items else _MISS
        return _MISS


# ------------------------------------------------------------------ results


def _project(value: Any, drop: Dropper | None, keep: Keeper | None) -> Any:
    if drop is not None:
        value, _ = drop.apply(value)
    if keep is not None:
        value, _ = keep.apply(value)
    return value


def project_result(
    result: dict[str, Any], drop: Dropper | None, keep: Keeper | None
) -> dict[str, Any] | None:
    """A tools/call result with its JSON text blocks (and structuredContent) projected and
    re-serialized compactly; None when nothing got smaller.

    A text block is projected when its text parses as a JSON object or array. A string member of
    structuredContent equal to a projected text (the SDKs mirror a text result that way) is
    replaced by the projected text.
    """
    content = result.get("content")
    if not isinstance(content, list):
        return None
    changed = False
    new_content: list[Any] = []
    mirrored: dict[str, str] = {}
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                new = _project_text(text, drop, keep)
                if new is not None:
                    mirrored[text] = new
                    block = {**block, "text": new}
                    changed = True
        new_content.append(block)
    out = dict(result)
    out["content"] = new_content
    sc = result.get("structuredContent")
    if isinstance(sc, dict):
        if mirrored and any(isinstance(v, str) and v in mirrored for v in sc.values()):
            out["structuredContent"] = {
                k: mirrored.get(v, v) if isinstance(v, str) else v for k, v in sc.items()
            }
            changed = True
        else:
            try:
                projected = _project(sc, drop, keep)
            except RecursionError:
                projected = sc
            if projected != sc:
                out["structuredContent"] = projected
                changed = True
    return out if changed else None


def _project_text(text: str, drop: Dropper | None, keep: Keeper | None) -> str | None:
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        return None
    try:
        value = orjson.loads(text)
        projected = _project(value, drop, keep)
        new = orjson.dumps(projected)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError, RecursionError):
        return None
    if len(new) >= len(text.encode()):
        return None  # nothing dropped and already compact
    return new.decode()
