"""A real MCP server (official SDK) whose tools take pydantic models, so their `inputSchema`s
carry `$defs` and `$ref`: a nested model, an `Optional` model and field (`anyOf` with null),
a list of models and a recursive model. Stdio only."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

mcp = MCPServer(name="models", version="1.0.0", instructions="models test server")


class Owner(BaseModel):
    login: str
    id: int


class Label(BaseModel):
    name: str
    color: str | None = None


class Repo(BaseModel):
    owner: Owner
    name: str = Field(description="Repository name")
    labels: list[Label] = []


class Node(BaseModel):
    name: str
    children: list[Node] = []


@mcp.tool()
def file_issue(
    repo: Repo, title: str, assignee: Owner | None = None, milestone: int | None = None
) -> str:
    """File an issue."""
    who = assignee.login if assignee else "nobody"
    return f"{repo.owner.login}/{repo.name}: {title} (for {who}, {len(repo.labels)} labels)"


@mcp.tool()
def plant(root: Node) -> int:
    """Plant a tree and count its nodes."""

    def count(n: Node) -> int:
        return 1 + sum(count(c) for c in n.children)

    return count(root)


if __name__ == "__main__":
    mcp.run()
