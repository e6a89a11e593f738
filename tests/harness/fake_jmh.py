"""A deterministic stand-in for ``java`` running a JMH jar (for unit tests of the harness).

Used as ``java_command = (python, fake_jmh.py, OPTIONS...)``; the harness then appends
``-jar JAR ... -rff RESULT``. Options (before ``-jar``):

    --log FILE     print FILE's lines, one every --delay seconds
    --delay S      pause between lines (default 0)
    --json FILE    copy FILE to the -rff path at the end
    --exit N       exit code (default 0)
    --hang         start a grandchild first; after the log, sleep (both must be killed;
                   bounded at HANG_S so a broken test cannot block a test run for long)
    --pidfile F    write "pid pgid grandchild_pid" to F at the start (with --hang)
    --cut TEXT     print TEXT without a newline before hanging/exiting
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

HANG_S = 60


def main(argv: list[str]) -> int:
    options, rest = _split(argv)
    rff = rest[rest.index("-rff") + 1] if "-rff" in rest else None
    delay = float(options.get("--delay", 0))
    if "--hang" in options:
        _grandchild(options.get("--pidfile"))
    if "--log" in options:
        with open(options["--log"], encoding="utf-8") as log:
            for line in log:
                sys.stdout.write(line)
                sys.stdout.flush()
                time.sleep(delay)
    if "--cut" in options:
        sys.stdout.write(options["--cut"])
        sys.stdout.flush()
    if "--hang" in options:
        time.sleep(HANG_S)
    if "--json" in options and rff:
        shutil.copyfile(options["--json"], rff)
    return int(options.get("--exit", 0))


def _split(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    options: dict[str, str] = {}
    i = 0
    while i < len(argv) and argv[i] != "-jar":
        if argv[i] == "--hang":
            options["--hang"] = ""
            i += 1
        else:
            options[argv[i]] = argv[i + 1]
            i += 2
    return options, argv[i:]


def _grandchild(pidfile: str | None) -> None:
    child = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({HANG_S})"])
    if pidfile:
        with open(pidfile, "w") as handle:
            handle.write(f"{os.getpid()} {os.getpgid(0)} {child.pid}\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
