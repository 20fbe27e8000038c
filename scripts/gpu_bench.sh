#!/usr/bin/env bash
# The GPU benchmarks of issue #25 in one device call, after the GPU check (scripts/gpu_check.sh)
# passed on that machine: runner (plain and with cuda_graphs) against the HF Trainer, plain and
# compiled PyTorch (scripts/bench/side_by_side.py), and fine-tuning against the HF Trainer +
# peft (scripts/bench/finetune_gpu.py). Most valuable first; each step under `timeout` within
# DEADLINE (default 540 s); each writes its table into the output folder as it finishes, so a
# call cut short still brings back what ran.
#   Here (CPU machine):  scripts/gpu_package.sh
#   Device tool:         run, carry [".gpu"], command: bash scripts/gpu_bench.sh
# Settings: OUT (default build-gpu-bench/), DEADLINE, BENCH="char gpt2 profile full_1b lora_8b longest_8b profile_ft"
# (the steps to run, in this order), REPS (default 5; 3 for gpt2's compiled peer's sake),
# PEERS (side_by_side's peers, default "runner runner_graphs plain compiled hf").
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out_default=build-gpu-bench deadline_default=540
. "$root/scripts/gpu_env.sh"
"$py" -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(0))' > "$out/env.txt" 2>&1 || { note "FAIL: no GPU for torch"; exit 3; }
reps=${REPS:-5}
peers=${PEERS:-runner runner_graphs plain compiled hf}
for b in ${BENCH:-char gpt2 profile full_1b lora_8b longest_8b profile_ft}; do
  case $b in
    char) step "side_by_side char" 150 side_by_side.log "$py" scripts/bench/side_by_side.py --device cuda --workloads char \
            --peers $peers --reps "$reps" --out "$out/char.md" ;;
    gpt2) step "side_by_side gpt2" 240 side_by_side.log "$py" scripts/bench/side_by_side.py --device cuda --workloads gpt2 \
            --peers $peers --reps "$((reps < 3 ? reps : 3))" --out "$out/gpt2.md" ;;
    # Where runner's GPT-2 step time goes: profile_steps over two timed steps, the top CUDA
    # kernels in the log (the trace itself stays on the machine).
    profile) step "profile gpt2" 90 profile.log "$py" scripts/bench/side_by_side.py --device cuda --workloads gpt2 --peers runner \
            --reps 1 --profile 31-32 ;;
    full_1b) step "finetune $b" 300 finetune.log "$py" scripts/bench/finetune_gpu.py --workloads "$b" --reps "$reps" \
            --peers runner runner_plain hf --out "$out/$b.md" ;;  # runner_plain: what the fused kernels pay
    # runner_nogc: runner without gradient checkpointing (does its step fit 24 GiB without it?)
    lora_8b) step "finetune $b" 420 finetune.log "$py" scripts/bench/finetune_gpu.py --workloads "$b" --reps "$reps" \
            --peers runner runner_nogc hf --out "$out/$b.md" ;;
    longest_8b)
          step "finetune $b" 300 finetune.log "$py" scripts/bench/finetune_gpu.py --workloads "$b" --reps "$reps" --out "$out/$b.md" ;;
    # Where runner's fine-tuning step time goes: its summary of steps 6-7 (top CUDA kernels).
    profile_ft) step "profile full_1b lora_8b" 200 profile.log "$py" scripts/bench/finetune_gpu.py --workloads full_1b lora_8b \
            --peers runner --reps 1 --profile 6-7 ;;
    *) note "SKIP $b: not a benchmark of this script" ;;
  esac
done
rm -rf "$out/.path"
note "done in $(($(date +%s) - start)) s"
