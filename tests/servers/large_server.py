"""A real MCP server (official SDK) with large results, for the response governor's tests.

- `big(size)`: `big_text(size)`, a deterministic text with lines, quotes, backslashes, control
  characters and non-ASCII characters (so JSON escaping and UTF-8 both count);
- `issues(count)`: `issues_json(count)`, a GitHub-style issue list (pretty-printed JSON, with
  the API's links and ids);
- `small()`: a short answer;
- `streamed(size)`: one log message, then `big_text(size)` (so the answer is an SSE stream);
- `flood(count, size)`: `count` log messages of about `size` characters, then a short answer.

The generators are importable, so a test can compare what it reads back byte for byte.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context

WORDS = [
    "gateway",
    "token",
    'quote"d',
    "back\\slash",
    "tab\tbed",
    "café",
    "naïve",
    "日本語",
    "emoji😀",
    "ctl\x01x",
    "budget",
    "page",
]


def big_text(size: int) -> str:
    """`size` characters, the same every time."""
    out: list[str] = []
    n = 0
    i = 0
    while n < size:
        word = WORDS[(i * 7 + i // 5) % len(WORDS)]
        piece = word + ("\n" if i % 11 == 10 else " ")
        out.append(piece)
        n += len(piece)
        i += 1
    return "".join(out)[:size]


def _user(login: str, uid: int) -> dict[str, Any]:
    api = f"https://api.github.com/users/{login}"
    return {
        "login": login,
        "id": uid,
        "node_id": f"MDQ6VXNlcj{uid:08d}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
        "gravatar_id": "",
        "url": api,
        "html_url": f"https://github.com/{login}",
        "followers_url": f"{api}/followers",
        "following_url": f"{api}/following{{/other_user}}",
        "gists_url": f"{api}/gists{{/gist_id}}",
        "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{api}/subscriptions",
        "organizations_url": f"{api}/orgs",
        "repos_url": f"{api}/repos",
        "events_url": f"{api}/events{{/privacy}}",
        "received_events_url": f"{api}/received_events",
        "type": "User",
        "user_view_type": "public",
        "site_admin": False,
    }


def issues_json(count: int) -> str:
    repo = "https://api.github.com/repos/acme/widgets"
    items = []
    for n in range(1, count + 1):
        items.append(
            {
                "url": f"{repo}/issues/{n}",
                "repository_url": repo,
                "labels_url": f"{repo}/issues/{n}/labels{{/name}}",
                "comments_url": f"{repo}/issues/{n}/comments",
                "events_url": f"{repo}/issues/{n}/events",
                "html_url": f"https://github.com/acme/widgets/issues/{n}",
                "id": 1000 + n,
                "node_id": f"I_kwDOAbc{n:06d}",
                "number": n,
                "title": f"Widget {n} fails when the budget is {n * 10} tokens",
                "user": _user(f"dev{n % 5}", 500 + n % 5),
                "labels": [
                    {
                        "id": 77,
                        "node_id": "LA_kwDOAbc77",
                        "url": f"{repo}/labels/bug",
                        "name": "bug",
                        "color": "d73a4a",
                        "default": True,
                        "description": "Something isn't working",
                    }
                ],
                "state": "open",
                "locked": False,
                "assignee": None,
                "assignees": [],
                "milestone": None,
                "comments": n % 4,
                "created_at": "2025-01-02T03:04:05Z",
                "updated_at": "2025-01-03T03:04:05Z",
                "closed_at": None,
                "author_association": "CONTRIBUTOR",
                "active_lock_reason": None,
                "body": f"Steps to reproduce issue {n}: call the tool with a large result.",
                "reactions": {"url": f"{repo}/issues/{n}/reactions", "total_count": 0},
                "timeline_url": f"{repo}/issues/{n}/timeline",
                "performed_via_github_app": None,
                "state_reason": None,
            }
        )
    return json.dumps(items, indent=2)


def main() -> None:
    import argparse
    import sys

    from mcp.server.mcpserver import MCPServer

    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="large")
    args = parser.parse_args()
    mcp = MCPServer(name=args.name, version="1.0.0")

    @mcp.tool()
    def big(size: int) -> str:
        """A long deterministic text of `size` characters."""
        return big_text(size)

    @mcp.tool()
    def issues(count: int) -> str:
        """A GitHub-style list of `count` issues as JSON."""
        return issues_json(count)

    @mcp.tool()
    def small() -> str:
        """A short answer."""
        return "small answer"

    @mcp.tool()
    async def streamed(size: int, ctx: Context) -> str:
        """One log message, then a long text of `size` characters."""
        await ctx.log("info", "working")
        return big_text(size)

    @mcp.tool()
    async def flood(count: int, size: int, ctx: Context) -> str:
        """`count` log messages of about `size` characters each, then a short answer."""
        chunk = big_text(size)
        for i in range(count):
            await ctx.log("info", f"{i} {chunk}")
        return "flooded"

    print(f"{args.name} starting", file=sys.stderr)
    mcp.run()


if __name__ == "__main__":
    main()
