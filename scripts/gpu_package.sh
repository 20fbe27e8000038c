#!/usr/bin/env bash
# Packs what the GPU check (scripts/gpu_check.sh) runs into .gpu/ (git-ignored), here, so a
# GPU machine's scarce minutes go to tests, not to a build. This machine compiles and links
# runner's CUDA side against the same torch 2.11+cu130 wheel the GPU machines have, so the
# binaries built here run there with that machine's torch/lib and nvidia/*/lib:
#   .gpu/bin.tar.xz  runner and the gpu-labelled GoogleTest binaries, stripped (bin/ packed)
#   .gpu/debs/  the Debian packages of every library they load beyond glibc, libstdc++, zlib,
#               LibTorch and CUDA (LuaJIT, MPICH with its launcher, spdlog, PCRE2, ICU, ...),
#               found with ldd and dpkg -S, so a new dependency travels without editing this
#   .gpu/arrow.tar.xz  libarrow and libparquet from the pyarrow wheel runner links
# Then: device run, carry [".gpu"], command: bash scripts/gpu_check.sh
# The tree that travels (the checkout plus .gpu) must stay under the device tool's 64 MiB.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/setup" > /dev/null
# The main build tree (scripts/build: Release, RUNNER_WITH_NCCL, Arrow): a GPU session's package
# costs only the targets the check runs, mostly built already.
build=build
[ -f $build/CMakeCache.txt ] || "$root/scripts/build" --target runner > /dev/null
grep -qx 'CMAKE_BUILD_TYPE:STRING=Release' $build/CMakeCache.txt || { echo "gpu_package: $build/ is not a Release build (scripts/build makes one)" >&2; exit 1; }
targets=(runner test_gpu_training test_nccl test_kernels_gpu)
cmake --build $build -j"$(nproc)" --target "${targets[@]}"
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
rm -rf .gpu
mkdir -p .gpu/bin .gpu/debs
cp $build/runner .gpu/bin/
cp $build/tests/train/test_gpu_training $build/tests/dist/test_nccl $build/tests/kernels/test_kernels_gpu .gpu/bin/
strip --strip-unneeded .gpu/bin/*
# Every shared library the binaries and MPICH's launcher load, resolved on this machine;
# those of the base system, LibTorch and CUDA are on the GPU machine already.
resolved=$( (for b in .gpu/bin/* /usr/bin/mpiexec.hydra /usr/bin/hydra_pmi_proxy; do ldd "$b"; done) |
        awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u)
libs=$(echo "$resolved" | grep -vE '/(\.venv|cuda[^/]*)/|/(libc|libm|libpthread|librt|libdl|libutil|libgcc_s|libstdc\+\+|libz)\.so' || true)
# Arrow comes from the pyarrow wheel in .venv (Debian packages none): its libarrow and
# libparquet travel xz-compressed (62 MB as files, 15 MB packed), so the Parquet recipes
# run on the GPU too; the GPU machine's own pyarrow, if any, need not be the 26.x they name.
arrow=$(echo "$resolved" | grep -E '/pyarrow/lib(arrow|parquet)[^/]*\.so' || true)
if [ -n "$arrow" ]; then
  tar -C "$(dirname "$(echo "$arrow" | head -1)")" -cf - $(for a in $arrow; do basename "$a"; done) | xz -T"$(nproc)" -6 > .gpu/arrow.tar.xz
fi
pkgs=$( (for l in $libs; do dpkg -S "$(readlink -f "$l")" 2>/dev/null || dpkg -S "$l"; done; echo "mpich: launcher") |
        cut -d: -f1 | sort -u | grep -vxE 'libc6|libstdc\+\+6|libgcc-s1|zlib1g')
# A library's package-private plugins (UCX's transports) come with its package.
(cd .gpu/debs && apt-get download -o APT::Sandbox::User=root $pkgs > /dev/null)
# The binaries travel packed too (21 MB stripped, about 4 MB packed); gpu_env.sh unpacks them.
bins=$(ls .gpu/bin | tr '\n' ' ')
tar -C .gpu -cf - bin | xz -T"$(nproc)" -6 > .gpu/bin.tar.xz
rm -rf .gpu/bin
echo "gpu_package: $bins+ $(ls .gpu/debs | wc -l) Debian packages ($(echo $pkgs | tr '\n' ' '))${arrow:+ + Arrow (.gpu/arrow.tar.xz)}"
size=$(du -sbL .gpu | cut -f1)
tree=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
echo "gpu_package: .gpu is $((size / 1048576)) MiB; with the checkout $(((size + tree) / 1048576)) MiB travel (limit 64 MiB)"
[ $((size + tree)) -lt $((62 * 1048576)) ] || { echo "gpu_package: too large for the device tool" >&2; exit 1; }
