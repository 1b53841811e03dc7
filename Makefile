# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install run test clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# The main job on the embedded defaults: the reference planners over the hand-written tasks.
run: $(STAMP)
	$(BIN)/mobilepa run planner=oracle split=handwritten
	$(BIN)/mobilepa run planner=noop split=handwritten

test: $(STAMP)
	$(BIN)/pytest

clean:
	rm -rf $(VENV) outputs .pytest_cache .hypothesis
