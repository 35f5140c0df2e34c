PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | cksum | cut -d' ' -f1)

.PHONY: install run test lint format bench bench-users clean

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

## The demo world, web server and Celery worker on the embedded default (SQLite, file-system broker).
run: install
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

clean:
	rm -rf $(VENV) var
