# The two set-up commands: `make demo` and `make test`. Both create their own environment.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: demo test bench clean testdata

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q

demo: $(STAMP)
	$(BIN)/python examples/jmh-demo/demo.py

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# Regenerate tests/testdata from real JMH runs of examples/jmh-demo (slow: minutes).
testdata: $(STAMP)
	$(BIN)/python examples/jmh-demo/make_testdata.py

clean:
	rm -rf $(VENV) build src/*.egg-info
