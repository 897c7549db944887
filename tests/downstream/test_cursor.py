"""The gateway's own list cursors (`downstream/cursor.py`): opaque, bound to their list kind
and to this gateway's key; anything edited or foreign is -32602 "invalid cursor"."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from manifold.downstream.cursor import Cursors
from manifold.protocol import jsonrpc as rpc


@given(st.sampled_from(["tools", "prompts", "resources"]), st.integers(0, 10**9))
def test_round_trip(kind: str, offset: int) -> None:
    c = Cursors(key=b"x" * 32)
    assert c.read(kind, c.make(kind, offset)) == offset


def _refused(c: Cursors, kind: str, cursor: object) -> None:
    with pytest.raises(rpc.RpcError) as e:
        c.read(kind, cursor)
    assert e.value.code == rpc.INVALID_PARAMS
    assert e.value.message == "invalid cursor"


def test_kind_and_key_are_bound() -> None:
    c = Cursors()
    cur = c.make("tools", 100)
    _refused(c, "prompts", cur)
    _refused(Cursors(), "tools", cur)


def test_edited_offset_is_refused() -> None:
    c = Cursors()
    raw = base64.urlsafe_b64decode(c.make("tools", 100) + "==")
    forged = raw.replace(b"tools:100", b"tools:900")
    _refused(c, "tools", base64.urlsafe_b64encode(forged).decode().rstrip("="))


@given(st.one_of(st.text(max_size=60), st.integers(), st.none(), st.lists(st.text(), max_size=2)))
def test_garbage_is_refused_never_crashes(cursor: object) -> None:
    _refused(Cursors(key=b"y" * 32), "tools", cursor)
