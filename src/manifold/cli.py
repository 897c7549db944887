"""The `manifold` command line: run, serve, check, tools, report, import, audit, pins,
honeytoken."""

from __future__ import annotations

import asyncio
import gc
import ipaddress
import json
import logging
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import click

from manifold import __version__
from manifold.config import ConfigError, GatewayConfig, load_config
from manifold.memory import return_large_buffers

log = logging.getLogger("manifold")

LOG_LEVELS = ["debug", "info", "warning", "error", "critical"]


class UserError(click.ClickException):
    """A problem with what the user gave (a config, a path, a port): one line, exit code 2."""

    exit_code = 2


def _plain() -> bool:
    """Tables become tab-separated lines when stdout is not a terminal (no cut at 80 columns)."""
    return not sys.stdout.isatty()


def _print_rows(headers: list[str], rows: list[list[str]]) -> None:
    """A table on a terminal; tab-separated lines, headers first, anywhere else."""
    if _plain():
        for row in [headers, *rows]:
            click.echo("\t".join(" ".join(cell.split()) for cell in row))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(*headers)
    for row in rows:
        table.add_row(*row)
    Console().print(table)


def _setup_logging(level: str, json_logs: bool = False) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if json_logs:
        from manifold.logs import JsonFormatter

        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def _warn_stderr(message: str) -> None:
    click.echo(f"warning: {message}", err=True)


def _warn_log(message: str) -> None:
    log.warning("%s", message)


def _load(
    config: str, no_prefix: bool, warn: Callable[[str], None] = _warn_stderr
) -> GatewayConfig:
    """Load a config; each entry a client file's import dropped or ignored goes to `warn`."""
    warnings: list[str] = []
    try:
        cfg = load_config(config, warnings=warnings)
    except ConfigError as e:
        raise UserError(str(e)) from None
    for w in warnings:
        warn(w)
    if no_prefix:
        cfg = cfg.replace(prefix=False)
    return cfg


def _load_to_serve(config: str, no_prefix: bool) -> GatewayConfig:
    """`_load` for `run` and `serve`: warnings are logged; the state file's folder must be
    usable now rather than at the first write, minutes later."""
    cfg = _load(config, no_prefix, _warn_log)
    if not cfg.enabled_upstreams:
        log.warning("%s: no usable upstream: the gateway has nothing to serve", config)
    if cfg.state.path:
        folder = Path(os.path.expanduser(cfg.state.path)).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UserError(
                f"{config}: state.path: cannot create {folder} ({e.strerror or e})"
            ) from None
        if not os.access(folder, os.W_OK | os.X_OK):
            raise UserError(f"{config}: state.path: {folder} is not writable")
    return cfg


def _run_async(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    # Fewer young-generation collections: the relay allocates many short-lived containers.
    gc.set_threshold(20_000, 20, 20)
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover - uvloop is optional on exotic platforms
        pass
    try:
        asyncio.run(main())
    except ConfigError as e:  # found while building the gateway (e.g. its audit file)
        raise UserError(str(e)) from None


def _install_stop_signals(stop: asyncio.Event) -> None:
    """SIGTERM and SIGINT set `stop` from here on. A SIGINT that came before (asyncio's own
    handler then cancelled the main task, and a start step may absorb that cancellation, so
    the gateway went on serving with the signal lost) sets it at once."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):  # SIGHUP reloads the config
        loop.add_signal_handler(sig, stop.set)
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        stop.set()


def _start_reloader(gw: Any, config: str, adjust: Callable[[GatewayConfig], GatewayConfig]) -> Any:
    """SIGHUP, and a change of the config file (`reload.watch`), reload the config."""
    from manifold.reload import Reloader

    def load() -> GatewayConfig:
        warnings: list[str] = []
        cfg = adjust(load_config(config, warnings=warnings))
        for w in warnings:
            log.warning("%s", w)
        return cfg

    reloader = Reloader(gw, load, config)
    asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, reloader.trigger)
    if gw.config.reload.watch:
        reloader.watch(gw.config.reload.debounce, gw.config.reload.poll_interval)
    return reloader


config_option = click.option(
    "--config",
    "-c",
    "config",
    required=True,
    type=click.Path(dir_okay=False),
    help="Manifold YAML/TOML config, or a client's mcpServers JSON file as it is.",
)
no_prefix_option = click.option(
    "--no-prefix",
    is_flag=True,
    help="Pass tool, prompt and resource names unchanged (a collision is a config error).",
)
log_option = click.option(
    "--log-level",
    default="warning",
    show_default=True,
    type=click.Choice(LOG_LEVELS, case_sensitive=False),
    help="stderr log level.",
)
exposure_option = click.option(
    "--exposure",
    type=click.Choice(["auto", "router", "passthrough", "hybrid"]),
    default=None,
    help="Exposure mode for every client, overriding the config and the client table.",
)


@click.group()
@click.version_option(__version__, prog_name="manifold")
def main() -> None:
    """Manifold: one MCP endpoint in front of many MCP servers."""


@main.command()
@config_option
@no_prefix_option
@exposure_option
@log_option
def run(config: str, no_prefix: bool, exposure: str | None, log_level: str) -> None:
    """Serve MCP on stdin/stdout (put this in your IDE's MCP config)."""
    _setup_logging(log_level)
    if sys.stdin.isatty():
        click.echo(
            "manifold run speaks MCP on stdin/stdout for an MCP client (put it in your IDE's "
            "MCP config); to try a config by hand use `manifold check` or `manifold serve`. "
            "Ctrl-D or Ctrl-C to stop.",
            err=True,
        )
    cfg = _load_to_serve(config, no_prefix)

    async def main_() -> None:
        stop = asyncio.Event()
        _install_stop_signals(stop)  # first: building the gateway takes a while
        from manifold.downstream.stdio import StdioFront
        from manifold.gateway import Gateway

        gw = Gateway(cfg, exposure_override=exposure)
        gw.freeze_gc = True
        front = StdioFront(gw)
        reloader = _start_reloader(
            gw, config, lambda c: c.replace(prefix=False) if no_prefix else c
        )
        stopper = asyncio.ensure_future(stop.wait())
        stopper.add_done_callback(lambda _t: front.closed.set())
        await front.serve()
        stopper.cancel()
        await reloader.close()

    _run_async(main_)


@main.command()
@config_option
@no_prefix_option
@exposure_option
@click.option("--host", default=None, help="Bind address (default 127.0.0.1, loopback only).")
@click.option("--port", default=None, type=click.IntRange(0, 65535), help="Port (default 8765).")
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow binding beyond loopback with no http.allowed_hosts.",
)
@click.option(
    "--allow-unauthenticated",
    is_flag=True,
    help="Allow binding beyond loopback with no auth configured (anyone who reaches it may call).",
)
@click.option(
    "--log-level",
    default="info",
    show_default=True,
    type=click.Choice(LOG_LEVELS, case_sensitive=False),
)
def serve(
    config: str,
    no_prefix: bool,
    exposure: str | None,
    host: str | None,
    port: int | None,
    allow_remote: bool,
    allow_unauthenticated: bool,
    log_level: str,
) -> None:
    """Serve MCP over Streamable HTTP at /mcp (both protocol eras)."""
    _setup_logging(log_level)
    return_large_buffers()
    cfg = _load_to_serve(config, no_prefix)
    http = cfg.http.replace(**{k: v for k, v in (("host", host), ("port", port)) if v is not None})
    cfg = cfg.replace(http=http)
    if not _is_loopback(http.host) and not http.allowed_hosts and not allow_remote:
        raise UserError(
            f"refusing to serve on {http.host}, beyond loopback, with no http.allowed_hosts: "
            "anyone who can reach it could use every upstream. List the names clients use in "
            "http.allowed_hosts, or pass --allow-remote to bind anyway."
        )
    if not _is_loopback(http.host) and not cfg.auth.enabled and not allow_unauthenticated:
        raise UserError(
            f"refusing to serve on {http.host}, beyond loopback, with no authentication: "
            "anyone who can reach it could use every upstream. Configure auth.keys or "
            "auth.oauth (docs/auth.md), or pass --allow-unauthenticated to bind anyway."
        )
    for i, key in enumerate(cfg.auth.keys):
        if key.env is not None and not os.environ.get(key.env):
            raise UserError(f"auth.keys[{i}].env: environment variable {key.env} is not set")

    async def main_() -> None:
        stop = asyncio.Event()
        _install_stop_signals(stop)  # first: building the gateway takes a while
        from manifold.downstream.http import HttpFront
        from manifold.gateway import Gateway

        gw = Gateway(cfg, exposure_override=exposure)
        gw.freeze_gc = True
        front = HttpFront(gw)
        try:
            await front.start()
        except OSError as e:  # port taken, address not local, host name unknown
            await front.stop()
            where = f"{front.host}:{front.port}"
            why = os.strerror(e.errno) if e.errno and e.errno > 0 else e.strerror or str(e)
            raise UserError(f"cannot listen on {where}: {why}") from None

        def adjust(c: GatewayConfig) -> GatewayConfig:
            if no_prefix:
                c = c.replace(prefix=False)
            cli = {k: v for k, v in (("host", host), ("port", port)) if v is not None}
            return c.replace(http=c.http.replace(**cli))

        reloader = _start_reloader(gw, config, adjust)
        click.echo(
            f"Manifold {__version__} serving MCP at {front.url} "
            f"({len(cfg.enabled_upstreams)} upstreams). Point a client at it, e.g.:\n"
            f'  {{"mcpServers": {{"manifold": {{"type": "http", "url": "{front.url}"}}}}}}\n'
            "Ctrl-C to stop.",
            err=True,
        )
        try:
            await stop.wait()
        finally:
            await reloader.close()
            await front.stop()

    _run_async(main_)


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost: it may resolve beyond loopback


async def _connect_all(cfg: GatewayConfig) -> Any:
    from manifold.gateway import Gateway

    gw = Gateway(cfg)
    await gw.start()
    await gw.ensure_lazy()
    return gw


@main.command()
@config_option
@no_prefix_option
@click.option("--offline", is_flag=True, help="Only validate the file; do not start upstreams.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def check(config: str, no_prefix: bool, offline: bool, as_json: bool) -> None:
    """Validate a config and show what each upstream exposes."""
    _setup_logging("error")
    warnings: list[str] = []
    cfg = _load(config, no_prefix, warnings.append)
    for w in warnings:
        _warn_stderr(w)
    upstreams: dict[str, dict[str, Any]] = {
        name: {"transport": u.kind, "enabled": u.enabled} for name, u in cfg.upstreams.items()
    }
    result: dict[str, Any] = {"config": config, "upstreams": upstreams, "warnings": warnings}
    if not cfg.enabled_upstreams:
        if as_json:
            click.echo(json.dumps({**result, "ok": False}, indent=2))
        raise UserError(f"{config}: no usable upstream")
    red = cfg.security.redaction
    if red.enabled and red.disable:  # checked when the addon is built: `run` would refuse
        from manifold.security.secret_rules import NAMES

        unknown = sorted(set(red.disable) - NAMES)
        if unknown:
            raise UserError(
                f"{config}: security.redaction.disable: unknown rule(s) {', '.join(unknown)} "
                "(docs/security.md lists the built-in rules)"
            )
    if not offline:

        async def main_() -> None:
            gw = await _connect_all(cfg)
            try:
                result["collisions"] = _collisions(gw)
                for name, up in gw.upstreams.items():
                    d = up.session.description if up.session else None
                    upstreams[name].update(
                        state=up.state,
                        era=d.era.value if d else None,
                        protocol_version=d.protocol_version if d else None,
                        **{
                            kind: len(gw.catalog.upstream_items(name, kind))
                            for kind in ("tools", "prompts", "resources")
                        },
                        error=up.last_error,
                    )
                for addon in gw.hooks.addons:  # circuits and the cache, when they are on
                    if callable(report := getattr(addon, "health", None)):
                        result.update(report())
            finally:
                await gw.stop()

        _run_async(main_)
    collisions: list[str] = result.get("collisions", [])
    failed = [n for n, u in upstreams.items() if u.get("state", "ready") != "ready"]
    if as_json:
        click.echo(json.dumps({**result, "ok": not (failed or collisions)}, indent=2))
    elif offline:
        click.echo(f"config OK: {config} ({len(cfg.upstreams)} upstreams)")
        _print_rows(
            ["upstream", "transport", "enabled"],
            [[n, u["transport"], "yes" if u["enabled"] else "no"] for n, u in upstreams.items()],
        )
    else:
        click.echo(f"config OK: {config} ({len(cfg.upstreams)} upstreams)")
        headers = ["upstream", "transport", "state", "era", "tools", "prompts", "resources"]
        rows = [
            [
                n,
                u["transport"],
                u.get("state", "disabled"),
                f"{u['era']} {u['protocol_version']}" if u.get("era") else "-",
                *(str(u.get(k, "-")) for k in ("tools", "prompts", "resources")),
                u.get("error") or "",
            ]
            for n, u in upstreams.items()
        ]
        _print_rows([*headers, "error"], rows)
        for n, u in upstreams.items():
            if u.get("state", "ready") != "ready" and u.get("error"):
                click.echo(f"{n}: {u['error']}")  # whole, where a table cuts it
        for n, c in result.get("circuits", {}).items():
            wait = f" (next try in {c['retry_after']} s)" if "retry_after" in c else ""
            click.echo(f"circuit {n}: {c['state']}{wait}")
        for n, members in result.get("replicas", {}).items():
            click.echo(f"replicas {n}: " + ", ".join(f"{m['name']} {m['state']}" for m in members))
    if collisions:
        raise click.ClickException("name collisions with --no-prefix: " + ", ".join(collisions))
    if failed:
        raise click.ClickException("upstreams not ready: " + ", ".join(failed))


def _collisions(gw: Any) -> list[str]:
    if gw.config.prefix:
        return []
    seen: dict[str, str] = {}
    out = []
    for name in gw.upstreams:
        for kind in ("tools", "prompts"):
            for item in gw.catalog.upstream_items(name, kind):
                key = f"{kind}:{item.get('name')}"
                if key in seen and seen[key] != name:
                    out.append(f"{item.get('name')} ({seen[key]} and {name})")
                seen[key] = name
    return out


@main.command()
@config_option
@no_prefix_option
@click.option("--json", "as_json", is_flag=True, help="Print the aggregated tools/list as JSON.")
def tools(config: str, no_prefix: bool, as_json: bool) -> None:
    """Show the aggregated tool list."""
    _setup_logging("error")
    cfg = _load(config, no_prefix)
    if not cfg.enabled_upstreams:
        raise UserError(f"{config}: no usable upstream")
    listing: list[dict[str, Any]] = []
    routes: dict[str, Any] = {}
    failed: dict[str, str] = {}

    async def main_() -> None:
        gw = await _connect_all(cfg)
        try:
            listing.extend(gw.catalog.tools)
            routes.update(gw.catalog.tool_routes)
            for name, up in gw.upstreams.items():
                if up.state != "ready":
                    failed[name] = up.last_error or up.state
        finally:
            await gw.stop()

    _run_async(main_)
    for name, why in failed.items():
        _warn_stderr(f"upstream {name} is not ready ({why}): its tools are missing")
    if failed and len(failed) == len(cfg.enabled_upstreams):
        raise click.ClickException("no upstream is ready: " + ", ".join(failed))
    if as_json:
        click.echo(json.dumps({"tools": listing}, indent=2))
        return
    rows = []
    for t in listing:
        desc = (t.get("description") or "").strip().splitlines()
        first = desc[0] if desc else ""
        rows.append([t["name"], routes[t["name"]].upstream, first if _plain() else first[:80]])
    _print_rows(["tool", "upstream", "description"], rows)
    click.echo(f"{len(listing)} tools", err=True)


@main.command()
@click.option(
    "--config",
    "-c",
    "config",
    default=None,
    type=click.Path(dir_okay=False),
    help="Read state.path from this config (the file the gateway writes).",
)
@click.option("--state", default=None, help="The SQLite state file (overrides the config).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--since",
    "since_days",
    type=click.IntRange(min=1),
    default=None,
    metavar="DAYS",
    help="Only the last DAYS days (UTC; 1 = today).",
)
def report(config: str | None, state: str | None, as_json: bool, since_days: int | None) -> None:
    """Token savings per mechanism, rebuilt from the state store."""
    import datetime as dt

    from manifold.config import StateConfig
    from manifold.economy.savings import build_report, report_tables
    from manifold.economy.store import read_totals, utc_day

    if state is None:
        state = _load(config, False).state.path if config else StateConfig().path
        if not state:
            raise UserError(
                f"{config}: state.path is empty (savings are kept in memory only): "
                "nothing to report"
            )
    since = None
    if since_days is not None:
        since = utc_day(dt.datetime.now(dt.UTC) - dt.timedelta(days=since_days - 1))
    try:
        rows = read_totals(state, since)
    except Exception as e:  # sqlite3.Error, or not a database at all
        raise UserError(f"{state}: cannot read savings ({e})") from None
    rep = build_report(rows, state, since)
    if rows is None:
        click.echo(f"no savings recorded yet: {state} does not exist", err=True)
    if as_json:
        click.echo(json.dumps(rep, indent=2))
        return
    from rich.console import Console

    # Piped: as wide as the tables are, not cut at 80 columns.
    console = Console(width=1000) if _plain() else Console()
    for table in report_tables(rep):
        console.print(table)


@main.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False), help="Write here instead of stdout."
)
def import_(path: str, output: str | None) -> None:
    """Turn a Claude Desktop / Claude Code / Cursor / VS Code MCP config into a Manifold config."""
    from manifold.importers import ClientConfigError, load_client_config, to_yaml

    try:
        res = load_client_config(Path(path))
    except ClientConfigError as e:
        raise UserError(str(e)) from None
    text = to_yaml(res)
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as e:
            raise UserError(f"{output}: cannot write ({e.strerror or e})") from None
        click.echo(f"wrote {output} ({len(res.config.get('upstreams', {}))} upstreams)", err=True)
    else:
        click.echo(text, nl=False)
    for w in res.warnings:
        click.echo(f"warning: {w}", err=True)


@main.group()
def audit() -> None:
    """The audit log (security.audit.path): check its hash chain."""


@audit.command("verify")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
def audit_verify(path: str) -> None:
    """Check every line's hash and its link to the line before; exit 1 at the first bad line."""
    from manifold.security.audit import verify

    try:
        v = verify(path)
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror or e})") from None
    if not v.ok:
        click.echo(
            f"{path}: line {v.bad_line}: {v.reason} ({v.entries} entries before it verified)",
            err=True,
        )
        sys.exit(1)
    click.echo(f"{path}: {v.entries} entries, chain intact, last hash {v.last_hash}")


# ------------------------------------------------------------------------------- pins


def _pin_store(config: str | None, pins: str | None) -> tuple[Any, GatewayConfig]:
    """The pin store the gateway of `config` uses (or the file `pins`), and that config."""
    from manifold.security.pin_store import SqlitePinStore, pins_path

    cfg = _load(config, False) if config else GatewayConfig()
    path = Path(os.path.expanduser(pins)).absolute() if pins else pins_path(cfg)
    if path is None:
        raise UserError(
            f"{config}: the pins are kept in memory only (state.path is empty and "
            "security.pins.path is not set): nothing to show or approve"
        )
    if not path.exists():
        raise UserError(f"{path}: no pins recorded yet (the gateway creates it)")
    try:
        return SqlitePinStore(path), cfg
    except Exception as e:  # sqlite3.Error, or not a database at all
        raise UserError(f"{path}: cannot open the pins ({e})") from None


def _pin_name(cfg: GatewayConfig, upstream: str, tool: str) -> str:
    from manifold.naming import exposed_name

    return exposed_name(upstream, tool, cfg.separator, cfg.prefix)


def _when(ts: float | None) -> str:
    import datetime as dt

    if not ts:
        return ""
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


pins_config_option = click.option(
    "--config",
    "-c",
    "config",
    default=None,
    type=click.Path(dir_okay=False),
    help="The gateway's config (where its pins live, its tool names).",
)
pins_path_option = click.option(
    "--pins", "pins", default=None, help="The pins file (overrides the config)."
)


@main.group()
def pins() -> None:
    """Tool pins (security.pins): list them, show held changes, approve them."""


@pins.command("list")
@pins_config_option
@pins_path_option
@click.option("--json", "as_json", is_flag=True, help="Print the pins as JSON.")
def pins_list(config: str | None, pins: str | None, as_json: bool) -> None:
    """Every pinned tool, and those held because their definition changed."""
    store, cfg = _pin_store(config, pins)
    try:
        held = {(p.upstream, p.tool): p for p in store.pending()}
        rows = []
        for p in store.pins():
            change = held.pop((p.upstream, p.tool), None)
            status = "changed: " + ", ".join(change.fields) if change else "trusted"
            if p.renamed_from and not change:
                status = f"trusted (renamed from {p.renamed_from})"
            rows.append(
                {
                    "tool": _pin_name(cfg, p.upstream, p.tool),
                    "upstream": p.upstream,
                    "status": status,
                    "held": change is not None,
                    "first_seen": _when(p.first_seen),
                    "approved": _when(p.approved),
                    "renamed_from": p.renamed_from,
                }
            )
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps({"pins": rows}, indent=2))
        return
    _print_rows(
        ["tool", "upstream", "status", "first seen", "approved"],
        [[r["tool"], r["upstream"], r["status"], r["first_seen"], r["approved"]] for r in rows],
    )
    n_held = sum(1 for r in rows if r["held"])
    click.echo(f"{len(rows)} pinned, {n_held} held (changed)", err=True)


def _selected(
    store: Any, cfg: GatewayConfig, names: tuple[str, ...], every: bool
) -> list[tuple[str, str]] | None:
    pending = store.pending()
    if every:
        return None
    by_name = {_pin_name(cfg, p.upstream, p.tool): p for p in pending}
    keys = []
    for given in names:
        name, _, digest = given.partition("@")
        change = by_name.get(name)
        if change is None:
            store.close()
            raise UserError(
                f"{name}: no held change for this tool (`manifold pins list` shows the held ones)"
            )
        if digest and not change.hash.startswith(digest.lower()):
            store.close()
            raise UserError(
                f"{name}: the held definition is now {change.hash[:12]}, not {digest}: it "
                "changed again since; read `manifold pins diff` again"
            )
        keys.append((change.upstream, change.tool))
    return keys


@pins.command("diff")
@click.argument("names", nargs=-1)
@pins_config_option
@pins_path_option
def pins_diff(names: tuple[str, ...], config: str | None, pins: str | None) -> None:
    """What changed in held tools (all, or NAMES): a unified diff of the canonical JSON."""
    import difflib

    store, cfg = _pin_store(config, pins)
    try:
        keys = _selected(store, cfg, names, not names)
        pinned = {(p.upstream, p.tool): p for p in store.pins()}
        pending = [p for p in store.pending() if keys is None or (p.upstream, p.tool) in keys]
    finally:
        store.close()
    if not pending:
        click.echo("no held changes", err=True)
        return
    for change in pending:
        name = _pin_name(cfg, change.upstream, change.tool)
        old = pinned.get((change.upstream, change.tool))
        before = _pretty(old.definition) if old else []
        after = _pretty(change.definition)
        click.echo(
            "".join(
                difflib.unified_diff(
                    before,
                    after,
                    f"{name} (pinned {_when(old.approved or old.first_seen) if old else ''})",
                    f"{name} (seen {_when(change.seen)}, {change.hash[:12]})",
                )
            ),
            nl=False,
        )


def _pretty(definition: str) -> list[str]:
    text = json.dumps(json.loads(definition), indent=2, sort_keys=True, ensure_ascii=False)
    return [line + "\n" for line in text.splitlines()]


@pins.command("approve")
@click.argument("names", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Approve every held change.")
@pins_config_option
@pins_path_option
def pins_approve(names: tuple[str, ...], every: bool, config: str | None, pins: str | None) -> None:
    """Trust the new definition of held tools (NAMES, as clients see them: server__tool).

    NAME@HASH (the hash prefix `pins diff` shows) approves only that definition, refusing if
    the tool changed again since. A running gateway serves them again within
    security.pins.poll_interval, no restart."""
    if not names and not every:
        raise UserError("name the tools to approve (server__tool ...), or pass --all")
    if names and every:
        raise UserError("give tool names or --all, not both")
    store, cfg = _pin_store(config, pins)
    try:
        keys = _selected(store, cfg, names, every)
        done = store.approve(keys)
    finally:
        store.close()
    for p in done:
        what = ", ".join(p.fields) or "definition"
        click.echo(f"approved {_pin_name(cfg, p.upstream, p.tool)} ({what} changed)")
    if not done:
        click.echo("no held changes", err=True)


# ------------------------------------------------------------------------------- honeytokens


@main.group()
def honeytoken() -> None:
    """Honeytokens (security.honeytokens): canary credentials that must never be used."""


@honeytoken.command("new")
@click.option(
    "--kind",
    type=click.Choice(["aws", "github", "slack", "openai", "generic"]),
    default="aws",
    show_default=True,
    help="The credential format to imitate.",
)
@click.option("--name", default=None, help="Its label in alerts (default: <kind>-canary-<date>).")
def honeytoken_new(kind: str, name: str | None) -> None:
    """Print a new canary in a real credential format, and the config to add.

    Plant the value where only a thief would find it; any call carrying it is refused and
    raised as an alert."""
    import datetime as dt

    from manifold.security.honeytokens import new_token

    value = new_token(kind)
    label = name or f"{kind}-canary-{dt.datetime.now(dt.UTC):%Y%m%d}"
    click.echo(value)
    click.echo(
        "\n# add to the gateway's config (or put the value in an environment variable and "
        "write value: ${VAR}):\n"
        "security:\n"
        "  honeytokens:\n"
        "    values:\n"
        f"      - {{name: {label}, value: {value}}}",
        err=True,
    )


@main.group("auth")
def auth_group() -> None:
    """Inbound authentication of the HTTP front, and logins to upstreams (docs/auth.md)."""


@auth_group.command("hash-key")
@click.option("--generate", is_flag=True, help="Make a new random key and print it too.")
def auth_hash_key(generate: bool) -> None:
    """Print the sha256 of an API key for auth.keys (the key is read from stdin)."""
    import hashlib
    import secrets

    if generate:
        key = "mf_" + secrets.token_urlsafe(32)
        click.echo(f"key:    {key}")
    else:
        if sys.stdin.isatty():
            click.echo("paste the key, then Enter:", err=True)
        key = sys.stdin.readline().strip()
        if not key:
            raise UserError("no key on stdin (or pass --generate)")
    click.echo(f"sha256: {hashlib.sha256(key.encode()).hexdigest()}")


@auth_group.command("login")
@click.argument("upstream")
@config_option
@click.option("--tenant", default="", help="Log in as this tenant (oauth.per_tenant).")
@click.option("--no-browser", is_flag=True, help="Only print the URL to open.")
@click.option(
    "--device", is_flag=True, help="The device flow: a code to enter on any device (RFC 8628)."
)
@click.option("--wait", default=300.0, show_default=True, help="Seconds to wait for the browser.")
def auth_login(
    upstream: str, config: str, tenant: str, no_browser: bool, device: bool, wait: float
) -> None:
    """Log in to an upstream that requires OAuth; its tokens are stored encrypted."""
    from manifold.credentials.login import LoginError, login
    from manifold.credentials.tokenstore import TokenStore, TokenStoreError

    cfg = _load(config, False)
    up = cfg.upstreams.get(upstream)
    if up is None:
        raise UserError(f"{config}: no upstream named {upstream!r}")
    if up.oauth is None:
        raise UserError(f"{config}: upstreams.{upstream}.oauth is not set")
    if tenant and not up.oauth.per_tenant:
        raise UserError(f"{config}: --tenant needs upstreams.{upstream}.oauth.per_tenant: true")
    try:
        store = TokenStore.open(cfg)
    except (ConfigError, TokenStoreError) as e:
        raise UserError(f"{config}: {e}") from None
    try:
        tokens = login(
            upstream,
            up,
            store,
            tenant=tenant,
            browser=not no_browser,
            device=device,
            wait=wait,
            say=lambda text: click.echo(text, err=True),
        )
    except LoginError as e:
        raise UserError(str(e)) from None
    finally:
        store.close()
    left = tokens.expires_in()
    when = f", the access token expires in {left:.0f} s" if left is not None else ""
    refresh = "with a refresh token" if tokens.refresh_token else "without a refresh token"
    who = f" as tenant {tenant}" if tenant else ""
    click.echo(f"logged in to {upstream}{who} ({refresh}{when}); tokens kept in {store.path}")


@auth_group.command("status")
@config_option
def auth_status(config: str) -> None:
    """The stored upstream logins: who, until when, whether they can be refreshed (never the
    tokens themselves)."""
    import time

    from manifold.credentials.tokenstore import TokenStore, TokenStoreError

    cfg = _load(config, False)
    try:
        store = TokenStore.open(cfg)
    except (ConfigError, TokenStoreError) as e:
        raise UserError(f"{config}: {e}") from None
    rows = []
    try:
        for upstream, tenant in store.entries():
            t = store.get(upstream, tenant)
            if t is None:
                continue
            left = t.expires_in(time.time())
            expiry = "-" if left is None else ("expired" if left <= 0 else f"in {left:.0f} s")
            refresh = "yes" if t.refresh_token else "no"
            rows.append([upstream, tenant or "-", expiry, refresh])
    except TokenStoreError as e:
        raise UserError(f"{config}: {e}") from None
    finally:
        store.close()
    if not rows:
        click.echo(f"no upstream logins in {store.path}")
        return
    _print_rows(["upstream", "tenant", "access token expires", "refresh token"], rows)


@auth_group.command("logout")
@click.argument("upstream")
@config_option
@click.option("--tenant", default="", help="The tenant's tokens (oauth.per_tenant).")
def auth_logout(upstream: str, config: str, tenant: str) -> None:
    """Forget the stored tokens of an upstream."""
    from manifold.credentials.tokenstore import TokenStore, TokenStoreError

    cfg = _load(config, False)
    try:
        store = TokenStore.open(cfg)
    except (ConfigError, TokenStoreError) as e:
        raise UserError(f"{config}: {e}") from None
    try:
        gone = store.delete(upstream, tenant)
    finally:
        store.close()
    click.echo(f"{upstream}: tokens forgotten" if gone else f"{upstream}: no tokens stored")


@main.group()
def policy() -> None:
    """The policy engine (security.policy): try a call against the rules."""


def _json_option(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise UserError(f"{what}: not JSON ({e})") from None


@policy.command("test")
@config_option
@click.option("--tool", required=True, help="The tool as a client names it: server__tool.")
@click.option("--args", "args_json", default="{}", show_default=True, help="Arguments (JSON).")
@click.option("--client", default="", help="The client's name (clientInfo.name).")
@click.option("--principal", default="", help="The tenant or token subject.")
@click.option(
    "--annotations",
    "ann_json",
    default="{}",
    help="The tool's annotations (JSON, e.g. '{\"readOnlyHint\": true}'); MCP defaults otherwise.",
)
def policy_test(
    config: str, tool: str, args_json: str, client: str, principal: str, ann_json: str
) -> None:
    """Print the decision for one call and the rule that made it."""
    from manifold.catalog import Route
    from manifold.security.policy import PolicyEngine

    cfg = _load(config, False)
    args = _json_option(args_json, "--args")
    ann = _json_option(ann_json, "--annotations")
    if not isinstance(args, dict):
        raise UserError("--args: must be a JSON object")
    if not isinstance(ann, dict):
        raise UserError("--annotations: must be a JSON object")
    names = sorted(cfg.upstreams, key=len, reverse=True)
    found = next((u for u in names if tool.startswith(u + cfg.separator)), None)
    if found is not None and cfg.prefix:
        route = Route(found, tool[len(found) + len(cfg.separator) :])
    elif not cfg.prefix and len(cfg.upstreams) == 1:
        route = Route(next(iter(cfg.upstreams)), tool)
    else:
        raise UserError(
            f"--tool {tool!r}: no upstream of {config} is named before {cfg.separator!r} "
            f"(upstreams: {', '.join(sorted(cfg.upstreams)) or 'none'})"
        )
    up = cfg.upstreams.get(route.upstream)
    own = next((n for n, o in up.overrides.items() if o.rename == route.name), None) if up else None
    if own is not None:  # renamed by an override: the rules name it as its upstream does
        route = Route(route.upstream, own)
    pc = cfg.security.policy
    engine = PolicyEngine(pc)
    engine.learn(route.upstream, [{"name": route.name, "annotations": ann}])
    d = engine.decide(route, args, client or None, principal)
    click.echo(f"decision: {d.action}")
    if d.rule is None:
        click.echo(f"rule: none matched (security.policy.default: {pc.default})")
    else:
        index = next(i for i, r in enumerate(pc.rules) if r.name == d.rule)
        click.echo(f"rule: {d.rule} (security.policy.rules.{index})")
    if d.reason:
        click.echo(f"reason: {d.reason}")
    for rule, path in d.redacted:
        click.echo(f"redacted: {path} (rule {rule})")
    if d.redacted:
        click.echo(f"forwarded arguments: {json.dumps(d.arguments, sort_keys=True)}")
    if pc.mode == "audit":
        logged = d.action != "allow" or bool(d.redacted)  # as the addon logs in audit mode
        click.echo(
            "mode: audit (the call would go through; "
            + ("this decision would be logged)" if logged else "nothing would be logged)")
        )


if __name__ == "__main__":  # pragma: no cover
    main()
