# Everything a fresh machine needs, from Python 3 and make alone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck bench docs docs-notebooks notebook clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

## demo: evaluate the bundled demo data and print a readable summary
demo: $(STAMP)
	$(BIN)/python scripts/demo.py

## test: lint, type-check and run the whole test suite (what CI runs)
test: $(STAMP)
	$(BIN)/python -m ruff check polars_rankk tests benchmarks scripts
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -n 2 --dist loadfile

## docs: build the documentation site into site/ (strict: a warning fails it; works offline)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict

## docs-notebooks: execute the notebooks into docs/notebooks/ (the site shows their outputs)
docs-notebooks: $(STAMP)
	$(BIN)/python scripts/render_notebooks.py

## notebook: open the notebooks in JupyterLab (charts draw offline)
notebook: $(STAMP)
	$(BIN)/python -m jupyter lab notebooks/

lint: $(STAMP)
	$(BIN)/python -m ruff check polars_rankk tests benchmarks scripts
	$(BIN)/python -m ruff format --check polars_rankk tests benchmarks scripts

typecheck: $(STAMP)
	$(BIN)/python -m mypy

## bench: the core benchmark at 5M rows (see benchmarks/README.md)
bench: $(STAMP)
	$(BIN)/python benchmarks/run.py --scale 5M

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site .cache
