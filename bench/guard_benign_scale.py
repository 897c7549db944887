"""The injection guard on benign text at scale: documentation and source it did not see.

    .venv/bin/python -m bench.guard_benign_scale [--chunks 6000] [--size 2000] [--show]
        [--no-classifier]

Text chunks (`--size` characters, as a file-reading tool would return them) from what is
installed next to the gateway: every installed package's METADATA (its README), the
`.md`, `.rst` and `.txt` files and the `.py` sources (docstrings and comments included) of
site-packages, and the Python standard library's sources. Files are taken in a fixed
order and spread evenly up to `--chunks` chunks, so the run is repeatable on one
environment. Each chunk goes through the guard's `call` hook with the default config, as a
`tools/call` result. Printed: chunks, blocked, quarantined (a quarantined result reaches
the client with a warning first: it changes what the client gets), and with `--show` the
start of each chunk that was not passed. The guard's own sources and docs are left out, and
so are the files the learned stage was trained on (a quarter of them, `training_file`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import site
import sysconfig
import zlib
from collections.abc import Iterator
from pathlib import Path

from bench.security_bench import _outcome
from manifold.config import GuardConfig
from manifold.security.guard import Guard

_SKIP_PARTS = frozenset({"manifold", "test", "tests", "__pycache__", "idlelib", "lib2to3"})
_EXTS = (".py", ".md", ".rst", ".txt")


def training_file(p: Path) -> bool:
    """A quarter of the files (by a hash of their name) are the learned stage's training text
    (`bench/guard_train.py`); this evaluation never reads them."""
    return zlib.crc32(f"{p.parent.name}/{p.name}".encode()) % 4 == 0


def _files(part: str = "eval") -> list[Path]:
    roots = [Path(p) for p in site.getsitepackages()] + [Path(sysconfig.get_paths()["stdlib"])]
    out: list[Path] = []
    for root in roots:
        for p in sorted(root.rglob("*")):
            if not p.is_file() or _SKIP_PARTS.intersection(p.relative_to(root).parts[:-1]):
                continue
            if p.name == "METADATA" or p.suffix in _EXTS:
                if "site-packages" in p.parts and root.name != "site-packages":
                    continue  # the standard library's own site-packages (the venv's are above)
                if training_file(p) == (part == "eval"):
                    continue
                out.append(p)
    return out


def chunks(limit: int, size: int, part: str = "eval") -> Iterator[tuple[Path, str]]:
    every: list[tuple[Path, int]] = []
    files = _files(part)
    texts: dict[Path, str] = {}
    for p in files:
        try:
            t = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if len(t) < 200:
            continue
        texts[p] = t
        every.extend((p, i) for i in range(0, len(t), size))
    step = max(1, len(every) // limit)
    for p, i in every[::step][:limit]:
        yield p, texts[p][i : i + size]


async def run(limit: int, size: int, show: bool, classifier: bool = True) -> None:
    g = Guard(GuardConfig(classifier=classifier))
    n = 0
    counts = {"blocked": 0, "quarantined": 0, "passed": 0}
    files: set[Path] = set()
    for p, text in chunks(limit, size):
        n += 1
        files.add(p)
        out = await _outcome(g, {"text": text, "surface": "result"})
        counts[out] += 1
        if show and out != "passed":
            v = g.scanner.score(text)
            print(f"--- {out} {v.describe()} {p}\n{text[:300]!r}\n")
    print(
        f"{n} chunks of up to {size} characters from {len(files)} files: "
        f"{counts['blocked']} blocked ({100 * counts['blocked'] / n:.2f}%), "
        f"{counts['quarantined']} quarantined ({100 * counts['quarantined'] / n:.2f}%), "
        f"{counts['passed']} passed"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chunks", type=int, default=6000)
    ap.add_argument("--size", type=int, default=2000)
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--no-classifier", action="store_true", help="the rules alone")
    a = ap.parse_args()
    logging.getLogger("manifold.security.guard").setLevel(logging.ERROR)
    asyncio.run(run(a.chunks, a.size, a.show, not a.no_classifier))


if __name__ == "__main__":
    main()
