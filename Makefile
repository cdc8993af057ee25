# Turnpost: `make run` starts the whole stack, `make test` runs every test.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: install services migrate run test test-unit bench tournament lint types check clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

services:
	@deploy/ensure-services.sh

migrate: install services
	$(PY) -m infra.migrate

run: migrate
	$(PY) deploy/stack.py

test: install services
	$(PY) -m pytest -q

test-unit: install
	$(PY) -m pytest -q tests/unit

bench: install services
	$(PY) tests/bench/run.py

tournament: install
	$(PY) -m tests.bench.tournament

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

types: install
	$(VENV)/bin/mypy

check: lint types test

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info
