#!/usr/bin/env bash
# Everything a GPU machine has to show for the GPU work, in one call (the lent GPU machines
# stay warm only briefly): build against that machine's CUDA PyTorch, run the `gpu`-labelled
# tests, then the rest of the suite, then the side-by-side benchmark (runner, plain PyTorch,
# torch.compile, and the HF Trainer when `transformers` is importable). Logs and tables go
# to $OUT (or build-gpu/).
#   On the development machine:  ../shared/device/fetch-debs.sh libxxhash-dev libxxhash0 libprotobuf-dev libprotobuf32 protobuf-compiler libprotoc32 libisal-dev libisal2 libyaml-cpp-dev libyaml-cpp0.7 libpcre2-dev libpcre2-8-0 libpcre2-16-0 libpcre2-32-0 libpcre2-posix3 libicu-dev libicu72   (runner's extra Debian packages)
#   Through the device tool:     run, carry [".device"], command: bash scripts/gpu_check.sh
# BENCH=0 skips the benchmark; SUITE=0 skips the non-GPU tests.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/build-gpu}
mkdir -p "$out"
[ -f .device/gpu-build.sh ] || { echo "gpu_check: no .device/ (run ../shared/device/fetch-debs.sh with the packages listed above, here, first)"; exit 2; }
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
bash .device/gpu-build.sh ./runner --version > "$out/version.txt" 2>&1 || { cat "$out/version.txt"; tail -40 "$out/build.log" 2>/dev/null; exit 3; }
cat "$out/version.txt"
bash .device/gpu-build.sh ctest -L gpu --output-on-failure -j4 > "$out/ctest_gpu.log" 2>&1
echo "gpu tests: $(grep -E 'tests passed|tests failed' "$out/ctest_gpu.log")"
if [ "${SUITE:-1}" != 0 ]; then
  bash .device/gpu-build.sh ctest -LE gpu -j8 > "$out/ctest_rest.log" 2>&1
  echo "other tests: $(grep -E 'tests passed|tests failed' "$out/ctest_rest.log")"
fi
if [ "${BENCH:-1}" != 0 ]; then
  ln -sfn build-gpu build  # the benchmark drives build/runner
  # through gpu-build.sh: it sets the library paths runner needs on this machine
  bash .device/gpu-build.sh python3 "$root/scripts/bench/side_by_side.py" --device cuda --workloads gpt2 char --steps 20 \
    --reps 5 --out "$out/side_by_side.md" > "$out/bench.log" 2>&1 && cat "$out/side_by_side.md" || tail -20 "$out/bench.log"
fi
