"""`state.py`: the gateway's state comes from one place, behind Protocols; the embedded backend
is bounded and keeps its keys per purpose."""

from __future__ import annotations

from manifold.config import parse_config
from manifold.downstream.cursor import Cursors
from manifold.downstream.mrtr import ParkingLot
from manifold.economy.dedup import Dedup
from manifold.economy.results import ResultStore
from manifold.gateway import Gateway
from manifold.state import ProcessSecrets, open_state


def test_keys_are_per_purpose_and_follow_the_master() -> None:
    a, b = ProcessSecrets(b"m" * 32), ProcessSecrets(b"m" * 32)
    assert a.key("cursor") == b.key("cursor")  # two processes with one master agree
    assert a.key("cursor") != a.key("mrtr")
    assert ProcessSecrets().key("cursor") != a.key("cursor")
    # A cursor made by one gateway process reads in another that shares the master key.
    assert Cursors(b.key("cursor")).read("tools", Cursors(a.key("cursor")).make("tools", 7)) == 7


def test_the_embedded_backend_and_its_bounds() -> None:
    cfg = parse_config(
        {
            "state": {"path": ""},
            "mrtr": {"ttl": 5, "max_parked": 3},
            "response": {"max_tokens": 500},
        },
        env={},
    )
    st = open_state(cfg)
    assert isinstance(st.results, ResultStore) and st.results.page_chars == 2000
    assert isinstance(st.dedup, Dedup)
    assert isinstance(st.parking, ParkingLot)
    assert (st.parking.ttl, st.parking.max_parked) == (5, 3)
    assert st.counters is None  # state.path "" keeps counters in memory


def test_the_gateway_takes_its_state_from_the_backend() -> None:
    gw = Gateway(parse_config({"state": {"path": ""}}, env={}))
    assert gw.parking is gw.state.parking
    assert gw.results is gw.state.results
