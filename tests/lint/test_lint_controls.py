"""The controls of ``rigorbench lint`` (issue 14): info hidden by default, inline
suppression, fingerprints, the [lint] table of rigorbench.toml and --baseline."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rigorbench.cli import main

TRAVERSAL = """\
import org.openjdk.jmh.annotations.*;
import java.util.*;

@State(Scope.Thread)
public class Walk {
    List<Integer> list = new ArrayList<>();

    @Benchmark
    public long sum() {
        long s = 0;
        for (Integer v : list) {
            s += v.longValue() + list.indexOf(v);
        }
        return s;
    }
}
"""


def lint(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["lint", *args], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def walk(tmp_path) -> Path:
    (tmp_path / "Walk.java").write_text(TRAVERSAL, encoding="utf-8")
    return tmp_path


def test_info_is_hidden_in_text_unless_asked(walk):
    code, out, err = lint(str(walk))
    assert (code, "LOOP" in out) == (0, False)
    assert "1 info finding not shown" in err and "--show-info" in err
    code, out, err = lint(str(walk), "--show-info")
    assert code == 0 and "LOOP [info]" in out and err == ""


def test_json_always_carries_info(walk):
    code, out, _ = lint(str(walk), "--format", "json")
    assert [(f["rule"], f["severity"]) for f in json.loads(out)["findings"]] == [("LOOP", "info")]


DROPS = """\
import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
public class Drops {
    double x = 2;

    @Benchmark
    public double one() {
        Math.log(x);{trail}
        return x;
    }

{above}    @Benchmark
    public double two() {
        Math.sqrt(x);
        Math.exp(x);
        return x;
    }
}
"""


def rules_at(tmp_path, trail: str = "", above: str = "", head: str = "") -> list[tuple[str, int]]:
    (tmp_path / "Drops.java").write_text(head + DROPS.replace("{trail}", trail).replace("{above}", above))
    code, out, err = lint(str(tmp_path), "--format", "json")
    return [(f["rule"], f["line"]) for f in json.loads(out)["findings"]]


def test_no_suppression_reports_all_three(tmp_path):
    assert rules_at(tmp_path) == [("RETU", 9), ("RETU", 15), ("RETU", 16)]


def test_trailing_comment_suppresses_its_line_only(tmp_path):
    assert rules_at(tmp_path, trail=" // rigorbench:ignore RETU warm-up call, kept on purpose") \
        == [("RETU", 15), ("RETU", 16)]


def test_comment_above_a_method_suppresses_the_whole_method(tmp_path):
    found = rules_at(tmp_path, above="    // rigorbench:ignore RETU,LOOP measures the calls' side effects\n")
    assert found == [("RETU", 9)]


def test_comment_naming_another_rule_suppresses_nothing(tmp_path):
    found = rules_at(tmp_path, above="    /* rigorbench:ignore FINAL not this one */\n")
    assert found == [("RETU", 9), ("RETU", 16), ("RETU", 17)]


def test_comment_above_the_class_suppresses_every_finding_in_it(tmp_path):
    source = DROPS.replace("{trail}", "").replace("{above}", "").replace(
        "@State(Scope.Thread)", "// rigorbench:ignore ALL a teaching example of what not to do\n@State(Scope.Thread)")
    (tmp_path / "Drops.java").write_text(source)
    code, out, _ = lint(str(tmp_path), "--format", "json")
    assert (code, json.loads(out)["findings"]) == (0, [])


def test_fingerprints_survive_moving_code_and_differ_between_findings(tmp_path):
    (tmp_path / "Drops.java").write_text(DROPS.replace("{trail}", "").replace("{above}", ""))
    before = [f["fingerprint"] for f in json.loads(lint(str(tmp_path), "--format", "json")[1])["findings"]]
    (tmp_path / "Drops.java").write_text("// a licence header\n\n" + DROPS.replace("{trail}", "").replace("{above}", ""))
    after = json.loads(lint(str(tmp_path), "--format", "json")[1])["findings"]
    assert [f["fingerprint"] for f in after] == before
    assert [f["line"] for f in after] == [11, 17, 18]
    assert len(set(before)) == 3 and all(len(fp) == 16 for fp in before)


def test_sarif_carries_the_fingerprint(tmp_path):
    (tmp_path / "Drops.java").write_text(DROPS.replace("{trail}", "").replace("{above}", ""))
    fps = [f["fingerprint"] for f in json.loads(lint(str(tmp_path), "--format", "json")[1])["findings"]]
    results = json.loads(lint(str(tmp_path), "--format", "sarif")[1])["runs"][0]["results"]
    assert [r["partialFingerprints"]["rigorbench/v1"] for r in results] == fps


def drops(tmp_path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "Drops.java").write_text(DROPS.replace("{trail}", "").replace("{above}", ""))
    return src


def test_config_ignore_and_severity(tmp_path, monkeypatch):
    src = drops(tmp_path)
    (tmp_path / "rigorbench.toml").write_text('[lint]\nseverity = { RETU = "info" }\n')
    monkeypatch.chdir(tmp_path)  # ./rigorbench.toml is read by default
    code, out, _ = lint("src", "--format", "json")
    assert code == 0 and {f["severity"] for f in json.loads(out)["findings"]} == {"info"}
    (tmp_path / "other.toml").write_text('[lint]\nignore = ["retu"]\n')
    code, out, _ = lint("src", "--format", "json", "--config", "other.toml")
    assert (code, json.loads(out)["findings"]) == (0, [])
    assert src.exists()


def test_config_select_limits_the_rules(tmp_path):
    src = drops(tmp_path)
    config = tmp_path / "c.toml"
    config.write_text('[lint]\nselect = ["LOOP", "FINAL"]\n')
    code, out, _ = lint(str(src), "--format", "json", "--config", str(config))
    assert (code, json.loads(out)["findings"]) == (0, [])


@pytest.mark.parametrize("text, message", [
    ('[lint]\nselect = ["NOPE"]\n', "unknown rule 'NOPE'"),
    ('[lint]\nseverity = { RETU = "fatal" }\n', "'fatal' is not one of"),
    ('[lint]\nchoose = []\n', "has no key 'choose'"),
    ('[lint\n', "not valid TOML"),
])
def test_bad_config_is_one_error_line_and_exit_2(tmp_path, text, message):
    config = tmp_path / "c.toml"
    config.write_text(text)
    code, out, err = lint(str(drops(tmp_path)), "--config", str(config))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(f"rigorbench: error: {config}: ") and message in err


def test_baseline_records_then_reports_only_new_findings(tmp_path):
    src = drops(tmp_path)
    baseline = tmp_path / "lint-baseline.json"
    code, out, err = lint(str(src), "--baseline", str(baseline))
    assert code == 0 and "recorded 3 findings" in err and "RETU" not in out
    assert len(json.loads(baseline.read_text())["fingerprints"]) == 3
    text = (src / "Drops.java").read_text()
    (src / "Drops.java").write_text("// moved down\n" + text.replace("return x;\n    }\n}", "Math.cbrt(x);\n        return x;\n    }\n}"))
    code, out, _ = lint(str(src), "--baseline", str(baseline), "--format", "json")
    assert code == 1
    assert [(f["rule"], f["line"]) for f in json.loads(out)["findings"]] == [("RETU", 18)]


def test_a_file_that_is_not_a_baseline_is_rejected(tmp_path):
    bad = tmp_path / "b.json"
    bad.write_text('{"findings": []}')
    code, out, err = lint(str(drops(tmp_path)), "--baseline", str(bad))
    assert (code, out) == (2, "") and err.startswith(f"rigorbench: error: {bad}: not a lint baseline")
