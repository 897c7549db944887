"""Which replica serves a call: balance in turn or by load, skip what is out of service, eject
after failures in a row (never the last in service) and take it back after `eject_for`, and
pin a session (bounded)."""

from __future__ import annotations

from typing import Any

from manifold.config import ReplicasConfig, UpstreamConfig
from manifold.resilience.replicas import Member, ReplicaSet
from manifold.upstream.supervisor import Upstream


class _Events:
    def on_list_changed(self, upstream: str, kind: str) -> None: ...
    def on_resource_updated(self, upstream: str, params: dict[str, Any]) -> None: ...
    def on_log(self, upstream: str, params: dict[str, Any]) -> None: ...
    def on_closed(self, upstream: str, why: str) -> None: ...


def replica_set(n: int = 3, **cfg: Any) -> ReplicaSet:
    members = [
        Member(
            i,
            f"svc#{i + 1}",
            Upstream(f"svc#{i + 1}", UpstreamConfig(command="x"), _Events(), lambda _n: None, {}),
        )
        for i in range(n)
    ]
    for m in members:
        m.up.state = "ready"
    return ReplicaSet("svc", members, ReplicasConfig(**cfg))


def test_round_robin_takes_each_in_turn_and_skips_one_that_is_down() -> None:
    rs = replica_set(balance="round_robin")
    assert sorted(rs.pick(0, set()).index for _ in range(3)) == [0, 1, 2]
    rs.members[1].up.state = "backoff"
    assert {rs.pick(0, set()).index for _ in range(6)} == {0, 2}


def test_least_in_flight_prefers_the_least_loaded() -> None:
    rs = replica_set()
    for m in rs.members[:2]:
        assert m.up.slots.try_acquire()
    assert {rs.pick(0, set()).index for _ in range(4)} == {2}


def test_failures_in_a_row_eject_until_eject_for_and_never_the_last() -> None:
    rs = replica_set(2, eject_after=2, eject_for=5.0)
    a, b = rs.members
    rs.outcome(a, False, 0.0)
    rs.outcome(a, True, 0.1)  # a success resets the count
    rs.outcome(a, False, 0.2)
    assert not a.ejected_until
    rs.outcome(a, False, 0.3)
    assert a.ejected_until == 5.3
    assert {rs.pick(1.0, set()).index for _ in range(4)} == {1}
    for t in (1.0, 1.1, 1.2):
        rs.outcome(b, False, t)
    assert not b.ejected_until  # the last in service stays
    assert rs.in_service(a, 5.3) and a.fails == 0  # back


def test_a_session_is_pinned_and_pins_are_bounded() -> None:
    rs = replica_set(sticky=True, max_pins=2)
    first = rs.pick(0, set(), "s1").index
    assert {rs.pick(0, set(), "s1").index for _ in range(5)} == {first}
    rs.members[first].up.state = "down"  # moves only when its replica is out of service
    moved = rs.pick(0, set(), "s1").index
    assert moved != first
    rs.pick(0, set(), "s2")
    rs.pick(0, set(), "s3")
    assert len(rs.pins) == 2 and "s1" not in rs.pins
