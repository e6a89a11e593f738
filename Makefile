# The two set-up commands: `make demo` and `make test`. Both create their own environment.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: demo test bench clean testdata chromium gradle

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

# Headless Chromium (Debian's package) for the HTML report's browser test, driven by
# Playwright from the test extras. Where it cannot be installed (not root, no apt-get, no
# network), the browser test says so and skips; everything else still runs.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium (Debian package) for the report's browser test"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -q chromium >/dev/null 2>&1 \
	      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; } \
	      || echo "chromium could not be installed; the browser test will skip"; \
	  else echo "chromium is not installed and cannot be here (needs root and apt-get); the browser test will skip"; fi; }

# Gradle (Debian's package, 4.4) for the end-to-end test of a Gradle JMH project. Gradle's
# own distributions (services.gradle.org) are not reachable here; where Debian's cannot be
# installed either, that one test says so and skips.
gradle:
	@command -v gradle >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing gradle (Debian package) for the Gradle end-to-end test"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -q gradle >/dev/null 2>&1 \
	      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q gradle >/dev/null 2>&1; } \
	      || echo "gradle could not be installed; the Gradle end-to-end test will skip"; \
	  else echo "gradle is not installed and cannot be here (needs root and apt-get); the Gradle test will skip"; fi; }

test: $(STAMP) $(SARIF_TOOL) chromium gradle
	$(BIN)/python -m pytest -q

# The main job on the bundled example: build both versions, run them as randomized
# interleaved trials, store every iteration, compare, and write the HTML report (its path is
# printed last). Exit 1 means "found a regression", which is what the demo plants, so it is
# not a failure of the demo.
DEMO_REPORT = examples/jmh-demo/.rigorbench/report.html
demo: $(STAMP)
	$(BIN)/rigorbench ab examples/jmh-demo --base v1 --contender v2 --quick --fail-on regression --html $(DEMO_REPORT) || test $$? -eq 1

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# Regenerate tests/testdata from real JMH runs of examples/jmh-demo (slow: minutes).
testdata: $(STAMP)
	$(BIN)/python examples/jmh-demo/make_testdata.py

clean:
	rm -rf $(VENV) .tools build src/*.egg-info
