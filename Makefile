# twinmode: all set-up goes through these targets.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Tests read real data from here when it exists (see ../shared/datasets/README.md).
export TRAIN_DATA_DIR ?= $(if $(wildcard ../shared/datasets),$(abspath ../shared/datasets),)

.PHONY: install run next test test-slow test-all slow-list bench bench-quick bench-avx2 api-coverage lint clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

run: install
	$(VENV)/bin/train run experiments/lenet.yaml
	@$(MAKE) --no-print-directory next

# what to type after `make run`, in this folder: `train` is in $(VENV)/bin (not on PATH until
# the venv is activated) and TRAIN_DATA_DIR is set by this Makefile alone
next:
	@echo ''
	@echo 'Next, in this folder (activate the venv to put train on your PATH):'
	@echo '  . $(VENV)/bin/activate'
	$(if $(TRAIN_DATA_DIR),@echo '  export TRAIN_DATA_DIR=$(TRAIN_DATA_DIR)')
	@echo '  train eval experiments/lenet.yaml'
	@echo '  train run experiments/lenet.yaml --resume last train.epochs=4'
	@echo '  train run experiments/gpt_shakespeare_smoke.yaml'
	@echo '  train sample experiments/gpt_shakespeare_smoke.yaml'
	@echo '  train ui'

# pytest-xdist: one worker per core (at most 4), each with its share of the cores for its
# kernels (tests/conftest.py); PYTEST_WORKERS=0 runs the tests in this process
PYTEST_WORKERS ?= auto
XDIST := -n $(PYTEST_WORKERS) $(if $(filter auto,$(PYTEST_WORKERS)),--maxprocesses 4)

# everything but the slow tier (tests marked slow, and those tests/slow_tests.txt lists)
test: install
	$(PY) -m pytest -q $(XDIST) -m "not slow"

test-slow: install
	$(PY) -m pytest -q $(XDIST) -m slow

test-all: install
	$(PY) -m pytest -q $(XDIST)

# re-measure the slow tier: the whole suite with --durations, then the list rewritten
# (in this process, one test at a time: the times are each test's own)
slow-list: install
	$(PY) -m pytest -q --durations=0 --durations-min=1 | tee .pytest-durations.log
	$(PY) -m tests.slow_tier .pytest-durations.log

bench: install
	$(PY) bench/step.py
	$(PY) bench/data.py
	$(PY) bench/control_flow.py --threads 1  # its kernels are too small for two threads
	$(PY) bench/resnet.py
	$(PY) bench/transformer.py

# the same benches, fewer rounds and sizes (ResNet-8 at batch 64 only)
bench-quick: install
	$(PY) bench/step.py --rounds 3 --steps 10
	$(PY) bench/control_flow.py --threads 1 --rounds 3 --no-nested
	$(PY) bench/resnet.py --quick
	$(PY) bench/transformer.py --rounds 3 --no-memory

# the quick benches again on the AVX2 code path (TWINMODE_CPU=haswell), on any x86 machine
bench-avx2: install
	TWINMODE_CPU=haswell $(MAKE) bench-quick

# docs/api_coverage.md: MindSpore's public names (docs/mindspore_names.json) looked up here;
# with MINDSPORE_PYTHON set (a venv with mindspore 2.10), the names are read from it again first
api-coverage: install
	$(if $(MINDSPORE_PYTHON),$(PY) tests/mindspore_ref/api_coverage.py names --mindspore-python $(MINDSPORE_PYTHON))
	$(PY) tests/mindspore_ref/api_coverage.py table

lint: install
	$(VENV)/bin/ruff check framework trainer datasets tests bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
