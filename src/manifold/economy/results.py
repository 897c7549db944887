"""Full results kept for `read_result` paging, by id, for a while.

The governor stores a result that was cut to the token budget here and tells the model the id;
`read_result(id, page)` returns pages whose texts, joined, are byte-identical to the stored
text. Kept in memory, bounded in count and age. The id is random (96 bits), so no caller can
reach another's result by guessing it; and a result is bound to who made it (`owner`: the
principal and subject, and for a session-private result the session too), so an id that leaks
to someone else (a log, a shared transcript) reads nothing: they get the answer of an unknown id.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass


def owner_of(principal: str, subject: str) -> str:
    """Who a stored result belongs to: the principal (tenant) and who within it."""
    return f"{principal}\x00{subject}"


@dataclass(frozen=True, slots=True)
class Page:
    id: str
    page: int  # 1-based
    pages: int
    text: str


class ResultStore:
    def __init__(
        self,
        page_chars: int,
        ttl: float = 3600.0,
        max_items: int = 256,
        max_chars: int = 64 * 1024 * 1024,
    ) -> None:
        self.page_chars = max(page_chars, 1)
        self.ttl = ttl
        self.max_items = max_items
        self.max_chars = max_chars  # bounds memory, not just the count
        self._chars = 0
        # id -> (expiry, text, end offset of each page (empty: pages of `page_chars`), owner,
        # session ("": any session of the owner))
        self._items: OrderedDict[str, tuple[float, str, tuple[int, ...], str, str]] = OrderedDict()

    def put(self, text: str, bounds: Sequence[int] = (), owner: str = "", session: str = "") -> str:
        """Keep `text`; `bounds` (ascending end offsets, the last one `len(text)`) sets the
        pages, which the governor sizes by their encoded length. Only `owner` (and, when
        `session` is given, only in that session) reads it back."""
        rid = "r" + secrets.token_urlsafe(12)  # 17 characters (the governor budgets for 20)
        self._items[rid] = (time.monotonic() + self.ttl, text, tuple(bounds), owner, session)
        self._chars += len(text)
        # Oldest first out, by count and by size (the newest always stays).
        while len(self._items) > 1 and (
            len(self._items) > self.max_items or self._chars > self.max_chars
        ):
            _, (_, old, *_) = self._items.popitem(last=False)
            self._chars -= len(old)
        return rid

    def pages(self, text: str) -> int:
        return max(1, -(-len(text) // self.page_chars))

    def page(self, rid: str, page: int, owner: str = "", session: str = "") -> Page | None:
        """Page `page` of result `rid`; None when it is unknown, expired or not the caller's
        (the same answer: an id says nothing to whoever does not own it)."""
        item = self._items.get(rid)
        if item is None or item[0] < time.monotonic():
            gone = self._items.pop(rid, None)
            if gone is not None:
                self._chars -= len(gone[1])
            return None
        _, text, bounds, who, where = item
        if who != owner or (where and where != session):
            return None
        n = len(bounds) if bounds else self.pages(text)
        if page < 1 or page > n:
            return Page(rid, page, n, "")
        if bounds:
            return Page(rid, page, n, text[bounds[page - 2] if page > 1 else 0 : bounds[page - 1]])
        start = (page - 1) * self.page_chars
        return Page(rid, page, n, text[start : start + self.page_chars])
