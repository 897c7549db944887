from manifold.catalog import Route
from manifold.pipeline import CallContext, CallNext, compose
from manifold.protocol.jsonrpc import Incoming


class _Sink:
    log_level = None

    def progress(self, params: dict) -> None: ...

    def log(self, params: dict) -> None: ...

    async def server_request(self, method: str, params: dict, key: str | None = None) -> dict:
        return {}


def _ctx() -> CallContext:
    return CallContext("tools/call", {"name": "t"}, Route("u", "t"), "u__t", _Sink(), None)


async def test_order_is_request_forward_response_reverse() -> None:
    seen: list[str] = []

    def mw(tag: str):  # type: ignore[no-untyped-def]
        async def step(ctx: CallContext, call_next: CallNext) -> Incoming:
            seen.append(f"{tag}>")
            res = await call_next(ctx)
            seen.append(f"<{tag}")
            return res

        return step

    async def terminal(ctx: CallContext) -> Incoming:
        seen.append(f"terminal:{ctx.params['name']}")
        return Incoming(id=1)

    async def rename(ctx: CallContext, call_next: CallNext) -> Incoming:
        ctx.params = {**ctx.params, "name": "renamed"}
        return await call_next(ctx)

    handler = compose([mw("a"), rename, mw("b")], terminal)
    await handler(_ctx())
    assert seen == ["a>", "b>", "terminal:renamed", "<b", "<a"]


async def test_empty_chain_is_the_terminal() -> None:
    async def terminal(ctx: CallContext) -> Incoming:
        return Incoming(id=1)

    assert compose([], terminal) is terminal


async def test_short_circuit() -> None:
    async def deny(ctx: CallContext, call_next: CallNext) -> Incoming:
        return Incoming(id="denied")

    async def terminal(ctx: CallContext) -> Incoming:
        raise AssertionError("must not be reached")

    assert (await compose([deny], terminal)(_ctx())).id == "denied"
