#!/usr/bin/env bash
# The quality targets of docs/performance.md: Fashion-MNIST MLP (5 epochs) and CNN
# (3 epochs) test accuracy, and char_gpt's validation loss after 2000 steps on a text file
# (default ../shared/data/tinyshakespeare.txt) over several seeds, beside nanoGPT's own
# procedure in plain PyTorch (char_gpt_nanogpt.py) over as many seeds.
# Usage: [SEEDS="1 2 3"] scripts/bench/quality.sh [TEXT_FILE]   (after scripts/build; ~35 minutes for 6 seeds)
set -euo pipefail
py=${RUNNER_PYTHON:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.venv/bin/python3}  # the .venv Python (numpy, torch)
root=$(cd "$(dirname "$0")/../.." && pwd)
runner=$root/build/runner
text=${1:-$root/../shared/data/tinyshakespeare.txt}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

metric() {  # metric FILE KEY: the key from eval_results.json
  "$py" -c "import json,sys; print(round(json.load(open(sys.argv[1]))[sys.argv[2]], 4))" "$1" "$2"
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
# The char GPT against its peer, nanoGPT's procedure in plain PyTorch, over the same number of
# seeds: a single run's validation loss spreads by ~0.01 across seeds, so compare means.
seeds=${SEEDS:-1 2 3 4 5 6}
for seed in $seeds; do
  name=char$seed; secs=$(timed "$runner" "$root/recipes/char_gpt.lua" --text "$text" --init_seed "$seed" --output_dir "$out/char$seed")
  echo "runner  seed $seed  2000 steps  full $(metric "$out/char$seed/eval_results.json" eval_loss)  (${secs} s)" | tee -a "$out/char.txt"
done
# shellcheck disable=SC2086  # one argument per seed
"$py" "$root/scripts/bench/char_gpt_nanogpt.py" "$text" --seeds $seeds | tee -a "$out/char.txt"
"$py" - "$out/char.txt" <<'PY'
import statistics, sys
loss = {"runner": [], "nanogpt": []}
for line in open(sys.argv[1]):
    w = line.split()
    loss[w[0]].append(float(w[w.index("full") + 1]))
for who, v in loss.items():
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    print(f"{who:8s} mean val loss over {len(v)} seeds {statistics.mean(v):.4f}  sd {sd:.4f}  min {min(v):.4f}  max {max(v):.4f}")
PY
