"""The cache's parts: the byte-bounded LRU, what may be kept and for how long, the key (the
principal and the arguments in canonical form), and coalescing in the addon itself with a
pipeline stage that counts what reaches it."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest

from manifold.catalog import Catalog, Route
from manifold.config import GatewayConfig, parse_config
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.resilience.cache import Cache, LruBytes, _keepable, _key
from manifold.resilience.policy import Policy


def test_the_lru_is_bounded_in_bytes_and_evicts_the_least_recently_used() -> None:
    lru = LruBytes(3 * (100 + 256))
    for k in (b"a", b"b", b"c"):
        lru.put(k, b"x" * 100, 100.0)
    assert lru.get(b"a", 0.0) is not None  # a is now the most recent
    lru.put(b"d", b"x" * 100, 100.0)
    assert lru.get(b"b", 0.0) is None and lru.get(b"a", 0.0) is not None
    assert lru.bytes <= lru.max_bytes and lru.evictions == 1
    lru.put(b"huge", b"x" * 10_000, 100.0)  # larger than the whole cache: not kept
    assert lru.get(b"huge", 0.0) is None and len(lru) == 3
    assert lru.get(b"a", 100.0) is None  # expired
    assert len(lru) == 2


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        (b'{"content":[]}', (60.0, False)),
        (b'{"content":[],"isError":true}', None),
        (b'{"content":[],"isError":false}', (60.0, False)),
        (b'{"content": [], "isError" : true}', None),
        (b'{"content":[{"type":"text","text":"{\\"isError\\": true}"}]}', (60.0, False)),
        (b'{"structuredContent":{"isError":true},"content":[]}', (60.0, False)),  # data
        (b'{"content":[],"resultType" : "input_required"}', None),
        (b'{"content":[],"isError":false,"resultType":"complete"}', (60.0, False)),
        (b'{"content":[],"isError" :\n true}', None),
        (b'{"content":[],"isError":false,"x":{"isError":true},"isError":true}', None),
        (b'{"resultType":"input_required","inputRequests":{}}', None),
        (b'{"resultType":"complete","content":[]}', (60.0, False)),
        (b'{"contents":[],"ttlMs":5000,"cacheScope":"public"}', (5.0, False)),
        (b'{"contents":[],"ttlMs":5000,"cacheScope":"private"}', (5.0, True)),
        (b'{"contents":[],"ttlMs":0,"cacheScope":"public"}', None),
        (b"[]", None),
        (b"", None),
    ],
)
def test_what_may_be_kept(raw: bytes, kept: tuple[float, bool] | None) -> None:
    assert _keepable(raw, 60.0) == kept


def ctx(args: Any, principal: str = "", session: str = "", name: str = "t") -> CallContext:
    c = CallContext(
        "tools/call", {"name": name, "arguments": args}, Route("a", name), name, None, None
    )  # type: ignore[arg-type]
    c.principal = principal
    c.session_key = session
    return c


def test_the_key_is_canonical_and_names_the_principal() -> None:
    assert _key(ctx({"a": 1, "b": {"y": 2, "x": 1}})) == _key(ctx({"b": {"x": 1, "y": 2}, "a": 1}))
    assert _key(ctx({"a": 1})) != _key(ctx({"a": 2}))
    assert _key(ctx({"a": 1}, principal="alice")) != _key(ctx({"a": 1}, principal="bob"))
    assert _key(ctx({"a": 1}, name="t")) != _key(ctx({"a": 1}, name="u"))


class Host:
    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.catalog = Catalog(config)


def cache(**cache_cfg: Any) -> Cache:
    cfg = parse_config(
        {
            "upstreams": {"a": {"command": "x"}},
            "resilience": {"cache": {"enabled": True, **cache_cfg}},
        }
    )
    host = Host(cfg)
    tools = [
        {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
        {"name": "w", "inputSchema": {"type": "object"}},
    ]
    host.catalog.set_items("a", "tools", tools)
    return Cache(Policy(host), cfg.resilience.cache.max_bytes)


class Upstream:
    """The next pipeline stage: counts calls, answers after `gate` opens."""

    def __init__(self, raw: bytes = b'{"content":[]}') -> None:
        self.calls = 0
        self.cancelled = 0
        self.gate = asyncio.Event()
        self.raw = raw

    async def __call__(self, c: CallContext) -> rpc.Incoming:
        self.calls += 1
        try:
            await self.gate.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return rpc.Incoming(result=msgspec.Raw(self.raw))


async def test_identical_calls_in_flight_share_one_call_and_the_answer_is_kept() -> None:
    c, up = cache(), Upstream()
    tasks = [asyncio.ensure_future(c.call(ctx({"k": 1}), up)) for _ in range(50)]
    await asyncio.sleep(0.01)
    assert up.calls == 1 and c.coalesced == 49
    up.gate.set()
    results = await asyncio.gather(*tasks)
    assert {bytes(r.result) for r in results} == {b'{"content":[]}'}
    await c.call(ctx({"k": 1}), up)
    assert up.calls == 1 and c.hits == 1
    await c.call(ctx({"k": 1}, name="w"), up)  # not read-only: always sent
    await c.call(ctx({"k": 1}, name="w"), up)
    assert up.calls == 3


async def test_a_cancelled_first_call_lets_the_waiters_ask_themselves() -> None:
    c, up = cache(), Upstream()
    first = asyncio.ensure_future(c.call(ctx({"k": 1}), up))
    await asyncio.sleep(0.01)
    second = asyncio.ensure_future(c.call(ctx({"k": 1}), up))
    third = asyncio.ensure_future(c.call(ctx({"k": 1}), up))
    await asyncio.sleep(0.01)
    assert up.calls == 1
    first.cancel()  # its client went away: cancelled upstream
    await asyncio.sleep(0.01)
    assert up.cancelled == 1
    assert up.calls == 2  # one of the waiters asked again, the other waits for it
    up.gate.set()
    assert bytes((await second).result) == bytes((await third).result) == b'{"content":[]}'
    assert not c.flights
    # A waiter that leaves does not disturb the call it waited for.
    up2 = Upstream()
    lead = asyncio.ensure_future(c.call(ctx({"k": 2}), up2))
    await asyncio.sleep(0.01)
    waiter = asyncio.ensure_future(c.call(ctx({"k": 2}), up2))
    await asyncio.sleep(0.01)
    waiter.cancel()
    await asyncio.sleep(0.01)
    up2.gate.set()
    assert bytes((await lead).result) == b'{"content":[]}' and up2.cancelled == 0


async def test_a_private_answer_goes_to_its_own_session_only() -> None:
    c = cache()
    up = Upstream(b'{"content":[],"ttlMs":60000,"cacheScope":"private"}')
    up.gate.set()
    await c.call(ctx({"k": 1}, session="s1"), up)
    await c.call(ctx({"k": 1}, session="s1"), up)
    assert up.calls == 1
    await c.call(ctx({"k": 1}, session="s2"), up)
    assert up.calls == 2
    await c.call(ctx({"k": 1}), up)  # no session: never kept, never shared
    await c.call(ctx({"k": 1}), up)
    assert up.calls == 4
    # In flight: a waiter of another session makes its own call.
    up.gate.clear()
    a = asyncio.ensure_future(c.call(ctx({"k": 9}, session="s1"), up))
    b = asyncio.ensure_future(c.call(ctx({"k": 9}, session="s2"), up))
    await asyncio.sleep(0.01)
    up.gate.set()
    await asyncio.gather(a, b)
    assert up.calls == 6


async def test_errors_are_shared_with_waiters_but_never_kept() -> None:
    c = cache()
    calls = 0

    async def failing(_c: CallContext) -> rpc.Incoming:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        raise rpc.RpcError(-32603, "boom")

    results = await asyncio.gather(
        *(c.call(ctx({"k": 1}), failing) for _ in range(3)), return_exceptions=True
    )
    assert calls == 1 and all(isinstance(r, rpc.RpcError) for r in results)
    with pytest.raises(rpc.RpcError):
        await c.call(ctx({"k": 1}), failing)
    assert calls == 2


async def test_an_answer_larger_than_max_entry_bytes_is_relayed_not_kept() -> None:
    c = cache(max_entry_bytes=1024)
    up = Upstream(b'{"content":[{"type":"text","text":"' + b"x" * 2000 + b'"}]}')
    up.gate.set()
    await c.call(ctx({"k": 1}), up)
    await c.call(ctx({"k": 1}), up)
    assert up.calls == 2


async def test_an_input_round_is_not_shared_with_waiters() -> None:
    """A modern upstream asking for input answers one caller's round: a waiter asks itself."""
    c = cache()
    up = Upstream(b'{"resultType":"input_required","inputRequests":{},"requestState":"s"}')
    a = asyncio.ensure_future(c.call(ctx({"k": 1}, session="s1"), up))
    b = asyncio.ensure_future(c.call(ctx({"k": 1}, session="s1"), up))
    await asyncio.sleep(0.01)
    up.gate.set()
    await asyncio.gather(a, b)
    assert up.calls == 2 and len(c.store) == 0
