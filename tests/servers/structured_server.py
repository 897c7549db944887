"""A real MCP server (official SDK) whose tools declare an outputSchema and return
structuredContent, for the response governor's tests.

- `get_time(timezone)`: a time answer shaped like a time server's (fixed, so that a repeat is
  byte-identical); the SDK checks structuredContent against the schema on the client side.
- `inventory(count)`: `inventory(count)`, a large structured result (a list of rows), the same
  every time;
- `inventory_slowly(count)`: the same after a progress notification, so that over Streamable
  HTTP (`--http --port N`) the answer comes on an SSE stream in either era.

The generators are importable, so a test can compare what it reads back.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from typing_extensions import TypedDict  # pydantic needs it for nested dicts on 3.11


class TimeResult(TypedDict):
    timezone: str
    datetime: str
    day_of_week: str
    is_dst: bool
    utc_offset: str
    source: str


class Row(TypedDict):
    sku: str
    name: str
    quantity: int
    warehouse: str


class Inventory(TypedDict):
    count: int
    rows: list[Row]


def time_result(timezone: str) -> TimeResult:
    return {
        "timezone": timezone,
        "datetime": "2026-12-01T14:05:09+01:00",
        "day_of_week": "Tuesday",
        "is_dst": False,
        "utc_offset": "+01:00",
        "source": "the structured test server's fixed clock, the same on every call, "
        "so that a second call returns exactly the same result as the first one",
    }


def inventory(count: int) -> Inventory:
    rows: list[Row] = [
        {
            "sku": f"SKU-{i:05d}",
            "name": f"Widget model {i} (café, 日本語)",
            "quantity": (i * 37) % 101,
            "warehouse": ["north", "south", "east"][i % 3],
        }
        for i in range(count)
    ]
    return {"count": count, "rows": rows}


def main() -> None:
    import argparse
    import sys

    from mcp.server.mcpserver import MCPServer

    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="structured")
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    mcp = MCPServer(name=args.name, version="1.0.0")

    @mcp.tool()
    def get_time(timezone: str) -> TimeResult:
        """The current time in a timezone."""
        return time_result(timezone)

    @mcp.tool(name="inventory")
    def inventory_tool(count: int) -> Inventory:
        """`count` inventory rows."""
        return inventory(count)

    @mcp.tool()
    async def inventory_slowly(count: int, ctx: Context) -> Inventory:
        """`count` inventory rows, after a progress notification."""
        await ctx.report_progress(progress=0, total=1, message="counting")
        return inventory(count)

    _: Any = (get_time, inventory_tool, inventory_slowly)
    print(f"{args.name} starting", file=sys.stderr)
    if args.http:
        mcp.run(transport="streamable-http", port=args.port)
    else:
        mcp.run()


if __name__ == "__main__":
    main()
