"""The short ``Class.method`` name that progress lines, notes and tables print (one function)."""

from __future__ import annotations

from rigorbench.model import short_name


def test_short_name_keeps_class_and_method():
    assert short_name("org.example.bench.PrimeCountBenchmark.countPrimes") == "PrimeCountBenchmark.countPrimes"
    assert short_name("Bench.run") == "Bench.run"
    assert short_name("BenchmarkJoin/concat") == "BenchmarkJoin/concat"   # Go: no package in the name
