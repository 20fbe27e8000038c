#!/usr/bin/env bash
# Compare Debian's BLAS builds under ATen's OpenMP pool. Needs root: it switches the
# libblas.so.3, liblapack.so.3 and libopenblas.so.0 alternatives together (LibTorch links
# both BLAS and LAPACK; switching one alone loads two OpenBLAS builds into one process),
# and restores the previous selections on exit.
# Usage: scripts/bench/blas_variant.sh [threads...]   (default: 1 2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=/usr/lib/x86_64-linux-gnu
names=(libblas.so.3 liblapack.so.3 libopenblas.so.0)
declare -A before
for n in "${names[@]}"; do
  before[$n]=$(update-alternatives --query "$n-x86_64-linux-gnu" 2>/dev/null | awk '/^Value:/ {print $2}')
done
restore() {
  for n in "${names[@]}"; do
    [ -n "${before[$n]}" ] && update-alternatives --quiet --set "$n-x86_64-linux-gnu" "${before[$n]}" || true
  done
}
trap restore EXIT
select_variant() {  # $1 = folder under $lib (openblas-openmp, openblas-pthread)
  for n in "${names[@]}"; do
    [ -e "$lib/$1/$n" ] && update-alternatives --quiet --set "$n-x86_64-linux-gnu" "$lib/$1/$n"
  done
}
threads=("$@"); [ ${#threads[@]} -gt 0 ] || threads=(1 2)
for variant in openblas-pthread openblas-openmp; do
  [ -e "$lib/$variant/libblas.so.3" ] || { echo "$variant: not installed"; continue; }
  select_variant "$variant"
  for t in "${threads[@]}"; do
    printf '%-17s ' "$variant"
    /usr/bin/python3 "$here/blas_variant.py" "$t"
  done
done
