"""The `manifold` executable: the CLI, and a one-line message for Ctrl-C while it still loads.

Importing the CLI (click, pydantic, the config models) takes a noticeable moment; Ctrl-C in that
moment would print an import traceback. Once the CLI runs, click answers Ctrl-C the same way.
"""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from manifold.cli import main as cli
    except KeyboardInterrupt:
        sys.stderr.write("Aborted!\n")
        raise SystemExit(1) from None
    cli()
