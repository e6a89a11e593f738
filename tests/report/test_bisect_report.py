"""The bisect renderers on made-up probes: the table, the conclusion, escaping, and JSON."""

from __future__ import annotations

import json

from rigorbench.analysis.bisect import Bisection, Commit, Decision, Probe
from rigorbench.analysis.compare import Comparison, SideSummary
from rigorbench.analysis.settings import Settings
from rigorbench.model import BenchmarkCase, Metric
from rigorbench.report.bisect import render_bisect
from rigorbench.stats import ConfidenceInterval, Verdict

TIME = Metric("time", "us/op", False, True)
CASE = BenchmarkCase("jmh", "dev.demo.CsvParseBenchmark.sumCsv")


def commit(k: int, subject: str | None = None) -> Commit:
    return Commit(f"{k:02d}" + "ab" * 19, subject or f"commit {k}", None)


def comparison(verdict: Verdict, estimate: float, low: float, high: float) -> Comparison:
    side = SideSummary(12, 1.0, 1.0, ConfidenceInterval(1.0, 0.9, 1.1, 0.99), 0.05, 6, 6)
    return Comparison(CASE, TIME, side, side, ConfidenceInterval(estimate, low, high, 0.99), 0.01, 0.9, "large", verdict)


def bisection(decisions: dict[int, Decision], subjects: dict[int, str] | None = None) -> Bisection:
    commits = tuple(commit(k, (subjects or {}).get(k)) for k in range(1, 16))
    probes = []
    for index, decision in decisions.items():
        verdict = {Decision.SLOWER: Verdict.SLOWER, Decision.NOT_SLOWER: Verdict.UNCHANGED}.get(decision, Verdict.INCONCLUSIVE)
        estimate = 3.0 if decision == Decision.SLOWER else 1.02
        probes.append(Probe(index, decision, ((comparison(verdict, estimate, estimate * 0.8, estimate * 1.3), decision),),
                            6, len(probes) + 1, 0.995, 12.5))
    return Bisection(commit(0, "start"), commits, tuple(probes), Settings(threshold=0.9), (6, 12), "/tmp/r.db")


FOUND = {14: Decision.SLOWER, 7: Decision.NOT_SLOWER, 11: Decision.SLOWER, 9: Decision.NOT_SLOWER, 10: Decision.SLOWER}


def test_text_lists_the_probes_in_order_then_the_culprit_and_its_parent():
    out = render_bisect(bisection(FOUND))
    lines = out.splitlines()
    assert lines[0].startswith("bisect: good 00ababababab, bad 15ababababab, 15 commits")
    assert "at 6, 12 trials until decided, threshold 90%, 99% confidence over the looks (99.5% each)" in lines[0]
    rows = [line.split()[:2] for line in lines if line[:1].isdigit() or line.startswith("bad ")]
    assert rows == [["bad", "15ababababab"], ["1", "08ababababab"], ["2", "12ababababab"], ["3", "10ababababab"], ["4", "11ababababab"]]
    assert "+200.0% [+140.0, +290.0]" in out
    assert out.endswith("culprit: 11ababababab  commit 11\nparent:  10ababababab  commit 10\n")


def test_an_inconclusive_probe_lists_the_candidates_not_a_culprit():
    decisions = {14: Decision.SLOWER, 7: Decision.NOT_SLOWER, 11: Decision.SLOWER, 9: Decision.INCONCLUSIVE}
    out = render_bisect(bisection(decisions))
    assert "culprit" not in out
    assert "inconclusive: the first slower commit is one of these 4 (oldest first)" in out
    assert "  10ababababab  commit 10  (inconclusive after 6 trials)" in out
    assert "  09ababababab  commit 9  (not probed)" in out
    assert "  12ababababab  commit 12  (slower after 6 trials)" in out
    doc = json.loads(render_bisect(bisection(decisions), "json"))
    assert doc["status"] == "inconclusive" and doc["culprit"] is None
    assert doc["candidates"] == [commit(k).sha for k in (9, 10, 11, 12)]


def test_premise_not_slower_says_so():
    out = render_bisect(bisection({14: Decision.NOT_SLOWER}))
    assert "not slower: bad 15ababababab is not slower than good 00ababababab" in out
    assert json.loads(render_bisect(bisection({14: Decision.NOT_SLOWER}), "json"))["status"] == "not_slower"


def test_commit_subjects_are_escaped_for_the_terminal_and_kept_in_json():
    evil = "fix\x1b[2J\rrigorbench: error: forged"
    decisions = dict(FOUND)
    out = render_bisect(bisection(decisions, {11: evil}))
    assert "\x1b" not in out and "\r" not in out
    assert "culprit: 11ababababab  fix\\x1b[2J\\rrigorbench: error: forged" in out
    doc = json.loads(render_bisect(bisection(decisions, {11: evil}), "json"))
    assert doc["culprit"] == {"commit": commit(11).sha, "subject": evil}


def test_json_document():
    doc = json.loads(render_bisect(bisection(FOUND), "json"))
    assert (doc["tool"], doc["format_version"], doc["command"]) == ("rigorbench", 1, "bisect")
    for key in ("confidence", "resamples", "seed", "statistic", "threshold"):
        assert key in doc
    assert doc["status"] == "found" and doc["commits"] == 15 and doc["looks"] == [6, 12]
    assert doc["find"] == "slower"
    assert doc["parent"] == {"commit": commit(10).sha, "subject": "commit 10"}
    first = doc["probes"][0]
    assert first["role"] == "premise" and first["decision"] == "slower" and first["trials"] == 6 and first["run_id"] == 1
    case = first["cases"][0]
    assert case["benchmark"] == CASE.name and case["verdict"] == "slower" and case["ratio"]["estimate"] == 3.0
    assert [p["decision"] for p in doc["probes"]] == ["slower", "not_slower", "slower", "not_slower", "slower"]


def test_a_premise_that_measured_nothing_says_so_and_why():
    b = bisection({14: Decision.UNTESTABLE})
    probe = b.probes[0]
    from dataclasses import replace
    b = replace(b, probes=(replace(probe, comparisons=(), reason="the benchmark measured nothing"),))
    out = render_bisect(b)
    assert "15ababababab: the benchmark measured nothing" in out
    assert out.splitlines()[-1] == "inconclusive: bad 15ababababab could not be measured against good 00ababababab (see the reason above); nothing was bisected"
