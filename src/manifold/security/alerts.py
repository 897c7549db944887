"""How a security mechanism writes an entry of its own to the audit trail.

The audit addon (`security/audit.py`) is loaded only when `security.audit.path` is set; a
mechanism finds it among the gateway's addons by its `audit_event` method, so it never imports
the audit module itself.
"""

from __future__ import annotations

from typing import Any, Protocol

from manifold.hooks import Hooks


class AuditHost(Protocol):
    @property
    def hooks(self) -> Hooks: ...


def audit_event(gw: AuditHost, event: str, fields: dict[str, Any]) -> bool:
    """Write `{"event": event, **fields}` to the audit trail; False when there is none."""
    hooks = getattr(gw, "hooks", None)
    for addon in hooks.addons if hooks is not None else ():
        record = getattr(addon, "audit_event", None)
        if callable(record):
            record(event, fields)
            return True
    return False
