"""The training time a checkpoint costs: synchronous vs asynchronous saves (save_async) vs no
saves (issue #26.6).

An MLP of 33.6M parameters (134 MB of fp32 weights; with AdamW's two moments a checkpoint
holds 403 MB) trains 20 steps (batch 8) three ways, interleaved rep by rep so a busy machine
slows each alike:
  none   save_strategy "no"
  sync   save_steps 5 (4 checkpoints), written before the next step runs
  async  the same with save_async: copied to host memory at the step, written by a thread
Each row is the median train_runtime (train_results.json: it includes waiting for the last
background write) over --reps runs, min-max beside it, and its cost over "none".

Usage (after scripts/build):
  .venv/bin/python3 scripts/bench/checkpoint_cost.py --reps 5
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

RECIPE = """local data = require "runner.data"
torch.manual_seed(1)
local x = torch.randn(64, 2048)
local y = torch.randn(64, 1)
return {
  args = { max_steps = 20, per_device_train_batch_size = 8, learning_rate = 1e-4, save_steps = 5,
           logging_steps = 5, report_to = "none", skip_memory_metrics = true },
  datasets = { train = data.tensors{ x = x, labels = y } },
  model = nn.Sequential(nn.Linear(2048, 4096), nn.Tanh(), nn.Linear(4096, 4096), nn.Tanh(), nn.Linear(4096, 2048),
                        nn.Tanh(), nn.Linear(2048, 1)),
  compute_loss = function(model, inputs) return F.mse_loss(model(inputs.x), inputs.labels) end,
}
"""

MODES = {"none": ["--save_strategy", "no"], "sync": [], "async": ["--save_async", "true"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "runner"))
    ap.add_argument("--tmp", default=None, help="where the checkpoints go (default: a temporary folder)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ckpt_cost_", dir=args.tmp)
    recipe = os.path.join(tmp, "r.lua")
    with open(recipe, "w") as f:
        f.write(RECIPE)
    times = {m: [] for m in MODES}
    try:
        for rep in range(args.reps):
            order = list(MODES)[rep % 3:] + list(MODES)[:rep % 3]
            for mode in order:
                out = os.path.join(tmp, mode)
                shutil.rmtree(out, ignore_errors=True)
                r = subprocess.run([args.runner, recipe, "--output_dir", out, *MODES[mode]], capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit(r.stderr)
                with open(os.path.join(out, "train_results.json")) as f:
                    times[mode].append(json.load(f)["train_runtime"])
                saved = sorted(d for d in os.listdir(out) if d.startswith("checkpoint-"))
                print(f"rep {rep} {mode:5s} {times[mode][-1]:7.2f} s  {len(saved)} checkpoints", file=sys.stderr)
        size = sum(os.path.getsize(os.path.join(tmp, "sync", "checkpoint-5", n)) for n in os.listdir(os.path.join(tmp, "sync", "checkpoint-5")))
        base = statistics.median(times["none"])
        print(f"checkpoint size: {size / 1e6:.0f} MB; {args.reps} reps, train_runtime in s")
        print("| saves | median (s) | min-max (s) | cost over no saves (s) | per save (s) |")
        print("|---|---|---|---|---|")
        for mode, ts in times.items():
            med = statistics.median(ts)
            per = "—" if mode == "none" else f"{(med - base) / 4:.2f}"
            print(f"| {mode} | {med:.2f} | {min(ts):.2f}-{max(ts):.2f} | {med - base:+.2f} | {per} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
