"""Tool search for the ``search_tools`` router tool.

A small, dependency-free retrieval engine over MCP tool descriptors. Each tool is a
document with four fields: its name (split on ``_``, ``-``, ``.``, camelCase and
digit boundaries), its description, its parameters (names, descriptions, enum
values) and the name of the server that exposes it. Ranking is BM25F (per-field
weights and length normalisation, one saturation per term) plus small bonuses:

* adjacent-term (bigram) matches against names and descriptions,
* the share of the tool's name the query covers (by stem and by exact word form),
* agreement between the action the query asks for (read one / list / search /
  create / update / delete / run / send) and the tool's leading verb.

Queries go through a light English analyser: stop words, a small suffix stripper,
multi-word phrases, generic software/productivity synonyms and abbreviations,
pattern concepts (tracker keys such as ``ABC-12``, ``#channel``, ``@user``, clock
times, file names, units), the verb sense of an ambiguous first word ("open a
ticket"), and, for words the index does not know, a person for a capitalised name,
the verb behind a "re-" prefix, compound splits and prefix matches. There is no
per-catalog knowledge in this module.

Everything that depends only on the catalog is computed in :meth:`ToolIndex.build`;
:meth:`ToolIndex.search` does no I/O and touches only precomputed postings. On big
catalogs, terms with very long postings only score documents found by rarer terms
(see ``RankerConfig.full_scan_postings``), which keeps a query well under 2 ms on
10,000 tools.
"""

from __future__ import annotations

import itertools
import math
import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "Hit",
    "RankerConfig",
    "ToolEntry",
    "ToolIndex",
    "analyze_query",
    "split_identifier",
    "stem",
    "tokenize",
]


# --------------------------------------------------------------------------------------
# Public records


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: a tool of a server and its relevance score."""

    server: str
    tool: str
    score: float


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """What the index needs to know about one tool."""

    server: str
    tool: str
    description: str = ""
    input_schema: Mapping[str, Any] | None = None


EntryLike = ToolEntry | Sequence[Any]


# --------------------------------------------------------------------------------------
# Lexical analysis


def _words(text: str) -> list[str]:
    """The whitespace-separated words of ``text`` (for compact word lists)."""
    return text.split()


_STOP_WORDS: Final[frozenset[str]] = frozenset(
    _words(
        "a about above after again against all also am an and any anyone anything are aren as at "
        "be been before being below between both but by can cannot could couldn did didn do does "
        "doesn doing don down during each either else ever few for from further had hadn has hasn "
        "have haven having he her here hers herself him himself his how i if in into is isn it its "
        "itself just let lets like ll may me might mine more most must mustn my myself need needs "
        "no nor not now of off on once one only or other ought our ours ourselves out over own "
        "please re s same shall she should shouldn so some somebody something such t than that the "
        "their theirs them themselves then there these they this those through thus to too under "
        "until up upon us ve very via was wasn we were weren what whatever when where whether "
        "which while who whom whose will with within without won would wouldn yet you your yours "
        "yourself yourselves zero two three four five six seven eight nine ten eleven twelve hey "
        "hi thanks thank kindly quickly just really actually want wanna gonna going got "
        "give gives gave tell"
    )
)
"""Words that carry no retrieval signal on their own.

"give" and "tell" are listed because users say "give me" / "tell me" for any
read; stop words that have an entry in the synonym table (see ``_SYNONYMS``) are
re-introduced as weak slots, so they still carry their meaning a little.
"""

# Name tokens that are too generic to count towards "how much of the name did the
# query cover" (they are verbs present in half of any catalog).
_GENERIC_NAME_TERMS: Final[frozenset[str]] = frozenset(
    {"get", "list", "fetch", "retriev", "read", "tool", "data", "info", "detail"}
)

_IRREGULAR: Final[dict[str, str]] = {
    "ran": "run",
    "sent": "send",
    "wrote": "write",
    "written": "write",
    "slept": "sleep",
    "spent": "spend",
    "made": "make",
    "built": "build",
    "said": "say",
    "says": "say",
    "saw": "see",
    "seen": "see",
    "found": "find",
    "took": "take",
    "taken": "take",
    "began": "begin",
    "begun": "begin",
    "drank": "drink",
    "drunk": "drink",
    "ate": "eat",
    "eaten": "eat",
    "swam": "swim",
    "rode": "ride",
    "ridden": "ride",
    "people": "person",
    "children": "child",
    "men": "man",
    "women": "woman",
    "indices": "index",
    "indexes": "index",
    "statuses": "status",
    "aliases": "alias",
    "analyses": "analysis",
    "data": "data",
    "media": "media",
    "criteria": "criterion",
    "fastest": "fast",
    "slowest": "slow",
    "biggest": "big",
    "largest": "large",
    "smallest": "small",
    "longest": "long",
    "shortest": "short",
    "highest": "high",
    "lowest": "low",
    "newest": "new",
    "oldest": "old",
    "earliest": "early",
    "quickest": "quick",
    "heaviest": "heavy",
    "busiest": "busy",
    "worst": "bad",
    "best": "good",
    "better": "good",
    "worse": "bad",
    "bigger": "big",
    "larger": "large",
    "smaller": "small",
    "faster": "fast",
    "slower": "slow",
    "newer": "new",
    "older": "old",
    "latest": "latest",
}

_VOWELS: Final[frozenset[str]] = frozenset("aeiouy")


def _has_vowel(s: str) -> bool:
    return any(c in _VOWELS for c in s)


def _undouble(s: str) -> str:
    if len(s) >= 4 and s[-1] == s[-2] and s[-1] not in "lsz" and s[-1] not in _VOWELS:
        return s[:-1]
    return s


_STEM_CACHE: dict[str, str] = {}


def stem(word: str) -> str:
    """A light English suffix stripper.

    It conflates plural, ``-ing``, ``-ed``, ``-ly``, ``-ness``, ``-ability``, ``-ation``
    and ``-ion`` forms and normalises a final ``e``/``y``, so that "replies" ~ "reply",
    "running" ~ "runs", "predicted" ~ "predictions", "readiness" ~ "ready". It is
    deliberately conservative: stems only need to agree between queries and tool
    descriptions, not to be linguistic roots.
    """
    cached = _STEM_CACHE.get(word)
    if cached is not None:
        return cached
    result = _stem(word)
    if len(_STEM_CACHE) < 200_000:
        _STEM_CACHE[word] = result
    return result


def _stem(word: str) -> str:
    w = _IRREGULAR.get(word, word)
    if len(w) <= 3 or not w.isalpha():
        return w
    # Step 1: plurals and third person.
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses") or w.endswith(("xes", "ches", "shes", "zzes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    # Step 2: verbal / adjectival endings (one of them).
    if w.endswith("ing") and len(w) - 3 >= 3 and _has_vowel(w[:-3]):
        w = _undouble(w[:-3])
    elif w.endswith("ed") and not w.endswith("eed") and len(w) - 2 >= 3 and _has_vowel(w[:-2]):
        w = _undouble(w[:-2])
    elif w.endswith("ness") and len(w) - 4 >= 3:
        w = w[:-4]
    elif w.endswith("ication") and len(w) - 7 >= 3:
        w = w[:-7] + "y"
    elif w.endswith(("ability", "ibility")) and len(w) - 7 >= 4:
        w = w[:-5] + "l"  # availability ~ available
    elif w.endswith("ation") and len(w) - 5 >= 4:
        w = w[:-5] + "ate"
    elif w.endswith(("tion", "sion")) and len(w) - 3 >= 4:
        w = w[:-3]
    elif (w.endswith("ly") and not w.endswith("ply") and len(w) - 2 >= 4) or (
        w.endswith("ee") and len(w) - 2 >= 4
    ):
        w = w[:-2]
    # Step 3: normalise the tail.
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 2 and w.endswith("y") and w[-2] not in _VOWELS:
        w = w[:-1] + "i"
    return w


# Raw words of a text: letters/digits runs. Apostrophe suffixes ("morning's") dropped.
_RAW_WORD_RE: Final = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")
_CAMEL_RE: Final = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def split_identifier(word: str) -> list[str]:
    """Split one identifier-like word on camelCase and digit boundaries (lowercased).

    ``"getPRStatus"`` -> ``["get", "pr", "status"]``; ``"spo2"`` -> ``["spo", "2"]``;
    ``"list_issues"`` -> ``["list", "issues"]`` (separators are honoured too).
    """
    out: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", word):
        if chunk:
            out.extend(p.lower() for p in _CAMEL_RE.findall(chunk))
    return out


def _word_parts(raw: str) -> tuple[list[str], str | None]:
    """Parts of one raw word and, if it had several parts, its joined lowercase form.

    Digit parts of a mixed word are dropped (``vo2`` -> ``vo`` + joint ``vo2``);
    single letters are dropped (``5k`` -> joint ``5k`` only).
    """
    if "'" in raw:
        raw = raw.split("'", 1)[0]
    parts = _CAMEL_RE.findall(raw)
    if len(parts) <= 1:
        low = raw.lower()
        return ([low] if len(low) > 1 or low.isdigit() else []), None
    kept = [p.lower() for p in parts if p.isalpha() and len(p) > 1]
    return kept, raw.lower()


def tokenize(text: str) -> list[str]:
    """Stemmed content tokens of a free text or identifier, in order."""
    out: list[str] = []
    for raw in _RAW_WORD_RE.findall(text):
        parts, joint = _word_parts(raw)
        for p in parts:
            if p not in _STOP_WORDS and not p.isdigit():
                out.append(stem(p))
        if joint is not None:
            out.append(joint)
    return out


# --------------------------------------------------------------------------------------
# Vocabulary: abbreviations, synonyms, phrases, pattern concepts.
#
# Generic software / productivity / personal-data vocabulary only. Keys and values
# are plain words; they go through the same analyser as queries and documents.

# Rewrites: the expansion is what the word means; the original is kept as well.
_ABBREVIATIONS: Final[dict[str, str]] = {
    "pr": "pull request",
    "prs": "pull request",
    "mr": "merge request pull request",
    "mrs": "merge request pull request",
    "repo": "repository",
    "repos": "repository",
    "db": "database",
    "dbs": "database",
    "msg": "message",
    "msgs": "message",
    "dm": "direct message",
    "dms": "direct message",
    "hr": "heart rate",
    "bpm": "heart rate",
    "cfg": "configuration",
    "config": "configuration",
    "configs": "configuration",
    "env": "environment",
    "envs": "environment",
    "docs": "documentation",
    "doc": "document",
    "info": "information",
    "auth": "authentication",
    "perms": "permission",
    "org": "organization",
    "orgs": "organization",
    "dir": "directory",
    "img": "image",
    "pic": "image",
    "pics": "image",
    "pwd": "password",
    "vm": "virtual machine",
    "vms": "virtual machine",
    "k8s": "kubernetes",
    "deps": "dependency",
    "dep": "dependency",
    "vuln": "vulnerability",
    "vulns": "vulnerability",
    "cve": "vulnerability",
    "cves": "vulnerability",
    "txn": "transaction",
    "tz": "timezone",
    "km": "kilometer distance",
    "kms": "kilometer distance",
    "mi": "mile distance",
    "kg": "weight",
    "kgs": "weight",
    "lb": "weight",
    "lbs": "weight",
    "kcal": "calorie",
    "mins": "minute",
    "min": "minute",
    "hrs": "hour",
    "sec": "second",
    "secs": "second",
    "qty": "quantity",
    "addr": "address",
    "acct": "account",
    "admin": "administrator",
    "stats": "statistics",
    "stat": "statistic",
    "perf": "performance",
    "impl": "implementation",
    "func": "function",
    "fn": "function",
    "args": "argument",
    "param": "parameter",
    "params": "parameter",
    "req": "request",
    "resp": "response",
    "ws": "workspace",
    "proj": "project",
    "todo": "task",
    "todos": "task",
    "fyi": "message",
    "asap": "urgent priority",
    "eta": "estimate",
    "ooo": "out of office status",
    "afk": "away status",
    "wip": "draft",
    "lgtm": "approve review",
    "sql": "sql query",
    "ui": "interface",
    "url": "link",
    "urls": "link",
    "ci": "ci continuous integration",
    "cd": "deployment",
}

# (query word or phrase) -> alternatives with weights. Weights < 1: a synonym is
# weaker evidence than the word itself.
_SYNONYMS: Final[dict[str, tuple[tuple[str, float], ...]]] = {
    # --- generic actions: create
    "create": (("new", 0.4), ("add", 0.4), ("make", 0.4)),
    "make": (("create", 0.8), ("new", 0.3)),
    "new": (("create", 0.4),),
    "add": (("create", 0.5), ("insert", 0.4), ("invite", 0.4), ("record", 0.3)),
    "open": (("state", 0.3), ("status", 0.3)),
    "start": (("create", 0.5), ("run", 0.4), ("begin", 0.5)),
    "begin": (("start", 0.6), ("create", 0.4)),
    "write": (("create", 0.6), ("update", 0.3)),
    "compose": (("write", 0.6), ("create", 0.5), ("message", 0.4)),
    "draft": (("create", 0.5), ("write", 0.4)),
    "generate": (("create", 0.6),),
    "build": (("create", 0.5), ("workflow", 0.3), ("build", 1.0)),
    "setup": (("create", 0.5), ("configuration", 0.3)),
    "set up": (("create", 0.8), ("new", 0.4)),
    "spin up": (("create", 0.8), ("new", 0.4)),
    "sign up": (("create", 0.6), ("register", 0.6)),
    "init": (("create", 0.5), ("initialize", 0.6)),
    "initialize": (("create", 0.5),),
    "register": (("create", 0.5), ("add", 0.4)),
    "spawn": (("create", 0.5), ("run", 0.4)),
    "provision": (("create", 0.6),),
    "file": (("file", 1.0), ("create", 0.2)),
    "raise": (("create", 0.5), ("open", 0.4)),
    "submit": (("create", 0.5), ("send", 0.4), ("post", 0.4)),
    # --- read
    "show": (("get", 0.4), ("list", 0.4), ("view", 0.4)),
    "display": (("get", 0.5), ("show", 0.5), ("view", 0.4)),
    "view": (("get", 0.5), ("show", 0.4)),
    "see": (("view", 0.5), ("visible", 0.5), ("get", 0.3), ("list", 0.3)),
    "read": (("get", 0.6), ("content", 0.5), ("view", 0.4)),
    "fetch": (("get", 0.7), ("download", 0.3), ("retrieve", 0.6)),
    "retrieve": (("get", 0.7), ("fetch", 0.5)),
    "give": (("get", 0.4),),
    "get": (("retrieve", 0.5), ("fetch", 0.5)),
    "inspect": (("get", 0.5), ("describe", 0.5), ("detail", 0.5)),
    "describe": (("detail", 0.5), ("get", 0.3)),
    "detail": (("get", 0.4), ("describe", 0.4)),
    "check": (("status", 0.6), ("check", 1.0), ("get", 0.3)),
    "look": (("get", 0.4), ("search", 0.4), ("view", 0.4)),
    "browse": (("list", 0.6), ("search", 0.4)),
    "peek": (("get", 0.5), ("view", 0.5)),
    "preview": (("get", 0.5), ("view", 0.5)),
    "open up": (("get", 0.5), ("view", 0.5)),
    "pull up": (("get", 0.6), ("view", 0.5)),
    "look at": (("get", 0.6), ("view", 0.5)),
    # --- list
    "list": (("all", 0.3), ("get", 0.3)),
    "every": (("all", 0.6), ("list", 0.5)),
    "enumerate": (("list", 0.8),),
    "which": (("list", 0.3), ("get", 0.2)),
    "exist": (("list", 0.5), ("available", 0.3)),
    "available": (("list", 0.3),),
    # --- search
    "find": (("search", 0.8), ("get", 0.3), ("find", 1.0)),
    "search": (("find", 0.5), ("query", 0.4)),
    "look for": (("search", 0.8), ("find", 0.6)),
    "look up": (("search", 0.6), ("get", 0.5), ("find", 0.5)),
    "lookup": (("search", 0.6), ("get", 0.5)),
    "locate": (("search", 0.7), ("find", 0.6)),
    "grep": (("search", 0.8), ("code", 0.6)),
    "seek": (("search", 0.6),),
    "discover": (("search", 0.6), ("list", 0.3)),
    "mention": (("search", 0.3), ("contain", 0.3), ("notification", 0.3)),
    "contain": (("search", 0.3), ("mention", 0.3)),
    "filter": (("search", 0.5), ("list", 0.3)),
    "query": (("search", 0.3),),
    # --- update
    "update": (("edit", 0.5), ("modify", 0.5), ("change", 0.4)),
    "edit": (("update", 0.8), ("modify", 0.6), ("change", 0.4)),
    "modify": (("update", 0.8), ("change", 0.4)),
    "alter": (("update", 0.7), ("modify", 0.6)),
    "rename": (("update", 0.6), ("name", 0.6)),
    "set": (("update", 0.5), ("set", 1.0)),
    "adjust": (("update", 0.6), ("set", 0.4)),
    "tweak": (("update", 0.6),),
    "amend": (("update", 0.7),),
    "revise": (("update", 0.7),),
    "bump": (("update", 0.6), ("version", 0.3)),
    "patch": (("diff", 0.7), ("update", 0.4), ("patch", 1.0)),
    "replace": (("update", 0.6),),
    "overwrite": (("update", 0.6), ("write", 0.4)),
    "correct": (("update", 0.5), ("fix", 0.4)),
    "sync": (("update", 0.5), ("latest", 0.3)),
    "refresh": (("update", 0.5), ("latest", 0.3)),
    "rebase": (("update", 0.4), ("rebase", 1.0), ("base", 0.3)),
    "up to date": (("update", 0.8), ("latest", 0.6)),
    "catch up": (("update", 0.5), ("latest", 0.5)),
    # --- delete
    "delete": (("remove", 0.6), ("delete", 1.0)),
    "remove": (("delete", 0.8), ("remove", 1.0)),
    "drop": (("delete", 0.6), ("remove", 0.5)),
    "erase": (("delete", 0.8), ("remove", 0.6)),
    "destroy": (("delete", 0.8), ("remove", 0.6)),
    "purge": (("delete", 0.7), ("remove", 0.5)),
    "discard": (("delete", 0.7), ("remove", 0.5)),
    "trash": (("delete", 0.7), ("remove", 0.5)),
    "wipe": (("delete", 0.7), ("remove", 0.5)),
    "nuke": (("delete", 0.7),),
    "throw away": (("delete", 0.8), ("remove", 0.6)),
    "get rid": (("delete", 0.8), ("remove", 0.6)),
    "clean up": (("delete", 0.5), ("remove", 0.5)),
    "for good": (("permanent", 0.7),),
    "forever": (("permanent", 0.6),),
    "unsubscribe": (("remove", 0.5),),
    # --- send / post / share
    "send": (("post", 0.7), ("message", 0.3), ("send", 1.0)),
    "post": (("send", 0.6), ("publish", 0.4), ("message", 0.3)),
    "tell": (("message", 0.6), ("post", 0.6), ("send", 0.5)),
    "say": (("message", 0.6), ("text", 0.4), ("post", 0.3)),
    "announce": (("post", 0.6), ("message", 0.5), ("send", 0.5)),
    "broadcast": (("post", 0.6), ("message", 0.5), ("send", 0.5)),
    "notify": (("notification", 0.6), ("message", 0.5), ("send", 0.4)),
    "ping": (("notification", 0.6), ("message", 0.5), ("mention", 0.4)),
    "share": (("upload", 0.6), ("post", 0.5), ("send", 0.4), ("share", 1.0)),
    "publish": (("post", 0.5), ("release", 0.5)),
    "forward": (("send", 0.6),),
    "chat": (("message", 0.7), ("channel", 0.4), ("conversation", 0.4)),
    "text": (("message", 0.5), ("text", 1.0)),
    "conversation": (("message", 0.5), ("thread", 0.5), ("history", 0.4)),
    "discussion": (("message", 0.6), ("thread", 0.5), ("conversation", 0.5)),
    "discuss": (("message", 0.5), ("thread", 0.4)),
    "talk": (("message", 0.5), ("conversation", 0.4)),
    "know": (("message", 0.4), ("tell", 0.3)),
    "reply": (("respond", 0.5), ("answer", 0.4), ("comment", 0.4)),
    "respond": (("reply", 0.8),),
    "answer": (("reply", 0.8), ("response", 0.5)),
    "response": (("reply", 0.6),),
    "remind": (("schedule", 0.6), ("reminder", 0.8), ("future", 0.4), ("message", 0.3)),
    "reminder": (("schedule", 0.6), ("remind", 0.8)),
    # --- run / execute
    "run": (("execute", 0.5), ("run", 1.0), ("activity", 0.3)),
    "execute": (("run", 0.6),),
    "trigger": (("run", 0.6), ("dispatch", 0.4), ("start", 0.4)),
    "launch": (("run", 0.6), ("start", 0.5), ("create", 0.3)),
    "kick off": (("run", 0.7), ("trigger", 0.7), ("start", 0.5)),
    "fire": (("trigger", 0.6), ("run", 0.5)),
    "invoke": (("run", 0.6), ("call", 0.5), ("execute", 0.5)),
    "dispatch": (("trigger", 0.5), ("run", 0.5)),
    "retry": (("rerun", 0.8), ("run", 0.5), ("retry", 1.0)),
    "rerun": (("run", 0.5),),
    "redo": (("rerun", 0.7), ("retry", 0.5)),
    "restart": (("rerun", 0.6), ("restart", 1.0), ("start", 0.4)),
    "re run": (("rerun", 0.9),),
    "manually": (("dispatch", 0.4), ("trigger", 0.4), ("manual", 0.6)),
    "deploy": (("deployment", 0.8), ("release", 0.4), ("workflow", 0.3)),
    "deployment": (("deploy", 0.8), ("release", 0.4)),
    "ship": (("release", 0.6), ("deploy", 0.5)),
    # --- transfer
    "export": (("download", 0.7), ("export", 1.0)),
    "download": (("export", 0.5), ("get", 0.3)),
    "save": (("download", 0.4), ("store", 0.4), ("create", 0.3)),
    "upload": (("attach", 0.5), ("push", 0.3), ("file", 0.3)),
    "attach": (("upload", 0.7), ("attachment", 0.6)),
    "import": (("upload", 0.5), ("import", 1.0)),
    "push": (("commit", 0.4), ("upload", 0.3)),
    "commit": (("push", 0.3),),
    "copy": (("fork", 0.4), ("clone", 0.4), ("duplicate", 0.3)),
    "clone": (("fork", 0.5), ("copy", 0.5)),
    # --- review / collaboration
    "approve": (("review", 0.6), ("accept", 0.4)),
    "reject": (("review", 0.5), ("request change", 0.4)),
    "review": (("feedback", 0.3),),
    "feedback": (("review", 0.5), ("comment", 0.5)),
    "comment": (("note", 0.3), ("reply", 0.3)),
    "note": (("comment", 0.5),),
    "remark": (("comment", 0.6),),
    "leave": (("add", 0.5), ("post", 0.4)),
    "squash": (("merge", 0.6),),
    "combine": (("merge", 0.6),),
    "land": (("merge", 0.5),),
    "assign": (("assignee", 0.8), ("assign", 1.0)),
    "assigned": (("assignee", 0.8),),
    "invite": (("add", 0.4), ("invite", 1.0)),
    "join": (("invite", 0.5), ("member", 0.4)),
    "kick": (("remove", 0.6),),
    # --- issue tracking
    "ticket": (("issue", 0.9), ("bug", 0.3), ("task", 0.3)),
    "bug": (("issue", 0.7), ("defect", 0.5)),
    "defect": (("bug", 0.7), ("issue", 0.6)),
    "task": (("issue", 0.6),),
    "story": (("issue", 0.5),),
    "epic": (("issue", 0.4),),
    "problem": (("issue", 0.5), ("bug", 0.4), ("error", 0.4)),
    "crash": (("bug", 0.5), ("error", 0.5), ("issue", 0.4)),
    "incident": (("issue", 0.3), ("alert", 0.3), ("outage", 0.4)),
    "outage": (("incident", 0.6),),
    "card": (("issue", 0.4), ("task", 0.4)),
    "backlog": (("issue", 0.4), ("board", 0.3)),
    "iteration": (("sprint", 0.7),),
    "milestone": (("sprint", 0.3), ("milestone", 1.0)),
    "scrum": (("agile", 0.6), ("sprint", 0.4), ("board", 0.4)),
    "kanban": (("board", 0.7), ("agile", 0.5)),
    "move": (("transition", 0.6), ("status", 0.4), ("move", 1.0)),
    "transition": (("move", 0.5), ("status", 0.4)),
    "done": (("status", 0.4), ("transition", 0.3), ("close", 0.3)),
    "resolve": (("close", 0.5), ("done", 0.4), ("status", 0.3)),
    "resolved": (("close", 0.5), ("done", 0.4), ("status", 0.3)),
    "fixed": (("close", 0.3), ("fix", 0.6)),
    "close": (("closed", 0.6), ("state", 0.3), ("status", 0.3), ("update", 0.3)),
    "reopen": (("open", 0.6), ("update", 0.4), ("state", 0.3)),
    "in progress": (("progress", 0.8), ("status", 0.4)),
    "block": (("link", 0.5), ("block", 1.0)),
    "blocked": (("link", 0.5), ("block", 1.0)),
    "depends": (("link", 0.5), ("dependency", 0.5)),
    "relate": (("link", 0.6),),
    "relates": (("link", 0.6),),
    "duplicate": (("link", 0.3), ("duplicate", 1.0)),
    "priority": (("priority", 1.0), ("field", 0.3)),
    "label": (("tag", 0.4),),
    "state": (("status", 0.5),),
    # --- code hosting
    "repository": (("repo", 0.5), ("project", 0.3)),
    "project": (("repository", 0.3),),
    "codebase": (("repository", 0.6), ("code", 0.5)),
    "library": (("package", 0.4), ("repository", 0.3), ("dependency", 0.3)),
    "package": (("dependency", 0.5), ("library", 0.4)),
    "dependency": (("package", 0.4), ("library", 0.3)),
    "source": (("code", 0.5), ("content", 0.4)),
    "snippet": (("code", 0.6),),
    "function": (("code", 0.4),),
    "call": (("code", 0.3), ("invoke", 0.3)),
    "branch": (("ref", 0.4),),
    "main": (("branch", 0.4), ("base", 0.3)),
    "master": (("branch", 0.4), ("base", 0.3)),
    "trunk": (("branch", 0.4), ("base", 0.3)),
    "develop": (("branch", 0.3),),
    "feature": (("branch", 0.3),),
    "diff": (("change", 0.5), ("patch", 0.4)),
    "change": (("diff", 0.3), ("update", 0.5), ("modify", 0.4)),
    "delta": (("diff", 0.6), ("change", 0.5)),
    "version": (("release", 0.6), ("tag", 0.4)),
    "changelog": (("release", 0.5), ("change", 0.4)),
    "tag": (("label", 0.3),),
    "fork": (("copy", 0.4),),
    "star": (("star", 1.0), ("popular", 0.3)),
    "popular": (("star", 0.6),),
    "trending": (("star", 0.5), ("popular", 0.5)),
    "ci": (("workflow", 0.6), ("build", 0.5), ("pipeline", 0.5), ("check", 0.4), ("action", 0.3)),
    "pipeline": (("workflow", 0.7), ("ci", 0.5), ("build", 0.4)),
    "job": (("workflow", 0.3), ("run", 0.3)),
    "action": (("workflow", 0.4),),
    "pass": (("status", 0.5), ("check", 0.4), ("succeed", 0.3)),
    "passing": (("status", 0.5), ("check", 0.4)),
    "succeed": (("status", 0.5), ("success", 0.5), ("pass", 0.3)),
    "success": (("status", 0.4), ("succeed", 0.5)),
    "green": (("status", 0.4), ("pass", 0.4)),
    "fail": (("failure", 0.6), ("error", 0.3), ("status", 0.3)),
    "failure": (("fail", 0.8), ("error", 0.4)),
    "broken": (("fail", 0.5), ("error", 0.4)),
    "error": (("fail", 0.4), ("exception", 0.4), ("log", 0.3)),
    "exception": (("error", 0.6),),
    "log": (("output", 0.3), ("record", 0.3)),
    "output": (("log", 0.5), ("result", 0.4)),
    "trace": (("log", 0.5),),
    "console": (("log", 0.5),),
    "security": (("vulnerability", 0.4), ("alert", 0.3), ("scan", 0.3)),
    "vulnerable": (("vulnerability", 0.8), ("security", 0.5), ("alert", 0.3)),
    "vulnerability": (("vulnerable", 0.8), ("security", 0.5), ("alert", 0.3)),
    "exploit": (("vulnerability", 0.6), ("security", 0.5)),
    "finding": (("alert", 0.5), ("result", 0.3)),
    "warning": (("alert", 0.5),),
    "alert": (("warning", 0.4), ("notification", 0.3)),
    "secret": (("credential", 0.6), ("token", 0.4), ("password", 0.4)),
    "credential": (("secret", 0.6), ("password", 0.4), ("token", 0.4)),
    "password": (("credential", 0.6), ("secret", 0.5)),
    "token": (("credential", 0.5), ("secret", 0.4)),
    "leak": (("leaked", 0.8), ("secret", 0.4), ("expose", 0.4)),
    "expose": (("leak", 0.6),),
    "ask": (("request", 0.7),),
    "request": (("ask", 0.4),),
    "at once": (("batch", 0.8), ("multiple", 0.8), ("bulk", 0.6)),
    "in bulk": (("batch", 0.8), ("multiple", 0.8), ("bulk", 0.8)),
    "in one go": (("batch", 0.8), ("multiple", 0.8)),
    "bulk": (("batch", 0.8), ("multiple", 0.7)),
    "batch": (("bulk", 0.6), ("multiple", 0.7)),
    "several": (("multiple", 0.7), ("batch", 0.4)),
    "many": (("multiple", 0.5),),
    "multiple": (("batch", 0.5), ("bulk", 0.5)),
    "ai": (("automated", 0.5), ("assistant", 0.5), ("bot", 0.4), ("model", 0.3)),
    "bot": (("automated", 0.6), ("assistant", 0.4), ("bot", 1.0)),
    "automatic": (("automated", 0.9),),
    "readme": (("file", 0.6), ("content", 0.4), ("document", 0.4)),
    "license": (("file", 0.4),),
    "folder": (("directory", 0.8), ("path", 0.4)),
    "directory": (("folder", 0.6), ("path", 0.4)),
    "path": (("file", 0.3),),
    # --- messaging / people
    "message": (("text", 0.3), ("post", 0.3)),
    "channel": (("room", 0.4), ("conversation", 0.3)),
    "room": (("channel", 0.7),),
    "thread": (("reply", 0.4), ("conversation", 0.3)),
    "react": (("reaction", 0.8), ("emoji", 0.5)),
    "emoji": (("reaction", 0.6), ("emoji", 1.0)),
    "smiley": (("emoji", 0.8), ("reaction", 0.6)),
    "smile": (("emoji", 0.6), ("reaction", 0.5)),
    "thumbs up": (("reaction", 0.8), ("emoji", 0.6)),
    "upvote": (("reaction", 0.6),),
    "user": (("member", 0.5), ("person", 0.4), ("account", 0.3), ("profile", 0.3)),
    "person": (("user", 0.7), ("member", 0.5), ("profile", 0.3)),
    "member": (("user", 0.7),),
    "someone": (("user", 0.5),),
    "everyone": (("user", 0.4), ("all", 0.3)),
    "teammate": (("user", 0.6), ("member", 0.6)),
    "colleague": (("user", 0.6), ("member", 0.6)),
    "coworker": (("user", 0.6), ("member", 0.6)),
    "employee": (("user", 0.5),),
    "who": (("user", 0.4), ("author", 0.3), ("member", 0.3)),
    "account": (("user", 0.4), ("profile", 0.3)),
    "profile": (("user", 0.4), ("account", 0.3)),
    "username": (("user", 0.6), ("login", 0.4)),
    "handle": (("username", 0.5), ("user", 0.4)),
    "email": (("mail", 0.5), ("address", 0.3), ("user", 0.2)),
    "mail": (("email", 0.8), ("message", 0.3)),
    "title": (("name", 0.3), ("title", 1.0)),
    "job title": (("title", 0.6), ("profile", 0.6)),
    "workspace": (("team", 0.3), ("organization", 0.3)),
    "team": (("group", 0.3), ("team", 1.0)),
    "group": (("team", 0.4), ("channel", 0.3)),
    "notification": (("alert", 0.3), ("mention", 0.3)),
    "unread": (("notification", 0.6), ("inbox", 0.4)),
    "inbox": (("notification", 0.6), ("message", 0.5)),
    "status": (("presence", 0.4), ("state", 0.5)),
    "presence": (("status", 0.7),),
    "away": (("status", 0.5),),
    "vacation": (("status", 0.4), ("away", 0.3)),
    "holiday": (("status", 0.4), ("away", 0.3)),
    "busy": (("status", 0.4),),
    "logged in": (("authenticated", 0.8), ("me", 0.6), ("current user", 0.5)),
    "signed in": (("authenticated", 0.8), ("me", 0.6), ("current user", 0.5)),
    "who am i": (("me", 0.9), ("authenticated user", 0.7), ("current user", 0.5)),
    "whoami": (("me", 0.9), ("authenticated user", 0.7)),
    "myself": (("me", 0.6),),
    # --- scheduling / time
    "schedule": (("calendar", 0.4), ("later", 0.3), ("plan", 0.3)),
    "later": (("schedule", 0.5), ("future", 0.5)),
    "tomorrow": (("schedule", 0.4), ("future", 0.5), ("date", 0.2)),
    "tonight": (("schedule", 0.3), ("future", 0.3), ("date", 0.2)),
    "next week": (("schedule", 0.4), ("future", 0.5)),
    "future": (("schedule", 0.5), ("upcoming", 0.4)),
    "upcoming": (("future", 0.6), ("schedule", 0.4)),
    "delay": (("schedule", 0.5), ("later", 0.4)),
    "calendar": (("schedule", 0.5), ("event", 0.4), ("date", 0.3)),
    "meeting": (("event", 0.6), ("calendar", 0.5)),
    "appointment": (("event", 0.6), ("calendar", 0.5)),
    "event": (("calendar", 0.3),),
    "today": (("date", 0.3), ("day", 0.3), ("daily", 0.3), ("recent", 0.2)),
    "yesterday": (("date", 0.3), ("day", 0.3), ("recent", 0.2)),
    "day": (("date", 0.4), ("daily", 0.4)),
    "daily": (("day", 0.5), ("date", 0.3)),
    "week": (("date", 0.3), ("range", 0.3), ("weekly", 0.5)),
    "month": (("date", 0.3), ("range", 0.3), ("monthly", 0.5)),
    "morning": (("date", 0.2), ("day", 0.2)),
    "night": (("sleep", 0.4), ("overnight", 0.5), ("date", 0.2)),
    "last night": (("sleep", 0.4), ("overnight", 0.5), ("date", 0.2)),
    "overnight": (("night", 0.5), ("sleep", 0.4)),
    "monday": (("date", 0.3), ("schedule", 0.3)),
    "tuesday": (("date", 0.3), ("schedule", 0.3)),
    "wednesday": (("date", 0.3), ("schedule", 0.3)),
    "thursday": (("date", 0.3), ("schedule", 0.3)),
    "friday": (("date", 0.3), ("schedule", 0.3)),
    "saturday": (("date", 0.3), ("schedule", 0.3)),
    "sunday": (("date", 0.3), ("schedule", 0.3)),
    "weekend": (("date", 0.3), ("schedule", 0.3)),
    "date": (("day", 0.3),),
    "recent": (("latest", 0.5), ("last", 0.4), ("history", 0.3)),
    "recently": (("recent", 0.8), ("latest", 0.5)),
    "lately": (("recent", 0.6), ("latest", 0.4), ("trend", 0.3)),
    "last": (("latest", 0.6), ("recent", 0.5)),
    "latest": (("recent", 0.5), ("last", 0.4), ("newest", 0.4)),
    "newest": (("latest", 0.7), ("recent", 0.5), ("new", 0.5)),
    "current": (("active", 0.5), ("latest", 0.3)),
    "right now": (("currently", 0.8), ("active", 0.6), ("running", 0.4)),
    "at the moment": (("currently", 0.8), ("active", 0.6)),
    "ongoing": (("active", 0.6), ("running", 0.5), ("current", 0.5)),
    "active": (("current", 0.4), ("running", 0.3)),
    "history": (("recent", 0.4), ("past", 0.3), ("log", 0.3)),
    "past": (("history", 0.5), ("previous", 0.4)),
    "previous": (("last", 0.5), ("history", 0.4)),
    "so far": (("total", 0.4),),
    "trend": (("history", 0.4), ("over time", 0.4)),
    "hour": (("time", 0.6), ("duration", 0.4)),
    "minute": (("time", 0.5), ("duration", 0.4)),
    "time": (("duration", 0.4), ("date", 0.2)),
    "duration": (("time", 0.6),),
    "how long": (("duration", 0.6), ("time", 0.6)),
    "spend": (("spent", 0.8), ("time", 0.4)),
    "book": (("log", 0.5), ("time", 0.3), ("schedule", 0.3)),
    "booked": (("log", 0.5), ("time", 0.3), ("spent", 0.3)),
    "track": (("log", 0.5), ("record", 0.4)),
    "record": (("log", 0.5), ("add", 0.3), ("record", 1.0)),
    "timesheet": (("worklog", 0.8), ("time", 0.5), ("log", 0.5)),
    "timezone": (("time", 0.4), ("profile", 0.4)),
    "time zone": (("timezone", 0.8), ("profile", 0.4)),
    # --- quantities / reporting
    "how many": (("count", 0.5), ("number", 0.4), ("total", 0.3)),
    "how much": (("total", 0.4), ("amount", 0.4), ("count", 0.3)),
    "count": (("number", 0.4), ("total", 0.4), ("select", 0.2), ("query", 0.2)),
    "number": (("count", 0.4),),
    "total": (("count", 0.4), ("sum", 0.4)),
    "amount": (("total", 0.5), ("count", 0.4)),
    "size": (("big", 0.3), ("disk", 0.3)),
    "big": (("size", 0.6), ("large", 0.6)),
    "large": (("size", 0.6), ("big", 0.5)),
    "huge": (("size", 0.6), ("large", 0.6)),
    "small": (("size", 0.5),),
    "space": (("size", 0.5), ("disk", 0.4), ("storage", 0.4)),
    "storage": (("disk", 0.5), ("size", 0.4)),
    "disk": (("storage", 0.5), ("size", 0.4)),
    "slow": (("performance", 0.5), ("latency", 0.4), ("duration", 0.3)),
    "bad": (("slow", 0.3), ("error", 0.2)),
    "performance": (("slow", 0.5), ("latency", 0.4), ("performance", 1.0)),
    "performing": (("slow", 0.5), ("performance", 0.6)),
    "latency": (("slow", 0.5), ("performance", 0.5)),
    "bottleneck": (("slow", 0.6), ("performance", 0.5)),
    "expensive": (("slow", 0.5), ("cost", 0.5)),
    "why": (("explain", 0.4), ("plan", 0.3)),
    "explain": (("plan", 0.4), ("analyze", 0.4)),
    "plan": (("explain", 0.3), ("create", 0.4), ("schedule", 0.4)),
    "analyze": (("explain", 0.5), ("analysis", 0.6)),
    "summary": (("overview", 0.5), ("report", 0.4)),
    "overview": (("summary", 0.7),),
    "recap": (("summary", 0.7),),
    "digest": (("summary", 0.6),),
    "report": (("summary", 0.4), ("report", 1.0)),
    "metric": (("statistic", 0.5), ("measurement", 0.4)),
    "statistic": (("metric", 0.5), ("stat", 0.8)),
    "analytics": (("statistic", 0.5), ("metric", 0.5)),
    "score": (("rating", 0.4),),
    "rating": (("score", 0.6),),
    "percentage": (("percent", 0.8),),
    "estimate": (("prediction", 0.6), ("estimate", 1.0)),
    "forecast": (("prediction", 0.7), ("estimate", 0.5)),
    "projected": (("prediction", 0.6),),
    "predict": (("prediction", 0.8), ("forecast", 0.5)),
    "good": (("record", 0.4), ("top", 0.4)),
    "all time": (("record", 0.6), ("personal", 0.4)),
    "pb": (("personal record", 0.8),),
    # --- databases
    "database": (
        ("sql", 0.4),
        ("db", 0.5),
        ("schema", 0.2),
        ("postgres", 0.5),
        ("postgresql", 0.5),
        ("mysql", 0.5),
        ("sqlite", 0.5),
    ),
    "sql": (("query", 0.5), ("database", 0.4)),
    "select": (("query", 0.6), ("sql", 0.5), ("read", 0.3)),
    "insert": (("execute", 0.4), ("modify", 0.4), ("add", 0.3), ("write", 0.3)),
    "row": (("data", 0.5), ("sql", 0.5), ("record", 0.4), ("table", 0.3)),
    "table": (("sql", 0.3), ("database", 0.3)),
    "column": (("field", 0.5), ("schema", 0.3), ("describe", 0.3)),
    "field": (("column", 0.5),),
    "structure": (("schema", 0.6), ("describe", 0.5)),
    "ddl": (("schema", 0.6), ("describe", 0.4)),
    "index": (("indexes", 0.5),),
    "lock": (("lock", 1.0), ("block", 0.3)),
    "stored": (("store", 0.5), ("save", 0.4)),
    "planner": (("plan", 0.8), ("explain", 0.6)),
    "execution": (("execute", 0.5), ("plan", 0.3)),
    # --- health / fitness
    "jog": (("run", 0.7), ("activity", 0.5)),
    "ride": (("activity", 0.5), ("bike", 0.4), ("cycling", 0.4)),
    "bike": (("ride", 0.5), ("cycling", 0.5), ("gear", 0.3)),
    "cycling": (("ride", 0.6), ("bike", 0.5), ("activity", 0.4)),
    "swim": (("activity", 0.5),),
    "hike": (("activity", 0.5), ("walk", 0.4)),
    "walk": (("step", 0.4), ("activity", 0.4)),
    "workout": (("training", 0.5), ("exercise", 0.5), ("activity", 0.3)),
    "exercise": (("workout", 0.6), ("activity", 0.5), ("training", 0.5)),
    "training": (("workout", 0.4), ("exercise", 0.4)),
    "train": (("training", 0.9), ("workout", 0.4)),
    "session": (("workout", 0.3), ("activity", 0.3), ("session", 1.0)),
    "interval": (("workout", 0.4), ("interval", 1.0)),
    "kilometer": (("distance", 0.6), ("km", 0.6)),
    "mile": (("distance", 0.6),),
    "distance": (("kilometer", 0.4),),
    "far": (("distance", 0.5),),
    "weigh": (("weight", 0.8),),
    "weight": (("weigh", 0.7), ("body", 0.3)),
    "pound": (("weight", 0.6),),
    "heart": (("heart rate", 0.5),),
    "pulse": (("heart rate", 0.6), ("pulse", 1.0)),
    "sleep": (("rest", 0.3),),
    "asleep": (("sleep", 0.8), ("overnight", 0.4)),
    "nap": (("sleep", 0.6),),
    "breathing": (("respiration", 0.8), ("breath", 0.6)),
    "breathe": (("respiration", 0.8), ("breath", 0.6)),
    "breath": (("respiration", 0.7), ("breathing", 0.6)),
    "water": (("hydration", 0.6), ("drink", 0.4)),
    "drink": (("hydration", 0.7), ("water", 0.6), ("intake", 0.4)),
    "hydrate": (("hydration", 0.8), ("water", 0.5)),
    "calorie": (("energy", 0.3),),
    "burn": (("calorie", 0.6), ("energy", 0.3)),
    "energy": (("calorie", 0.3),),
    "tired": (("energy", 0.5), ("stress", 0.3), ("sleep", 0.3), ("readiness", 0.3)),
    "fatigue": (("energy", 0.5), ("stress", 0.3), ("readiness", 0.3)),
    "stressed": (("stress", 0.9),),
    "anxious": (("stress", 0.6),),
    "recover": (("recovery", 0.8), ("readiness", 0.5)),
    "recovery": (("readiness", 0.5), ("recover", 0.8)),
    "rested": (("readiness", 0.5), ("sleep", 0.4), ("recovery", 0.5)),
    "ready": (("readiness", 0.8),),
    "overtraining": (("overreaching", 0.6), ("training load", 0.5)),
    "fitness": (("fitness", 1.0), ("training", 0.3), ("vo2", 0.3)),
    "watch": (("device", 0.7), ("watch", 1.0)),
    "tracker": (("device", 0.7),),
    "wearable": (("device", 0.8),),
    "gadget": (("device", 0.6),),
    "phone": (("device", 0.5),),
    "shoe": (("gear", 0.6), ("equipment", 0.5)),
    "equipment": (("gear", 0.7),),
    "split": (("lap", 0.6),),
    "lap": (("split", 0.6),),
    "speed": (("pace", 0.6),),
    "pace": (("speed", 0.5),),
    "oxygen": (("spo2", 0.6),),
    "pulse ox": (("spo2", 0.8), ("oxygen", 0.6)),
    "vigorous": (("intensity", 0.6),),
    "intense": (("intensity", 0.8),),
    "effort": (("intensity", 0.5),),
    "body fat": (("body fat", 1.0), ("body composition", 0.6)),
    "bmi": (("body composition", 0.5), ("weight", 0.4)),
    "marathon": (("race", 0.5),),
    "race": (("marathon", 0.4),),
    # --- generic software nouns
    "configuration": (("settings", 0.6), ("config", 0.6)),
    "settings": (("configuration", 0.6), ("preferences", 0.5)),
    "preferences": (("settings", 0.7),),
    "server": (("host", 0.4), ("instance", 0.4)),
    "host": (("server", 0.5), ("instance", 0.4)),
    "instance": (("server", 0.4), ("host", 0.4)),
    "container": (("pod", 0.4), ("docker", 0.4)),
    "pod": (("container", 0.5),),
    "link": (("url", 0.5), ("link", 1.0)),
    "document": (("page", 0.5), ("file", 0.5), ("doc", 0.5)),
    "documentation": (("page", 0.4), ("document", 0.5)),
    "page": (("document", 0.4),),
    "wiki": (("page", 0.6), ("document", 0.4)),
    "article": (("page", 0.6), ("document", 0.5)),
    "runbook": (("page", 0.5), ("document", 0.5)),
    "playbook": (("page", 0.5), ("document", 0.5)),
    "guide": (("page", 0.5), ("document", 0.5)),
    "spec": (("page", 0.4), ("document", 0.5)),
    "notes": (("page", 0.3), ("note", 0.8)),
    "pdf": (("file", 0.7), ("document", 0.4)),
    "csv": (("file", 0.6), ("export", 0.3)),
    "image": (("file", 0.5), ("picture", 0.5)),
    "photo": (("image", 0.6), ("file", 0.5)),
    "screenshot": (("image", 0.6), ("file", 0.5)),
    "attachment": (("file", 0.7), ("attach", 0.6)),
    "content": (("text", 0.3), ("body", 0.3)),
    "customer": (("client", 0.5), ("account", 0.3)),
    "client": (("customer", 0.5),),
    "contact": (("person", 0.4), ("user", 0.3)),
    "permission": (("access", 0.6), ("role", 0.4)),
    "access": (("permission", 0.6),),
}

# Ambiguous words in imperative position (the query's first word, after politeness
# such as "please" or "can you") take their verb sense: "open a ticket" creates,
# "file a bug" creates, "log 2 hours" adds a record, "close the sprint" updates.
_LEADING_VERBS: Final[dict[str, tuple[tuple[str, float], ...]]] = {
    "open": (("create", 0.9), ("open", 0.5), ("new", 0.3)),
    "file": (("create", 0.9), ("file", 0.3)),
    "raise": (("create", 0.8),),
    "log": (("log", 1.0), ("add", 0.6), ("record", 0.4)),
    "record": (("record", 1.0), ("add", 0.6), ("log", 0.5)),
    "track": (("log", 0.6), ("add", 0.5), ("track", 1.0)),
    "book": (("log", 0.6), ("add", 0.5), ("schedule", 0.5)),
    "post": (("post", 1.0), ("send", 0.6)),
    "mark": (("mark", 1.0), ("update", 0.6), ("set", 0.5), ("link", 0.3)),
    "flag": (("flag", 1.0), ("mark", 0.5), ("label", 0.5)),
    "tag": (("tag", 1.0), ("label", 0.6)),
    "label": (("label", 1.0), ("tag", 0.6)),
    "pull": (("get", 0.6), ("fetch", 0.6), ("pull", 0.5)),
    "leave": (("add", 0.7), ("post", 0.5)),
    "comment": (("comment", 1.0), ("add", 0.6)),
    "drop": (("delete", 0.8), ("remove", 0.6)),
    "check": (("get", 0.5), ("status", 0.6), ("check", 1.0)),
    "close": (("close", 1.0), ("update", 0.6), ("closed", 0.6)),
    "start": (("create", 0.6), ("start", 1.0), ("run", 0.5)),
    "plan": (("create", 0.7), ("schedule", 0.6), ("plan", 0.5)),
    "put": (("add", 0.6), ("set", 0.4), ("upload", 0.4)),
    "make": (("create", 0.9), ("new", 0.3)),
    "ask": (("request", 0.9), ("ask", 0.5)),
    "note": (("add", 0.5), ("comment", 0.6), ("note", 1.0)),
    "ship": (("release", 0.6), ("deploy", 0.6)),
    "run": (("run", 1.0), ("execute", 0.6), ("trigger", 0.4)),
    "set": (("set", 1.0), ("update", 0.6)),
    "bring": (("update", 0.4), ("get", 0.3)),
    "add": (("add", 1.0), ("create", 0.6), ("insert", 0.5), ("invite", 0.5)),
    "send": (("send", 1.0), ("post", 0.8)),
    "share": (("share", 1.0), ("upload", 0.6), ("post", 0.5)),
}
_PREAMBLE: Final[frozenset[str]] = frozenset(
    _words(
        "please pls can could would will you i we want wanna need to like let lets me us go ahead "
        "and just quickly now then ok okay hey hi kindly help"
    )
)

# Regular expressions that recognise concepts in the raw query. The matched text is
# removed and replaced by the concept terms (weighted).
_PATTERN_CONCEPTS: Final[tuple[tuple[re.Pattern[str], tuple[tuple[str, float], ...]], ...]] = (
    # Tracker keys such as ABC-123.
    (re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d+\b"), (("issue key", 0.7),)),
    # Chat channel mentions: #general.
    (re.compile(r"(?<![\w&])#[A-Za-z][\w-]*"), (("channel", 0.8),)),
    # People mentions: @alice.
    (re.compile(r"(?<![\w.])@[A-Za-z][\w.-]*"), (("user", 0.6),)),
    # URLs.
    (re.compile(r"\bhttps?://\S+"), (("link", 0.5), ("url", 0.5))),
    # E-mail addresses.
    (re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.]+\b"), (("email", 0.7),)),
    # Clock times: 9am, 10:30, 5 pm.
    (
        re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b\d{1,2}:\d{2}\b", re.IGNORECASE),
        (("schedule", 0.4), ("time", 0.4)),
    ),
    # File names with a common extension: setup.py, notes.md.
    (
        re.compile(
            r"\b[\w-]+\.(?:py|js|ts|tsx|jsx|go|rs|java|kt|rb|php|c|h|cpp|cs|md|txt|json|ya?ml"
            r"|toml|ini|cfg|conf|xml|html|css|sh|sql|csv|pdf|png|jpe?g|gif|svg|lock|log)\b",
            re.IGNORECASE,
        ),
        (("file", 0.7),),
    ),
    # Quantities with a unit of distance, weight or duration.
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:km|mi|miles?|kilometers?)\b", re.I), (("distance", 0.5),)),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:kg|kgs|lbs?|pounds?)\b", re.I), (("weight", 0.8),)),
)

# "three files", "10 tickets": a count above one of something asks for a bulk tool.
# Units of time and measure are not things to create in bulk.
_MANY_RE: Final = re.compile(
    r"\b(?:[2-9]|[1-9]\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"dozens?|several|multiple)\s+(?!(?:seconds|minutes|hours|days|weeks|months|years|"
    r"times|km|kms|miles|meters|steps|kg|lbs|pounds|calories|percent)\b)[a-z]+s\b",
    re.IGNORECASE,
)
_MANY_CONCEPT: Final[tuple[tuple[str, float], ...]] = (("multiple", 0.5), ("batch", 0.4))

# Database requests name the data ("rows", "records") or where it lives ("table",
# "db") rather than the statement that reaches it. Reading or changing data in a
# database is what a tool that runs SQL does, so such a request also asks for SQL of
# the matching kind. Table metadata ("columns", "indexes", "size") is not data.
_DB_DATA_WORDS: Final[frozenset[str]] = frozenset(
    _words("row rows record records entry entries value values")
)
_DB_PLACE_WORDS: Final[frozenset[str]] = frozenset(
    _words("table tables database databases db dbs sql postgres postgresql mysql sqlite")
)
_DB_DML_WORDS: Final[frozenset[str]] = frozenset(_words("insert inserts upsert"))
_DB_READ_CONCEPT: Final[tuple[tuple[str, float], ...]] = (
    ("sql select query", 0.5),
    ("sql query", 0.5),
)
_DB_WRITE_CONCEPT: Final[tuple[tuple[str, float], ...]] = (
    ("sql statement modify data", 0.4),
    ("sql statement", 0.5),
)

# Action classes. Tool names are overwhelmingly ``verb_object``; queries are either
# imperative ("delete the row") or questions ("which tables ..."). When the query's
# action agrees with the tool's verb the tool gets a bonus (see ``RankerConfig``).
_READ, _LIST, _SEARCH, _CREATE, _UPDATE, _DELETE, _RUN, _SEND = range(8)
_READ_CLASSES: Final[frozenset[int]] = frozenset({_READ, _LIST, _SEARCH})

_VERB_WORDS: Final[dict[str, int]] = {
    **dict.fromkeys(
        _words(
            "get show display view read fetch retrieve return describe inspect download export "
            "check see explain count calculate compute summarize summarise watch monitor analyze "
            "analyse preview peek print dump select"
        ),
        _READ,
    ),
    **dict.fromkeys(["list", "enumerate", "browse"], _LIST),
    **dict.fromkeys(
        ["search", "find", "lookup", "locate", "query", "grep", "seek", "discover", "filter"],
        _SEARCH,
    ),
    **dict.fromkeys(
        _words(
            "create add make new insert generate build write compose draft register record log "
            "fork clone schedule plan raise submit upload push commit open file book track import "
            "copy duplicate provision spawn init initialize setup comment"
        ),
        _CREATE,
    ),
    **dict.fromkeys(
        _words(
            "update edit modify change set rename move transition close reopen mark assign "
            "reassign merge rebase link approve resolve bump patch replace overwrite adjust tweak "
            "amend revise enable disable toggle lock unlock pin star label tag sync refresh"
        ),
        _UPDATE,
    ),
    **dict.fromkeys(
        _words(
            "delete remove drop erase destroy purge discard trash wipe archive unlink revoke "
            "cancel uninstall"
        ),
        _DELETE,
    ),
    **dict.fromkeys(
        _words(
            "run execute trigger rerun retry restart start stop launch dispatch invoke deploy redo "
            "rollback"
        ),
        _RUN,
    ),
    **dict.fromkeys(
        _words(
            "send post reply respond share notify invite tell announce broadcast react request ask "
            "forward remind ping message mention"
        ),
        _SEND,
    ),
}
# Looked up by stem, so that "Gets", "Lists", "Creates" in descriptions count too.
_VERB_CLASS: Final[dict[str, int]] = {stem(w): c for w, c in _VERB_WORDS.items()}
_QUESTION_WORDS: Final[frozenset[str]] = frozenset(
    _words(
        "what which who whom whose how when where why did do does is are was were has have any "
        "whats hows wheres"
    )
)
_READ_OBJECTS: Final[frozenset[str]] = frozenset({"me", "us"})
_PHRASAL_ACTIONS: Final[dict[tuple[str, str], int]] = {
    ("set", "up"): _CREATE,
    ("spin", "up"): _CREATE,
    ("sign", "up"): _CREATE,
    ("look", "up"): _SEARCH,
    ("look", "for"): _SEARCH,
    ("look", "at"): _READ,
    ("pull", "up"): _READ,
    ("kick", "off"): _RUN,
    ("throw", "away"): _DELETE,
    ("get", "rid"): _DELETE,
    ("clean", "up"): _DELETE,
    ("catch", "up"): _UPDATE,
}
_COLLECTIVE: Final[frozenset[str]] = frozenset({"all", "every", "each", "any"})


def _is_plural(word: str) -> bool:
    """A rough English plural test for lowercase nouns ("issues", not "status")."""
    return (
        len(word) > 3
        and word.isalpha()
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is"))
        and word not in _STOP_WORDS
    )


# Leading words that are also adjectives: "open issues" lists issues in a state,
# "open an issue" creates one.
_ADJECTIVAL_VERBS: Final[frozenset[str]] = frozenset({"open", "closed", "running", "failed"})


def _adjectival(lowered: Sequence[str], i: int) -> bool:
    """Whether ``lowered[i]`` modifies a following plural noun rather than being a verb."""
    return lowered[i] in _ADJECTIVAL_VERBS and i + 1 < len(lowered) and _is_plural(lowered[i + 1])


def _query_action(lowered: Sequence[str], lead: int) -> int | None:
    """The action class the query asks for, or None when it does not say.

    Reads are split into asking for one thing (``_READ``) and for a collection
    (``_LIST``: the query says "list", "all"/"every", or names a plural noun).
    """
    if lead >= len(lowered):
        return None
    first = lowered[lead]
    nxt = lowered[lead + 1] if lead + 1 < len(lowered) else ""
    cls: int | None
    if first in _QUESTION_WORDS or (first in ("tell", "give", "show") and nxt in _READ_OBJECTS):
        cls = _READ
    elif (first, nxt) in _PHRASAL_ACTIONS:
        cls = _PHRASAL_ACTIONS[(first, nxt)]
    elif _adjectival(lowered, lead):
        cls = _READ
    else:
        cls = _VERB_CLASS.get(stem(first))
    if cls == _READ:
        rest = lowered[lead + 1 :]
        if any(w in _COLLECTIVE or _is_plural(w) for w in rest):
            cls = _LIST
    return cls


def _tool_action(tool: str, server: str, description: str) -> int | None:
    """The action class of a tool.

    The description's leading verb is preferred (descriptions conventionally start
    with an imperative: "Run a read-only SQL query" for a tool named ``query``);
    otherwise the first verb of the name. A read whose name has a plural object
    ("get_activities") reads a collection.
    """
    server_words = set(split_identifier(server))
    name_words = [w for w in split_identifier(tool) if w not in server_words]
    cls: int | None = None
    desc_words = _RAW_WORD_RE.findall(description)
    if desc_words:
        cls = _VERB_CLASS.get(stem(desc_words[0].lower()))
    if cls is None:
        for w in name_words:
            cls = _VERB_CLASS.get(stem(w))
            if cls is not None:
                break
    if cls == _READ and any(_is_plural(w) for w in name_words):
        cls = _LIST
    return cls


_READ_ONLY_RE: Final = re.compile(r"\bread[- ]only\b", re.IGNORECASE)


def _tool_extra_actions(description: str) -> frozenset[int]:
    """Further actions a generic executor says it performs.

    A description that names the kinds of command it runs in capitals ("modifies
    data (INSERT, UPDATE, DELETE)") or calls itself read-only performs those actions
    too, whatever its leading verb ("Run", "Execute").
    """
    out: set[int] = set()
    for w in _RAW_WORD_RE.findall(description):
        if len(w) >= 3 and w.isupper() and w.isalpha():
            c = _VERB_CLASS.get(stem(w.lower()))
            if c is not None:
                out.add(c)
    if _READ_ONLY_RE.search(description):
        out.add(_READ)
    if _READ in out:
        out.add(_LIST)
    return frozenset(out)


def _analyse_phrase(text: str) -> tuple[str, ...]:
    """Terms of a vocabulary value. A single word is kept even if it is a stop word
    ("me" as in a tool called ``get_me``)."""
    terms = tokenize(text)
    if not terms and text.strip():
        terms = [stem(w) for w in text.lower().split()]
    return tuple(terms)


def _compile_abbreviations() -> dict[str, tuple[str, ...]]:
    return {k: _analyse_phrase(v) for k, v in _ABBREVIATIONS.items()}


def _compile_synonyms() -> tuple[
    dict[str, tuple[tuple[tuple[str, ...], float], ...]],
    dict[tuple[str, ...], tuple[tuple[tuple[str, ...], float], ...]],
]:
    """Split the synonym table into single-word entries (keyed by stem) and phrases
    (keyed by their lowercase raw words)."""
    single: dict[str, list[tuple[tuple[str, ...], float]]] = {}
    phrases: dict[tuple[str, ...], tuple[tuple[tuple[str, ...], float], ...]] = {}
    for key, alts in _SYNONYMS.items():
        compiled = [(_analyse_phrase(v), w) for v, w in alts]
        compiled = [(terms, w) for terms, w in compiled if terms]
        words = tuple(key.split())
        if len(words) > 1:
            phrases[words] = tuple(compiled)
            continue
        k = stem(key)
        single.setdefault(k, []).extend(compiled)
    return {k: tuple(v) for k, v in single.items()}, phrases


_ABBREV_TERMS: Final = _compile_abbreviations()
_SYN_SINGLE, _SYN_PHRASES = _compile_synonyms()
_MAX_PHRASE_LEN: Final = max(len(p) for p in _SYN_PHRASES)


@dataclass(frozen=True, slots=True)
class _Slot:
    """One unit of query meaning: alternatives of term sequences with weights.

    The slot contributes the best of its alternatives to a document's score.
    ``primary`` is the term sequence used to form query bigrams.
    """

    alts: tuple[tuple[tuple[str, ...], float], ...]
    weight: float
    primary: tuple[str, ...]
    proper: bool = False


def analyze_query(query: str) -> list[tuple[tuple[tuple[str, ...], float], ...]]:
    """The query's slots as ``[(alternative terms, weight), ...]`` lists (for debugging)."""
    return [tuple((t, w * s.weight) for t, w in s.alts) for s in _parse_query(query).slots]


@dataclass(frozen=True, slots=True)
class _ParsedQuery:
    slots: list[_Slot]
    action: int | None
    surface: frozenset[str]


def _dedupe_expansions(slots: list[_Slot]) -> list[_Slot]:
    """Keep expansions from re-counting a word the query already states.

    An expansion (an alternative weighted below 1) is dropped when its terms are the
    query's own words in another slot: in "main branch", "main" -> branch is redundant.
    """
    own: list[set[str]] = []
    for slot in slots:
        own.append({t for terms, w in slot.alts if w >= 1.0 for t in terms})
    out: list[_Slot] = []
    for i, slot in enumerate(slots):
        others: set[str] = set()
        for j, terms_j in enumerate(own):
            if j != i:
                others |= terms_j
        kept = tuple((terms, w) for terms, w in slot.alts if w >= 1.0 or not set(terms) <= others)
        if kept or slot.primary:
            out.append(_Slot(kept, slot.weight, slot.primary, slot.proper))
    return out


_MAX_QUERY_CHARS: Final = 1000
"""Longer queries are cut: a search query is a sentence or two, and the cut bounds
the work one call can cause."""


def _parse_query(query: str) -> _ParsedQuery:
    slots: list[_Slot] = []
    query = query[:_MAX_QUERY_CHARS]
    text = query
    for pattern, concept in _PATTERN_CONCEPTS:
        if pattern.search(text) is None:
            continue
        n = len(pattern.findall(text))
        text = pattern.sub(" ", text)
        alts = _phrase_alts(concept)
        for _ in range(min(n, 2)):
            slots.append(_Slot(alts=alts, weight=1.0, primary=()))
    if _MANY_RE.search(text) is not None:
        slots.append(_Slot(alts=_phrase_alts(_MANY_CONCEPT), weight=1.0, primary=()))

    raw_words = _RAW_WORD_RE.findall(text)
    lowered = [w.split("'", 1)[0].lower() for w in raw_words]
    lead = 0
    while lead < len(lowered) and lowered[lead] in _PREAMBLE:
        lead += 1
    action = _query_action(lowered, lead)
    if query.rstrip().endswith("?") and action is None:
        action = _READ
    db_concept = _database_concept(lowered, action)
    weak: frozenset[str] = frozenset()
    if db_concept is not None:
        slots.append(_Slot(alts=_phrase_alts(db_concept), weight=1.0, primary=()))
        if _DB_DATA_WORDS.intersection(lowered):
            # "the rows of the orders table": the table is where the data is, not
            # what the request is about; the SQL concept stands for both words.
            weak = _DB_DATA_WORDS | _DB_PLACE_WORDS
    i = 0
    n_words = len(raw_words)
    while i < n_words:
        # Longest multi-word phrase first (phrasal verbs such as "set up" included),
        # then the verb sense of an ambiguous leading word.
        matched = False
        for length in range(min(_MAX_PHRASE_LEN, n_words - i), 1, -1):
            key = tuple(lowered[i : i + length])
            phrase_alts = _SYN_PHRASES.get(key)
            if phrase_alts is not None:
                # The phrase's own words count, weakly: in an idiom they mean little
                # alone ("kick off", "job title"); entries that are noun compounds list
                # themselves at full weight ("body fat").
                own = tuple(tokenize(" ".join(key)))
                all_alts = _dedupe(((own, 0.5), *phrase_alts)) if own else phrase_alts
                slots.append(_Slot(alts=all_alts, weight=1.0, primary=phrase_alts[0][0]))
                i += length
                matched = True
                break
        if matched:
            continue
        if i == lead and lowered[i] in _LEADING_VERBS and not _adjectival(lowered, i):
            verb_alts = _phrase_alts(_LEADING_VERBS[lowered[i]])
            slots.append(_Slot(alts=verb_alts, weight=1.0, primary=(stem(lowered[i]),)))
            i += 1
            continue
        raw = raw_words[i]
        i += 1
        low = lowered[i - 1]
        abbrev = _ABBREV_TERMS.get(low)
        if abbrev is not None:
            own_stem = stem(low)
            alts2: list[tuple[tuple[str, ...], float]] = [(abbrev, 1.0), ((own_stem,), 1.0)]
            for t in abbrev:
                alts2.extend(_SYN_SINGLE.get(t, ()))
            slots.append(_Slot(alts=_dedupe(alts2), weight=1.0, primary=abbrev))
            continue
        parts, joint = _word_parts(raw)
        content = [p for p in parts if p not in _STOP_WORDS and not p.isdigit()]
        # A capitalised word inside the query ("add Bob", "Maria's title") may be a
        # name; if the index does not know it, it stands for a person (see _resolve).
        proper = (
            i - 1 > lead
            and len(content) == 1
            and raw[:1].isupper()
            and raw[1:2].islower()
            and raw.split("'", 1)[0][1:].islower()
        )
        for p in content:
            s = stem(p)
            alts3: list[tuple[tuple[str, ...], float]] = [((s,), 1.0)]
            alts3.extend(_SYN_SINGLE.get(s, ()))
            sw = 0.5 if p in weak else 1.0
            slots.append(_Slot(alts=_dedupe(alts3), weight=sw, primary=(s,), proper=proper))
        if joint is not None and not joint.isdigit():
            w = 0.6 if content else 1.0
            slots.append(_Slot(alts=(((joint,), 1.0),), weight=w, primary=()))
        elif not content and low in _STOP_WORDS and stem(low) in _SYN_SINGLE:
            # Stop words with a meaning of their own ("who", "give") are weak slots,
            # except before "me"/"us" ("tell me ...", "give us ..." just ask to read).
            nxt = lowered[i] if i < n_words else ""
            if nxt not in _READ_OBJECTS:
                slots.append(_Slot(alts=_SYN_SINGLE[stem(low)], weight=0.5, primary=()))
    surface = frozenset(
        p.lower()
        for raw in raw_words
        for p in _CAMEL_RE.findall(raw.split("'", 1)[0])
        if p.isalpha() and p.lower() not in _STOP_WORDS
    )
    return _ParsedQuery(_dedupe_expansions(slots), action, surface)


def _database_concept(
    lowered: Sequence[str], action: int | None
) -> tuple[tuple[str, float], ...] | None:
    """The SQL concept of a request for data in a database (see ``_DB_DATA_WORDS``)."""
    words = set(lowered)
    dml = bool(words & _DB_DML_WORDS)
    place = bool(words & _DB_PLACE_WORDS)
    data = bool(words & _DB_DATA_WORDS)
    if "row" in words or "rows" in words:
        place = True  # rows live in a table
    writes = action in (_CREATE, _UPDATE, _DELETE)
    if action == _RUN and ("select" in words or "selects" in words):
        return _DB_READ_CONCEPT  # "run a SELECT"
    if not (dml or (place and (data or writes))):
        return None
    if writes or dml:
        return _DB_WRITE_CONCEPT
    return _DB_READ_CONCEPT


_PERSON_ALTS: Final[tuple[tuple[tuple[str, ...], float], ...]] = (
    (("user",), 0.4),
    (("member",), 0.3),
)


def _phrase_alts(
    alts: tuple[tuple[str, float], ...],
) -> tuple[tuple[tuple[str, ...], float], ...]:
    return tuple((_analyse_phrase(t), w) for t, w in alts)


def _dedupe(
    alts: Iterable[tuple[tuple[str, ...], float]],
) -> tuple[tuple[tuple[str, ...], float], ...]:
    best: dict[tuple[str, ...], float] = {}
    for terms, w in alts:
        if terms and w > best.get(terms, 0.0):
            best[terms] = w
    return tuple(best.items())


# --------------------------------------------------------------------------------------
# Index

_FIELD_NAME: Final = 0
_FIELD_DESC: Final = 1
_FIELD_PARAMS: Final = 2
_FIELD_SERVER: Final = 3
_N_FIELDS: Final = 4


@dataclass(frozen=True, slots=True)
class RankerConfig:
    """Ranking knobs. The defaults are the tuned values; tests pin them."""

    k1: float = 1.2
    field_weights: tuple[float, float, float, float] = (3.0, 1.0, 0.4, 1.5)
    field_b: tuple[float, float, float, float] = (0.3, 0.6, 0.5, 0.0)
    bigram_weight: float = 0.6
    coverage_weight: float = 1.0
    rescore_candidates: int = 50
    full_scan_postings: int = 512
    action_match: float = 1.5
    action_family: float = 0.75
    surface_weight: float = 0.5
    prefix_weight: float = 0.5
    compound_weight: float = 0.6


def _schema_text(schema: Mapping[str, Any] | None, depth: int = 0) -> tuple[list[str], list[str]]:
    """Parameter names and parameter descriptions/enum values of a JSON schema."""
    names: list[str] = []
    texts: list[str] = []
    if not isinstance(schema, Mapping) or depth > 3:
        return names, texts
    props = schema.get("properties")
    if isinstance(props, Mapping):
        for pname, pschema in props.items():
            names.append(str(pname))
            if isinstance(pschema, Mapping):
                desc = pschema.get("description")
                if isinstance(desc, str):
                    texts.append(desc)
                enum = pschema.get("enum")
                if isinstance(enum, list):
                    texts.extend(str(e) for e in enum if isinstance(e, str | int | float))
                sub_names, sub_texts = _schema_text(pschema, depth + 1)
                names.extend(sub_names)
                texts.extend(sub_texts)
    items = schema.get("items")
    if isinstance(items, Mapping):
        sub_names, sub_texts = _schema_text(items, depth + 1)
        names.extend(sub_names)
        texts.extend(sub_texts)
    return names, texts


def _as_entry(e: EntryLike) -> ToolEntry:
    if isinstance(e, ToolEntry):
        return e
    seq = list(e)
    server = str(seq[0])
    tool = str(seq[1])
    desc = str(seq[2]) if len(seq) > 2 and seq[2] is not None else ""
    schema = seq[3] if len(seq) > 3 and isinstance(seq[3], Mapping) else None
    return ToolEntry(server, tool, desc, schema)


def _bigrams(tokens: Sequence[str]) -> list[str]:
    return [f"{a} {b}" for a, b in itertools.pairwise(tokens) if a != b]


def _content_seq(text: str) -> list[str]:
    """Stemmed content tokens without joint forms, for bigrams."""
    out: list[str] = []
    for raw in _RAW_WORD_RE.findall(text):
        parts, _joint = _word_parts(raw)
        for p in parts:
            if p not in _STOP_WORDS and not p.isdigit():
                out.append(stem(p))
    return out


class ToolIndex:
    """An immutable search index over a tool catalog. Build with :meth:`build`."""

    __slots__ = (
        "_actions",
        "_bigram_postings",
        "_config",
        "_entries",
        "_extra_actions",
        "_name_surface",
        "_name_terms",
        "_postings",
        "_vocab",
        "_vocab_set",
    )

    def __init__(
        self,
        entries: list[ToolEntry],
        postings: dict[str, dict[int, float]],
        bigram_postings: dict[str, dict[int, float]],
        name_terms: list[frozenset[str]],
        name_surface: list[frozenset[str]],
        actions: list[int | None],
        extra_actions: list[frozenset[int]],
        config: RankerConfig,
    ) -> None:
        self._entries = entries
        self._actions = actions
        self._extra_actions = extra_actions
        self._postings = postings
        self._bigram_postings = bigram_postings
        self._name_terms = name_terms
        self._name_surface = name_surface
        self._config = config
        self._vocab = sorted(postings)
        self._vocab_set = frozenset(postings)

    # -- construction -------------------------------------------------------------------

    @classmethod
    def build(cls, entries: Iterable[EntryLike], config: RankerConfig | None = None) -> ToolIndex:
        """Index ``entries`` (``ToolEntry`` or ``(server, tool, description, schema)``).

        A later entry with the same (server, tool) replaces an earlier one.
        """
        cfg = config or RankerConfig()
        by_key: dict[tuple[str, str], ToolEntry] = {}
        for raw in entries:
            e = _as_entry(raw)
            by_key[(e.server, e.tool)] = e
        docs = sorted(by_key.values(), key=lambda e: (e.server, e.tool))
        n_docs = len(docs)

        # Per document, per field: term -> tf; plus bigram tf.
        field_tfs: list[list[dict[str, float]]] = []
        field_lens: list[list[float]] = []
        bigram_tfs: list[dict[str, float]] = []
        name_terms: list[frozenset[str]] = []
        name_surface: list[frozenset[str]] = []
        for e in docs:
            server_words = split_identifier(e.server)
            name_words = [w for w in split_identifier(e.tool) if not w.isdigit()]
            param_names, param_texts = _schema_text(e.input_schema)
            name_tokens = [stem(w) for w in name_words if len(w) > 1]
            name_tokens += [stem(w) for w in _joints(e.tool)]
            fields: list[list[str]] = [
                name_tokens,
                tokenize(e.description),
                [t for p in param_names for t in tokenize(p)] + tokenize(" ".join(param_texts)),
                [stem(w) for w in server_words],
            ]
            tfs: list[dict[str, float]] = []
            lens: list[float] = []
            for toks in fields:
                tf: dict[str, float] = {}
                for t in toks:
                    tf[t] = tf.get(t, 0.0) + 1.0
                tfs.append(tf)
                lens.append(float(len(toks)))
            field_tfs.append(tfs)
            field_lens.append(lens)
            content_name = [stem(w) for w in name_words if w not in _STOP_WORDS and len(w) > 1]
            bg: dict[str, float] = {}
            for b in _bigrams(content_name):
                bg[b] = bg.get(b, 0.0) + 2.0
            for b in _bigrams(_content_seq(e.description)):
                bg[b] = bg.get(b, 0.0) + 1.0
            bigram_tfs.append(bg)
            own_server = {stem(w) for w in server_words}
            name_terms.append(
                frozenset(
                    t for t in content_name if t not in _GENERIC_NAME_TERMS and t not in own_server
                )
            )
            name_surface.append(
                frozenset(
                    w
                    for w in name_words
                    if w.isalpha()
                    and w not in _STOP_WORDS
                    and w not in server_words
                    and stem(w) not in _GENERIC_NAME_TERMS
                )
            )

        # Compound splitting: a long token made of two vocabulary words also counts
        # (at half weight) as those words: "worklog" -> "work" + "log".
        vocab: set[str] = set()
        for tfs in field_tfs:
            for tf in tfs:
                vocab.update(tf)
        for tfs in field_tfs:
            for f in (_FIELD_NAME, _FIELD_DESC):
                tf = tfs[f]
                for t in list(tf):
                    parts = _split_compound(t, vocab)
                    if parts is not None:
                        for p in parts:
                            tf[p] = tf.get(p, 0.0) + 0.5 * tf[t]

        # BM25F.
        avg = [
            max(1e-9, sum(lens[f] for lens in field_lens) / max(1, n_docs))
            for f in range(_N_FIELDS)
        ]
        pseudo: dict[str, dict[int, float]] = {}
        for d, (tfs, lens) in enumerate(zip(field_tfs, field_lens, strict=True)):
            for f in range(_N_FIELDS):
                wf = cfg.field_weights[f]
                if wf == 0.0:
                    continue
                norm = 1.0 - cfg.field_b[f] + cfg.field_b[f] * lens[f] / avg[f]
                for t, count in tfs[f].items():
                    acc = pseudo.setdefault(t, {})
                    acc[d] = acc.get(d, 0.0) + wf * count / norm
        postings = {t: _impacts(per_doc, n_docs, cfg.k1) for t, per_doc in pseudo.items()}

        bg_pseudo: dict[str, dict[int, float]] = {}
        for d, bg in enumerate(bigram_tfs):
            for b, count in bg.items():
                bg_pseudo.setdefault(b, {})[d] = count
        bigram_postings = {b: _impacts(per_doc, n_docs, cfg.k1) for b, per_doc in bg_pseudo.items()}
        actions = [_tool_action(e.tool, e.server, e.description) for e in docs]
        extra = [_tool_extra_actions(e.description) for e in docs]
        return cls(docs, postings, bigram_postings, name_terms, name_surface, actions, extra, cfg)

    # -- introspection --------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def entries(self) -> tuple[ToolEntry, ...]:
        """The indexed tools, sorted by (server, tool)."""
        return tuple(self._entries)

    # -- search ---------------------------------------------------------------------------

    def search(self, query: str, k: int = 5, min_score: float = 0.0) -> list[Hit]:
        """The best ``k`` tools for ``query``, best first.

        Returns ``[]`` when no query term (nor any of its expansions) matches any
        tool, or when nothing scores above ``min_score``. Ties are broken by server
        then tool name, so results are deterministic.
        """
        if k <= 0 or not self._entries:
            return []
        parsed = _parse_query(query)
        if not parsed.slots:
            return []
        cfg = self._config
        postings = self._postings

        # Resolve slots against the vocabulary; note which terms the query matched
        # (for name coverage) and the query's primary term sequence (for bigrams).
        plans: list[tuple[tuple[tuple[str, ...], float], ...]] = []
        matched_terms: dict[str, float] = {}
        primary_seq: list[str] = []
        internal_bigrams: list[tuple[str, float]] = []
        content_matched = False
        for slot in parsed.slots:
            alts = self._resolve(slot)
            if slot.primary:
                primary_seq.extend(slot.primary)
            elif primary_seq and primary_seq[-1]:
                primary_seq.append("")  # concept slots break bigram chains
            if not alts:
                continue
            if slot.weight >= 0.5:
                content_matched = True
            sw = slot.weight
            weighted = tuple((terms, sw * w) for terms, w in alts)
            for terms, f in weighted:
                for t in terms:
                    if f > matched_terms.get(t, 0.0):
                        matched_terms[t] = f
                if len(terms) > 1:
                    internal_bigrams.extend((bg, f) for bg in _bigrams(terms))
            plans.append(weighted)
        if not content_matched:
            return []

        # Candidates: documents containing at least one selective term. Terms with
        # long postings (generic verbs on a big catalog) only score those candidates;
        # scoring of the candidates themselves is exact. When every term is generic,
        # the documents of the rarest one are the candidates.
        cutoff = max(cfg.full_scan_postings, len(self._entries) // 16)
        selective = {t for t in matched_terms if len(postings[t]) <= cutoff}
        cands: set[int] | None
        if len(selective) == len(matched_terms):
            cands = None
        else:
            cands = set()
            for t in selective:
                cands.update(postings[t])
            if not cands:
                rarest = min(matched_terms, key=lambda t: (len(postings[t]), t))
                selective = {rarest}
                cands.update(postings[rarest])
        acc: dict[int, float] = {}
        for weighted in plans:
            self._add_slot(acc, weighted, cands, selective)
        if not acc:
            return []

        # Adjacent-term bonus (only for documents that are already candidates).
        bgw = cfg.bigram_weight
        if bgw > 0.0:
            seen: set[str] = set()
            pairs = [(bg, 1.0) for bg in _bigrams(primary_seq) if not bg.startswith(" ")]
            pairs = [(bg, f) for bg, f in pairs if not bg.endswith(" ")]
            for bg, f in (*pairs, *internal_bigrams):
                if bg in seen:
                    continue
                seen.add(bg)
                pl = self._bigram_postings.get(bg)
                if pl is None:
                    continue
                g = bgw * f
                if len(pl) <= len(acc):
                    for d, v in pl.items():
                        if d in acc:
                            acc[d] += g * v
                else:
                    for d in acc:
                        bv = pl.get(d)
                        if bv is not None:
                            acc[d] += g * bv

        # Re-score the best candidates: name coverage and action agreement. Bonuses are
        # non-negative and only given to these, so the final top-k is among them.
        n_cands = max(cfg.rescore_candidates, k)
        if len(acc) > n_cands:
            threshold = sorted(acc.values(), reverse=True)[n_cands - 1]
            best_docs = [d for d, v in acc.items() if v >= threshold]
        else:
            best_docs = list(acc)
        cw = cfg.coverage_weight
        qa = parsed.action
        q_read = qa in _READ_CLASSES
        name_terms = self._name_terms
        name_surface = self._name_surface
        q_surface = parsed.surface
        sfw = cfg.surface_weight
        actions = self._actions
        extra_actions = self._extra_actions
        entries = self._entries
        scored: list[tuple[float, str, str]] = []
        for d in best_docs:
            score = acc[d]
            names = name_terms[d]
            if cw > 0.0 and names:
                cov = 0.0
                for t in names:
                    m = matched_terms.get(t)
                    if m is not None:
                        cov += m if m < 1.0 else 1.0
                score += cw * cov / len(names)
            surf = name_surface[d]
            if sfw > 0.0 and surf:
                same = len(surf & q_surface)
                if same:
                    score += sfw * same / len(surf)
            if qa is not None:
                ta = actions[d]
                if ta is not None:
                    if ta == qa or qa in extra_actions[d]:
                        score += cfg.action_match
                    elif (ta in _READ_CLASSES) == q_read:
                        score += cfg.action_family
            score = round(score, 9)  # reported scores are what ties and min_score see
            if score > min_score:
                e = entries[d]
                scored.append((-score, e.server, e.tool))
        scored.sort()
        return [Hit(server, tool, -neg) for neg, server, tool in scored[:k]]

    def _add_slot(
        self,
        acc: dict[int, float],
        weighted: tuple[tuple[tuple[str, ...], float], ...],
        cands: set[int] | None,
        selective: set[str],
    ) -> None:
        """Add one slot (the best of its alternatives) to ``acc``. With ``cands``, only
        those documents are scored; the postings of ``selective`` terms are all in it."""
        postings = self._postings
        best: dict[int, float] = {}
        single = len(weighted) == 1
        for terms, f in weighted:
            if len(terms) == 1 and (cands is None or terms[0] in selective):
                part = postings[terms[0]]
            else:
                part = {}
                pget = part.get
                for t in terms:
                    pl = postings[t]
                    if cands is None or t in selective:
                        for d, v in pl.items():
                            part[d] = pget(d, 0.0) + v
                    elif len(pl) <= len(cands):
                        for d, v in pl.items():
                            if d in cands:
                                part[d] = pget(d, 0.0) + v
                    else:
                        plget = pl.get
                        for d in cands:
                            cv = plget(d)
                            if cv is not None:
                                part[d] = pget(d, 0.0) + cv
            if single:
                get = acc.get
                for d, v in part.items():
                    acc[d] = get(d, 0.0) + f * v
                return
            bget = best.get
            for d, v in part.items():
                v *= f
                if v > bget(d, 0.0):
                    best[d] = v
        get = acc.get
        for d, v in best.items():
            acc[d] = get(d, 0.0) + v

    def _resolve(self, slot: _Slot) -> tuple[tuple[tuple[str, ...], float], ...]:
        """Alternatives of ``slot`` restricted to indexed terms, with fallbacks for words
        the index does not know: a person for an unknown capitalised name, the verb
        behind a "re-" prefix ("reassign"), compound splits and prefix matches."""
        vocab = self._vocab_set
        out: list[tuple[tuple[str, ...], float]] = []
        for terms, w in slot.alts:
            known = tuple(t for t in terms if t in vocab)
            if known and len(known) == len(terms):
                out.append((known, w))
            elif known and len(terms) > 1:
                out.append((known, w * len(known) / len(terms)))
        if out or not slot.primary or len(slot.primary) != 1:
            return tuple(out)
        word = slot.primary[0]
        if slot.proper:
            return tuple((terms, w) for terms, w in _PERSON_ALTS if terms[0] in vocab)
        cfg = self._config
        if word.startswith("re") and len(word) >= 5:
            base = stem(word[2:])
            if base in vocab:
                out.append(((base,), cfg.prefix_weight + 0.2))
        if len(word) >= 4:
            parts = _split_compound(word, vocab)
            if parts is not None:
                out.append((parts, cfg.compound_weight))
            lo = bisect_left(self._vocab, word)
            hi = lo
            while hi < len(self._vocab) and hi - lo < 8 and self._vocab[hi].startswith(word):
                hi += 1
            for t in self._vocab[lo:hi]:
                out.append(((t,), cfg.prefix_weight))
        return tuple(out)


def _joints(identifier: str) -> list[str]:
    """Joined lowercase forms of mixed words in an identifier ("spo2", "vo2max")."""
    out: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", identifier):
        if chunk and len(_CAMEL_RE.findall(chunk)) > 1:
            out.append(chunk.lower())
    return out


def _split_compound(token: str, vocab: set[str] | frozenset[str]) -> tuple[str, str] | None:
    if len(token) < 6 or not token.isalpha():
        return None
    for i in range(3, len(token) - 2):
        a, b = token[:i], token[i:]
        if a in vocab and b in vocab and len(b) >= 3:
            return (a, b)
        sb = stem(b)
        if a in vocab and sb in vocab and len(sb) >= 3:
            return (a, sb)
    return None


def _impacts(per_doc: dict[int, float], n_docs: int, k1: float) -> dict[int, float]:
    """BM25 impact of one term in each document it occurs in (doc order)."""
    df = len(per_doc)
    idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
    return {d: idf * per_doc[d] * (k1 + 1.0) / (per_doc[d] + k1) for d in sorted(per_doc)}
