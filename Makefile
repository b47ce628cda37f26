# Two commands on a fresh machine: `make serve` and `make test`.
# Everything runs from a virtual environment that the targets create.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# requirements/cpu.txt on our CPU machines; a CUDA machine keeps its own torch
# and Triton: `make install REQUIREMENTS=requirements/gpu.txt`.
REQUIREMENTS ?= requirements/cpu.txt
STAMP := $(VENV)/.installed-$(notdir $(REQUIREMENTS))
PYTEST_WORKERS ?= 2
# Every target imports this checkout's packages first, whichever .venv it
# uses: a second checkout that shares another's environment (VENV=../a/.venv)
# builds and tests its own files, not the ones the editable install names.
export PYTHONPATH := $(CURDIR)$(if $(PYTHONPATH),:$(PYTHONPATH))
# The editable install points the environment at one checkout: a .venv inside
# this checkout is pointed here; a shared one only if it points nowhere yet,
# so a second checkout never re-points another's environment.
OWN_VENV := $(filter $(CURDIR)/%,$(abspath $(VENV)))
EDITABLE := $(BIN)/python -m pip install --quiet --no-deps --editable .

.DEFAULT_GOAL := help
.PHONY: help install serve build test test-gpu bench bench-cpu bench-site qualify qualify-refresh qualify-gpu artifacts catalog notebook lint format clean device-run device-run-dry artifacts-triton36 sanitize

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(STAMP): $(REQUIREMENTS) requirements/site.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r $(REQUIREMENTS)
	$(if $(OWN_VENV),$(EDITABLE),(cd / && env -u PYTHONPATH $(abspath $(BIN))/python -c 'import kernels') 2>/dev/null || $(EDITABLE))
	touch $@

# The calculators' browser runtime (Pyodide), pinned in package-lock.json:
# npm ci installs exactly that version and checks its integrity hash.
NPM_STAMP := node_modules/.installed
$(NPM_STAMP): package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

install: $(STAMP) $(NPM_STAMP) ## Create .venv and node_modules from the pinned requirements

# ProperDocs builds the MkDocs 1.x configuration; the two variables silence
# the MkDocs 2 notices that Material and ProperDocs print on every build.
SITE_ENV := DISABLE_MKDOCS_2_WARNING=true NO_MKDOCS_2_WARNING=1

build: $(STAMP) $(NPM_STAMP) ## Build the static site into site/ (strict)
	$(SITE_ENV) $(BIN)/properdocs build --strict -f mkdocs.yml

serve: build ## Build, then serve the site at http://127.0.0.1:8000
	$(SITE_ENV) $(BIN)/properdocs serve -f mkdocs.yml --dev-addr 127.0.0.1:8000

test: $(STAMP) $(NPM_STAMP) ## Run the whole test suite (CPU only: interpreter, build, browser)
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal --durations=10

test-gpu: ## Kernel tests on CUDA tensors, interpreter off (on a GPU machine)
	KERNEL_DEVICE=cuda TRITON_INTERPRET=0 $(or $(wildcard $(BIN)/python),python) -m pytest tests/kernels -p no:cacheprovider

bench: ## Time every kernel on the GPU (full profile) into results/bench/
	$(or $(wildcard $(BIN)/python),python) -m scripts.bench --profile full

bench-cpu: $(STAMP) ## The same harness on the CPU (tiny sweep; no GPU numbers)
	$(BIN)/python -m scripts.bench --device cpu --profile tiny

bench-site: $(STAMP) $(NPM_STAMP) ## Time the project's own speed budgets into results/site_speed/
	$(BIN)/python -m scripts.bench site

qualify: $(STAMP) ## Qualify the project's residual add + ReLU kernel (CPU interpreter)
	$(BIN)/python -m scripts.qualify kernels/residual_add_relu.py

qualify-refresh: $(STAMP) ## Regenerate results/qualify/ after the kernel changes
	$(BIN)/python -m scripts.qualify.refresh verdicts
	$(BIN)/python -m scripts.qualify.refresh corpus
	for task in softmax reduction scan transpose matmul attention; do \
		$(BIN)/python -m scripts.qualify.refresh corpus --task $$task || exit 1; done
	$(BIN)/python -m scripts.bench --device cpu --profile compare residual_add_relu

qualify-gpu: ## On a GPU machine: qualify on CUDA and time the comparison
	$(or $(wildcard $(BIN)/python),python) -m scripts.qualify kernels/residual_add_relu.py --device cuda --json results/qualify/residual_add_relu.cuda.json
	$(or $(wildcard $(BIN)/python),python) -m scripts.bench --profile compare residual_add_relu

artifacts: $(STAMP) ## Recompile kernels for sm_90a into results/artifacts/
	$(BIN)/python -m scripts.artifacts

catalog: $(STAMP) ## Rewrite results/kernels.json from the kernel descriptors
	$(BIN)/python -m scripts.catalog

notebook: $(STAMP) ## Re-run the tiny language model notebook and its checkpoint
	$(BIN)/python -m scripts.tiny_lm

lint: $(STAMP) ## ruff check and format check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP) ## ruff format
	$(BIN)/ruff format .

clean: ## Remove the built site and caches (keeps .venv)
	rm -rf site .pytest_cache .ruff_cache

# OUT receives two files (summary.json, device-run.tar.gz); the default lies
# outside the checkout, where the tools refuse to write result files.
device-run: ## On a GPU machine: every device check, packed into OUT=DIR
	$(or $(wildcard $(BIN)/python),python) -m scripts.device_run --out $(or $(OUT),$$(mktemp -d))

device-run-dry: $(STAMP) ## The same steps and tools on the CPU, small inputs
	DEVICE_RUN_DRY=1 $(BIN)/pytest -q -p no:cacheprovider -n 0 tests/scripts/device_run/test_main.py -k real_dry_run

# The GPU machine's Triton (3.6) in a venv of its own, for the second set of
# artifacts (results/artifacts/triton-3.6/): both compilers' facts on record.
VENV36 ?= .venv-triton36
$(VENV36)/.installed: $(STAMP)
	test -x $(VENV36)/bin/python || $(PYTHON) -m venv $(VENV36)
	$(VENV36)/bin/python -m pip install --quiet triton==3.6.0 torch==2.13.0 "numpy<2.4" jsonschema==4.26.0 PyYAML==6.0.4
	touch $@

artifacts-triton36: $(VENV36)/.installed ## Compile every kernel with Triton 3.6 too
	PYTHONPATH=. $(VENV36)/bin/python -m scripts.artifacts --out results/artifacts/triton-3.6

sanitize: ## On a GPU machine: Compute Sanitizer on the planted bugs and kernels
	$(or $(wildcard $(BIN)/python),python) -m scripts.sanitize --out $(or $(OUT),sanitizer-run)
