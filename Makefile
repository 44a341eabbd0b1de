# Everything a fresh machine needs, from Python 3 and make alone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck bench docs docs-notebooks notebook clean native dist dist-test \
	test-oldest-polars oldest-polars-run

# The compiled kernel's build cache lives outside the clone, so that a fresh clone (CI) on
# this machine reuses it instead of compiling from scratch.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/polars-rankk/target

# The fresh venvs of `make dist-test` and `make test-oldest-polars` (build/ is git-ignored). Each
# is made anew on every run and removed once its checks pass: together they take ~2 GB, which a
# CI disk need not hold beside the dev venv.
DIST_VENV   := build/venv-dist
OLDEST_VENV := build/venv-oldest-polars
# The oldest Polars polars-rankk supports: the lower bound of its requirement in pyproject.toml.
POLARS_OLDEST := $(shell sed -n 's/^ *"polars>=\([0-9.]*\),.*/\1/p' pyproject.toml)
# How test-oldest-polars spreads its tests (`make test-oldest-polars OLDEST_XDIST="-n 0"`).
OLDEST_XDIST ?= -n 2 --dist loadfile
# The share of their property tests' examples the runs repeating tests/core draw.
REPEAT_SHARE ?= POLARS_RANKK_EXAMPLE_SHARE=0.25
# PATH without cargo: the wheels must install and work where no Rust toolchain is.
NO_CARGO_PATH := $(shell printf '%s' "$$PATH" | tr ':' '\n' | grep -v '/\.cargo/bin' | paste -sd: -)

# Open Bandit Pipeline, the counterfactual estimators' reference (tests/counterfactual), is
# installed without its dependencies: obp 0.5.7 pins Python < 3.11 and old NumPy and
# scikit-learn, and the tests load only its estimators and Bernoulli TS policy, which run on the
# project's own. Where it does not install (the leading -), those tests skip and the
# transcriptions of its code still hold the estimators.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	-$(BIN)/python -m pip install --quiet --no-deps --ignore-requires-python "obp==0.5.7"
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
## then the wheels (dist-test) and the core tests on the oldest supported Polars. The two runs
## that repeat the core tests draw a quarter of their property tests' examples
## (tests/support/examples.py): every test and strategy runs, the main run made the search
test: native
	$(BIN)/python -m ruff check polars_rankk tests benchmarks scripts docs/hooks.py
	$(BIN)/python -m ruff format --check polars_rankk tests benchmarks scripts docs/hooks.py
	$(BIN)/python -m mypy
	$(BIN)/python scripts/mypy_without_engines.py
	$(BIN)/python -c "import polars_rankk as rk; rk.show_versions()"
	$(BIN)/python -m pytest -n 2 --dist loadfile
	POLARS_RANKK_NATIVE=0 $(REPEAT_SHARE) $(BIN)/python -m pytest -n 2 --dist loadfile tests/core
	@if command -v cargo >/dev/null 2>&1; then \
		$(MAKE) dist-test test-oldest-polars; \
	else \
		echo "cargo not found: the wheels are not built, so dist-test and test-oldest-polars do not run"; \
	fi

# The oldest glibc the kernel's Linux x86_64 wheel runs on: zig links the library against this
# glibc's symbols (native/zig-linker, through cargo-zigbuild) and auditwheel checks them and
# tags the wheel manylinux_2_17 (= manylinux2014: CentOS 7, Debian 8, Ubuntu 14.04 and later).
# On another Linux the wheel is linked as usual and auditwheel tags it for the glibc it needs;
# elsewhere (macOS, Windows) it keeps the platform tag of the build.
GLIBC_OLDEST := 2.17
MANYLINUX    := manylinux_$(subst .,_,$(GLIBC_OLDEST))_x86_64
ifeq ($(shell uname -s)-$(shell uname -m),Linux-x86_64)
NATIVE_ENV = PATH="$(abspath $(BIN)):$$PATH" POLARS_RANKK_GLIBC=$(GLIBC_OLDEST) \
	CARGO_ZIGBUILD_ZIG_PATH="$$($(BIN)/python -c 'import ziglang, pathlib; print(pathlib.Path(ziglang.__file__).parent / "zig")')" \
	CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER="$(CURDIR)/native/zig-linker" \
	CARGO_TARGET_DIR="$(CARGO_TARGET_DIR)/glibc-$(GLIBC_OLDEST)"
AUDITWHEEL_PLAT = --plat $(MANYLINUX)
endif
# A venv where polars-rankk-native's wheel is absent: [native] builds its sdist, without cargo.
NO_WHEEL_VENV := build/venv-no-kernel-wheel
NO_WHEEL_DIST := build/dist-no-kernel-wheel

## dist: the sdist and wheel of polars-rankk, the sdist of polars-rankk-native (it builds the
## kernel where cargo is, and installs without it where cargo is not) and its platform wheel
## (py3-none-<platform>: a plain library, loaded by Polars; on Linux x86_64 linked by zig
## against glibc $(GLIBC_OLDEST) and tagged $(MANYLINUX) by auditwheel) into dist/
dist: $(STAMP)
	rm -rf dist build/native-dist
	nice $(BIN)/python -m build --outdir dist .
	$(NATIVE_ENV) CARGO_BUILD_JOBS=1 nice $(BIN)/python -m build --sdist --wheel --outdir build/native-dist native
ifeq ($(shell uname -s),Linux)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m auditwheel repair $(AUDITWHEEL_PLAT) \
		--wheel-dir dist build/native-dist/*.whl
else
	mv build/native-dist/*.whl dist/
endif
	mv build/native-dist/*.tar.gz dist/
	rm -rf native/build build/lib build/bdist.* build/native-dist

## dist-test: the wheels' tags (scripts/dist_check.py --tags); install them into a fresh venv
## without cargo on PATH, evaluate the bundled data on the kernel (equal to pure Polars), `pip check`; then
## `polars-rankk[native]` where no kernel wheel matches (dist/ without it, no cargo): it
## installs (on Linux x86_64 from the kernel's sdist, built without the library) and runs in
## pure Polars
dist-test: dist
	$(BIN)/python scripts/dist_check.py --tags dist
	rm -rf $(DIST_VENV) $(NO_WHEEL_VENV) $(NO_WHEEL_DIST)
	PATH="$(NO_CARGO_PATH)" sh -c '! command -v cargo' || { echo "cargo is still on PATH"; exit 1; }
	PATH="$(NO_CARGO_PATH)" $(PYTHON) -m venv $(DIST_VENV)
	PATH="$(NO_CARGO_PATH)" $(DIST_VENV)/bin/python -m pip install --quiet --only-binary=:all: \
		--find-links dist "$$(ls dist/polars_rankk-*.whl)[native]" dist/polars_rankk_native-*.whl
	cd $(DIST_VENV) && PATH="$(NO_CARGO_PATH)" bin/python $(CURDIR)/scripts/dist_check.py $(CURDIR)/data
	$(DIST_VENV)/bin/python -m pip check
	mkdir -p $(NO_WHEEL_DIST)
	cp dist/polars_rankk-*.whl dist/polars_rankk_native-*.tar.gz $(NO_WHEEL_DIST)/
	PATH="$(NO_CARGO_PATH)" $(PYTHON) -m venv $(NO_WHEEL_VENV)
	PATH="$(NO_CARGO_PATH)" $(NO_WHEEL_VENV)/bin/python -m pip install --quiet \
		--find-links $(NO_WHEEL_DIST) "$$(ls $(NO_WHEEL_DIST)/polars_rankk-*.whl)[native]"
	cd $(NO_WHEEL_VENV) && PATH="$(NO_CARGO_PATH)" bin/python $(CURDIR)/scripts/dist_check.py \
		--pure $(CURDIR)/data
	rm -rf $(NO_WHEEL_DIST) $(DIST_VENV) $(NO_WHEEL_VENV)

## test-oldest-polars: the core tests (the kernel's included) on the oldest supported Polars,
## in a venv of its own with the wheels of `make dist` (its other dependencies: the dev venv's)
## — unless the dev venv already runs that Polars, where the run would repeat the one above
## (`make oldest-polars-run` forces it)
test-oldest-polars: dist
	@if $(BIN)/python -c "import sys, polars; from packaging.version import Version; \
		sys.exit(Version(polars.__version__) != Version('$(POLARS_OLDEST)'))"; then \
		echo "test-oldest-polars: the dev venv runs Polars $(POLARS_OLDEST), the oldest supported:" \
			"tests/core ran on it above, and dist-test checked the wheels' kernel; not run again"; \
	else \
		$(MAKE) --no-print-directory oldest-polars-run; \
	fi

# Its venv holds what the Polars version decides — that Polars and the wheels of `make dist` —
# and reads every other dependency (the test references included) from the dev venv, through a
# path file placed after its own packages: installing those again took ~100 s of each run.
oldest-polars-run:
	rm -rf $(OLDEST_VENV)
	$(PYTHON) -m venv $(OLDEST_VENV)
	$(OLDEST_VENV)/bin/python -m pip install --quiet "polars==$(POLARS_OLDEST)"
	$(OLDEST_VENV)/bin/python -m pip install --quiet --no-deps dist/polars_rankk-*.whl \
		dist/polars_rankk_native-*.whl
	$(BIN)/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" > \
		"$$($(OLDEST_VENV)/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/zz-dev-venv.pth"
	$(OLDEST_VENV)/bin/python -c "import polars_rankk as rk; rk.show_versions()"
	$(REPEAT_SHARE) $(OLDEST_VENV)/bin/python -m pytest $(OLDEST_XDIST) tests/core
	rm -rf $(OLDEST_VENV)

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
