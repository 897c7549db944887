"""The contract every upstream transport keeps: send frames, deliver frames, report a close.

A transport knows bytes and connections, never MCP semantics. Frames it receives are handed to
`on_frame(line, related_id)`; `related_id` names the upstream request whose HTTP response
stream carried the frame (None on stdio and on standalone streams).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

FrameHandler = Callable[[bytes, "int | None"], None]
CloseHandler = Callable[[str], None]


class TransportClosed(Exception):
    """The connection to the upstream is gone."""


class Transport(Protocol):
    on_frame: FrameHandler
    on_close: CloseHandler

    async def start(self) -> None: ...

    async def send(
        self,
        frame: bytes,
        request_id: int | None = None,
        method: str | None = None,
        name: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Send one JSON-RPC frame. `request_id`, `method` and `name` are set for our requests."""
        ...

    def cancel(self, request_id: int) -> bool:
        """Drop the stream carrying `request_id`, if the transport can (modern HTTP)."""
        ...

    async def close(self) -> None: ...

    @property
    def pid(self) -> int | None: ...
