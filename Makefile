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

# Microsoft's SARIF validator (npm @microsoft/sarif-multitool, a self-contained binary):
# the lint tests check that our SARIF passes the official schema and rules.
SARIF_VERSION = 5.7.0
SARIF_TOOL    = .tools/sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool

$(SARIF_TOOL):
	npm install --silent --no-audit --no-fund --prefix .tools/sarif @microsoft/sarif-multitool@$(SARIF_VERSION)
	chmod u+x $(SARIF_TOOL)

test: $(STAMP) $(SARIF_TOOL)
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
	rm -rf $(VENV) .tools build src/*.egg-info
