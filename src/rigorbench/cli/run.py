"""``rigorbench run``: the experiment described by a ``rigorbench.toml`` file."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import IO

from rigorbench.cli.common import add_html_argument, add_lint_arguments, add_output_arguments, add_statistics_arguments, fail_on_conditions
from rigorbench.cli.ab import add_cluster_arguments, add_sequential_arguments
from rigorbench.cli.parser import UsageError, fraction, positive_int


DESCRIPTION = """\
Run the experiment a rigorbench.toml file describes: its versions (directories or git
revisions), harness settings, benchmark selection and store, as randomized multiple
interleaved trials, then compare every other version with the baseline. The file format is
described in docs/configuration.md. Options given here override the file's
[compare] table.
"""

EPILOG = """\
examples:
  rigorbench run                      # ./rigorbench.toml
  rigorbench run bench/rigorbench.toml --fail-on regression
  rigorbench run --resume 4
"""

# How the file's [compare] values are read; every other key is a string.
_COMPARE_TYPES = {"threshold": fraction, "confidence": fraction, "alpha": fraction, "resamples": int, "fail_on": fail_on_conditions}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", default="rigorbench.toml", metavar="CONFIG", help="the experiment file (default: rigorbench.toml)")
    parser.add_argument("--resume", type=positive_int, metavar="RUN_ID", help="continue an interrupted run of this experiment's store")
    parser.add_argument("--list", action="store_true", help="build, list the benchmarks and @Param values of each version (and those only some have), estimate the run's duration, and stop")
    parser.add_argument("--no-build-cache", action="store_true", help="always build (the file's [build] cache = false does the same)")
    add_sequential_arguments(parser)
    add_cluster_arguments(parser, duet=True)
    add_lint_arguments(parser.add_argument_group("lint"))
    add_statistics_arguments(parser)
    add_output_arguments(parser)
    add_html_argument(parser)
    # The choices of each option, to check the file's values against.
    parser.set_defaults(_choices={a.dest: a.choices for a in parser._actions})


def _apply_file_settings(args: argparse.Namespace, compare: dict) -> None:
    """The file's [compare] values, where the command line did not give the option (None)."""
    for key, value in compare.items():
        if getattr(args, key, None) is not None:
            continue
        if key == "fail_on" and isinstance(value, list):  # fail_on = ["regression", "missing"]
            value = ",".join(map(str, value))
        try:
            value = _COMPARE_TYPES.get(key, str)(str(value))
        except (ValueError, argparse.ArgumentTypeError) as error:
            raise UsageError(f"{args.config}: [compare] {key}: {error}") from None
        choices = args._choices.get(key)
        if choices and value not in choices:
            raise UsageError(f"{args.config}: [compare] {key}: {value!r} is not one of {', '.join(map(str, choices))}")
        setattr(args, key, value)


def _adaptive(config, args: argparse.Namespace):
    """The plan with the file's until_decided design, the command line's options first."""
    from rigorbench.cli.ab import sequential_design_from

    file = config.sequential or {}
    for key in ("until_decided", "min_trials", "max_trials", "max_time", "futility"):
        if getattr(args, key, None) in (None, False) and key in file:
            setattr(args, key, file[key])
    args.trials = None
    design = sequential_design_from(args)
    return replace(config.plan, until_decided=design, trials=design.min_trials) if design else config.plan


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench import api
    from rigorbench.cli.ab import cluster_options_from, print_listing
    from rigorbench.cli.common import before_build, conclude

    config = api.load_experiment(args.config)
    _apply_file_settings(args, config.compare)
    reporter = api.make_reporter(stderr)
    use_cache = config.build_cache and not args.no_build_cache
    if args.list:
        return print_listing(config.plan, config.store, use_cache, stdout, reporter)
    config = replace(config, plan=_adaptive(config, args))
    cluster = cluster_options_from(args, resume=args.resume is not None)
    if args.design == api.DUET and args.resume is None:   # the command line's --design duet over the file's order
        if config.plan.order == "sequential":
            raise UsageError(f"{args.config}: --design duet runs both versions of a trial at once; it does not go with order = \"sequential\"")
        config = replace(config, plan=replace(config.plan, order=api.DUET))
    if cluster is not None and args.resume is None:   # the command line's --cluster over the file's
        config = replace(config, plan=replace(config.plan, cluster=cluster))
    labels = [v.label for v in config.plan.versions]
    contenders = [label for label in labels if label != config.baseline]
    with api.open_store(config.store) as store:
        if args.resume is not None:
            result = api.resume_experiment(args.resume, store, reporter, cluster=cluster)
            lint_results: dict = {}
        else:
            hook, lint_results = before_build(args, reporter, config.plan.harness)
            result = api.run_experiment(config.plan, store, reporter, before_build=hook, build_cache=use_cache)
        return conclude(store, result, config.baseline, contenders, args, stdout, reporter, lint_results)
