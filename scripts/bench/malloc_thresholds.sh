#!/usr/bin/env bash
# Alternates default and raised glibc thresholds, 5 runs each, on the same machine minute.
# Usage: scripts/bench/malloc_thresholds.sh   (after scripts/build)
set -euo pipefail
bin="$(cd "$(dirname "$0")/../.." && pwd)/build/scripts/bench/bench_malloc"
for i in 1 2 3 4 5; do
  "$bin" default
  "$bin" raised
done
