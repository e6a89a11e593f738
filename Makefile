# The set-up commands: `make demo`, `make check` and `make test`. Each creates its own environment.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
# Two stamps: the demo needs only rigorbench and its runtime dependencies; the tests add their
# tools (pytest, hypothesis, Playwright, build). `make test` after `make demo` adds the extras.
STAMP      = $(VENV)/.installed
TEST_STAMP = $(VENV)/.installed-test

.PHONY: demo test check bench clean testdata chromium gradle gbench postgresql golden venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $(STAMP)

# Apache Otava, the change-point detector tests/stats/test_changepoints.py compares with, pins
# numpy==2.2.0 for Python < 3.14 although its analysis code runs on ours: installed without
# its dependencies (its own imports there are numpy and scipy only).
OTAVA_VERSION = 0.8.0

$(TEST_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/pip install --quiet --no-deps apache-otava==$(OTAVA_VERSION)
	touch $(TEST_STAMP)

venv: $(STAMP)

# Microsoft's SARIF validator (npm @microsoft/sarif-multitool, a self-contained binary):
# the lint tests check that our SARIF passes the official schema and rules.
SARIF_VERSION = 5.7.0
SARIF_TOOL    = .tools/sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool

$(SARIF_TOOL):
	npm install --silent --no-audit --no-fund --prefix .tools/sarif @microsoft/sarif-multitool@$(SARIF_VERSION)
	chmod u+x $(SARIF_TOOL)

# Debian packages some tests need, installed when this machine allows it (root and apt-get);
# elsewhere the tests that need them say why and skip, and everything else still runs.
# $(call apt_install,PACKAGE,WHAT IT IS FOR[,COMMAND THAT SUCCEEDS WHEN IT IS INSTALLED])
# (by default: PACKAGE is a command on the PATH)
define apt_install
	@$(if $(3),$(3),command -v $(1)) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing $(1) (Debian package) for $(2)"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -q $(1) >/dev/null 2>&1 \
	      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $(1) >/dev/null 2>&1; } \
	      || echo "$(1) could not be installed; $(2) will skip"; \
	  else echo "$(1) is not installed and cannot be here (needs root and apt-get); $(2) will skip"; fi; }
endef

# Headless Chromium for the HTML report's browser test, driven by Playwright (test extras).
chromium:
	$(call apt_install,chromium,the report's browser test)

# Gradle 4.4 for the end-to-end test of a Gradle JMH project: Gradle's own distributions
# (services.gradle.org) are not reachable here, Debian's package is.
gradle:
	$(call apt_install,gradle,the Gradle end-to-end test)

# Google Benchmark with CMake and g++ for the Google Benchmark harness tests (Debian packages).
gbench:
	@test -f /usr/include/benchmark/benchmark.h && command -v cmake >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing cmake g++ libbenchmark-dev (Debian packages) for the Google Benchmark harness tests"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -q cmake g++ libbenchmark-dev >/dev/null 2>&1 \
	      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q cmake g++ libbenchmark-dev >/dev/null 2>&1; } \
	      || echo "libbenchmark-dev could not be installed; the Google Benchmark harness tests will skip"; \
	  else echo "libbenchmark-dev is not installed and cannot be here; the Google Benchmark harness tests will skip"; fi; }

# PostgreSQL's server for the tests of the PostgreSQL results store: the suite starts its own
# server from these binaries (tests/pgserver.py), which Debian keeps off the PATH, in
# /usr/lib/postgresql/VERSION/bin; so look for initdb there rather than on the PATH.
postgresql:
	$(call apt_install,postgresql,the PostgreSQL store tests,ls /usr/lib/postgresql/*/bin/initdb)

# Test workers (pytest-xdist): the suite's real runs wait on timed iterations, builds and JVM
# start-up as much as on a CPU, so two workers finish sooner even on a 2-CPU machine.
TEST_WORKERS ?= 2
XDIST = -n $(TEST_WORKERS) --dist loadgroup

# Python's bytecode caches for the suite's own processes, even where the environment turns them
# off (PYTHONDONTWRITEBYTECODE, as on this project's build machines): without them every test
# worker rewrites every test module's asserts and every rigorbench subprocess (the CLI under
# kill -9, cluster workers) compiles the package again, about 0.5 s of CPU each.
test check: export PYTHONDONTWRITEBYTECODE =

# The whole suite: every test, the real runs of every harness included.
test: $(TEST_STAMP) $(SARIF_TOOL) chromium gradle gbench postgresql
	$(BIN)/python -m pytest -q $(XDIST) --durations=15

# The fast tier, for every edit: pure functions, the CLI in-process, fakes; no real build, JVM,
# toolchain, cluster, browser or database server (tests/tiers.py says which tests are which).
check: $(TEST_STAMP) $(SARIF_TOOL)
	$(BIN)/python -m pytest -q $(XDIST) -m "not e2e and not slow"

# The main job on the bundled example: build both versions, run them as randomized
# interleaved trials, store every iteration, compare, and write the HTML report (its path is
# printed last). Exit 1 means "found a regression", which is what the demo plants, so it is
# not a failure of the demo. Sixteen trials of one fork with 100-ms iterations, not --quick's
# five of two with 200-ms ones: more forks and trials in about the same time (README,
# docs/statistics.md "The demo's design").
DEMO_REPORT = examples/jmh-demo/.rigorbench/report.html
demo: $(STAMP)
	$(BIN)/rigorbench ab examples/jmh-demo --base v1 --contender v2 --quick --trials 16 --forks 1 --warmup-time 100ms --iteration-time 100ms --fail-on regression --html $(DEMO_REPORT) || test $$? -eq 1

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# Regenerate tests/testdata from real JMH runs of examples/jmh-demo (slow: minutes).
testdata: $(STAMP)
	$(BIN)/python examples/jmh-demo/make_testdata.py

# Rewrite the golden outputs of compare, analyze and power (tests/cli/golden) and of the
# format readers (tests/formats/golden) from the current code; review them with git diff.
golden: $(TEST_STAMP)
	RIGORBENCH_REGEN=1 $(BIN)/python -m pytest -q tests/cli/test_golden_output.py tests/formats/test_golden.py

clean:
	rm -rf $(VENV) .tools build src/*.egg-info
