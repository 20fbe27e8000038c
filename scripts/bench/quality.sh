#!/usr/bin/env bash
# The quality targets of docs/performance.md: Fashion-MNIST MLP (5 epochs) and CNN
# (3 epochs) test accuracy, and char_gpt's validation loss after 2000 steps on a text file
# (default ../shared/data/tinyshakespeare.txt), over three seeds.
# Usage: scripts/bench/quality.sh [TEXT_FILE]        (after scripts/build; ~15 minutes)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runner=$root/build/runner
text=${1:-$root/../shared/data/tinyshakespeare.txt}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

metric() {  # metric FILE KEY: the key from eval_results.json
  /usr/bin/python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))[sys.argv[2]], 4))" "$1" "$2"
}
timed() {  # timed CMD...: runs (log in $out/$name.log), prints wall seconds
  local start=$SECONDS
  "$@" > "$out/$name.log" 2>&1
  echo $((SECONDS - start))
}

name=mlp; secs=$(timed "$runner" "$root/recipes/fashion_mnist_mlp.lua" --output_dir "$out/mlp")
echo "fashion_mnist_mlp  5 epochs  eval_accuracy $(metric "$out/mlp/eval_results.json" eval_accuracy)  (${secs} s)"
name=cnn; secs=$(timed "$runner" "$root/recipes/fashion_mnist_cnn.lua" --output_dir "$out/cnn")
echo "fashion_mnist_cnn  3 epochs  eval_accuracy $(metric "$out/cnn/eval_results.json" eval_accuracy)  (${secs} s)"
for seed in 1 2 3; do
  name=char$seed; secs=$(timed "$runner" "$root/recipes/char_gpt.lua" --text "$text" --init_seed "$seed" --output_dir "$out/char$seed")
  echo "char_gpt seed $seed  2000 steps  eval_loss $(metric "$out/char$seed/eval_results.json" eval_loss)  (${secs} s)"
done
