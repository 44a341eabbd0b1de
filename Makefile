# Everything a fresh machine needs, from Python 3 and make alone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck bench docs docs-notebooks notebook clean native dist dist-test \
	test-oldest-polars

# The compiled kernel's build cache lives outside the clone, so that a fresh clone (CI) on
# this machine reuses it instead of compiling from scratch.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/polars-rankk/target

# The fresh venvs of `make dist-test` and `make test-oldest-polars` (build/ is git-ignored).
DIST_VENV   := build/venv-dist
OLDEST_VENV := build/venv-oldest-polars
# The oldest Polars polars-rankk supports: the lower bound of its requirement in pyproject.toml.
POLARS_OLDEST := $(shell sed -n 's/^ *"polars>=\([0-9.]*\),.*/\1/p' pyproject.toml)
# How test-oldest-polars spreads its tests (`make test-oldest-polars OLDEST_XDIST="-n 0"`).
OLDEST_XDIST ?= -n 2 --dist loadfile
# PATH without cargo: the wheels must install and work where no Rust toolchain is.
NO_CARGO_PATH := $(shell printf '%s' "$$PATH" | tr ':' '\n' | grep -v '/\.cargo/bin' | paste -sd: -)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

## native: build and install the compiled kernel (native/) when cargo is present
native: $(STAMP)
	@if command -v cargo >/dev/null 2>&1; then \
		$(BIN)/python -m pip install --quiet "setuptools-rust==1.12.0" wheel && \
		$(BIN)/python -m pip install --quiet --no-build-isolation --no-deps ./native && \
		rm -rf native/build; \
	else \
		echo "cargo not found: the native kernel is not built; polars-rankk runs in pure Polars"; \
	fi

## demo: evaluate the bundled demo data and print a readable summary
demo: native
	$(BIN)/python scripts/demo.py

## test: lint, type-check and run the whole test suite (what CI runs): on the native kernel
## when it is built, and the core tests again on the pure-Polars path; where cargo is present,
## then the wheels (dist-test) and the core tests on the oldest supported Polars
test: native
	$(BIN)/python -m ruff check polars_rankk tests benchmarks scripts docs/hooks.py
	$(BIN)/python -m ruff format --check polars_rankk tests benchmarks scripts docs/hooks.py
	$(BIN)/python -m mypy
	$(BIN)/python scripts/mypy_without_engines.py
	$(BIN)/python -c "import polars_rankk as rk; rk.show_versions()"
	$(BIN)/python -m pytest -n 2 --dist loadfile
	POLARS_RANKK_NATIVE=0 $(BIN)/python -m pytest -n 2 --dist loadfile tests/core
	@if command -v cargo >/dev/null 2>&1; then \
		$(MAKE) dist-test test-oldest-polars; \
	else \
		echo "cargo not found: the wheels are not built, so dist-test and test-oldest-polars do not run"; \
	fi

## dist: the sdist and wheel of polars-rankk and the platform wheel of polars-rankk-native
## (py3-none-<platform>: a plain library, loaded by Polars) into dist/
dist: $(STAMP)
	rm -rf dist
	nice $(BIN)/python -m build --outdir dist .
	CARGO_BUILD_JOBS=1 nice $(BIN)/python -m build --wheel --outdir dist native
	rm -rf native/build build/lib build/bdist.*

## dist-test: install the wheels into a fresh venv without cargo on PATH, evaluate the bundled
## data on the kernel, `pip check`
dist-test: dist
	rm -rf $(DIST_VENV)
	PATH="$(NO_CARGO_PATH)" sh -c '! command -v cargo' || { echo "cargo is still on PATH"; exit 1; }
	PATH="$(NO_CARGO_PATH)" $(PYTHON) -m venv $(DIST_VENV)
	PATH="$(NO_CARGO_PATH)" $(DIST_VENV)/bin/python -m pip install --quiet --only-binary=:all: \
		"$$(ls dist/polars_rankk-*.whl)[native]" dist/polars_rankk_native-*.whl
	cd $(DIST_VENV) && PATH="$(NO_CARGO_PATH)" bin/python $(CURDIR)/scripts/dist_check.py $(CURDIR)/data
	$(DIST_VENV)/bin/python -m pip check

## test-oldest-polars: the core tests (the kernel's included) on the oldest supported Polars,
## in a venv of its own with the wheels of `make dist`
test-oldest-polars: dist
	rm -rf $(OLDEST_VENV)
	$(PYTHON) -m venv $(OLDEST_VENV)
	$(OLDEST_VENV)/bin/python -m pip install --quiet "polars==$(POLARS_OLDEST)" \
		"$$(ls dist/polars_rankk-*.whl)[native,test]" dist/polars_rankk_native-*.whl
	$(OLDEST_VENV)/bin/python -c "import polars_rankk as rk; rk.show_versions()"
	$(OLDEST_VENV)/bin/python -m pytest $(OLDEST_XDIST) tests/core

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
	$(BIN)/python -m ruff check polars_rankk tests benchmarks scripts docs/hooks.py
	$(BIN)/python -m ruff format --check polars_rankk tests benchmarks scripts docs/hooks.py

typecheck: $(STAMP)
	$(BIN)/python -m mypy
	$(BIN)/python scripts/mypy_without_engines.py

## bench: the core benchmark at 5M rows (see benchmarks/README.md)
bench: $(STAMP)
	$(BIN)/python benchmarks/run.py --scale 5M

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site .cache build dist
