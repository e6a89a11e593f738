"""Advice in the harness's own words: what "more forks" or "more iterations" means to the
user of each harness, with the option that does it.

rigorbench's levels (ARCHITECTURE.md, "Data model") map onto each harness as its format
reader says: a fork is one process (a JMH fork, one run of a Go test binary or of a Google
Benchmark binary, one pyperf worker process), an iteration one value of it (a JMH
iteration, one ``-count`` result line, one ``--benchmark_repetitions`` repetition, one pyperf
value). A hint that names a level names the harness's option for it (hyperfine's warnings
whose hint depends on the options used; STYLE.md rule 4). Plain result files (a CSV
history) get the generic words.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Words:
    more_forks: str        # "run more forks (-f)"
    more_iterations: str   # "run more or longer iterations (-i, -r)"
    process: str           # what one fork is: "each JVM", "each process"


GENERIC = Words("run more forks (separate processes)", "run more or longer iterations", "each process")

HARNESS_WORDS = {
    "jmh": Words("run more forks (-f)", "run more or longer iterations (-i, -r)", "each JVM"),
    "go": Words("run the test binary more times (each go test run is one fork: one result file per run, or --forks)",
                "raise -count (or -benchtime)", "each test process"),
    "gbench": Words("run the benchmark binary more times (each run is one fork: one JSON file per run, or --forks)",
                    "raise --benchmark_repetitions (or --benchmark_min_time)", "each process"),
    "pyperf": Words("run more processes (--processes)", "run more values per process (--values)", "each process"),
}


def words(harness: str) -> Words:
    """How ``harness`` says it (the generic words for any other)."""
    return HARNESS_WORDS.get(harness, GENERIC)
