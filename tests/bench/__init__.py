"""Tests of the benchmark harness (``bench/``).

Without a ``tests/__init__.py``, pytest's default import mode puts ``tests/`` on ``sys.path`` and
imports this directory as the top-level package ``bench``, which shadows the harness package of
the same name. Extending the package path keeps ``bench.driver``, ``bench.mock_upstream`` and
``bench.run`` resolving to the harness either way.
"""

from pathlib import Path

_harness = str(Path(__file__).resolve().parents[2] / "bench")
if _harness not in __path__:
    __path__.append(_harness)
