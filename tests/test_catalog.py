from manifold.catalog import Catalog, Route
from manifold.config import parse_config


def _catalog(**top: object) -> Catalog:
    data = {
        "upstreams": {"a": {"command": "x"}, "b": {"command": "y", "tools": {"deny": ["secret*"]}}}
    }
    data.update(top)
    return Catalog(parse_config(data, env={}))


def test_tools_are_namespaced_and_routed() -> None:
    c = _catalog()
    c.set_items("a", "tools", [{"name": "echo", "inputSchema": {"type": "object"}}])
    c.set_items("b", "tools", [{"name": "echo"}, {"name": "secret_dump"}])
    assert [t["name"] for t in c.tools] == ["a__echo", "b__echo"]
    assert c.tool_routes["b__echo"] == Route("b", "echo")
    assert "b__secret_dump" not in c.tool_routes  # deny glob
    assert c.tools[0]["inputSchema"] == {"type": "object"}  # passed through untouched


def test_no_prefix_collision_gets_a_stable_distinct_name() -> None:
    c = _catalog(prefix=False)
    c.set_items("a", "tools", [{"name": "echo"}])
    c.set_items("b", "tools", [{"name": "echo"}])
    names = [t["name"] for t in c.tools]
    assert names[0] == "echo" and names[1] != "echo"
    assert c.tool_routes[names[1]] == Route("b", "echo")


def test_resources_route_by_uri_template_and_scheme() -> None:
    c = _catalog()
    c.set_items("a", "resources", [{"uri": "a://x", "name": "x"}])
    c.set_items("b", "resourceTemplates", [{"uriTemplate": "b://item/{id}", "name": "item"}])
    assert c.route_resource("a://x") == "a"
    assert c.route_resource("b://item/7") == "b"
    assert c.route_resource("a://other") == "a"  # the scheme only one upstream uses
    assert c.route_resource("zzz://nope") is None


def test_invalid_x_mcp_header_tools_are_dropped() -> None:
    c = _catalog()
    bad = {"type": "object", "properties": {"r": {"type": "object", "x-mcp-header": "R"}}}
    good = {"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "Region"}}}
    c.set_items(
        "a", "tools", [{"name": "bad", "inputSchema": bad}, {"name": "good", "inputSchema": good}]
    )
    assert [t["name"] for t in c.tools] == ["a__good"]
    assert c.header_maps["a__good"] == {("r",): "Region"}


def test_clear_removes_an_upstreams_items() -> None:
    c = _catalog()
    c.set_items("a", "prompts", [{"name": "p"}])
    assert c.prompt_routes["a__p"] == Route("a", "p")
    c.clear("a")
    assert c.prompts == []
