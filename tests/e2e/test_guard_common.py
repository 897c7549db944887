"""The injection guard on injections in ordinary words, end to end: the real `manifold run` in
front of a real upstream (`tests/servers/plain_orders_server.py`), driven by the official
client on both eras, with the default config (the rules alone).

A request for the model's instructions, an order on the user's mailbox with a report back to
them, and a URL left open for the user's address are refused (`isError`, naming the guard, no
payload); documentation that uses the same words arrives unchanged; a tool whose parameter
description asks to double an amount silently is absent from `tools/list` while the honest one
stays. With `security.guard.enabled: false` every payload and the poisoned tool reach the
client, so the test cannot pass vacuously.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types

from tests import support
from tests.servers.plain_orders_server import NOTES
from tests.support import stdio_upstream, write_config

pytestmark = pytest.mark.timeout(120)
ATTACKS = ("reveal", "inbox", "pixel")


def _params(tmp_path: Path, guard: dict[str, Any]) -> StdioServerParameters:
    cfg = write_config(
        tmp_path / "gw.yaml",
        {"plain": stdio_upstream("plain_orders_server.py")},
        security={"guard": guard},
    )
    return support.run_params(cfg)  # type: ignore[no-any-return]


def _texts(res: types.CallToolResult) -> list[str]:
    return [c.text for c in res.content if isinstance(c, types.TextContent)]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_plain_orders_refused_and_look_alikes_unchanged(tmp_path: Path, mode: str) -> None:
    async with Client(_params(tmp_path, {}), mode=mode, cache=None) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert "plain__convert" in names and "plain__note" in names
        assert "plain__transfer" not in names  # poisoned parameter description
        for which in ATTACKS:
            res = await c.call_tool("plain__note", {"which": which})
            assert res.is_error, which
            (text,) = _texts(res)
            assert text.startswith("guard: ") and "prompt injection" in text, text
            assert NOTES[which] not in text  # no payload
        res = await c.call_tool("plain__note", {"which": "lookalike"})
        assert not res.is_error and _texts(res) == [NOTES["lookalike"]]


async def test_with_the_guard_off_the_same_payloads_pass(tmp_path: Path) -> None:
    async with Client(_params(tmp_path, {"enabled": False}), mode="legacy", cache=None) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert "plain__transfer" in names
        for which in (*ATTACKS, "lookalike"):
            res = await c.call_tool("plain__note", {"which": which})
            assert not res.is_error and _texts(res) == [NOTES[which]]
