PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# What running needs (`make run`), and that plus the tests' and tools' packages (`make test`, `lint`, `bench`).
RUN_STAMP := $(VENV)/.run-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
DEV_STAMP := $(VENV)/.dev-$(shell cat requirements.txt requirements-dev.txt | cksum | cut -d' ' -f1)

.PHONY: install install-run run test lint format bench bench-users bench-growth clean

# uv (from PyPI) installs in a few seconds what pip takes a minute for; pip does it where uv cannot be had.
define install_requirements
	( $(BIN)/python -m pip install --quiet uv >/dev/null 2>&1 && \
	  $(BIN)/uv pip install --quiet --python $(BIN)/python -r $(1) ) || \
	$(BIN)/python -m pip install --quiet -r $(1)
endef

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): requirements.txt | $(BIN)/python
	$(call install_requirements,requirements.txt)
	rm -f $(VENV)/.run-* $(VENV)/.installed-*
	touch $(RUN_STAMP)

$(DEV_STAMP): requirements.txt requirements-dev.txt | $(BIN)/python
	$(call install_requirements,requirements-dev.txt)
	rm -f $(VENV)/.dev-* $(VENV)/.run-* $(VENV)/.installed-*
	touch $(DEV_STAMP) $(RUN_STAMP)

install: $(DEV_STAMP)

install-run: $(RUN_STAMP)

## The demo world, web server and Celery worker on the embedded default (SQLite, file-system broker).
run: install-run
	./bin/run-demo

## The whole test suite on SQLite, then on PostgreSQL where one is up (bin/test).
test: install
	./bin/test

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/python manage.py check
	$(BIN)/python manage.py makemigrations --check --dry-run

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: install
	$(BIN)/python bench/run.py

## GET /main/v5/users?limit=500 with every block on 2,000 members, beside hand-written SQL (bench/README.md).
bench-users: install
	$(BIN)/python bench/users_list.py

## The same list pages on the 60-aircraft club at 1x and 10x its history: p50 within 1.2x (bench/README.md).
bench-growth: install
	$(BIN)/python bench/growth.py

clean:
	rm -rf $(VENV) var
