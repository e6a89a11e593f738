"""The controls of ``rigorbench lint`` (issue 14): info findings hidden by default."""

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
