"""The README and the CLI reference are tested: what they show must be what the tool does."""

from __future__ import annotations

import io
import re
import shlex
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.cli.reference import render_reference
from rigorbench.experiment.config import load_config

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name, exit_code", [("compare", 0), ("lint", 1), ("analyze", 0)])
def test_quick_start_output_is_what_the_command_prints(name, exit_code, monkeypatch):
    block = README.split(f"<!-- quickstart:{name} -->", 1)[1].split("```console\n", 1)[1].split("```", 1)[0]
    command, expected = block.split("\n", 1)
    argv = shlex.split(command.removeprefix("$ "))
    assert argv[0] == "rigorbench"
    monkeypatch.chdir(ROOT)
    out, err = io.StringIO(), io.StringIO()
    assert main(argv[1:], out, err) == exit_code, err.getvalue()
    assert out.getvalue() == expected


def test_the_experiment_file_example_loads(tmp_path):
    toml = re.search(r"```toml\n(.*?)```", README, re.S).group(1)
    target = tmp_path / "rigorbench.toml"
    target.write_text(toml.replace('project = "examples/jmh-demo"', f'project = "{ROOT / "examples/jmh-demo"}"'))
    config = load_config(target)
    assert [v.label for v in config.plan.versions] == ["v1", "v2"]
    assert config.plan.settings.include == ("PrimeCountBenchmark",)


def test_cli_reference_is_generated_from_the_parser():
    current = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert current == render_reference(), "regenerate: python -m rigorbench.cli.reference > docs/cli.md"
