#!/usr/bin/env bash
# Soak: the quickstart for many steps with a checkpoint every 100 steps and
# save_total_limit 3; samples the process's resident memory and the output folder's size, so
# a leak (memory, file descriptors, checkpoints that are never deleted) shows as a slope.
# Usage: scripts/bench/soak.sh [STEPS=200000] [OUT=/tmp/runner-soak]   (after scripts/build)
# Writes OUT/soak.csv (seconds, step, rss_mib, output_dir_mib, open_fds) and prints the first
# and last samples.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
steps=${1:-200000}
out=${2:-/tmp/runner-soak}
rm -rf "$out" && mkdir -p "$out"
"$root/build/runner" "$root/recipes/quickstart.lua" --output_dir "$out/run" --max_steps "$steps" --save_strategy steps \
  --save_steps 100 --save_total_limit 3 --logging_steps 1000 > "$out/train.log" 2>&1 &
pid=$!
echo "seconds,step,rss_mib,output_dir_mib,open_fds" > "$out/soak.csv"  # du in whole MiB
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/VmRSS/{printf "%.1f", $2/1024}' "/proc/$pid/status" 2>/dev/null || true)
  fds=$( (ls "/proc/$pid/fd" 2>/dev/null || true) | wc -l)
  step=$( (ls "$out/run" 2>/dev/null || true) | sed -n 's/^checkpoint-//p' | sort -n | tail -1)
  kib=$( (du -sk "$out/run" 2>/dev/null || true) | cut -f1)
  [ -n "$rss" ] && echo "$(( $(date +%s) - start )),${step:-0},$rss,$(( ${kib:-0} / 1024 )),$fds" >> "$out/soak.csv"
  sleep 2
done
wait "$pid"
echo "first and last samples (seconds,step,rss_mib,output_dir_mib,open_fds):"
sed -n 2p "$out/soak.csv"
tail -1 "$out/soak.csv"
echo "checkpoints left: $(ls "$out/run" | grep -c '^checkpoint-')"
