"""The gateway's own tools (router mode): search, list, invoke, read.

They live in-process as one more upstream, named `@manifold` in routes, so calls to them pass
the same pipeline as any other call, and `invoke_tool` re-enters the pipeline for the real
upstream call: policy, limits, governor and accounting apply to it exactly as to a direct
call. Descriptions are short and fixed; answers are compact text, since every byte of them
is read by the model.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
import orjson

from manifold.catalog import Route
from manifold.economy.results import owner_of
from manifold.hooks import ListingEvent
from manifold.pipeline import CallContext
from manifold.protocol import jsonrpc as rpc
from manifold.protocol.eras import Era
from manifold.protocol.schema import MAX_DEPTH, MAX_NODES, Param, SchemaView, dump
from manifold.router import GATEWAY

if TYPE_CHECKING:
    from collections.abc import Mapping

    from manifold.catalog import Catalog
    from manifold.config import GatewayConfig
    from manifold.economy.embed import HybridIndex
    from manifold.economy.search import ToolIndex
    from manifold.hooks import Hooks
    from manifold.pipeline import CallNext
    from manifold.state import ResultPages
    from manifold.upstream.supervisor import Upstream


class ToolsHost(Protocol):
    """What the router tools use of the gateway."""

    @property
    def config(self) -> GatewayConfig: ...
    @property
    def catalog(self) -> Catalog: ...
    @property
    def upstreams(self) -> Mapping[str, Upstream]: ...
    @property
    def hooks(self) -> Hooks: ...
    @property
    def results(self) -> ResultPages | None: ...
    @property
    def pipeline(self) -> CallNext: ...


log = logging.getLogger("manifold.search")

__all__ = ["GATEWAY", "HYBRID_TOOLS", "NAMES", "ROUTER_TOOLS", "GatewayTools"]

SEARCH_TOOLS: dict[str, Any] = {
    "name": "search_tools",
    "description": "Find tools for a task. Returns server, tool, arguments (* = required).",
    "inputSchema": {
        "type": "object",
        "properties": {"query": {"type": "string"}, "k": {"type": "integer"}},
        "required": ["query"],
    },
}
LIST_SERVERS: dict[str, Any] = {
    "name": "list_servers",
    "description": "List the servers and their tool counts.",
    "inputSchema": {"type": "object", "properties": {}},
}
LIST_TOOLS: dict[str, Any] = {
    "name": "list_tools",
    "description": "List one server's tools with their input schemas.",
    "inputSchema": {
        "type": "object",
        "properties": {"server": {"type": "string"}},
        "required": ["server"],
    },
}
INVOKE_TOOL: dict[str, Any] = {
    "name": "invoke_tool",
    "description": "Call a server's tool with arguments.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "server": {"type": "string"},
            "tool": {"type": "string"},
            "arguments": {"type": "object"},
            "fields": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["server", "tool"],
    },
}
READ_RESULT: dict[str, Any] = {
    "name": "read_result",
    "description": "Read a page of a long result by its id.",
    "inputSchema": {
        "type": "object",
        "properties": {"id": {"type": "string"}, "page": {"type": "integer"}},
        "required": ["id"],
    },
}
ROUTER_TOOLS = [SEARCH_TOOLS, LIST_SERVERS, LIST_TOOLS, INVOKE_TOOL, READ_RESULT]
HYBRID_TOOLS = [SEARCH_TOOLS, READ_RESULT]
NAMES = frozenset(t["name"] for t in ROUTER_TOOLS)
SUMMARY_CHARS = 48
# Where the first clause of a tool description ends: what follows mostly lists the arguments,
# which the answer line shows anyway.
_CLAUSE_ENDS = (
    " with ",
    ", with ",
    " including ",
    ", including ",
    "; ",
    " using ",
    ", optionally ",
    " filtered ",
    ", or ",
)
_MIN_CLAUSE = 14  # a clause end counts only after this many characters
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|[A-Za-z])\.$")
# Words that do not end a cut summary ("... for the…" says nothing).
_TRAILING = re.compile(
    r"(?i)(?:a|an|and|as|at|by|for|from|in|into|its|of|on|or|the|their|to|with|your)"
)


@functools.cache
def _filler() -> frozenset[str]:
    """Words that add nothing to a tool's name in a one-line summary. (The search engine is
    imported on first use, here and in `GatewayTools.index`: a gateway that lists its tools
    as they are never loads it, about 1.4 MiB.)"""
    from manifold.economy.search import tokenize

    words = "new specific existing details single entire all list get retrieve given one current"
    return frozenset(tokenize(words))


def text_result(text: str, is_error: bool = False) -> rpc.Incoming:
    body = {"content": [{"type": "text", "text": text}], "isError": is_error}
    return rpc.Incoming(result=msgspec.Raw(orjson.dumps(body)))


def _first_sentence(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    start = 0
    while (i := line.find(". ", start)) >= 0:
        if not _ABBREVIATION.search(line[: i + 1]):  # "e.g. " does not end a sentence
            return line[:i]
        start = i + 2
    return line


def summary(description: str, limit: int = SUMMARY_CHARS) -> str:
    """The first clause of a description's first sentence, cut at a word to `limit` characters."""
    first = _first_sentence(description).rstrip(".")
    cut = len(first)
    for stop in _CLAUSE_ENDS:
        i = first.find(stop, _MIN_CLAUSE)
        if i >= 0:
            cut = min(cut, i)
    first = first[:cut].rstrip(" ,;:")
    if len(first) <= limit:
        return first
    words = first[: limit - 1].split(" ")
    if len(words) > 1 and first[limit - 1] != " ":
        words.pop()  # the word the limit cut through
    while len(words) > 1 and _TRAILING.fullmatch(words[-1]):
        words.pop()
    return " ".join(words).rstrip(" ,;:(") + "…"


def adds_to_name(text: str, server: str, tool: str, schema: Any) -> bool:
    """Whether a summary says anything that the server, tool and argument names do not."""
    return _adds_to_name(text, server, tool, SchemaView(schema).properties())


def _adds_to_name(text: str, server: str, tool: str, params: list[Param]) -> bool:
    from manifold.economy.search import tokenize

    known = set(_filler())
    known.update(tokenize(server), tokenize(tool))
    for p in params:
        known.update(tokenize(p.name))
    return any(w not in known for w in tokenize(text.lower()))


def hit_line(server: str, tool: str, description: str, schema: Any) -> str:
    """One search answer line: `server tool(a*,b): what it does` (the summary is left out when
    it only repeats the names)."""
    params = SchemaView(schema).properties()
    line = f"{server} {tool}({_signature(params)})"
    about = summary(description)
    return f"{line}: {about}" if about and _adds_to_name(about, server, tool, params) else line


_GENERIC_PARAM = re.compile(r"^the \S+ parameter\.?$", re.IGNORECASE)


def type_text(schema: Any) -> str:
    """A short type: `str`, `int`, `a|b`, `[str]`, `{a*: str, b: int}`, or compact JSON Schema
    for anything else (see `SchemaView.render`); a `$ref` resolves within `schema` only."""
    return SchemaView(schema).render(schema)


def tool_line(tool: dict[str, Any], max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES) -> str:
    """One tool as `name(arg*: type (what it is), ...): description`, for `list_tools`.

    Everything a model needs to call the tool, without JSON Schema's quoting overhead; types
    defined in `$defs` are shown where they are used, unfolded up to the bounds (`schemas:`)."""
    view = SchemaView(tool.get("inputSchema"), max_depth, max_nodes)
    args = []
    for p in view.properties():
        sub = p.schema
        part = f"{p.name}{'*' if p.required else ''}: {view.render(sub)}"
        if isinstance(sub, dict):
            if "default" in sub:
                part += f" = {dump(sub['default'])}"
            desc = sub.get("description")
            if isinstance(desc, str) and desc.strip() and not _GENERIC_PARAM.match(desc.strip()):
                part += f" ({desc.strip()})"
        args.append(part)
    if view.truncated:
        log.info(
            "list_tools: the input schema of %r is shown cut short at schemas.max_depth=%d or "
            "schemas.max_nodes=%d",
            tool["name"],
            max_depth,
            max_nodes,
        )
    description = " ".join((tool.get("description") or "").split())
    return f"{tool['name']}({', '.join(args)})" + (f": {description}" if description else "")


def signature(schema: Any) -> str:
    """`a*,b,c`: the argument names, required ones starred."""
    return _signature(SchemaView(schema).properties())


def _signature(params: list[Param]) -> str:
    return ",".join(f"{p.name}*" if p.required else p.name for p in params)


class GatewayTools:
    def __init__(self, gateway: ToolsHost) -> None:
        self.gw = gateway
        self._index: ToolIndex | None = None
        self._indexed: object = None  # the catalog tool list the index was built from
        self._by_upstream: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
        self._lines: dict[tuple[str, str], str] = {}  # search answer line per tool
        # search: {ranker: hybrid}: the embeddings of the current index, built in a thread
        self._hybrid: HybridIndex | None = None
        self._hybrid_pending: ToolIndex | None = None
        self._hybrid_running = False
        self._hybrid_lock = threading.Lock()

    # ----------------------------------------------------------------- index

    def index(self) -> ToolIndex:
        tools = self.gw.catalog.tools
        if self._index is None or self._indexed is not tools:
            from manifold.economy.search import RankerConfig, ToolEntry, ToolIndex

            routes = self.gw.catalog.tool_routes
            entries = []
            by_up: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
            lines: dict[tuple[str, str], str] = {}
            for t in tools:
                r = routes[t["name"]]
                by_up[(r.upstream, r.name)] = (t["name"], t)
                description = t.get("description") or ""
                schema = t.get("inputSchema")
                entries.append(ToolEntry(r.upstream, r.name, description, schema))
                lines[(r.upstream, r.name)] = hit_line(r.upstream, r.name, description, schema)
            search = self.gw.config.search
            self._index = ToolIndex.build(
                entries, RankerConfig(neighbour_weight=search.neighbour_weight)
            )
            self._by_upstream = by_up
            self._lines = lines
            self._indexed = tools
            if search.ranker == "hybrid":
                self._embed_later(self._index)
        return self._index

    def ranker(self) -> ToolIndex | HybridIndex:
        """What `search_tools` ranks with: the hybrid index once its embeddings for the current
        catalog are built (search: {ranker: hybrid}), the BM25F index until then and otherwise."""
        lexical = self.index()
        hybrid = self._hybrid
        return hybrid if hybrid is not None and hybrid.lexical is lexical else lexical

    def _embed_later(self, lexical: ToolIndex) -> None:
        """Embed the tools of `lexical` in a worker thread (one at a time; a catalog that
        changes again meanwhile is embedded next, the ones in between are skipped)."""
        with self._hybrid_lock:
            self._hybrid_pending = lexical
            if self._hybrid_running:
                return
            self._hybrid_running = True
        threading.Thread(target=self._embed_worker, name="manifold-embed", daemon=True).start()

    def _embed_worker(self) -> None:
        from manifold.economy.embed import HybridIndex

        while True:
            with self._hybrid_lock:
                lexical = self._hybrid_pending
                self._hybrid_pending = None
                if lexical is None:
                    self._hybrid_running = False
                    return
            try:
                hybrid = HybridIndex.from_lexical(lexical)
            except Exception as e:  # the extra broke after start-up: keep BM25F
                log.warning("hybrid search ranker unavailable, searching with BM25F: %s", e)
                continue
            if self._index is lexical:
                self._hybrid = hybrid

    def lookup(self, server: str, tool: str) -> tuple[str, dict[str, Any]] | None:
        self.index()
        return self._by_upstream.get((server, tool))

    # ----------------------------------------------------------------- calls

    async def __call__(self, ctx: CallContext) -> rpc.Incoming:
        args = ctx.params.get("arguments") or {}
        if not isinstance(args, dict):
            raise rpc.RpcError(rpc.INVALID_PARAMS, "arguments must be an object")
        name = ctx.route.name
        if name == "search_tools":
            return self.search(args, self.visible(ctx))
        if name == "list_servers":
            return self.list_servers(self.visible(ctx))
        if name == "list_tools":
            return self.list_tools(args, self.visible(ctx))
        if name == "invoke_tool":
            return await self.invoke(ctx, args)
        if name == "read_result":
            return self.read_result(ctx, args)
        raise rpc.RpcError(rpc.INVALID_PARAMS, f"Unknown tool: {name}")

    def visible(self, ctx: CallContext) -> set[str] | None:
        """The exposed tool names this caller may see (the listing hooks); None: every tool."""
        hooks = self.gw.hooks
        if not hooks.has_listing:
            return None
        era = Era.LEGACY if ctx.client_caps is None else Era.MODERN
        event = ListingEvent(
            "tools", self.gw.catalog.tools, ctx.principal, ctx.client_name, era, ctx.session_key
        )
        return {t["name"] for t in hooks.listing(event)}

    def _shown(self, visible: set[str] | None, server: str, tool: str) -> bool:
        if visible is None:
            return True
        found = self._by_upstream.get((server, tool))
        return found is not None and found[0] in visible

    def search(self, args: dict[str, Any], visible: set[str] | None = None) -> rpc.Incoming:
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            return text_result("search_tools needs a non-empty 'query'.", True)
        k = args.get("k", 5)
        k = k if isinstance(k, int) and 1 <= k <= 20 else 5
        await_ready_hint = "" if self.gw.catalog.tools else " (no tools are loaded yet)"
        if visible is None:
            hits = self.ranker().search(query, k)
        else:
            ranked = self.ranker().search(query, k + 50)
            hits = [h for h in ranked if self._shown(visible, h.server, h.tool)][:k]
        if not hits:
            return text_result(
                f"No tool matches {query!r}{await_ready_hint}. "
                "Try other words, or list_servers then list_tools(server)."
            )
        lines = [self._lines[key] for h in hits if (key := (h.server, h.tool)) in self._lines]
        return text_result("\n".join(lines))

    def list_servers(self, visible: set[str] | None = None) -> rpc.Incoming:
        counts: dict[str, int] = {}
        for exposed, r in self.gw.catalog.tool_routes.items():
            if visible is None or exposed in visible:
                counts[r.upstream] = counts.get(r.upstream, 0) + 1
        lines = []
        for name, up in self.gw.upstreams.items():
            d = up.session.description if up.session else None
            about = summary(d.instructions, 80) if d and d.instructions else ""
            state = "" if up.state == "ready" else f" [{up.state}]"
            lines.append(
                f"{name}: {counts.get(name, 0)} tools{state}" + (f" - {about}" if about else "")
            )
        return text_result("\n".join(lines) or "No servers are configured.")

    def list_tools(self, args: dict[str, Any], visible: set[str] | None = None) -> rpc.Incoming:
        server = args.get("server")
        if server not in self.gw.upstreams:
            known = ", ".join(self.gw.upstreams) or "none"
            return text_result(f"Unknown server {server!r}. Servers: {known}.", True)
        if visible is not None:
            self.index()
        bounds = self.gw.config.schemas
        lines = [
            tool_line(t, bounds.max_depth, bounds.max_nodes)
            for t in self.gw.catalog.upstream_items(str(server), "tools")
            if self.gw.catalog.allowed(str(server), t["name"])
            and self._shown(visible, str(server), t["name"])
        ]
        return text_result("\n".join(lines) or f"Server {server!r} has no tools.")

    async def invoke(self, ctx: CallContext, args: dict[str, Any]) -> rpc.Incoming:
        server, tool = args.get("server"), args.get("tool")
        if not isinstance(server, str) or not isinstance(tool, str):
            return text_result("invoke_tool needs 'server' and 'tool' strings.", True)
        found = self.lookup(server, tool)
        if found is None or not self._shown(self.visible(ctx), server, tool):
            return text_result(
                f"No tool {tool!r} on server {server!r}. Use search_tools or list_tools.", True
            )
        arguments = args.get("arguments") or {}
        if not isinstance(arguments, dict):
            return text_result("invoke_tool: 'arguments' must be an object.", True)
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        meta = ctx.params.get("_meta")
        if meta:
            params["_meta"] = meta  # progress token and friends travel with the inner call
        inner = CallContext(
            "tools/call",
            params,
            Route(server, tool),
            f"{server} {tool}",  # as the model named it (notes such as dedup's speak of it)
            ctx.sink,
            ctx.client_caps,
            ctx.client_name,
        )
        fields = args.get("fields")
        if isinstance(fields, list) and all(isinstance(f, str) for f in fields):
            inner.fields = fields
        inner.session_key = ctx.session_key
        inner.principal = ctx.principal  # per-principal rules (policy) apply to the inner call
        inner.subject = ctx.subject
        target = self.gw.upstreams.get(server) if ctx.client_token is not None else None
        if target is not None and target.exchange is not None:
            inner.client_token = ctx.client_token  # token exchange (credentials/exchange.py)
        return await self.gw.pipeline(inner)

    def read_result(self, ctx: CallContext, args: dict[str, Any]) -> rpc.Incoming:
        rid = args.get("id")
        page = args.get("page", 1)
        if not isinstance(rid, str) or not isinstance(page, int):
            return text_result("read_result needs 'id' (string) and 'page' (integer).", True)
        store = self.gw.results
        # Only its owner reads a result; anyone else gets the answer of an unknown id.
        owner = owner_of(ctx.principal, ctx.subject)
        p = store.page(rid, page, owner, ctx.session_key) if store is not None else None
        if p is None:
            return text_result(f"No stored result {rid!r} (it may have expired).", True)
        if not p.text:
            return text_result(f"Result {rid} has pages 1-{p.pages}.", True)
        more = f"\n[page {p.page}/{p.pages}; read_result(id={rid!r}, page={p.page + 1}) for more]"
        return text_result(p.text + (more if p.page < p.pages else ""))
