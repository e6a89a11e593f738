#!/bin/sh
# Regenerates tests/testdata/gbench/: the real JSON output of this demo's two versions
# (golden inputs for rigorbench's Google Benchmark reader), two trials of each, every trial
# one process of 5 repetitions. Needs CMake, a C++17 compiler and Google Benchmark
# (Debian: cmake g++ libbenchmark-dev). Takes well under a minute.
#
#   sh examples/gbench-demo/make_testdata.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../tests/testdata/gbench"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
mkdir -p "$out"

for version in v1 v2; do
  cmake -S "$here/$version" -B "$build/$version" -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$build/$version" > /dev/null
done
# Trials interleaved (v1, v2, v1, v2), as rigorbench runs them.
for trial in 1 2; do
  for version in v1 v2; do
    "$build/$version/demo_bench" --benchmark_repetitions=5 --benchmark_min_time=0.05 \
      --benchmark_out="$out/$version-trial$trial.json" --benchmark_out_format=json > /dev/null 2>&1
    # The executable's path is the build's temporary folder: keep the name only.
    sed -i "s|\"executable\": \".*/demo_bench\"|\"executable\": \"demo_bench\"|" "$out/$version-trial$trial.json"
  done
done
echo "wrote $(ls "$out" | wc -l) files to $(cd "$out" && pwd)"
