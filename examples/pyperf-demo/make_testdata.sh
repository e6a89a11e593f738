#!/bin/sh
# Regenerates tests/testdata/pyperf/: the real pyperf JSON of this demo's two versions (golden
# inputs for rigorbench's pyperf reader), two interleaved trials of each; every trial is one
# pyperf run of 3 worker processes x 5 values (1 warmup each). PYTHON must have pyperf
# (pip install pyperf). Takes about a minute.
#
#   PYTHON=.venv/bin/python sh examples/pyperf-demo/make_testdata.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../tests/testdata/pyperf"
python=${PYTHON:-python3}
mkdir -p "$out"
for trial in 1 2; do
  for version in v1 v2; do
    rm -f "$out/$version-trial$trial.json"
    "$python" "$here/$version/bench.py" --quiet --processes 3 --values 5 --warmups 1 --min-time 0.02 \
      --output "$out/$version-trial$trial.json"
  done
done
echo "wrote $(ls "$out" | wc -l) files to $(cd "$out" && pwd)"
