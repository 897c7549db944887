"""The hook registry (`hooks.py`) and the addon loader (`addons.py`): order, rewriting,
dropping, and what a kind nobody implements costs (nothing: the caller skips it)."""

from __future__ import annotations

from typing import Any

import pytest

from manifold.addons import load_addon
from manifold.config import ConfigError, GatewayConfig, parse_config
from manifold.hooks import (
    CatalogEvent,
    Hooks,
    ListingEvent,
    NotificationEvent,
    ServerRequestContext,
    ServerRequestNext,
)


class Tag:
    def __init__(self, tag: str, log: list[str]) -> None:
        self.tag, self.log = tag, log

    def catalog(self, event: CatalogEvent) -> list[dict[str, Any]]:
        self.log.append(f"catalog:{self.tag}")
        return [{**t, "d": t.get("d", "") + self.tag} for t in event.items]

    def listing(self, event: ListingEvent) -> list[dict[str, Any]]:
        return [t for t in event.items if t["name"] != self.tag]

    async def server_request(
        self, ctx: ServerRequestContext, call_next: ServerRequestNext
    ) -> dict[str, Any]:
        self.log.append(f"out:{self.tag}")
        ctx.params = {**ctx.params, "path": ctx.params.get("path", "") + self.tag}
        answer = await call_next(ctx)
        self.log.append(f"back:{self.tag}")
        return {**answer, "path": answer["path"] + self.tag.upper()}

    def notification(self, event: NotificationEvent) -> dict[str, Any] | None:
        if event.params.get("drop") == self.tag:
            return None
        return {**event.params, "seen": [*event.params.get("seen", []), self.tag]}


def test_no_addon_means_nothing_to_run() -> None:
    h = Hooks([object()])
    assert not (h.has_listing or h.has_notification or h.has_server_request)
    items = [{"name": "a"}]
    assert h.catalog("up", "tools", items) is items


def test_catalog_and_listing_run_in_order_and_chain() -> None:
    log: list[str] = []
    h = Hooks([Tag("a", log), Tag("b", log)])
    assert h.catalog("up", "tools", [{"name": "x"}]) == [{"name": "x", "d": "ab"}]
    assert log == ["catalog:a", "catalog:b"]
    listed = h.listing(ListingEvent("tools", [{"name": "a"}, {"name": "b"}, {"name": "c"}]))
    assert listed == [{"name": "c"}]


async def test_server_request_wraps_like_middleware() -> None:
    log: list[str] = []
    h = Hooks([Tag("a", log), Tag("b", log)])

    async def client(ctx: ServerRequestContext) -> dict[str, Any]:
        log.append("client")
        return {"path": ctx.params["path"] + "|"}

    answer = await h.server_request(ServerRequestContext("roots/list", {}), client)
    assert answer == {"path": "ab|BA"}
    assert log == ["out:a", "out:b", "client", "back:b", "back:a"]


def test_notification_rewrites_in_order_and_a_drop_stops_it() -> None:
    h = Hooks([Tag("a", []), Tag("b", [])])
    assert h.notification(NotificationEvent("notifications/progress", {})) == {"seen": ["a", "b"]}
    assert h.notification(NotificationEvent("notifications/progress", {"drop": "b"})) is None


class Factory:
    def __init__(self, config: GatewayConfig) -> None:
        self.name = config.name

    def listing(self, event: ListingEvent) -> list[dict[str, Any]]:
        return event.items


class NoHooks:
    pass


def test_addons_are_loaded_from_the_config() -> None:
    cfg = parse_config({"name": "gw1", "addons": [f"{__name__}:Factory"]}, env={})
    addon = load_addon(cfg.addons[0], cfg)
    assert isinstance(addon, Factory) and addon.name == "gw1"
    with pytest.raises(ConfigError, match="implements no hook"):
        load_addon(f"{__name__}:NoHooks", cfg)
    with pytest.raises(ConfigError, match=r"cannot load 'no\.such\.module:X'"):
        load_addon("no.such.module:X", cfg)
    with pytest.raises(ConfigError, match=r"addons: .*'package\.module:Name'"):
        parse_config({"addons": ["not a spec"]}, env={})
