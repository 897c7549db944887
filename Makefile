# The few commands a newcomer needs. Every target sets itself up first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The config print-ide-config points the IDE at (e.g. one written by `manifold import`).
CONFIG ?= manifold.yaml

.PHONY: run test check bench setup tools clean print-ide-config

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || \
	  { echo "Manifold needs Python 3.11 or newer; '$(PYTHON)' is not (try: make PYTHON=python3.12 ...)" >&2; exit 1; }
	@echo "==> setting up the virtualenv $(VENV) (first run, or pyproject.toml changed)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	@echo "==> installing Manifold and its dev tools into $(VENV) (about a minute on first run)"
	$(PY) -m pip install --progress-bar off -e '.[dev,embed]'
	touch $(STAMP)
	@echo "==> installed $(CURDIR)/$(VENV)/bin/manifold (not on your PATH: see 'Install' in the README)"

tools: setup
	bash scripts/setup-node-tools.sh

run: setup
	bash scripts/run-demo.sh

print-ide-config: | $(STAMP)
	@bash scripts/ide-config.sh "$(CONFIG)"

check: setup
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

# The suite mostly waits on real processes and sockets, so it runs in parallel (pytest-xdist),
# one file per worker at a time (a file's module fixtures start once). `pytest -q` runs it serially.
TEST_WORKERS ?= 4

test: check tools
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile

bench: setup
	$(PY) -m bench.run
	$(PY) -m bench.economy
	$(PY) -m bench.redaction_bench --heldout --out bench-results/security.md

clean:
	rm -rf $(VENV) .tools bench-results .pytest_cache .ruff_cache .mypy_cache
