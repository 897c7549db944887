"""Import MCP server lists from other clients' config files into Manifold's config mapping.

Pure functions only: nothing here starts servers, touches the network or writes files. The
``manifold import`` command and the gateway's ``--config`` loader call into this module.

Formats read (all JSON; JSON with comments and trailing commas is accepted too):

* Claude Desktop ``claude_desktop_config.json``: ``{"mcpServers": {name: {...}}}``
* Claude Code ``.mcp.json`` and ``~/.claude.json``: ``{"mcpServers": {...}}``, the latter also
  ``{"projects": {path: {"mcpServers": {...}}}}``
* Cursor ``.cursor/mcp.json``: ``{"mcpServers": {...}}``
* VS Code ``.vscode/mcp.json`` (``{"servers": {...}, "inputs": [...]}``) and user
  ``settings.json`` (``{"mcp": {"servers": {...}, "inputs": [...]}}``)

Each server entry becomes one ``upstreams.<name>`` mapping: ``command``/``args``/``env``/``cwd``
for stdio servers, ``url``/``transport``/``headers`` for remote ones, and ``enabled``.
Anything that cannot be carried over faithfully is reported in ``ImportResult.warnings``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import urlsplit

import yaml

__all__ = [
    "FORMAT_CLAUDE_CODE",
    "FORMAT_CLAUDE_DESKTOP",
    "FORMAT_CURSOR",
    "FORMAT_LABELS",
    "FORMAT_MCP_SERVERS",
    "FORMAT_VSCODE",
    "FORMAT_VSCODE_SETTINGS",
    "ClientConfigError",
    "ImportResult",
    "convert_client_config",
    "is_client_config",
    "load_client_config",
    "parse_client_config",
    "parse_client_data",
    "sanitize_name",
    "strip_jsonc",
    "to_yaml",
]

FORMAT_CLAUDE_DESKTOP = "claude-desktop"
FORMAT_CLAUDE_CODE = "claude-code"
FORMAT_CURSOR = "cursor"
FORMAT_VSCODE = "vscode"
FORMAT_VSCODE_SETTINGS = "vscode-settings"
#: An ``{"mcpServers": ...}`` file whose client cannot be told from its content or name
#: (Claude Desktop, Cursor, Windsurf and others share this shape).
FORMAT_MCP_SERVERS = "mcp-servers"

FORMAT_LABELS: dict[str, str] = {
    FORMAT_CLAUDE_DESKTOP: "Claude Desktop (claude_desktop_config.json)",
    FORMAT_CLAUDE_CODE: "Claude Code (.mcp.json / ~/.claude.json)",
    FORMAT_CURSOR: "Cursor (.cursor/mcp.json)",
    FORMAT_VSCODE: "VS Code (mcp.json)",
    FORMAT_VSCODE_SETTINGS: "VS Code (settings.json, mcp.servers)",
    FORMAT_MCP_SERVERS: 'generic "mcpServers" JSON (Claude Desktop, Cursor and others)',
}

_EXPECTED = (
    'expected a JSON object with "mcpServers" (Claude Desktop, Claude Code .mcp.json or '
    '~/.claude.json, Cursor .cursor/mcp.json), "servers" (VS Code .vscode/mcp.json) or '
    '"mcp": {"servers": ...} (VS Code settings.json)'
)

NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_NAME_BAD_CHARS = re.compile(r"[^A-Za-z0-9_-]+")

_STDIO_TYPES = frozenset({"stdio", "local"})
_HTTP_TYPES = frozenset({"http", "streamable-http", "streamablehttp", "streamable_http"})
_SSE_TYPES = frozenset({"sse"})

# Fields every importer understands; anything else in an entry is reported as ignored.
_COMMON_KEYS = frozenset({"type", "disabled", "enabled"})
_CLIENT_KEYS = frozenset({"mcpServers", "servers", "mcp", "projects"})
_STDIO_KEYS = frozenset({"command", "args", "env", "cwd", "envFile"})
_REMOTE_KEYS = frozenset({"url", "serverUrl", "headers"})


class ClientConfigError(ValueError):
    """A client config file could not be read or is not one of the supported formats."""


@dataclass(frozen=True)
class ImportResult:
    """What an import produced.

    ``format`` is one of the ``FORMAT_*`` constants, ``config`` is Manifold's config mapping
    (``{"upstreams": {...}}``, plain dicts ready for YAML), ``warnings`` lists everything the
    user should review, and ``source`` names where the data came from (file name or path).
    ``unresolved`` repeats the warnings about placeholders only the editor can fill in
    (``${input:...}``, ``${workspaceFolder}`` without a workspace) in enabled servers: a
    converted file can be edited, but a client file used as it is cannot run with them.
    """

    format: str
    config: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    source: str = ""
    unresolved: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# JSON with comments


_JSONC_COMMENTS = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?(?:\*/|\Z)', re.DOTALL)
_JSONC_TRAILING_COMMA = re.compile(r'"(?:[^"\\]|\\.)*"|,(?=\s*[}\]])', re.DOTALL)


def strip_jsonc(text: str) -> str:
    """Turn JSONC (comments, trailing commas) into plain JSON.

    ``//`` and ``/* */`` comments outside strings and commas directly before ``}`` or ``]``
    are replaced by spaces (newlines are kept), so JSON error positions still point at the
    original line and column. Raises ``json.JSONDecodeError`` (a ``ValueError``) for an
    unterminated ``/*`` comment.
    """

    def blank_comment(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith('"'):
            return token
        if token.startswith("/*") and (len(token) < 4 or not token.endswith("*/")):
            raise json.JSONDecodeError("unterminated /* comment", text, match.start())
        return re.sub(r"[^\n]", " ", token)

    def blank_comma(match: re.Match[str]) -> str:
        token = match.group(0)
        return token if token.startswith('"') else " "

    without_comments = _JSONC_COMMENTS.sub(blank_comment, text)
    return _JSONC_TRAILING_COMMA.sub(blank_comma, without_comments)


def _parse_json(text: str, name: str) -> Any:
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise ClientConfigError(f"{name}: the file is empty; {_EXPECTED}")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return json.loads(strip_jsonc(text))
    except json.JSONDecodeError as exc:
        raise ClientConfigError(
            f"{name}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            f"{_EXPECTED}"
        ) from None


# --------------------------------------------------------------------------------------------
# Format detection


def _has_project_servers(data: Mapping[str, Any]) -> bool:
    projects = data.get("projects")
    if not isinstance(projects, Mapping):
        return False
    return any(
        isinstance(project, Mapping) and isinstance(project.get("mcpServers"), Mapping)
        for project in projects.values()
    )


def is_client_config(data: object) -> bool:
    """True if ``data`` (parsed JSON) looks like an MCP client's server list.

    That is a mapping holding an ``mcpServers`` object, a ``servers`` object, an ``mcp``
    object with ``servers``, or (``~/.claude.json``) ``projects`` whose entries hold
    ``mcpServers``. A mapping with Manifold's own ``upstreams`` key is never a client config.
    """
    if not isinstance(data, Mapping) or "upstreams" in data:
        return False
    if isinstance(data.get("mcpServers"), Mapping) or isinstance(data.get("servers"), Mapping):
        return True
    mcp = data.get("mcp")
    if isinstance(mcp, Mapping) and isinstance(mcp.get("servers"), Mapping):
        return True
    return _has_project_servers(data)


def _pure_path(filename: str) -> PurePath:
    if "\\" in filename and "/" not in filename:
        return PureWindowsPath(filename)
    return PurePosixPath(filename)


def _format_hint(filename: str) -> str | None:
    if not filename:
        return None
    path = _pure_path(filename)
    base = path.name.lower()
    parent = path.parent.name.lower()
    if base == "claude_desktop_config.json":
        return FORMAT_CLAUDE_DESKTOP
    if base in {".claude.json", ".mcp.json"}:
        return FORMAT_CLAUDE_CODE
    if parent == ".cursor":
        return FORMAT_CURSOR
    if base == "mcp.json" and parent in {".vscode", "user"}:
        return FORMAT_VSCODE
    if base == "settings.json":
        return FORMAT_VSCODE_SETTINGS
    return None


def _workspace_for(filename: str) -> str | None:
    """The workspace folder a ``.vscode/mcp.json`` or ``.cursor/mcp.json`` belongs to."""
    if not filename:
        return None
    path = _pure_path(filename)
    if not path.is_absolute() or path.parent.name.lower() not in {".vscode", ".cursor"}:
        return None
    workspace = path.parent.parent
    try:
        if Path(str(workspace)) == Path.home():  # ~/.cursor/mcp.json is Cursor's global file
            return None
    except RuntimeError:  # no home directory known
        pass
    return str(workspace)


# --------------------------------------------------------------------------------------------
# Conversion


@dataclass
class _Context:
    name: str  # the file name used in messages
    format: str
    workspace: str | None
    inputs: dict[str, Mapping[str, Any]]
    warnings: list[str] = field(default_factory=list)
    upstreams: dict[str, dict[str, Any]] = field(default_factory=dict)
    # raw client name -> (scope label, raw entry, upstream name) for clash reporting
    seen: dict[str, tuple[str, Any, str]] = field(default_factory=dict)
    entries: int = 0
    reserved: set[str] = field(default_factory=set)  # valid client names, kept as they are
    unresolved: list[str] = field(default_factory=list)  # placeholders left as they were

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def warn_unresolved(self, message: str) -> None:
        self.warn(message)
        if message not in self.unresolved:
            self.unresolved.append(message)


def sanitize_name(name: str) -> str:
    """Make a client's server name a valid upstream name (``^[A-Za-z0-9_-]{1,64}$``).

    Runs of other characters become one ``-``, leading/trailing ``-`` are dropped, the result
    is cut to 64 characters, and an empty result becomes ``server``.
    """
    if NAME_RE.match(name):
        return name
    cleaned = _NAME_BAD_CHARS.sub("-", name).strip("-")[:64].strip("-")
    return cleaned or "server"


def _unique_name(base: str, taken: set[str]) -> str:
    if base not in taken:
        return base
    n = 2
    while True:
        suffix = f"-{n}"
        candidate = base[: 64 - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
        n += 1


# VS Code's predefined variables (Cursor uses a subset). They win over same-named env
# references: nobody names an environment variable "workspaceFolder".
_EDITOR_VARIABLES = frozenset(
    {
        "workspaceFolder",
        "workspaceFolderBasename",
        "userHome",
        "pathSeparator",
        "/",
        "cwd",
        "execPath",
        "file",
        "fileWorkspaceFolder",
        "relativeFile",
        "relativeFileDirname",
        "fileBasename",
        "fileBasenameNoExtension",
        "fileExtname",
        "fileDirname",
        "fileDirnameBasename",
        "lineNumber",
        "selectedText",
        "defaultBuildTask",
    }
)
_PLACEHOLDER = re.compile(r"\$\{([^${}]*)\}")
_PLAIN_ENV = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?::-.*)?", re.DOTALL)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _suggest_env_name(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper()
    if not name or name[0].isdigit():
        name = "VAR_" + name
    return name


class _Translator:
    """Rewrites client placeholders in one server's strings into Manifold's ``${NAME}``."""

    def __init__(self, ctx: _Context, label: str) -> None:
        self.ctx = ctx
        self.label = label

    def __call__(self, value: str, where: str, env_key: str | None = None) -> str:
        def replace(match: re.Match[str]) -> str:
            inner = match.group(1)
            token = match.group(0)
            if inner not in _EDITOR_VARIABLES and _PLAIN_ENV.fullmatch(inner):
                return token  # already ${NAME} (or ${NAME:-default}): Manifold's syntax
            kind, _, arg = inner.partition(":")
            if kind == "env" and _ENV_NAME.fullmatch(arg):
                return "${" + arg + "}"
            if kind == "input" and arg:
                self._warn_input(arg, where, env_key)
                return token
            if inner == "workspaceFolder" and self.ctx.workspace is not None:
                return self.ctx.workspace
            if inner == "workspaceFolderBasename" and self.ctx.workspace is not None:
                return _pure_path(self.ctx.workspace).name
            if inner == "userHome":
                return "${USERPROFILE}" if os.name == "nt" else "${HOME}"
            if inner in {"pathSeparator", "/"}:
                return os.sep
            if inner.startswith("workspaceFolder"):
                self.ctx.warn_unresolved(
                    f"{self.label}: {where} uses {token}, which only the editor knows; "
                    "replace it with the workspace's path"
                )
                return token
            self.ctx.warn_unresolved(
                f"{self.label}: {where} uses {token}, which Manifold cannot resolve; "
                "replace it with a value or an environment reference such as ${NAME}"
            )
            return token

        return _PLACEHOLDER.sub(replace, value)

    def _warn_input(self, input_id: str, where: str, env_key: str | None) -> None:
        spec = self.ctx.inputs.get(input_id)
        details = ""
        if spec is not None:
            parts: list[str] = []
            description = spec.get("description")
            if isinstance(description, str) and description:
                parts.append(json.dumps(description, ensure_ascii=False))
            if spec.get("password") is True:
                parts.append("secret")
            if parts:
                details = f" ({', '.join(parts)})"
        else:
            details = " (not declared in inputs)"
        suggestion = env_key if env_key and _ENV_NAME.fullmatch(env_key) else None
        suggestion = suggestion or _suggest_env_name(input_id)
        self.ctx.warn_unresolved(
            f"{self.label}: {where} uses ${{input:{input_id}}}{details}, a value the editor "
            "prompts for; Manifold cannot resolve it. Replace it with the value or an "
            f"environment reference such as ${{{suggestion}}} and export {suggestion}"
        )


def _scalar_text(value: object) -> str | None:
    """JSON scalars as the text a client would pass on; ``None`` for anything else."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return json.dumps(value)
    return None


def _string_map(
    raw: object, field_name: str, label: str, ctx: _Context, tr: _Translator, *, env: bool
) -> dict[str, str] | None:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        ctx.warn(f"{label}: {field_name} is not an object; skipped this server")
        return None
    out: dict[str, str] = {}
    for key, value in raw.items():
        text = _scalar_text(value)
        if text is None:
            if value is None and env:
                ctx.warn(
                    f"{label}: env.{key} is null (unset the variable); Manifold cannot "
                    "express that, so it was left out"
                )
            else:
                ctx.warn(f"{label}: {field_name}.{key} is not a string; left out")
            continue
        out[str(key)] = tr(text, f"{field_name}.{key}", env_key=str(key) if env else None)
    return out


def _server_kind(entry: Mapping[str, Any], label: str, ctx: _Context) -> str | None:
    """'stdio', 'streamable-http' or 'sse' (None: skip, with a warning recorded)."""
    url = entry.get("url", entry.get("serverUrl"))
    command = entry.get("command")
    raw_type = entry.get("type")
    if raw_type is not None:
        if not isinstance(raw_type, str):
            ctx.warn(f"{label}: type {raw_type!r} is not a string; skipped this server")
            return None
        kind = raw_type.strip().lower()
        if kind in _STDIO_TYPES:
            return "stdio"
        if kind in _HTTP_TYPES:
            return "streamable-http"
        if kind in _SSE_TYPES:
            return "sse"
        ctx.warn(
            f"{label}: type {raw_type!r} is not supported (expected stdio, http or sse); "
            "skipped this server"
        )
        return None
    if command is not None:
        if url is not None:
            ctx.warn(f"{label}: has both command and url and no type; used command")
        return "stdio"
    if isinstance(url, str):
        path = urlsplit(url).path.rstrip("/")
        return "sse" if path.endswith("/sse") else "streamable-http"
    import difflib  # (only to suggest a name: not held by a running gateway)

    known = {k.lower(): k for k in ("command", "url", "serverUrl")}
    hints = [
        f"{known[close[0]]!r} instead of {key!r}"
        for key in entry
        if isinstance(key, str)
        for close in [difflib.get_close_matches(key.lower(), known, n=1)]
        if close
    ]
    hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
    ctx.warn(f"{label}: has neither command nor url{hint}; skipped this server")
    return None


def _convert_stdio(
    entry: Mapping[str, Any], label: str, ctx: _Context, tr: _Translator
) -> dict[str, Any] | None:
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        ctx.warn(f"{label}: stdio server without a command; skipped this server")
        return None
    out: dict[str, Any] = {"command": tr(command, "command")}

    raw_args = entry.get("args")
    args: list[str] = []
    if isinstance(raw_args, str):
        try:
            args = shlex.split(raw_args)
        except ValueError:
            args = raw_args.split()
        ctx.warn(f"{label}: args is a single string; split it into {args!r}, check it")
    elif isinstance(raw_args, list):
        for i, arg in enumerate(raw_args):
            text = _scalar_text(arg)
            if text is None:
                ctx.warn(f"{label}: args[{i}] is not a string; skipped this server")
                return None
            args.append(text)
    elif raw_args is not None:
        ctx.warn(f"{label}: args is not a list; skipped this server")
        return None
    if args:
        out["args"] = [tr(arg, f"args[{i}]") for i, arg in enumerate(args)]

    env = _string_map(entry.get("env"), "env", label, ctx, tr, env=True)
    if env is None:
        return None
    if env:
        out["env"] = env

    cwd = entry.get("cwd")
    if isinstance(cwd, str) and cwd:
        out["cwd"] = tr(cwd, "cwd")
    elif cwd is not None:
        ctx.warn(f"{label}: cwd is not a string; left out")

    env_file = entry.get("envFile")
    if env_file is not None:
        shown = tr(env_file, "envFile") if isinstance(env_file, str) else repr(env_file)
        ctx.warn(
            f"{label}: envFile {shown} was not imported (Manifold has no env-file option); "
            "add its variables to env, e.g. NAME: ${NAME}, and export them where Manifold runs"
        )
    ignored = [key for key in ("url", "serverUrl", "headers") if key in entry]
    if ignored and ("type" in entry or "headers" in ignored):
        ctx.warn(f"{label}: {', '.join(ignored)} ignored, they only apply to remote servers")
    return out


def _convert_remote(
    entry: Mapping[str, Any], kind: str, label: str, ctx: _Context, tr: _Translator
) -> dict[str, Any] | None:
    url = entry.get("url", entry.get("serverUrl"))
    if not isinstance(url, str) or not url.strip():
        ctx.warn(f"{label}: {kind} server without a url; skipped this server")
        return None
    url = tr(url.strip(), "url")
    scheme = urlsplit(url).scheme.lower()
    if scheme not in {"http", "https"} and not url.startswith("${"):
        ctx.warn(f"{label}: url {url!r} is not http(s); check it")
    out: dict[str, Any] = {"url": url, "transport": kind}
    headers = _string_map(entry.get("headers"), "headers", label, ctx, tr, env=False)
    if headers is None:
        return None
    if headers:
        out["headers"] = headers
    ignored = [key for key in ("command", "args", "env", "envFile", "cwd") if key in entry]
    if ignored:
        ctx.warn(f"{label}: {', '.join(ignored)} ignored, they only apply to stdio servers")
    return out


def _convert_entry(
    raw_name: str,
    entry: object,
    ctx: _Context,
    *,
    scope: str,
    project_dir: str | None = None,
    disabled_here: frozenset[str] = frozenset(),
) -> None:
    label = f"server {raw_name!r}" + (f" ({scope})" if scope != "top level" else "")
    ctx.entries += 1
    if not isinstance(entry, Mapping):
        ctx.warn(f"{label}: not an object; skipped this server")
        return

    previous = ctx.seen.get(raw_name)
    if previous is not None:
        prev_scope, prev_entry, prev_upstream = previous
        if prev_entry == entry:
            ctx.warn(
                f"{label}: same definition as in {prev_scope}; imported once as {prev_upstream!r}"
            )
        else:
            ctx.warn(
                f"{label}: name clash with the different server of that name in {prev_scope}, "
                f"which was kept as {prev_upstream!r}; this one was not imported (add it "
                "under another name if you need both)"
            )
        return

    kind = _server_kind(entry, label, ctx)
    if kind is None:
        return
    unresolved_before = len(ctx.unresolved)
    tr = _Translator(ctx, label)
    # Fields of the other kind (command for a remote server...) get their own warnings.
    unknown = [k for k in entry if k not in _COMMON_KEYS | _STDIO_KEYS | _REMOTE_KEYS]
    if unknown:
        ctx.warn(f"{label}: ignored fields with no Manifold equivalent: {', '.join(unknown)}")

    if kind == "stdio":
        upstream = _convert_stdio(entry, label, ctx, tr)
        if upstream is not None and project_dir is not None and "cwd" not in upstream:
            upstream["cwd"] = project_dir  # Claude Code starts project servers there
    else:
        upstream = _convert_remote(entry, kind, label, ctx, tr)
    if upstream is None:
        del ctx.unresolved[unresolved_before:]
        return

    enabled = True
    disabled = entry.get("disabled")
    if disabled is True:
        enabled = False
    elif disabled not in (None, False):
        ctx.warn(f"{label}: disabled is {disabled!r}, not true/false; treated as enabled")
    if entry.get("enabled") is False:
        enabled = False
    if raw_name in disabled_here:
        enabled = False
    upstream["enabled"] = enabled
    if not enabled:  # never started: its placeholders are only worth a warning
        del ctx.unresolved[unresolved_before:]

    name = sanitize_name(raw_name)
    taken: set[str] = set(ctx.upstreams)
    if name != raw_name:
        taken |= ctx.reserved
    unique = _unique_name(name, taken)
    if unique != raw_name:
        why = "renamed to a valid upstream name" if name == unique else "renamed (name taken)"
        ctx.warn(f"{label}: {why}: {unique!r} (names must match {NAME_RE.pattern})")
    ctx.upstreams[unique] = upstream
    ctx.seen[raw_name] = (scope, entry, unique)


def _servers_map(value: object, where: str, ctx: _Context) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ClientConfigError(
            f"{ctx.name}: {where} must be an object mapping server names to settings, "
            f"not {type(value).__name__}"
        )
    return value


def _collect_inputs(raw: object, ctx: _Context) -> None:
    if raw is None:
        return
    if not isinstance(raw, list):
        ctx.warn("inputs is not a list; ignored")
        return
    for item in raw:
        if isinstance(item, Mapping) and isinstance(item.get("id"), str):
            ctx.inputs[item["id"]] = item


def _convert(data: object, name: str, hint: str | None, workspace: str | None) -> ImportResult:
    if not isinstance(data, Mapping):
        raise ClientConfigError(
            f"{name}: the top level is a JSON {type(data).__name__}, not an object; {_EXPECTED}"
        )
    if "upstreams" in data and not _CLIENT_KEYS & set(data):
        raise ClientConfigError(
            f'{name}: this already is a Manifold config ("upstreams"); nothing to import'
        )

    ctx = _Context(name=name, format="", workspace=workspace, inputs={})
    if "upstreams" in data:
        ctx.warn('"upstreams" (Manifold\'s own key) ignored; only the client servers were imported')
    # (scope, servers, project directory, names disabled in that project), in import order
    groups: list[tuple[str, Mapping[str, Any], str | None, frozenset[str]]] = []
    mcp = data.get("mcp")
    if "mcpServers" in data or _has_project_servers(data):
        if hint in {FORMAT_CLAUDE_DESKTOP, FORMAT_CLAUDE_CODE, FORMAT_CURSOR}:
            ctx.format = hint
        elif "projects" in data:
            ctx.format = FORMAT_CLAUDE_CODE
        else:
            ctx.format = FORMAT_MCP_SERVERS
        if "mcpServers" in data:
            servers = _servers_map(data["mcpServers"], '"mcpServers"', ctx)
            groups.append(("top level", servers, None, frozenset()))
        projects = data.get("projects")
        if isinstance(projects, Mapping):
            for project_path, project in projects.items():
                if not isinstance(project, Mapping) or "mcpServers" not in project:
                    continue
                scope = f"project {project_path}"
                servers = _servers_map(project["mcpServers"], f'"{scope}" mcpServers', ctx)
                disabled_list = project.get("disabledMcpServers")
                disabled_here = (
                    frozenset(d for d in disabled_list if isinstance(d, str))
                    if isinstance(disabled_list, list)
                    else frozenset()
                )
                groups.append((scope, servers, str(project_path), disabled_here))
        if "servers" in data:
            ctx.warn('"servers" ignored: the file also has "mcpServers", which was imported')
    elif "servers" in data:
        ctx.format = FORMAT_VSCODE
        _collect_inputs(data.get("inputs"), ctx)
        groups.append(
            ("top level", _servers_map(data["servers"], '"servers"', ctx), None, frozenset())
        )
    elif isinstance(mcp, Mapping) and "servers" in mcp:
        ctx.format = FORMAT_VSCODE_SETTINGS
        _collect_inputs(mcp.get("inputs"), ctx)
        servers = _servers_map(mcp["servers"], '"mcp.servers"', ctx)
        groups.append(("top level", servers, None, frozenset()))
    else:
        keys = ", ".join(repr(k) for k in list(data)[:8]) or "none"
        raise ClientConfigError(
            f"{name}: not an MCP client config: {_EXPECTED}; top-level keys found: {keys}"
        )

    # Names that are valid as they are keep them; sanitized names go around them.
    ctx.reserved = {str(n) for _, servers, _, _ in groups for n in servers if NAME_RE.match(str(n))}
    for scope, servers, project_dir, disabled_here in groups:
        for raw_name, entry in servers.items():
            _convert_entry(
                str(raw_name),
                entry,
                ctx,
                scope=scope,
                project_dir=project_dir,
                disabled_here=disabled_here,
            )
        for other in sorted(disabled_here - set(servers)):
            if other in ctx.seen:
                ctx.warn(
                    f"server {other!r}: disabled only in {scope}; Manifold serves one "
                    "list for every project, so it was left enabled"
                )

    if ctx.entries == 0:
        ctx.warn(f"{name}: no MCP servers found")
    elif not ctx.upstreams:
        ctx.warn(f"{name}: none of the {ctx.entries} servers could be imported")
    return ImportResult(
        format=ctx.format,
        config={"upstreams": ctx.upstreams},
        warnings=ctx.warnings,
        source=name,
        unresolved=ctx.unresolved,
    )


# --------------------------------------------------------------------------------------------
# Public entry points


def parse_client_data(data: object, filename: str = "") -> ImportResult:
    """Convert already-parsed client config data (``filename`` is a naming and format hint).

    This is what the gateway's ``--config`` uses for files ``is_client_config`` accepts.
    """
    return _convert(data, filename or "<config>", _format_hint(filename), _workspace_for(filename))


def parse_client_config(text: str, filename: str = "") -> ImportResult:
    """Parse a client config's text (JSON or JSONC) and convert it.

    ``filename`` is used in messages and as a hint for the format; if it is an absolute path
    inside a ``.vscode`` or ``.cursor`` folder, ``${workspaceFolder}`` is resolved to that
    folder's parent.
    """
    name = filename or "<config>"
    return _convert(_parse_json(text, name), name, _format_hint(filename), _workspace_for(filename))


def _decode(raw: bytes, name: str) -> str:
    try:
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            return raw.decode("utf-16")
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ClientConfigError(f"{name}: not UTF-8 text ({exc.reason})") from None


def load_client_config(path: Path) -> ImportResult:
    """Read and convert one client config file. Raises ``ClientConfigError`` on any problem."""
    name = str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ClientConfigError(f"{name}: file not found") from None
    except IsADirectoryError:
        raise ClientConfigError(f"{name}: is a directory, not a config file") from None
    except OSError as exc:
        raise ClientConfigError(f"{name}: cannot read ({exc.strerror or exc})") from None
    data = _parse_json(_decode(raw, name), name)
    return _convert(data, name, _format_hint(name), _workspace_for(str(path.absolute())))


def to_yaml(result: ImportResult) -> str:
    """Manifold YAML for ``result``, with a header naming the source and listing warnings."""

    def comment(text: str) -> str:
        return " ".join(text.split())

    label = FORMAT_LABELS.get(result.format, result.format)
    lines = [
        "# Manifold configuration written by `manifold import`.",
        f"# Source: {comment(result.source or '<config>')}",
        f"# Format: {comment(label)}",
    ]
    if result.warnings:
        lines.append("#")
        lines.append("# Review these before use:")
        lines.extend(f"#   - {comment(w)}" for w in result.warnings)
    lines.append("")
    body = yaml.safe_dump(
        result.config,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=4096,
    )
    return "\n".join(lines) + "\n" + body


#: Another name for ``parse_client_data``.
convert_client_config = parse_client_data
