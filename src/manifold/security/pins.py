"""Tool pinning (rug-pull defence): trust on first use, hold a changed definition until approved.

The `catalog` hook sees each upstream's tool list as it arrives (start, restart, list_changed):

- a tool never seen on this upstream is trusted and its definition recorded (the pinned fields
  of `pin_store.PINNED_FIELDS`, hashed without the name);
- a new name whose definition hash equals that of a pinned tool of the same upstream that is no
  longer listed is a rename: trusted, recorded with `renamed_from`, logged;
- a tool whose definition differs from its pin is, in `enforce` mode, left out of the list (so
  it is neither listed nor found by `search_tools` nor routed), logged with the fields that
  changed, audited, and recorded as pending for `manifold pins diff` / `approve`. A call to it
  is refused with an error naming this mechanism (`withheld`, asked by the dispatcher only
  when a name is not routable). In `audit` mode the same is logged and audited, and the new
  definition is served.

Nothing runs per call. While a tool is held, a timer checks the store every `poll_interval`
(one SQLite pragma); when an approval arrived it asks the upstream for its tools again, so the
running gateway serves the approved definition without a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from manifold.config import GatewayConfig, PinsConfig
from manifold.hooks import CatalogEvent, Hooks, Items
from manifold.naming import exposed_name
from manifold.protocol import jsonrpc as rpc
from manifold.security.alerts import audit_event
from manifold.security.pin_store import Pending, Pin, changed_fields, definition_of, digest_of

if TYPE_CHECKING:
    from manifold.state import PinStore, State

__all__ = ["MECHANISM", "Held", "PinHost", "Pins", "build"]

log = logging.getLogger("manifold.security.pins")

MECHANISM: Final = "pins"


class PinHost(Protocol):
    """What pinning uses of the gateway."""

    @property
    def config(self) -> GatewayConfig: ...
    @property
    def hooks(self) -> Hooks: ...
    def on_list_changed(self, upstream: str, kind: str) -> None: ...
    def spawn(self, coro: Any) -> asyncio.Task[Any]: ...
    @property
    def state(self) -> State: ...


@dataclass(slots=True, frozen=True)
class Held:
    upstream: str
    tool: str
    hash: str
    fields: tuple[str, ...]
    reason: str = "changed"  # changed | full


def upstream_source(config: GatewayConfig, upstream: str) -> str | None:
    """What the config runs for an upstream (command and args, or URL)."""
    u = config.upstreams.get(upstream)
    if u is None:
        return None
    return u.url if u.url else " ".join([u.command or "", *u.args])


class Pins:
    """The addon: `catalog` pins and holds; `withheld` answers for a held name."""

    def __init__(self, gw: PinHost, store: PinStore, cfg: PinsConfig) -> None:
        self.gw = gw
        self.store = store
        self.mode = cfg.mode
        self.poll_interval = cfg.poll_interval
        self.max_pins = cfg.max_pins
        self._count = store.count()
        self._held: dict[str, dict[str, Held]] = {}  # upstream -> exposed name -> held
        self._warned: dict[str, set[tuple[str, str]]] = {}  # upstream -> (tool, hash) logged
        self._watch: asyncio.Task[None] | None = None
        self._sep = gw.config.separator
        self._prefix = gw.config.prefix

    # ----------------------------------------------------------------- catalog

    def catalog(self, event: CatalogEvent) -> Items:
        if event.kind != "tools":
            return event.items
        up = event.upstream
        now = time.time()
        try:
            pinned = self.store.pinned(up)
            waiting = {p.tool: p.hash for p in self.store.pending(up)}
            recorded_source = self.store.source(up)
        except self.store.errors as e:
            # Nothing to compare with: serve none of this upstream's tools rather than
            # unchecked ones (audit mode serves them); the next list arrival tries again.
            log.error(
                "pins: cannot read %s (%s): tools of %s %s",
                self.store,
                e,
                up,
                "served unchecked" if self.mode == "audit" else "held",
            )
            return event.items if self.mode == "audit" else []
        source = upstream_source(self.gw.config, up)
        if recorded_source is not None and source is not None and recorded_source != source:
            log.warning(
                "upstream %s now runs %r (pins were recorded for %r): its tools are checked "
                "against those pins, and any whose definition differs is held",
                up,
                source,
                recorded_source,
            )
        names = {t.get("name") for t in event.items}
        by_hash: dict[str, str] = {}  # hash -> a pinned tool no longer listed (rename source)
        for p in pinned.values():
            if p.tool not in names:
                by_hash.setdefault(p.hash, p.tool)
        out: Items = []
        new: list[Pin] = []
        pending: list[Pending] = []
        resolved: list[str] = []
        held: dict[str, Held] = {}
        warned = self._warned.setdefault(up, set())
        seen_now: set[tuple[str, str]] = set()
        listed: set[str] = set()
        for t in event.items:
            name = t.get("name")
            if not isinstance(name, str):
                out.append(t)  # the catalog drops it
                continue
            if name in listed:  # which of two definitions would be the trusted one?
                log.warning("tool %s/%s is listed twice: the second one is not served", up, name)
                continue
            listed.add(name)
            digest = digest_of(t)  # the stored form is built only for a new or changed tool
            pin = pinned.get(name)
            if pin is None:
                if self._count + len(new) >= self.max_pins:
                    held[self._exposed(up, name)] = Held(up, name, digest, (), "full")
                    if (name, digest) not in warned:
                        log.error(
                            "tool %s/%s not served: security.pins.max_pins (%d) definitions "
                            "are recorded",
                            up,
                            name,
                            self.max_pins,
                        )
                    seen_now.add((name, digest))
                    if self.mode == "audit":
                        out.append(t)
                    continue
                origin = by_hash.pop(digest, None)
                new.append(Pin(up, name, digest, definition_of(t), now, None, origin))
                if origin is not None:
                    log.warning(
                        "tool %s/%s renamed to %s (same definition): trusted", up, origin, name
                    )
                    audit_event(
                        self.gw,
                        "pin_renamed",
                        {
                            "mechanism": MECHANISM,
                            "upstream": up,
                            "tool": name,
                            "renamed_from": origin,
                        },
                    )
                out.append(t)
                continue
            if pin.hash == digest:
                if name in waiting:
                    resolved.append(name)  # back to its pinned definition
                out.append(t)
                continue
            definition = definition_of(t)
            fields = tuple(changed_fields(pin.definition, definition))
            exposed = self._exposed(up, name)
            if waiting.get(name) != digest:
                pending.append(Pending(up, name, digest, definition, fields, now))
            seen_now.add((name, digest))
            if (name, digest) not in warned:
                action = "held until approved" if self.mode == "enforce" else "served (audit mode)"
                log.warning(
                    "tool %s (%s/%s) changed its definition (%s) since it was pinned: %s; "
                    "`manifold pins diff %s` shows the change, `manifold pins approve %s` "
                    "accepts it",
                    exposed,
                    up,
                    name,
                    ", ".join(fields) or "fields",
                    action,
                    exposed,
                    exposed,
                )
                audit_event(
                    self.gw,
                    "pin_changed",
                    {
                        "mechanism": MECHANISM,
                        "upstream": up,
                        "tool": name,
                        "target": exposed,
                        "fields": list(fields),
                        "action": "held" if self.mode == "enforce" else "served",
                        "hash": digest,
                        "pinned_hash": pin.hash,
                    },
                )
            if self.mode == "enforce":
                held[exposed] = Held(up, name, digest, fields)
            else:
                out.append(t)
        self._warned[up] = seen_now  # only what is still changed stays remembered
        if new or pending or resolved or source != recorded_source:
            try:
                self.store.record(
                    up, new, pending, resolved, source if source != recorded_source else None
                )
                self._count += len(new)
            except self.store.errors as e:  # the decisions stand; new tools are pinned next time
                log.error(
                    "pins: cannot write %s (%s): %d new pins not recorded", self.store, e, len(new)
                )
        if held:
            self._held[up] = held
        else:
            self._held.pop(up, None)
        if self._held and self.store.persistent:
            self._start_watch()
        return out

    def _exposed(self, upstream: str, tool: str) -> str:
        return exposed_name(upstream, tool, self._sep, self._prefix)

    # ----------------------------------------------------------------- calls to a held tool

    def withheld(self, exposed: str, who: dict[str, Any] | None = None) -> rpc.RpcError | None:
        """The refusal for a name this mechanism holds back, or None. Asked only for a name the
        catalog cannot route (never on a routed call)."""
        for held in self._held.values():
            h = held.get(exposed)
            if h is None:
                continue
            if h.reason == "full":
                why = "is not served: security.pins.max_pins definitions are recorded"
            else:
                why = (
                    f"changed its definition ({', '.join(h.fields) or 'fields'}) since it was "
                    f"approved; it is held until an operator runs `manifold pins approve {exposed}`"
                )
            log.warning("refused tools/call %s (%s/%s): %s", exposed, h.upstream, h.tool, why)
            audit_event(
                self.gw,
                "refused",
                {
                    "mechanism": MECHANISM,
                    "method": "tools/call",
                    "upstream": h.upstream,
                    "target": exposed,
                    "fields": list(h.fields),
                    **(who or {}),
                },
            )
            return rpc.RpcError(
                rpc.INVALID_PARAMS,
                f"{MECHANISM}: tool {exposed!r} {why}",
                {"mechanism": MECHANISM, "tool": exposed, "changed": list(h.fields)},
            )
        return None

    @property
    def held(self) -> dict[str, Held]:
        """Every held tool, by exposed name."""
        return {k: v for held in self._held.values() for k, v in held.items()}

    # ----------------------------------------------------------------- approvals

    def _start_watch(self) -> None:
        if self._watch is not None and not self._watch.done():
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # not serving (a test driving the hook directly)
        self._watch = self.gw.spawn(self._watch_approvals())  # the gateway's stop cancels it

    async def _watch_approvals(self) -> None:
        """While a tool is held: each `poll_interval`, if the store was written by someone
        else, ask the upstreams whose held tools were approved for their tools again."""
        while self._held:
            await asyncio.sleep(self.poll_interval)
            try:
                if not self.store.changed():
                    continue
                for up in list(self._held):
                    pinned = self.store.pinned(up)
                    held = self._held.get(up, {})
                    approved = [
                        name
                        for name, h in held.items()
                        if (p := pinned.get(h.tool)) is not None and p.hash == h.hash
                    ]
                    if approved:
                        log.warning(
                            "upstream %s: %s approved; listing its tools again",
                            up,
                            ", ".join(approved),
                        )
                        audit_event(
                            self.gw,
                            "pin_approved",
                            {"mechanism": MECHANISM, "upstream": up, "targets": approved},
                        )
                        self.gw.on_list_changed(up, "tools")
            except Exception:  # a locked or damaged store: try again next time
                log.exception("pins: checking %s for approvals failed", self.store)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.store.close()


def build(gw: PinHost) -> Pins | None:
    cfg = gw.config.security.pins
    if cfg.mode == "off":
        return None
    store = gw.state.pins
    if store is None:
        return None
    if not store.persistent:
        log.info(
            "pins are kept in memory only (state.path is empty): set security.pins.path to "
            "keep them across restarts"
        )
    return Pins(gw, store, cfg)
