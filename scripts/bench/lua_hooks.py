"""How much a recipe's Lua hooks cost per step: the same model and data trained by runner
(1) with its built-in loss and collator and (2) with a Lua `compute_loss` and a Lua
`data_collator` doing the same work, in one run, reps interleaved; median and min-max.
ms/step is the difference of two runs (4 and 4 + N steps; N x 20 for the MLP's millisecond
steps), so start-up is excluded.

  .venv/bin/python3 scripts/bench/lua_hooks.py --steps 30 --reps 5
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "build", "runner")

WORKLOADS = {
    # nanoGPT's small char model (the side-by-side benchmark's "char"): 12 x 64 tokens a step
    "char": dict(model='models.gpt{ vocab_size = 65, block_size = 64, n_layer = 4, n_head = 4, n_embd = 128 }',
                 data='local ids = torch.randint(0, 65, {N, 64})\nlocal ds = data.tensors{ input_ids = ids, labels = ids }',
                 batch=12,
                 loss='''compute_loss = function(model, inputs)
    local logits = model{ input_ids = inputs.input_ids }.logits            -- (B, T, V)
    local T, V = logits:size(1), logits:size(2)  -- dims are 0-based, as in PyTorch
    local loss = F.cross_entropy(logits:narrow(1, 0, T - 1):reshape(-1, V),
                                 inputs.labels:narrow(1, 1, T - 1):reshape(-1))
    return loss
  end,''',
                 collate='''data_collator = function(examples)
    local ids, labels = {}, {}
    for i, ex in ipairs(examples) do ids[i] = ex.input_ids; labels[i] = ex.labels end
    return { input_ids = torch.stack(ids), labels = torch.stack(labels) }
  end,'''),
    # a small MLP: a step of about a millisecond, where a hook's fixed cost shows most
    "mlp": dict(model='models.mlp{ sizes = {784, 256, 128, 10}, input = "x" }',
                data='local ds = data.tensors{ x = torch.randn(N, 784), labels = torch.randint(0, 10, {N}) }',
                batch=64, scale=20,  # 20x the steps: a millisecond step needs a longer run to time
                loss='''compute_loss = function(model, inputs)
    return F.cross_entropy(model{ x = inputs.x }.logits, inputs.labels)
  end,''',
                collate='''data_collator = function(examples)
    local xs, labels = {}, {}
    for i, ex in ipairs(examples) do xs[i] = ex.x; labels[i] = ex.labels end
    return { x = torch.stack(xs), labels = torch.stack(labels) }
  end,'''),
}

RECIPE = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(0)
{data}
return {{
  args = {{ per_device_train_batch_size = {batch}, learning_rate = 1e-4, lr_scheduler_type = "constant",
           save_strategy = "no", logging_steps = 100000, disable_tqdm = true, train_sampling_strategy = "sequential",
           use_cpu = true }},
  datasets = {{ train = ds }},
  model = {model},
  {hooks}
}}
"""


def ms_per_step(recipe, steps, tmp, name):
    runtimes = {}
    for max_steps in (4, 4 + steps):
        out = os.path.join(tmp, f"{name}_{max_steps}")
        p = subprocess.run([RUNNER, recipe, "--output_dir", out, "--max_steps", str(max_steps)], capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"runner failed:\n{p.stderr}")
        with open(os.path.join(out, "train_results.json")) as f:
            runtimes[max_steps] = json.load(f)["train_runtime"]
    return (runtimes[4 + steps] - runtimes[4]) / steps * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS))
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for wl in args.workloads:
            w = WORKLOADS[wl]
            steps = args.steps * w.get("scale", 1)
            n = w["batch"] * (steps + 8)
            recipes = {}
            for variant, hooks in (("built-in", ""), ("Lua compute_loss + data_collator", w["loss"] + "\n  " + w["collate"])):
                path = os.path.join(tmp, f"{wl}_{len(recipes)}.lua")
                with open(path, "w") as f:
                    f.write(RECIPE.format(data=w["data"].replace("N", str(n)), batch=w["batch"], model=w["model"], hooks=hooks))
                recipes[variant] = path
            times = {v: [] for v in recipes}
            for rep in range(args.reps):
                for v, path in recipes.items():
                    times[v].append(ms_per_step(path, steps, tmp, f"{wl}_{rep}_{len(times[v])}_{abs(hash(v))}"))
            base = statistics.median(times["built-in"])
            for v, t in times.items():
                m = statistics.median(t)
                rows.append(f"| {wl} ({steps} steps) | {v} | {m:.2f} | {min(t):.2f}-{max(t):.2f} | {100 * (m - base) / base:+.1f}% |")
    print(f"{args.steps} timed steps x {args.reps} reps (median, min-max)\n")
    print("| workload | hooks | ms/step | min-max | vs built-in |\n|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
