"""The sampler of the held-out lint corpus (benchmarks/lint_corpus/sample.py), which draws the
benchmarks read by hand for misses: its ``--spanning`` listing finds the benchmarks the default
listing skipped, and the default listing draws as it always did (samples recorded before)."""

from __future__ import annotations

from tests.lint.corpus import corpus_script


SOURCE = """\
public class S {
    @Benchmark
    @Warmup(
        iterations = 10
    )
    public int spanning() { return 1; }

    @Benchmark()
    public int parenthesised() { return 2; }

    @Benchmark
    // a comment between the annotation and the method
    @Fork(1)
    public int commented() { return 3; }

    @Benchmark
    @Fork(1)
    public int plain() { return 4; }
}
"""


def test_spanning_lists_every_benchmark_and_the_default_listing_is_unchanged(tmp_path):
    sample = corpus_script("sample")
    project = tmp_path / "p"
    project.mkdir()
    (project / "S.java").write_bytes(SOURCE.replace("\n", "\r\n").encode())   # CRLF as cyclops
    spanning = sample.benchmarks(project, same_line=True, spanning=True)
    assert [(line, name) for _, line, name in spanning] == [
        (2, "spanning"), (8, "parenthesised"), (11, "commented"), (16, "plain")]
    # the default listing misses the first three, as it did when earlier samples were drawn
    assert [name for _, _, name in sample.benchmarks(project, same_line=True)] == ["plain"]


def test_stacked_lists_a_benchmark_annotated_with_others_on_its_line(tmp_path):
    sample = corpus_script("sample")
    project = tmp_path / "p"
    project.mkdir()
    (project / "T.java").write_text(
        "class T {\n"
        "  @Benchmark @Threads(4)\n"
        "  public long four() { return 4; }\n"
        "  @Benchmark @Threads(2) @Fork(value = 1) public long two() { return 2; }\n"
        "  @Benchmark\n"
        "  public long plain() { return 1; }\n"
        "}\n")
    assert [(line, name) for _, line, name in sample.benchmarks(project, True, stacked=True)] == [
        (2, "four"), (4, "two"), (5, "plain")]
    # without the flag both stacked benchmarks are missed, as in the samples drawn before
    assert [name for _, _, name in sample.benchmarks(project, True)] == ["plain"]
