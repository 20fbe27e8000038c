#!/usr/bin/env bash
# The GPU check: everything a GPU machine has to show for runner's CUDA paths, in one call of
# a few minutes, ordered by value so a run cut short still reports what matters most. Runs
# the binaries scripts/gpu_package.sh built on a CPU machine (.gpu/), against that machine's
# torch and CUDA libraries; each step runs under `timeout` within an overall deadline, and
# writes its log to the output folder as it goes (at most 8 files).
#   Here (CPU machine):  scripts/gpu_package.sh
#   Device tool:         run, carry [".gpu"], command: bash scripts/gpu_check.sh
# Fallback when the shipped binaries do not load there (the summary says so): build on the
# GPU machine instead (../shared/device/fetch-debs.sh here; carry [".device"]; GPU_BUILD=1).
# Settings: OUT (log folder; default build-gpu-check/), DEADLINE (seconds for all steps,
# default 480), GPU_CHECK_DRY=1 (go on without a GPU: checks the plumbing on a CPU machine).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out_default=build-gpu-check deadline_default=480
. "$root/scripts/gpu_env.sh"
[ "${GPU_CHECK_DRY:-0}" = 1 ] && export RUNNER_EXPECT_GPU=0

# 1. The binary loads and sees the GPU.
{ nvidia-smi; echo; echo "torch: $torch_dir"; "$py" -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(0))'; } > "$out/env.txt" 2>&1
if ! step "runner --version" 60 env.txt "$bin/runner" --version; then
  ldd "$bin/runner" | grep "not found" >> "$out/env.txt"
  note "FAIL: the shipped runner does not load here; rerun with GPU_BUILD=1 (carry .device)"
  exit 3
fi
if ! grep -q "GPU 0:" "$out/env.txt" && [ "${GPU_CHECK_DRY:-0}" != 1 ]; then note "FAIL: runner --version lists no GPU"; exit 3; fi

# 2. The C++ gpu cases: device placement, precision, resume, memory metrics, NCCL, features.
for t in "${gtests[@]}"; do step "$(basename "$t")" 240 cpp_gpu.log "$t" --gtest_color=no; done
# What the kernels' timing cases printed (not asserted; what the next change is weighed by).
[ -f "$out/cpp_gpu.log" ] && grep -E '^(packed attention|GPT-2 loss|LayerNorm [0-9]+ x)' "$out/cpp_gpu.log" | while read -r l; do note "timing: $l"; done

# 3. The Python gpu cases, most valuable first (each its own process and time limit).
py_tests=(test_every_shipped_recipe_trains_on_cuda test_every_mode_with_nccl_on_one_rank_and_mpi_on_two
          test_cuda_out_of_memory_is_one_line_with_exit_2 test_hf_deepspeed_examples_train_with_fp16
          test_full_determinism_and_tf32_from_the_command_line test_zero3_offload_trains_where_ddp_runs_out_of_memory
          test_peak_memory_agrees_with_pytorch test_more_ranks_than_gpus_fall_back_to_mpi_with_one_warning
          test_fused_kernels_train_like_the_plain_chains_on_cuda test_qwen3_and_gemma3_train_on_cuda_as_on_the_cpu
          test_cuda_graphs_replay_equals_the_static_step test_activation_offload_lowers_peak_memory_with_the_same_losses
          test_profile_steps_records_cuda_kernels
          test_generate_runs_on_the_gpu test_from_pretrained_reads_its_files_onto_the_gpu
          test_auto_find_batch_size_under_a_memory_cap test_auto_find_batch_size_starts_over_after_a_cuda_oom_in_its_first_step
          test_cuda_visible_devices_decides_what_runner_sees
          test_version_lists_the_gpu)
for t in "${py_tests[@]}"; do
  limit=150
  case $t in test_every_shipped_recipe*|test_every_mode*) limit=300 ;; esac  # 10 recipes; 17 runs, 8 of them on 2 ranks
  step "$t" $limit py_gpu.log "$py" tests/integration/test_gpu.py -v "Gpu.$t"
done

# 4. The GPU is busy while a GPT trains (nvidia-smi sampled every 200 ms).
busy="GPT training under nvidia-smi"
if [ $((deadline - $(date +%s))) -gt 40 ] && { [ -z "${GPU_ONLY:-}" ] || [[ $busy =~ $GPU_ONLY ]]; }; then
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -lms 200 > "$out/smi_busy.log" 2>&1 &
  smi=$!
  step "$busy" 60 gpt_busy.log "$bin/runner" recipes/hello_gpt.lua --output_dir "$out/.hello" --steps 300 \
    --batch_size 64 --eval_strategy no --sample_chars 20
  kill $smi 2>/dev/null
  note "nvidia-smi while it trained: $(awk -F', ' '/%/ {n++; if ($2+0 > 0) b++; if ($3+0 > m) m = $3+0} END {printf "%d of %d samples busy, up to %d MiB", b, n, m}' "$out/smi_busy.log")"
fi
rm -rf "$out/.hello" "$out/.path"
note "done in $(($(date +%s) - start)) s: $(grep -c '^PASS' "$summary") passed, $(grep -cE '^(FAIL|TIMEOUT)' "$summary") failed"
