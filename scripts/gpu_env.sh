# Sourced by scripts/gpu_check.sh and scripts/gpu_bench.sh on a GPU machine: the libraries
# (the Debian packages shipped in .gpu/, that machine's torch and CUDA), the binaries, the
# environment runner's tests read, the output folder with its summary (`note` adds a line),
# and `step`, which runs one step under `timeout` within the deadline. The caller sets root
# (and is in it), out_default (under root) and deadline_default (seconds) first; OUT and
# DEADLINE override them.
# shellcheck shell=bash

out=${OUT:-$root/$out_default}
mkdir -p "$out"
start=$(date +%s)
deadline=$((start + ${DEADLINE:-$deadline_default}))
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

# --- libraries: the shipped Debian packages, this machine's torch and CUDA -------------------
py=$(command -v python3)
torch_dir=$($py -c 'import torch, os; print(os.path.dirname(torch.__file__))' 2>/dev/null)
[ -n "$torch_dir" ] || { note "FAIL: python3 has no torch"; exit 3; }
nv_libs=$(find "$(dirname "$torch_dir")/nvidia" -maxdepth 3 -type d -name lib 2>/dev/null | tr '\n' ':')
if [ "${GPU_BUILD:-0}" = 1 ]; then
  bash .device/gpu-build.sh > "$out/build.log" 2>&1 || { note "FAIL: gpu-build.sh (see build.log)"; exit 3; }
  bin=$root/build-gpu
  gtests=("$bin/tests/train/test_gpu_training" "$bin/tests/dist/test_nccl" "$bin/tests/kernels/test_kernels_gpu")
  L=/opt/deps/usr/lib/x86_64-linux-gnu
  export PATH=/opt/deps/usr/bin:$PATH
else
  # The binaries travel packed (scripts/gpu_package.sh); Python's tarfile, since the machine need not have xz-utils.
  untar() { "$py" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"; }
  [ -f .gpu/bin.tar.xz ] && [ ! -d .gpu/bin ] && untar .gpu/bin.tar.xz .gpu
  [ -d .gpu/bin ] || { note "FAIL: no .gpu/ (run scripts/gpu_package.sh on the CPU machine and carry .gpu)"; exit 3; }
  deps=${RUNNER_GPU_DEPS:-/opt/runner-deps}
  L=$deps/usr/lib/x86_64-linux-gnu
  if [ ! -d "$deps/usr" ]; then
    mkdir -p "$deps"
    for f in .gpu/debs/*.deb; do dpkg -x "$f" "$deps"; done
    # Base-system libraries the machine has itself: its own build wins.
    for so in libudev.so.1 libnuma.so.1; do ldconfig -p | grep -q "$so " && rm -f "$L/$so"*; done
  fi
  # The Arrow runner links (the pyarrow wheel's libarrow/libparquet), beside the Debian ones
  # (also into a deps folder an earlier package left without it); the Parquet recipes must
  # then run (RUNNER_EXPECT_ARROW: tests/integration/test_gpu.py).
  if [ -f .gpu/arrow.tar.xz ]; then
    ls "$L"/libarrow.so.* > /dev/null 2>&1 || { mkdir -p "$L" && untar .gpu/arrow.tar.xz "$L"; }
    export RUNNER_EXPECT_ARROW=1
  fi
  bin=$root/.gpu/bin
  gtests=("$bin/test_gpu_training" "$bin/test_nccl" "$bin/test_kernels_gpu")
  # hydra looks for its proxy beside the mpiexec it was started as
  mkdir -p "$out/.path" && ln -sf "$deps/usr/bin/mpiexec.hydra" "$out/.path/mpiexec" && ln -sf "$deps/usr/bin/hydra_pmi_proxy" "$out/.path/"
  export PATH=$out/.path:$deps/usr/bin:$PATH
fi
export LD_LIBRARY_PATH=$L:$torch_dir/lib:$nv_libs/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RUNNER_BINARY=$bin/runner RUNNER_SOURCE_DIR=$root RUNNER_PYTHON=$py RUNNER_EXPECT_GPU=1 PYTHONUNBUFFERED=1

# step NAME LIMIT LOG COMMAND...: runs under the smaller of LIMIT and the time left; one
# summary line with the exit code and the seconds it took. GPU_ONLY (a bash regex) runs only
# the steps whose name matches, to recheck what failed without the rest (runner --version
# always runs: the check needs it); GTEST_FILTER narrows the GoogleTest binaries likewise.
step() {
  local name=$1 limit=$2 log=$out/$3
  shift 3
  if [ -n "${GPU_ONLY:-}" ] && [ "$name" != "runner --version" ] && ! [[ $name =~ $GPU_ONLY ]]; then return 0; fi
  local left=$((deadline - $(date +%s)))
  if [ "$left" -le 5 ]; then note "SKIP $name: deadline reached"; return 0; fi
  [ "$limit" -gt "$left" ] && limit=$left
  echo "===== $name (limit ${limit}s)" >> "$log"
  local t0=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" >> "$log" 2>&1
  local rc=$?
  local verdict=PASS
  [ $rc -ne 0 ] && verdict=FAIL
  [ $rc -eq 124 ] && verdict=TIMEOUT
  [ $rc -eq 77 ] && verdict=SKIP
  note "$verdict $name: rc $rc, $(($(date +%s) - t0)) s"
  return $rc
}
