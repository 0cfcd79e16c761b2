# Two commands do everything on a fresh machine:  `make run`  and  `make test`.
# Each creates or updates the local virtualenv (.venv) idempotently.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# `make run` needs only the runtime (no torch: a Raspberry Pi runs this); `make test` adds the
# dev and train extras
RUN_STAMP := $(VENV)/.installed-runtime
# exact versions the shipped models were measured with (models/constraints.txt says why)
CONSTRAINTS := models/constraints.txt
HOST ?= 0.0.0.0
PORT ?= 8080

.PHONY: run test lint format chromium venv

$(STAMP): SPEC := .[dev,train]
$(RUN_STAMP): SPEC := .
$(STAMP) $(RUN_STAMP): pyproject.toml $(CONSTRAINTS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '$(SPEC)'
	touch $@

venv: $(STAMP)

# Debian's Chromium for the browser tests (Playwright drives it; no browser download).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

run: $(RUN_STAMP)
	$(BIN)/tabletop serve --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

test: $(STAMP) chromium lint
	$(BIN)/python -m pytest
