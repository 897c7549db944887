# The few commands a newcomer needs. Every target sets itself up first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test check bench setup tools clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,embed]'
	touch $(STAMP)

tools: setup
	bash scripts/setup-node-tools.sh

run: setup
	bash scripts/run-demo.sh

check: setup
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

test: check tools
	$(PY) -m pytest -q

bench: setup
	$(PY) -m bench.run
	$(PY) -m bench.economy

clean:
	rm -rf $(VENV) .tools bench-results .pytest_cache .ruff_cache .mypy_cache
