"""`python -m manifold.demo notes|clock [--http --port N]`: run one demo server."""

from __future__ import annotations

import argparse

from manifold.demo.servers import build


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m manifold.demo")
    p.add_argument("server", choices=["notes", "clock"])
    p.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
    p.add_argument("--port", type=int, default=8766)
    a = p.parse_args()
    server = build(a.server)
    if a.http:
        server.run(transport="streamable-http", port=a.port)
    else:
        server.run()


if __name__ == "__main__":
    main()
