"""``rigorbench power``: how trustworthy is this setup? A/A false positives and the smallest
slowdown it can detect, simulated from one version's own measurements."""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench.api import DEFAULT_SLOWDOWNS, INTERVALS, POWER_RESAMPLES, STRATEGIES, TESTS, PowerOptions
from rigorbench.cli.common import (
    ANALYZE_FORMATS, DEFAULTS, add_metric_argument, add_version_inputs, progress_printer, settings_from,
    write_output,
)
from rigorbench.cli.parser import UsageError, count, fraction, positive_int
from rigorbench.errors import UserError


DESCRIPTION = f"""\
Simulate experiments from one version's measurements (several trials, ideally from
'rigorbench run' or 'ab'), as Laaber et al. did: split the trials (or instances) into two
disjoint groups again and again and run the decision rule of 'compare' on each pair.

  A/A false positives  identical code reported as slower or faster, with a 95% interval
  detection rate       how often a slowdown injected into one group is found, per slowdown
                       (default {', '.join(f'{s * 100:g}%' for s in DEFAULT_SLOWDOWNS)})
  MDS                  the smallest slowdown found in at least 95% of simulations while A/A
                       false positives stay at or below 5% ("none": nothing in the list)
  trials for target    with --target: trials per version needed to find that slowdown in
                       95% of experiments (simulated where the data reaches, extrapolated
                       from the CI width beyond it)

Group size defaults to half the trials. At least 4 trials (or instances) are needed.

With --contender (a stored A/B run): which design reaches --target soonest on this machine --
RMIT read unpaired or paired by trial, or duet when the store holds a duet run of the two
versions -- from the change each could call now and the trials each needs (docs/statistics.md).

exit status: 0 success, 2 bad usage or input
"""

EPILOG = """\
examples:
  rigorbench power --store .rigorbench/results.db --version v1
  rigorbench power --store .rigorbench/results.db --version v1 --contender v2 --target 10%
  rigorbench power trial*.json --target 5%
  rigorbench power --store results.db --version main --test wilcoxon --format json
"""


def _slowdowns(text: str) -> tuple[float, ...]:
    try:
        return tuple(sorted({fraction(part if part.strip().endswith("%") else part.strip() + "%") for part in text.split(",")}))
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"--slowdowns: {error}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    inputs = add_version_inputs(parser)
    inputs.add_argument("--contender", metavar="LABEL",
                        help="with --store and --version: the run's other version; instead of simulating, say which "
                        "design (RMIT read unpaired or paired, duet when the store has a duet run of the two) calls "
                        "--target (default 5%%) in 95%% of experiments in the least machine time, projected from both "
                        "versions' trials")
    sim = parser.add_argument_group("simulation")
    sim.add_argument("--strategy", choices=STRATEGIES, default="auto", help="split disjoint trials (the RMIT setting) or disjoint instances (default: auto, from the data)")
    sim.add_argument("--group-size", type=positive_int, metavar="N", help="trials (or instances) per group (default: half of those available)")
    sim.add_argument("--simulations", type=positive_int, default=100, metavar="N", help="simulated experiments per slowdown (default: 100)")
    sim.add_argument("--slowdowns", type=_slowdowns, default=DEFAULT_SLOWDOWNS, metavar="P,...", help="slowdowns in percent, e.g. 1,2,5,10 (default: Laaber et al.'s list)")
    sim.add_argument("--target", type=fraction, metavar="P%", help="the slowdown you need to detect, e.g. 5%%: report the trials needed")
    stats = parser.add_argument_group("decision rule (as in compare)")
    stats.add_argument("--test", choices=TESTS, default=None, help="bootstrap CI vs threshold (default) or wilcoxon")
    stats.add_argument("--confidence", type=fraction, default=None, metavar="C", help=f"confidence level (default: {DEFAULTS.confidence})")
    stats.add_argument("--threshold", type=fraction, default=None, metavar="T", help=f"smallest change that matters (default: {DEFAULTS.threshold:.0%})".replace("%", "%%"))
    stats.add_argument("--alpha", type=fraction, default=None, metavar="A", help=f"significance level of --test wilcoxon (default: {DEFAULTS.alpha})")
    stats.add_argument("--resamples", type=positive_int, default=POWER_RESAMPLES, metavar="N", help=f"bootstrap resamples per simulated test (default: {POWER_RESAMPLES}; a 99% CI bound then moves by about 3% of the CI width between seeds, small next to the spread between simulated experiments)".replace("%", "%%"))
    stats.add_argument("--seed", type=positive_int, default=None, metavar="S", help=f"random seed (default: {DEFAULTS.seed})")
    stats.add_argument("--interval", choices=INTERVALS, default=None, help="bootstrap CI method, as in compare: expanded (default) or percentile")
    add_metric_argument(stats)
    stats.add_argument("--jobs", "-j", type=count, default=None, metavar="N",
                       help="simulate benchmarks on N processes; the results are the same for any N "
                       "(default: one per CPU from 2 benchmarks on)")
    output = parser.add_argument_group("output")
    output.add_argument("--format", choices=ANALYZE_FORMATS, default="text", help="output format (default: text)")
    output.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE instead of standard output")


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench import api
    from rigorbench.cli.common import dataset_from_args

    settings = settings_from(args)
    if args.target is not None and args.target <= settings.threshold:
        raise UsageError(f"--target {args.target:.1%} must be above --threshold {settings.threshold:.1%}")
    if args.contender is not None:
        if not (args.store and args.version_label) or args.files:
            raise UsageError("--contender goes with --store and --version (the baseline) of a stored A/B run")
        if settings.test != "bootstrap":
            raise UsageError("--contender projects the bootstrap rule's intervals; --test wilcoxon has none")
        advice = api.power_designs(args.store, args.version_label, args.contender, args.run, settings, args.target)
        width = api.text_width(stdout) if args.output is None else api.DEFAULT_WIDTH
        write_output(api.render(advice, args.format, width=width), args.output, stdout)
        return 0
    dataset, trial_seconds = dataset_from_args(args, stderr)
    options = PowerOptions(args.simulations, tuple(args.slowdowns), args.strategy, args.group_size, args.target)
    result = api.power(dataset, settings, options, trial_seconds,
                       progress=progress_printer(stderr, "power", "simulating"), jobs=args.jobs)
    if not result.benchmarks:
        raise UserError(f"no {settings.metric} metric with measurements found in the input")
    write_output(api.render(result, args.format), args.output, stdout)
    return 0

