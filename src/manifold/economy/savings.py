"""Savings counters: what each mechanism of the token economy saved, in estimated tokens.

`record(mechanism, before, after)` is called on the hot path and only adds to counters in
memory; persistence and the `report` command live beside this interface.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Counter:
    events: int = 0
    before: int = 0  # tokens the model would have read without the mechanism
    after: int = 0  # tokens it read with it

    @property
    def saved(self) -> int:
        return self.before - self.after


@dataclass
class Savings:
    counters: dict[str, Counter] = field(default_factory=dict)

    def record(self, mechanism: str, before: int, after: int) -> None:
        c = self.counters.get(mechanism)
        if c is None:
            c = self.counters[mechanism] = Counter()
        c.events += 1
        c.before += before
        c.after += after
