"""The `manifold` command line: run, serve, check, tools, report, import."""

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
        cfg = cfg.model_copy(update={"prefix": False})
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
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):  # SIGHUP reloads the config
        loop.add_signal_handler(sig, stop.set)


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
        reloader.watch(gw.config.reload.debounce)
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
        from manifold.downstream.stdio import StdioFront
        from manifold.gateway import Gateway

        gw = Gateway(cfg, exposure_override=exposure)
        gw.freeze_gc = True
        front = StdioFront(gw)
        stop = asyncio.Event()
        _install_stop_signals(stop)
        reloader = _start_reloader(
            gw, config, lambda c: c.model_copy(update={"prefix": False}) if no_prefix else c
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
    help="Allow binding beyond loopback with no http.allowed_hosts (there is no authentication).",
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
    log_level: str,
) -> None:
    """Serve MCP over Streamable HTTP at /mcp (both protocol eras)."""
    _setup_logging(log_level)
    return_large_buffers()
    cfg = _load_to_serve(config, no_prefix)
    http = cfg.http.model_copy(
        update={k: v for k, v in (("host", host), ("port", port)) if v is not None}
    )
    cfg = cfg.model_copy(update={"http": http})
    if not _is_loopback(http.host) and not http.allowed_hosts and not allow_remote:
        raise UserError(
            f"refusing to serve on {http.host}, beyond loopback, with no http.allowed_hosts: "
            "anyone who can reach it could use every upstream. List the names clients use in "
            "http.allowed_hosts, or pass --allow-remote to bind anyway."
        )

    async def main_() -> None:
        from manifold.downstream.http import HttpFront
        from manifold.gateway import Gateway

        gw = Gateway(cfg, exposure_override=exposure)
        gw.freeze_gc = True
        front = HttpFront(gw)
        stop = asyncio.Event()
        _install_stop_signals(stop)
        try:
            await front.start()
        except OSError as e:  # port taken, address not local, host name unknown
            await front.stop()
            where = f"{front.host}:{front.port}"
            why = os.strerror(e.errno) if e.errno and e.errno > 0 else e.strerror or str(e)
            raise UserError(f"cannot listen on {where}: {why}") from None

        def adjust(c: GatewayConfig) -> GatewayConfig:
            if no_prefix:
                c = c.model_copy(update={"prefix": False})
            cli = {k: v for k, v in (("host", host), ("port", port)) if v is not None}
            return c.model_copy(update={"http": c.http.model_copy(update=cli)})

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


if __name__ == "__main__":  # pragma: no cover
    main()
