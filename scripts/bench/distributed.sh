#!/usr/bin/env bash
py=${RUNNER_PYTHON:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.venv/bin/python3}  # the .venv Python (numpy, torch)
# Data-parallel benchmarks for docs/performance.md (after scripts/build; ~10 minutes):
#  1. throughput of the char GPT: 1 rank × 2 threads vs 2 ranks × 1 thread, same global
#     batch (12), and the time each rank spends in collectives per step;
#  2. model-state bytes and peak RSS per rank for DDP, ZeRO-1/2/3 on a 113M-parameter GPT;
#  3. a memory cap (address-space limit per rank) under which ZeRO-3 trains that GPT and DDP
#     cannot start.
# Usage: scripts/bench/distributed.sh [TEXT_FILE]
# shellcheck source=scripts/bench/dist_common.sh
source "$(dirname "$0")/dist_common.sh"

echo "## 1. Throughput, char GPT (4 layers, 128 dims, block 64), global batch 12"
echo
echo "| layout | ms/step | comm s/step (rank 0) |"
echo "|---|---|---|"
gpt() {  # gpt NAME RANKS BATCH STEPS
  local cmd=("$runner" "$root/recipes/char_gpt.lua" --text "$text" --batch_size "$3" --iters "$4" --do_eval false
             --save_strategy no --eval_strategy no --logging_steps 1000 --output_dir "$out/$1_$4")
  if [ "$2" -gt 1 ]; then mpiexec -n "$2" "${cmd[@]}" > "$out/$1_$4.log" 2>&1; else "${cmd[@]}" > "$out/$1_$4.log" 2>&1; fi
}
for layout in "1x2:1:12" "2x1:2:6"; do
  IFS=: read -r name ranks batch <<< "$layout"
  gpt "$name" "$ranks" "$batch" 20
  gpt "$name" "$ranks" "$batch" 120
  t20=$(json "$out/${name}_20/train_results.json" train_runtime)
  t120=$(json "$out/${name}_120/train_results.json" train_runtime)
  comm="-"
  if [ "$ranks" -gt 1 ]; then
    c20=$(json "$out/${name}_20/train_results.json" train_comm_seconds)
    c120=$(json "$out/${name}_120/train_results.json" train_comm_seconds)
    comm=$("$py" -c "print(f'{($c120 - $c20) / 100 * 1000:.2f} ms')")
  fi
  label=$([ "$ranks" = 1 ] && echo "1 rank × 2 threads, batch 12" || echo "2 ranks × 1 thread, batch 6 each")
  echo "| $label | $("$py" -c "print(f'{($t120 - $t20) / 100 * 1000:.1f}')") | $comm |"
done

echo
echo "## 2. Model states and peak RSS per rank, GPT 16 layers × 768 (2 ranks, fp32 AdamW)"
echo
echo "| mode | model_state_bytes (rank 0) | formula | peak RSS per rank |"
echo "|---|---|---|---|"
big=("$root/recipes/char_gpt.lua" --text "$text" --n_layer 16 --n_embd 768 --n_head 12 --block_size 32 --batch_size 2
     --iters 3 --do_eval false --eval_strategy no --save_strategy no)
declare -A modes=([ddp]="" [zero1]='--deepspeed {"zero_optimization":{"stage":1}}'
                  [zero2]='--deepspeed {"zero_optimization":{"stage":2}}' [zero3]="--fsdp full_shard")
declare -A formula=([ddp]="16Ψ" [zero1]="8Ψ + 8Ψ/N" [zero2]="4Ψ + 12Ψ/N" [zero3]="16Ψ/N")
for mode in ddp zero1 zero2 zero3; do
  # shellcheck disable=SC2086
  mpiexec -n 2 /usr/bin/time -f "maxrss_kb %M" "$runner" "${big[@]}" --output_dir "$out/big_$mode" ${modes[$mode]} > "$out/big_$mode.log" 2>&1
  bytes=$(json "$out/big_$mode/train_results.json" model_state_bytes)
  rss=$(grep -o "maxrss_kb [0-9]*" "$out/big_$mode.log" | awk '{m = $2 > m ? $2 : m} END {printf "%.0f MB", m / 1024}')
  echo "| $mode | $("$py" -c "print(f'{$bytes / 2**20:.0f} MiB')") | ${formula[$mode]} | $rss |"
done

echo
cap_mb=${CAP_MB:-3300}
echo "## 3. The same GPT under an address-space cap of $cap_mb MiB per rank (prlimit --as)"
echo
for mode in ddp zero3; do
  # shellcheck disable=SC2086
  if mpiexec -n 2 prlimit --as=$((cap_mb << 20)) "$runner" "${big[@]}" --output_dir "$out/cap_$mode" ${modes[$mode]} > "$out/cap_$mode.log" 2>&1; then
    echo "- $mode: trained"
  else
    echo "- $mode: failed ($(grep -m1 -o 'runner: error: .*' "$out/cap_$mode.log" | cut -c1-120))"
  fi
done
