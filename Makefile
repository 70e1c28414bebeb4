# Each target sets itself up: a virtual environment in .venv with the project installed.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint type bench policy-test clean

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=/path/to/python3.11'" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@# Bytecode now, as a wheel install would have it: with PYTHONDONTWRITEBYTECODE set, every start
	@# would otherwise compile the sources again (a third of a cold 'policy check').
	$(BIN)/python -m compileall -q agent tools >/dev/null
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/opsagent demo

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check agent tools tests benchmarks scripts/smoke_server.py scripts/gpu-smoke scripts/verdict-corpus scripts/gen-sglang-flags
	$(BIN)/ruff format --check agent tools tests benchmarks scripts/smoke_server.py scripts/gpu-smoke scripts/verdict-corpus scripts/gen-sglang-flags
	$(BIN)/lint-imports

type: $(STAMP)
	$(BIN)/mypy

policy-test: $(STAMP)
	$(BIN)/opsagent policy test

bench: $(STAMP)
	@fail=0; for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || fail=1; done; exit $$fail

clean:
	rm -rf $(VENV) .opsagent .mypy_cache .pytest_cache .ruff_cache
