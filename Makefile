# Turnpost: `make run` starts the whole stack, `make test` runs every test. Both need only
# Python 3.11+ and make: without a PostgreSQL or Redis on this machine they start embedded
# ones from pip packages (infra/servers/embedded.py; TURNPOST_SERVERS=local|embedded forces a choice).
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: install services migrate run test test-unit bench tournament balance mutate record-corpus lint types check clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

# the machine's own PostgreSQL and Redis, started if installed and stopped (never fails;
# run, migrate and bench do the same themselves, then fall back to embedded servers)
services:
	@PYTHON=$(PYTHON) deploy/ensure-services.sh

migrate: install
	$(PY) -m infra.servers.embedded exec -- $(PY) -m infra.servers.migrate

# chooses the servers (starting embedded ones if need be), migrates, runs every process
run: install
	$(PY) deploy/stack.py

# The unit tests share no server: pytest-xdist spreads them over the cores (CI has 30 minutes
# on a slow 2-core machine); the integration and end-to-end ones share a database and Redis
# prefix per run and run one at a time.
# bytecode written once for our sources (where PYTHONDONTWRITEBYTECODE is set, every process a
# test starts would compile them again: hundreds of stack processes in a run)
test: install services
	$(PY) -m compileall -q -x '/\.|node_modules' services infra games contracts tests >/dev/null
	$(PY) -m pytest -q -n auto --maxprocesses 4 --durations=10 tests/unit
	$(PY) -m pytest -q --durations=15 --ignore=tests/unit

test-unit: install
	$(PY) -m pytest -q tests/unit

bench: install
	$(PY) -m infra.servers.embedded exec -- sh -c 'BENCH_ADMIN_DSN="$${BENCH_ADMIN_DSN:-$${DATABASE_URL%/*}/postgres}" BENCH_REDIS_URL="$${BENCH_REDIS_URL:-$$REDIS_URL}" exec $(PY) tests/bench/run.py'

tournament: install
	$(PY) -m tests.bench.tournament

# greedy self-play, each seat's win credited to its clan (footprints) or character
# (itchy-feet, dealt at random), e.g. make balance GAME=itchy-feet GAMES=2000 SEATS=4 EXTENSIONS=all
# (tests/bench/balance.py; WORKERS=2 on a shared 2-core machine)
GAME ?= footprints
GAMES ?= 2000
balance: install
	$(PY) -m tests.bench.balance --game $(GAME) --games $(GAMES) $(if $(SEATS),--seats $(SEATS)) $(if $(EXTENSIONS),--extensions $(EXTENSIONS)) $(if $(OPTIONS),--options '$(OPTIONS)') $(if $(WORKERS),--workers $(WORKERS))

# mutation testing of an engine module by its unit tests (tests/mutate.py), e.g.
# make mutate MODULE=games/itty_bitty/payments.py TESTS=tests/unit/itty_bitty (TESTS: one or more;
# ONLY='games.itty_bitty.payments.x_payments__mutmut_*': some mutants only, names or globs)
mutate: install
	$(PY) -m tests.mutate $(MODULE) $(addprefix --tests ,$(TESTS)) $(foreach o,$(ONLY),--only '$(o)')

# the corpus of recorded game logs every test run replays (tests/corpus/README.md): adds the
# logs this version lacks; REHASH=1 adds the final state's hash under a new state shape
record-corpus: install
	$(PY) -m tests.corpus.record $(if $(REHASH),--rehash)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

types: install
	$(VENV)/bin/mypy

check: lint types test

# keeps .embedded/ (the embedded servers' data: make run's games)
clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info
