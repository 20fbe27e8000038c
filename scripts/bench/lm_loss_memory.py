"""Peak memory of training a language model with the plain loss against the fused linear +
cross-entropy (models.llama{fused_linear_cross_entropy = ...}, docs/models.md): a small
Llama (2 layers, hidden 256) over a large vocabulary (32000), batch 8 × 512 tokens, two
AdamW steps, so the (4096 × 32000) logits (500 MiB in fp32) dominate the step. Each run is a
separate runner process; its peak resident memory is read by /usr/bin/time. Prints a Markdown
table: median over --reps runs (min-max beside it), and the final logged losses, which must
agree.

Usage (after scripts/build): .venv/bin/python3 scripts/bench/lm_loss_memory.py --reps 3
The kernel alone: build/scripts/bench/bench_lm_loss_memory [N H V]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNNER = os.path.join(ROOT, "build", "runner")

RECIPE = """local data, models = require "runner.data", require "runner.models"
torch.manual_seed(1)
local ids = torch.randint(0, 32000, {{16, 512}})
return {{
  args = {{ output_dir = "out", max_steps = 2, per_device_train_batch_size = 8, learning_rate = 1e-3,
           logging_steps = 1, save_strategy = "no", report_to = "none", disable_tqdm = true }},
  datasets = {{ train = data.tensors{{ input_ids = ids, labels = ids }} }},
  model = models.llama{{ vocab_size = 32000, hidden_size = 256, intermediate_size = 512, num_hidden_layers = 2,
                        num_attention_heads = 4, max_position_embeddings = 512, fused_linear_cross_entropy = {fused} }},
}}
"""


def run(fused, d):
    recipe = os.path.join(d, f"{fused}.lua")
    with open(recipe, "w") as f:
        f.write(RECIPE.format(fused=fused))
    out = os.path.join(d, f"out_{fused}")
    p = subprocess.run(["/usr/bin/time", "-v", RUNNER, recipe, "--output_dir", out], cwd=d, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(p.stderr[-3000:])
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    with open(os.path.join(out, "trainer_state.json")) as f:
        losses = [e["loss"] for e in json.load(f)["log_history"] if "loss" in e]
    return peak, losses[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    reps = ap.parse_args().reps
    print("| loss | peak RSS MiB (median) | min-max | last logged loss |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for fused in ("false", "true"):
            runs = [run(fused, d) for _ in range(reps)]
            peaks = [r[0] for r in runs]
            name = "fused (chunked)" if fused == "true" else "plain"
            print(f"| {name} | {statistics.median(peaks):.0f} | {min(peaks):.0f}-{max(peaks):.0f} | {runs[0][1]} |")


if __name__ == "__main__":
    main()
