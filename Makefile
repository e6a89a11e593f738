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

# The main job on the bundled example: build both versions, run them as randomized
# interleaved trials, store every iteration, compare. Exit 1 means "found a regression",
# which is what the demo plants, so it is not a failure of the demo.
demo: $(STAMP)
	$(BIN)/rigorbench ab examples/jmh-demo --base v1 --contender v2 --quick --fail-on regression || test $$? -eq 1

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# Regenerate tests/testdata from real JMH runs of examples/jmh-demo (slow: minutes).
testdata: $(STAMP)
	$(BIN)/python examples/jmh-demo/make_testdata.py

clean:
	rm -rf $(VENV) build src/*.egg-info
