"""Two tiny demo servers built with the official SDK: `notes` (tools, a resource template, a
prompt) and `clock` (time tools with progress). Their state lives in memory."""

from __future__ import annotations

import asyncio
import datetime as dt

from mcp.server.mcpserver import Context, MCPServer


def build(name: str) -> MCPServer:
    return _notes() if name == "notes" else _clock()


def _notes() -> MCPServer:
    mcp = MCPServer(
        name="notes", version="1.0.0", instructions="A scratch notebook kept in memory."
    )
    notes: dict[str, str] = {"welcome": "Manifold puts many MCP servers behind one endpoint."}

    @mcp.tool()
    def add_note(title: str, text: str) -> str:
        """Save a note under a title (overwrites a note with the same title)."""
        notes[title] = text
        return f"saved {title!r} ({len(notes)} notes)"

    @mcp.tool()
    def list_notes() -> list[str]:
        """List the titles of all notes."""
        return sorted(notes)

    @mcp.tool()
    def search_notes(query: str) -> list[str]:
        """Find notes whose title or text contains the query (case-insensitive)."""
        q = query.lower()
        return sorted(t for t, body in notes.items() if q in t.lower() or q in body.lower())

    @mcp.resource("notes://note/{title}", mime_type="text/plain")
    def note(title: str) -> str:
        """One note's text."""
        return notes.get(title, "")

    @mcp.prompt()
    def summarize_notes() -> str:
        """Ask the model to summarize every note."""
        return "Summarize these notes:\n" + "\n".join(f"- {t}: {b}" for t, b in notes.items())

    return mcp


def _clock() -> MCPServer:
    mcp = MCPServer(name="clock", version="1.0.0", instructions="Time and timers.")

    @mcp.tool()
    def now(tz_offset_hours: float = 0.0) -> str:
        """The current time in ISO 8601 at a UTC offset in hours."""
        tz = dt.timezone(dt.timedelta(hours=tz_offset_hours))
        return dt.datetime.now(tz).isoformat(timespec="seconds")

    @mcp.tool()
    async def countdown(seconds: int, ctx: Context) -> str:
        """Count down, reporting progress each second (at most 30)."""
        seconds = max(0, min(seconds, 30))
        for i in range(seconds):
            await ctx.report_progress(
                progress=i + 1, total=seconds, message=f"{seconds - i - 1} s left"
            )
            await asyncio.sleep(1)
        return "ring!"

    return mcp
