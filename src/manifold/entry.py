"""The `manifold` executable: the CLI, and a one-line message for Ctrl-C while it still loads.

Importing the CLI (click, the config models) takes a noticeable moment; Ctrl-C in that
moment would print an import traceback. Once the CLI runs, click answers Ctrl-C the same way.
"""

from __future__ import annotations

import sys


def _interrupted(exc: BaseException) -> bool:
    """Whether `exc` is Ctrl-C, or an error raised because of it (a library that wraps what
    interrupted it: some turn a KeyboardInterrupt in `__set_name__` into a RuntimeError)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def main() -> None:
    try:
        from manifold.cli import main as cli
    except BaseException as exc:
        if not _interrupted(exc):
            raise
        sys.stderr.write("Aborted!\n")
        raise SystemExit(1) from None
    cli()
