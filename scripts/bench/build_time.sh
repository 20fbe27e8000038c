#!/usr/bin/env bash
# Build-time benchmark (docs/performance.md, "Build time"): clean builds of the runner binary
# with and without the precompiled ATen header (RUNNER_PCH), alternating, ccache off. Reports
# wall seconds and the CPU seconds of all compiler processes (user + sys): the CPU seconds do
# not depend on what else the machine runs, the wall seconds on 2 idle cores are about half.
# Usage: scripts/bench/build_time.sh [REPS (default 3)] [JOBS (default 2)]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
reps=${1:-3} jobs=${2:-2}
work=$(mktemp -d /tmp/runner-build-time.XXXXXX)
trap 'rm -rf "$work"' EXIT
for rep in $(seq "$reps"); do
  for pch in ON OFF; do
    rm -rf "$work/build"
    cmake -S "$root" -B "$work/build" -DRUNNER_PCH=$pch >"$work/configure.log" 2>&1
    CCACHE_DISABLE=1 /usr/bin/time -f "%e %U %S" -o "$work/time" cmake --build "$work/build" -j"$jobs" --target runner >"$work/build.log" 2>&1
    read -r wall user sys <"$work/time"
    echo "rep $rep RUNNER_PCH=$pch: wall ${wall} s, CPU $(echo "$user + $sys" | bc) s"
  done
done
