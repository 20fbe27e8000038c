#!/usr/bin/env bash
# Fuzzing (docs/reliability.md, "Fuzzing"): builds the libFuzzer targets of tests/fuzz/ with
# clang under ASan + UBSan in build-fuzz/ (every runtime layer instrumented, not only the
# targets) and runs each for FUZZ_RUNS executions on a copy of its kept corpus
# (tests/fuzz/corpus/<target>/). The last line of each run (executions, or the crash and the
# file holding its input) goes to build-fuzz/fuzz.log; the full output to
# build-fuzz/fuzz-<target>.log.
#
# Usage: scripts/fuzz.sh [target...]    targets: safetensors json_readers data_readers recipe (default: all)
# Environment:
#   FUZZ_RUNS=N        executions per target (default 1000000)
#   FUZZ_MAX_TIME=S    also stop a target after S seconds (default 0: no limit)
#   FUZZ_JOBS=N        build parallelism (default 1)
#   FUZZ_ARGS="..."    extra libFuzzer flags, e.g. "-seed=1 -max_len=65536"
# A crash stops that target (its input is in build-fuzz/fuzz-artifacts/<target>/); the script
# runs the remaining targets and exits 1. Reproduce: build-fuzz/tests/fuzz/fuzz_<target> <file>;
# minimise: ... -minimize_crash=1 -runs=10000 <file>.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
runs=${FUZZ_RUNS:-1000000}
max_time=${FUZZ_MAX_TIME:-0}
jobs=${FUZZ_JOBS:-1}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(safetensors json_readers data_readers recipe)

# clang 14 and its libFuzzer/sanitizer runtimes (Debian bookworm: clang-14, libclang-rt-14-dev).
if ! command -v clang++-14 >/dev/null || ! ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends clang-14 libclang-rt-14-dev
fi

# The same LibTorch as the normal build (cmake/libtorch.cmake: .venv's, or RUNNER_LIBTORCH),
# CPU code only (the CUDA and NCCL sources do not parse input). -O1 with line tables: the
# usual fuzzing trade-off; no NDEBUG, so assertions stay on. No precompiled header: every
# file compiles from its own includes here, so a missing include fails this build. The
# project's own link options (libstdc++ first, docs/building.md) apply unchanged.
mkdir -p build-fuzz
sanitize="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_CXX_FLAGS="$sanitize" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DRUNNER_NVCC=OFF -DRUNNER_WITH_NCCL=OFF -DRUNNER_FUZZ=ON -DBUILD_TESTING=ON -DRUNNER_PCH=OFF >build-fuzz/configure.log 2>&1 ||
  { cat build-fuzz/configure.log; exit 1; }
cmake --build build-fuzz -j"$jobs" --target "${targets[@]/#/fuzz_}"

# Sanitizer settings: a big allocation returns null (LibTorch turns that into an error the
# target expects) instead of counting as a crash; UBSan stops at the first report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1:handle_abort=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
log=build-fuzz/fuzz.log
status=0
for t in "${targets[@]}"; do
  corpus=build-fuzz/fuzz-corpus/$t artifacts=build-fuzz/fuzz-artifacts/$t
  rm -rf "$corpus" && mkdir -p "$corpus" "$artifacts"
  cp tests/fuzz/corpus/"$t"/* "$corpus"/
  time_flag=(); [ "$max_time" = 0 ] || time_flag=(-max_total_time="$max_time")
  start=$(date +%s)
  set +e
  # shellcheck disable=SC2086
  build-fuzz/tests/fuzz/fuzz_"$t" -runs="$runs" "${time_flag[@]}" -rss_limit_mb=4096 -malloc_limit_mb=2048 -timeout=30 \
    -print_final_stats=1 -artifact_prefix="$root/$artifacts/" ${FUZZ_ARGS:-} "$corpus" >build-fuzz/fuzz-"$t".log 2>&1
  rc=$?
  set -e
  secs=$(( $(date +%s) - start ))
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' build-fuzz/fuzz-"$t".log | tail -1 | grep -o '[0-9]*$' || true)
  crash=$(grep -E 'Test unit written to|^==[0-9]+==ERROR|runtime error:|deadly signal|Timeout|out-of-memory' build-fuzz/fuzz-"$t".log | head -3 | tr '\n' ' ' || true)
  line="$(date -u +%FT%TZ) $t: rc=$rc execs=${execs:-?} seconds=$secs $(grep -E '^Done [0-9]+ runs' build-fuzz/fuzz-"$t".log | tail -1)"
  [ $rc -eq 0 ] || { line="$line CRASH: $crash"; status=1; }
  echo "$line" | tee -a "$log"
done
exit $status
