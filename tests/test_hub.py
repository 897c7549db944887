"""`hub.py`: resource subscriptions are reference-counted across clients, bounded per session,
and end with the session that held them (the upstream hears one subscribe and one unsubscribe).

The upstream here is a small recording stand-in for the supervisor's `Upstream` (what the hub
calls on it), not an MCP server: the e2e test below runs the same path through the real process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from manifold.config import parse_config
from manifold.downstream.session import DownstreamSession
from manifold.hooks import Hooks
from manifold.hub import ServerFace, SubscriptionHub
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import Era
from tests import support
from tests.support import MANIFOLD, stdio_upstream, write_config


class _Session:
    era = Era.LEGACY


class _Upstream:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []
        self.session = None

    async def ensure(self) -> _Session:
        return _Session()

    async def request(self, method: str, params: dict[str, Any]) -> None:
        self.sent.append((method, params["uri"]))


class _Routes:
    def route_resource(self, uri: str) -> str | None:
        return "up" if uri.startswith("up://") else None


def _hub(up: _Upstream, cap: int = 1000) -> SubscriptionHub:
    cfg = parse_config({}, env={})
    face = ServerFace(cfg, {}, "0")
    return SubscriptionHub(_Routes(), {"up": up}, Hooks(), face, cap)  # type: ignore[dict-item]


async def test_refcounted_across_sessions_and_released_when_they_end() -> None:
    up = _Upstream()
    hub = _hub(up)
    a, b = DownstreamSession(), DownstreamSession()
    await hub.subscribe(a, "up://x")
    await hub.subscribe(b, "up://x")
    await hub.subscribe(a, "up://y")
    assert up.sent == [("resources/subscribe", "up://x"), ("resources/subscribe", "up://y")]
    await hub.drop_session(a)
    assert up.sent[2:] == [("resources/unsubscribe", "up://y")]  # b still holds x
    await hub.drop_session(b)
    assert up.sent[3:] == [("resources/unsubscribe", "up://x")]
    assert not hub._subs


async def test_subscriptions_per_session_are_capped() -> None:
    hub = _hub(_Upstream(), cap=2)
    s = DownstreamSession()
    await hub.subscribe(s, "up://1")
    await hub.subscribe(s, "up://2")
    await hub.subscribe(s, "up://2")  # already held: not a new one
    with pytest.raises(rpc.RpcError, match="too many resource subscriptions"):
        await hub.subscribe(s, "up://3")
    await hub.unsubscribe(s, "up://1")
    await hub.subscribe(s, "up://3")
    with pytest.raises(rpc.RpcError, match="Resource not found"):
        await hub.subscribe(s, "elsewhere://1")


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_the_cap_through_the_real_gateway(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "gw.yaml", {"basic": stdio_upstream("basic_server.py")}, max_subscriptions=2
    )
    server = StdioServerParameters(
        command=MANIFOLD, args=["run", "--config", str(config)], env=support.test_env()
    )
    async with Client(server, mode="legacy", cache=None) as c:
        await c.subscribe_resource("basic://item/1")
        await c.subscribe_resource("basic://item/2")
        with pytest.raises(MCPError, match="too many resource subscriptions"):
            await c.subscribe_resource("basic://item/3")
        await c.unsubscribe_resource("basic://item/1")
        await c.subscribe_resource("basic://item/3")
