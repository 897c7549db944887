"""An example addon that takes part in every hook kind (see `manifold.hooks`), used by
`tests/e2e/test_hooks.py` through the config (`addons: ["tests.addons.recorder:Recorder"]`).

It records what each hook saw as JSON lines in the file named by `MANIFOLD_RECORDER_FILE`, and
changes something visible in each, so a test can tell from the client side that the hook ran:
- catalog: hides upstream tools named `crash`, and appends " [catalogued]" to descriptions;
- listing: hides tools whose exposed name ends in `pid` (they stay callable: listing is per client);
- call: records the routed call (principal, upstream era, client era) and passes it on;
- server_request: prefixes the text of a sampling request's first message with "[relayed] ";
- notification: prefixes the `data` of log messages with "[seen] ";
- refused: records a call the gateway refused before routing it (an unknown name).
"""

from __future__ import annotations

import json
import os
from typing import Any

from manifold.config import GatewayConfig
from manifold.hooks import (
    CatalogEvent,
    Items,
    ListingEvent,
    NotificationEvent,
    RefusedEvent,
    ServerRequestContext,
    ServerRequestNext,
)
from manifold.pipeline import CallContext, CallNext


class Recorder:
    def __init__(self, config: GatewayConfig) -> None:
        self.path = os.environ["MANIFOLD_RECORDER_FILE"]
        self.upstreams = sorted(config.upstreams)

    def _record(self, hook: str, **what: Any) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"hook": hook, **what}, default=str) + "\n")

    async def call(self, ctx: CallContext, call_next: CallNext) -> Any:
        self._record(
            "call",
            method=ctx.method,
            exposed=ctx.exposed,
            upstream=ctx.route.upstream,
            principal=ctx.principal,
            era=ctx.era.value if ctx.era else None,
            modern_client=ctx.client_caps is not None,
        )
        return await call_next(ctx)

    def catalog(self, event: CatalogEvent) -> Items:
        self._record("catalog", upstream=event.upstream, kind=event.kind, n=len(event.items))
        if event.kind != "tools":
            return event.items
        return [
            {**t, "description": (t.get("description") or "") + " [catalogued]"}
            for t in event.items
            if t.get("name") != "crash"
        ]

    def listing(self, event: ListingEvent) -> Items:
        self._record("listing", kind=event.kind, era=event.era.value, client=event.client_name)
        return [t for t in event.items if not str(t.get("name", "")).endswith("pid")]

    async def server_request(
        self, ctx: ServerRequestContext, call_next: ServerRequestNext
    ) -> dict[str, Any]:
        self._record(
            "server_request",
            method=ctx.method,
            upstream=ctx.upstream,
            era=ctx.era.value,
            principal=ctx.principal,
        )
        if ctx.method == "sampling/createMessage":
            messages = ctx.params.get("messages") or []
            if messages and isinstance(messages[0].get("content"), dict):
                first = messages[0]
                text = first["content"].get("text", "")
                content = {**first["content"], "text": "[relayed] " + text}
                ctx.params = {**ctx.params, "messages": [{**first, "content": content}]}
        answer = await call_next(ctx)
        self._record("server_request_answer", method=ctx.method, keys=sorted(answer))
        return answer

    def notification(self, event: NotificationEvent) -> dict[str, Any] | None:
        self._record(
            "notification", method=event.method, upstream=event.upstream, principal=event.principal
        )
        if event.method == "notifications/message":
            return {**event.params, "data": f"[seen] {event.params.get('data')}"}
        return event.params

    def refused(self, event: RefusedEvent) -> None:
        self._record("refused", method=event.method, target=event.target, code=event.code)
