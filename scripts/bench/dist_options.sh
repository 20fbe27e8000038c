#!/usr/bin/env bash
py=${RUNNER_PYTHON:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.venv/bin/python3}  # the .venv Python (numpy, torch)
# What two data-parallel options cost or save, for docs/performance.md (after scripts/build;
# ~9 minutes on 2 cores):
#  1. ZeRO-3 (FSDP full_shard) prefetch: no_prefetch vs backward_pre (the default) vs
#     backward_pre + forward_prefetch, on a GPT of 8 layers × 384 (2 ranks × 1 thread);
#  2. full_determinism (ordered, world-size-invariant reduction) vs plain DDP, same GPT.
# Steady-state ms/step = (time of 120 steps − time of 20 steps) / 100, so start-up cancels.
# Usage: scripts/bench/dist_options.sh [TEXT_FILE]
# shellcheck source=scripts/bench/dist_common.sh
source "$(dirname "$0")/dist_common.sh"
model=(--n_layer 8 --n_embd 384 --n_head 6 --block_size 64 --batch_size 6)
run() {  # run NAME STEPS ARGS...
  local name=$1 steps=$2
  shift 2
  OMP_NUM_THREADS=1 mpiexec -n 2 "$runner" "$root/recipes/char_gpt.lua" --text "$text" "${model[@]}" --iters "$steps" \
    --do_eval false --save_strategy no --eval_strategy no --logging_steps 1000 --output_dir "$out/${name}_$steps" "$@" \
    > "$out/${name}_$steps.log" 2>&1
}
row() {  # row LABEL NAME ARGS...
  local label=$1 name=$2
  shift 2
  run "$name" 20 "$@"
  run "$name" 120 "$@"
  local a="$out/${name}_20/train_results.json" b="$out/${name}_120/train_results.json"
  "$py" - "$label" "$a" "$b" <<'PY'
import json, sys
label, a, b = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
ms = (b["train_runtime"] - a["train_runtime"]) / 100 * 1000
comm = (b["train_comm_seconds"] - a["train_comm_seconds"]) / 100 * 1000
g, p = b.get("train_unit_gathers"), b.get("train_unit_gathers_prefetched")
pf = f"{p} of {g}" if g else "-"
print(f"| {label} | {ms:.1f} | {comm:.1f} | {pf} |")
PY
}

echo "GPT 8 layers × 384, block 64, 2 ranks × 1 thread, batch 6 per rank"
echo
echo "| run | ms/step | comm ms/step (rank 0) | unit gathers prefetched (120 steps) |"
echo "|---|---|---|---|"
row "FSDP full_shard, no_prefetch" fs_none --fsdp full_shard --fsdp_config '{"backward_prefetch": "no_prefetch"}'
row "FSDP full_shard, backward_pre (default)" fs_pre --fsdp full_shard
row "FSDP full_shard, backward_pre + forward_prefetch" fs_both --fsdp full_shard --fsdp_config '{"forward_prefetch": true}'
row "DDP" ddp
row "DDP, full_determinism" ddp_det --full_determinism true
