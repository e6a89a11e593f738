"""``rigorbench worker``: start this machine's benchmarking worker for a Dask cluster."""

from __future__ import annotations

import argparse
from typing import IO

from rigorbench.cli.parser import add_tls_arguments

DESCRIPTION = """\
Start this machine's benchmarking worker for 'rigorbench ab --cluster' (or 'run' with
cluster = in rigorbench.toml): one Dask worker with one thread and one 'benchmark' slot, so
the scheduler sends this machine one trial at a time. It is named after the host (a
restarted worker is the same instance again) and refuses to start next to another
benchmarking worker on the same machine, which would measure its trials. It prints this
machine's environment warnings (load, CPU governor) first, and runs until stopped.
See docs/cluster.md for a cluster on a few VMs or on Kubernetes.
"""

EPILOG = """\
examples:
  dask scheduler                                   # on one machine (port 8786)
  rigorbench worker tcp://10.0.0.5:8786            # on every benchmarking machine
  rigorbench worker tls://bench.example.org:8786 --tls-ca-file ca.pem --tls-cert worker.pem --tls-key worker.key
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scheduler", metavar="ADDRESS", help="the Dask scheduler: tcp://HOST:8786 or tls://HOST:8786")
    parser.add_argument("--name", metavar="NAME", help="the instance's name in the results (default: the host name)")
    parser.add_argument("--work-dir", metavar="DIR", help="where shipped versions are unpacked and trials keep their output "
                        "(default: ~/.cache/rigorbench/worker)")
    parser.add_argument("--force", action="store_true", help="start even when another benchmarking worker runs on this "
                        "machine (their trials then disturb each other)")
    add_tls_arguments(parser, "worker")


def run(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from rigorbench import api

    def say(text: str) -> None:
        stderr.write(text + "\n")
        stderr.flush()

    return api.run_worker(args.scheduler, say, tls=(args.tls_ca_file, args.tls_cert, args.tls_key), name=args.name,
                          work_dir=args.work_dir, force=args.force)
