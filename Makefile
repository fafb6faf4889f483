# `make test` and `make demo` each build .venv from the project's own files, then run.
# `make test-fast`: lint and the tests not marked slow or invariants (warm numba cache);
# `make test` runs everything, mypy included; both run the tests in two processes (XDIST). `make typecheck`: mypy alone.
# `make docs` builds the documentation site into docs/_build/html (every warning an error);
# `make docs-serve` builds it and serves it on http://127.0.0.1:8001 (Ctrl-C stops it).
# `make notebook` opens the notebooks in JupyterLab (installs the notebooks extra first).
# Each install step says what it installs; pip shows its progress.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed-stamp
STAMP := $(VENV)/.warm-stamp
NOTEBOOK_STAMP := $(VENV)/.notebooks-stamp
BOUNDSCHECK := .numba-boundscheck
SHARED_RULES_TOOL := $(wildcard ../shared/tools/rule_coverage.py)
# the tests run in two processes (pytest-xdist, the dev extra): `make test XDIST=` runs them in one
XDIST ?= -n 2
# `make test` prepares with make's own jobs: the venv beside Chromium, then the two compilations
# beside the checks (ruff, mypy): `make test PREPARE_JOBS=1` one after the other
PREPARE_JOBS ?= 4

.PHONY: test test-prepared checks checked-kernels test-fast typecheck demo lint format bench notebook notebooks clean browser docs docs-serve

$(INSTALLED): pyproject.toml constraints.txt
	@echo "make: creating $(VENV) with $(PYTHON) (seconds)"
	$(PYTHON) -m venv $(VENV)
	@echo "make: upgrading pip in $(VENV) (seconds)"
	$(PY) -m pip install --upgrade pip
	@echo "make: installing uno-env with its extras dev, train, bench, scale, web, docs (numpy, numba, torch CPU, ray, starlette, sphinx, ...):"
	@echo "      about 1-3 minutes the first time, seconds once pip's cache holds them; its last step,"
	@echo "      'Installing collected packages', prints nothing for about a minute"
	$(PY) -m pip install -c constraints.txt -e ".[dev,train,bench,scale,web,docs]"
	touch $(INSTALLED)

$(STAMP): $(INSTALLED)
	@echo "make: compiling the engine, the policies, the network and the search into numba's cache"
	@echo "      (uno warm: about 1.5 minutes once, so that the first game starts in seconds)"
	$(VENV)/bin/uno warm --jobs 2
	touch $(STAMP)

$(NOTEBOOK_STAMP): $(STAMP)
	@echo "make: installing the notebooks extra (JupyterLab, ipykernel): about a minute the first time"
	$(PY) -m pip install -c constraints.txt -e ".[notebooks]"
	touch $(NOTEBOOK_STAMP)

# the browser tests (HTML replays, the table of `uno serve`) run Debian's chromium and
# chromium-driver; installed here when missing and apt-get is at hand (as root), else
# those tests are skipped and say why
browser:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then \
		echo "chromium: $$(command -v chromium), chromedriver: $$(command -v chromedriver)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian's chromium and chromium-driver for the browser tests (apt-get, about a minute)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	else echo "no chromium/chromedriver and no apt-get as root: the browser tests will be skipped"; fi

checks: $(INSTALLED)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
ifneq ($(SHARED_RULES_TOOL),)
	$(PY) $(SHARED_RULES_TOOL) tests
	$(PY) $(SHARED_RULES_TOOL) tests ../shared/HOUSE_RULES.md
endif

# what the invariants' tests run, bounds-checked (NUMBA_BOUNDSCHECK=1, in a cache of its own),
# compiled once so that their two processes load it; every `make test` runs it (seconds when
# cached), beside `uno warm`: its output goes to a log, its last line here
checked-kernels: $(INSTALLED)
	@echo "make: compiling the bounds-checked kernels the invariants run (uno warm --checked), beside the rest;"
	@echo "      its log: $(BOUNDSCHECK)/warm.log"
	@mkdir -p $(BOUNDSCHECK)
	@NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=$(BOUNDSCHECK) $(VENV)/bin/uno warm --checked --jobs 1 \
		> $(BOUNDSCHECK)/warm.log 2>&1 || { cat $(BOUNDSCHECK)/warm.log; exit 1; }
	@tail -n 1 $(BOUNDSCHECK)/warm.log

test-prepared: $(STAMP) checked-kernels checks browser

test:
	@$(MAKE) --no-print-directory -j$(PREPARE_JOBS) test-prepared
	NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=$(BOUNDSCHECK) $(PY) -m pytest -q -m invariants $(XDIST)
	$(PY) -m pytest -q -m "not invariants" $(XDIST) --dist loadfile --durations=15

test-fast: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest -q -m "not slow and not invariants" $(XDIST) --dist loadfile

typecheck: $(INSTALLED)
	$(VENV)/bin/mypy

demo: $(STAMP)
	$(VENV)/bin/uno tournament

bench: $(STAMP)
	$(VENV)/bin/uno bench

# the benchmark history (airspeed velocity, asv.conf.json and benchmarks/): ASV_BASE against
# HEAD, each commit built in its own virtualenv under .asv/ (the first run builds the envs
# and compiles the engine per commit: minutes); not part of `make test`.
# `make asv ASV_BASE=9fbf422` compares with the tree before the reshape.
ASV_STAMP := $(VENV)/.asv-stamp
ASV_BASE ?= main
ASV_FACTOR ?= 1.1

$(ASV_STAMP): $(STAMP)
	@echo "make: installing the asv extra (airspeed velocity): seconds"
	$(PY) -m pip install -c constraints.txt -e ".[asv]"
	touch $(ASV_STAMP)

.PHONY: asv
asv: $(ASV_STAMP)
	$(VENV)/bin/asv machine --yes
	$(VENV)/bin/asv continuous --factor $(ASV_FACTOR) --show-stderr $(ASV_BASE) HEAD

# open the notebooks in JupyterLab (the browser shows notebooks/; Ctrl-C here stops it)
notebook: $(NOTEBOOK_STAMP)
	$(VENV)/bin/jupyter lab notebooks/

# the research notebooks at full size: writes the figures in docs/img/notebooks/ (about 20 minutes)
notebooks: $(STAMP)
	$(PY) -m notebooks.run_notebooks --size full rules_statistics strategy_ladder challenge_decision training

# the documentation site (docs/conf.py): Sphinx with MyST and furo; -W: a warning (a broken
# link or reference, a docstring autodoc cannot read) fails the build; seconds once cached
DOCS_OUT ?= docs/_build/html
DOCS_PORT ?= 8001
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -n -q -b html docs $(DOCS_OUT)
	@echo "make: the site is in $(DOCS_OUT)/index.html"

# serves the built site on loopback, for writing docs: `make docs` again (seconds) and reload
docs-serve: docs
	@echo "make: serving $(DOCS_OUT) on http://127.0.0.1:$(DOCS_PORT)/ (Ctrl-C stops it)"
	$(PY) -m http.server --bind 127.0.0.1 --directory $(DOCS_OUT) $(DOCS_PORT)

lint: $(INSTALLED)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(INSTALLED)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) .numba-boundscheck .pytest_cache .ruff_cache .mypy_cache docs/_build
	find . -name __pycache__ -prune -exec rm -rf {} +
