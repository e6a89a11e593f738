"""``rigorbench run``: what the command line gives wins over the file, even a default value."""

from __future__ import annotations

import pytest

from rigorbench.cli import build_parser
from rigorbench.cli.common import settings_from
from rigorbench.cli.parser import UsageError
from rigorbench.cli.run import _apply_file_settings


def parsed(*argv: str):
    return build_parser().parse_args(["run", "rigorbench.toml", *argv])


def test_an_explicit_option_equal_to_the_default_still_wins_over_the_file():
    args = parsed("--confidence", "0.99", "--format", "text")
    _apply_file_settings(args, {"confidence": 0.95, "format": "json", "threshold": "2%", "fail_on": "regression"})
    settings = settings_from(args)
    assert settings.confidence == 0.99 and args.format == "text"
    assert settings.threshold == pytest.approx(0.02) and args.fail_on == "regression"


def test_options_left_out_keep_the_settings_defaults():
    settings = settings_from(parsed())
    assert (settings.confidence, settings.resamples, settings.threshold, settings.statistic) == (0.99, 10_000, 0.01, "mean")


def test_a_file_value_outside_the_choices_is_refused():
    with pytest.raises(UsageError, match=r"\[compare\] statistic: 'mode' is not one of mean, median"):
        _apply_file_settings(parsed(), {"statistic": "mode"})


def test_the_interval_method_comes_from_the_file_or_the_command_line():
    assert settings_from(parsed()).interval == "expanded"
    args = parsed()
    _apply_file_settings(args, {"interval": "percentile"})
    assert settings_from(args).interval == "percentile"
    args = parsed("--interval", "expanded")
    _apply_file_settings(args, {"interval": "percentile"})
    assert settings_from(args).interval == "expanded"
    with pytest.raises(UsageError, match=r"\[compare\] interval: 'bca' is not one of expanded, percentile"):
        _apply_file_settings(parsed(), {"interval": "bca"})
