"""MCP protocol eras: versions, reserved `_meta` keys and small era helpers.

Legacy (<= 2025-11-25) uses the `initialize` handshake and sessions; modern (2026-07-28) is
stateless: every request carries its protocol version, client capabilities and client info in
`_meta`. The gateway speaks both on both faces.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Final

MODERN_VERSION: Final = "2026-07-28"
MODERN_VERSIONS: Final = (MODERN_VERSION,)
LEGACY_VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_LEGACY: Final = LEGACY_VERSIONS[0]

META_PROTOCOL_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO: Final = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION_ID: Final = "io.modelcontextprotocol/subscriptionId"

MODERN_META_KEYS: Final = frozenset(
    {META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL}
)

LOG_LEVELS: Final = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
LOG_LEVEL_RANK: Final = {name: i for i, name in enumerate(LOG_LEVELS)}

# Methods removed from the modern wire: a modern request for them is "method not found".
MODERN_REMOVED_METHODS: Final = frozenset(
    {
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "notifications/initialized",
        "notifications/roots/list_changed",
    }
)


class Era(Enum):
    LEGACY = "legacy"
    MODERN = "modern"


def modern_meta(params: dict[str, Any] | None) -> dict[str, Any] | None:
    """The request's `_meta` when it marks a modern (stateless) request, else None."""
    if not params:
        return None
    meta = params.get("_meta")
    if isinstance(meta, dict) and META_PROTOCOL_VERSION in meta:
        return meta
    return None
