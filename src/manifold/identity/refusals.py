"""Log lines for requests the HTTP front refused for want of valid credentials, rate-limited.

Every refused request used to write its own WARNING line, so a flood of bad keys flooded the
log (and the disk). Now, within each interval (`auth.refusal_log_interval`, 60 s), the first
refusal of each kind (its status and OAuth error code, a fixed few: not the text, which a
client can vary) from each source address is logged as before; later ones are
only counted, and when the interval ends one summary line says how many were left out and from
where (the sources with most first). At most `auth.refusal_log_max_keys` (reason, source) pairs
are remembered per interval: past that, a refusal of a new pair is counted, not logged, so
memory stays bounded whatever the number of addresses. An interval of 0 logs every refusal.

Only refused requests reach this module; it is imported when inbound auth is configured.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter

__all__ = ["RefusalLog"]

TOP_SOURCES = 3  # sources named in a summary line


class RefusalLog:
    def __init__(self, logger: logging.Logger, interval: float, max_keys: int) -> None:
        self.log = logger
        self.interval = interval
        self.max_keys = max(1, max_keys)
        self._logged: set[tuple[str, str]] = set()  # (reason, source) pairs logged this interval
        self._left_out: Counter[str] = Counter()  # source -> refusals not logged this interval
        self._since = time.monotonic()
        self._timer: asyncio.TimerHandle | None = None

    def refused(self, reason: str, source: str, line: str, *args: object) -> None:
        """A refused request: log `line % args` unless one of the same `reason` from the same
        `source` was logged in this interval (then it is counted for the summary)."""
        if self.interval <= 0:
            self.log.warning(line, *args)
            return
        if self._timer is None:  # the first refusal since the last interval ended: a new one
            self._since = time.monotonic()
            self._timer = asyncio.get_running_loop().call_later(self.interval, self.flush)
        key = (reason, source)
        if key in self._logged:
            self._count(source)
            return
        if len(self._logged) >= self.max_keys:
            self._count(source)  # the table is full: counted, not remembered
            return
        self._logged.add(key)
        self.log.warning(line, *args)

    def _count(self, source: str) -> None:
        if source not in self._left_out and len(self._left_out) >= self.max_keys:
            source = "other addresses"  # bounded like the pairs
        self._left_out[source] += 1

    def flush(self) -> None:
        """End the interval: the summary line (when anything was left out), then forget."""
        self._timer = None
        now = time.monotonic()
        total = sum(self._left_out.values())
        if total:
            top = ", ".join(f"{n} from {src}" for src, n in self._left_out.most_common(TOP_SOURCES))
            others = len(self._left_out) - TOP_SOURCES
            more = f" and {others} other sources" if others > 0 else ""
            self.log.warning(
                "%d more refused requests in the last %.0f s, not logged one by one (%s%s)",
                total,
                now - self._since,
                top,
                more,
            )
        self._logged.clear()
        self._left_out.clear()

    def close(self) -> None:
        """Stop: the current interval's summary now, if anything was left out."""
        if self._timer is not None:
            self._timer.cancel()
            self.flush()
