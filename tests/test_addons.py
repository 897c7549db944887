"""The addon chain (`manifold.addons`): with the default config, argument validation and secret
redaction are on, in that order, and validation's check runs inside redaction's call step (one
step fewer on every call) while its catalog hook still records schemas; with another call hook
between them they stay two steps; each is off (absent) when its config says so."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest

from manifold.addons import _fuse_validation, build_addons
from manifold.catalog import Route
from manifold.config import GatewayConfig, StateConfig, UpstreamConfig, parse_config
from manifold.gateway import Gateway
from manifold.hooks import Hooks
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.security.redact import Redaction
from manifold.security.validate import ArgumentValidator
from tests.middleware.support import Sink


def _gateway(security: dict[str, Any] | None = None) -> Gateway:
    data: dict[str, Any] = {"state": {"path": ""}, "upstreams": {"up": {"command": "never"}}}
    if security is not None:
        data["security"] = security
    return Gateway(parse_config(data, env={}))


def test_defaults_put_validation_inside_redactions_step() -> None:
    gw = _gateway()
    chain = gw.hooks.addons
    red = next(a for a in chain if isinstance(a, Redaction))
    assert red.pre_call is not None
    validator = red.pre_call.__self__  # type: ignore[attr-defined]
    assert isinstance(validator, ArgumentValidator)
    assert not any(isinstance(a, ArgumentValidator) for a in chain)  # its call step is gone
    assert validator.catalog in gw.hooks.catalogs  # its catalog hook is not

    # Through the gateway's own pipeline: an invalid call is refused, the rest is redacted.
    gw.hooks.catalog("up", "tools", [{"name": "t", "inputSchema": {
        "type": "object", "properties": {"n": {"type": "integer"}}}}])  # fmt: skip
    sent: list[Any] = []

    async def upstream(ctx: CallContext) -> rpc.Incoming:
        sent.append(ctx.params["arguments"])
        return rpc.Incoming(result=msgspec.Raw(b'{"content":[]}'))

    pipeline = gw.hooks.call_chain(upstream)

    def call(args: Any) -> None:
        ctx = CallContext("tools/call", {"name": "t", "arguments": args}, Route("up", "t"),
                          "up__t", Sink(), None)  # fmt: skip
        asyncio.run(pipeline(ctx))

    with pytest.raises(rpc.RpcError) as err:
        call({"n": "AKIAQ7ZL4MBX2RTN6WPE"})
    assert err.value.code == rpc.INVALID_PARAMS and sent == []
    call({"n": 1, "note": "key AKIAQ7ZL4MBX2RTN6WPE"})
    assert sent == [{"n": 1, "note": "key [REDACTED:aws-access-key]"}]


def test_a_call_hook_between_them_keeps_two_steps() -> None:
    cfg = GatewayConfig(state=StateConfig(path=""), upstreams={"up": UpstreamConfig(command="x")})
    validator = ArgumentValidator(cfg.security.validation)
    red = Redaction(cfg.security.redaction)

    class Between:
        async def call(self, ctx: CallContext, call_next: Any) -> Any:
            return await call_next(ctx)

    chain: list[object] = [validator, Between(), red]
    assert _fuse_validation(chain) == chain and red.pre_call is None
    assert len(Hooks(chain).calls) == 3


@pytest.mark.parametrize(
    ("security", "wanted"),
    [
        ({"validation": {"enabled": False}}, {Redaction}),
        ({"redaction": {"enabled": False}}, {ArgumentValidator}),
        ({"validation": {"enabled": False}, "redaction": {"enabled": False}}, set()),
    ],
)
def test_each_is_absent_when_off(security: dict[str, Any], wanted: set[type]) -> None:
    gw = _gateway(security)
    kinds = {type(a) for a in build_addons(gw) if isinstance(a, ArgumentValidator | Redaction)}
    assert kinds == wanted
