#!/bin/sh
# Regenerates tests/testdata/go/bench.txt: the real output of `go test -bench`
# for version 1 of this module (a golden input for rigorbench's Go benchmark reader).
# Runs offline (the module has no dependencies) in well under a minute.
#
#   sh examples/go-demo/make_testdata.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../tests/testdata/go/bench.txt"
mkdir -p "$(dirname "$out")"

# Use the installed Go as-is, never download a toolchain or module, ignore any go.work.
export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off GOWORK=off

cd "$here/v1"
go vet ./...
go test -count=1 -run . ./...   # the unit tests must pass before benchmarking
go test -run '^$' -bench . -benchmem -count 5 -benchtime 20ms > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $(cd "$(dirname "$out")" && pwd)/$(basename "$out") ($(wc -l < "$out") lines)"
