"""Peak memory of starting ZeRO-3 training from a pretrained model (issue #15: under ZeRO-3 no
rank builds the whole model).

A random LlamaForCausalLM saved by transformers (fp32, hidden 1024, 24 layers, 16 heads, 4
key/value heads, MLP 2816, vocabulary 8000: 287M parameters, 1.07 GiB) is trained for one
SGD step (no optimizer state, batch 1 × 16 tokens) three ways, and each process's peak
resident memory is read by /usr/bin/time:
  built-1     one process, the same model built by the recipe (models.llama{...}): built with
              random values, then copied into the flat training buffer (what from_pretrained
              did before it deferred its weights: build, load, copy)
  files-1     one process, models.from_pretrained: read straight into the flat buffer
  built-z3    2 ranks under ZeRO-3, the model built whole by the recipe on every rank (what
              every ZeRO-3 rank did before from_pretrained deferred its weights)
  files-z3    2 ranks under ZeRO-3, models.from_pretrained: each rank reads its shards only
  baseline    one process, a Llama of 20k parameters: the process itself (LibTorch, LuaJIT, MPI)
Each row is the median over --reps runs (min-max beside it), peak RSS per rank in MiB.

Usage (after scripts/build; needs transformers in .venv, which scripts/setup installs):
  .venv/bin/python3 scripts/bench/sharded_loading.py --reps 3
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNNER = os.path.join(ROOT, "build", "runner")
MPIEXEC = shutil.which("mpiexec") or "/usr/bin/mpiexec"

CONFIG = dict(vocab_size=8000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=24, num_attention_heads=16,
              num_key_value_heads=4, max_position_embeddings=64, tie_word_embeddings=False)

RECIPE = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(1)
local ids = torch.randint(0, 8000, {{8, 16}})
return {{
  args = {{ max_steps = 1, per_device_train_batch_size = 1, optim = "sgd", learning_rate = 0.01,
           save_strategy = "no", report_to = "none", skip_memory_metrics = true }},
  datasets = {{ train = data.tensors{{ input_ids = ids, labels = ids }} }},
  model = {model},
}}
"""

ZERO3 = ["--deepspeed", '{"zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0}}']


def make_model(folder):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**CONFIG))
    model.save_pretrained(folder)
    return sum(p.numel() for p in model.parameters())


def run(ranks, recipe, out):
    timed = ["/usr/bin/time", "-f", "maxrss_kb %M", RUNNER, recipe, "--output_dir", out, "--log_level_replica", "info"]
    cmd = timed if ranks == 1 else [MPIEXEC, "-n", str(ranks), *timed, *ZERO3]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr[-3000:]}")
    rss = [int(v) / 1024 for v in re.findall(r"maxrss_kb (\d+)", p.stderr)]
    reads = re.findall(r"Read (\d+) of the model's (\d+) parameter values", p.stdout)
    return rss, reads


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sharded_loading_")
    try:
        folder = os.path.join(work, "model")
        n = make_model(folder)
        print(f"model: {n / 1e6:.0f}M parameters, {n * 4 / 2**30:.2f} GiB fp32")
        llama = "models.llama{" + ", ".join(f"{k} = {str(v).lower()}" for k, v in CONFIG.items()) + "}"
        recipes = {}
        tiny = ("models.llama{vocab_size = 8000, hidden_size = 8, intermediate_size = 16, num_hidden_layers = 1, "
                "num_attention_heads = 2, max_position_embeddings = 64}")
        for name, model in (("files", f'models.from_pretrained("{folder}")'), ("built", llama), ("tiny", tiny)):
            recipes[name] = os.path.join(work, f"{name}.lua")
            with open(recipes[name], "w") as f:
                f.write(RECIPE.format(model=model))
        cases = [("built-1", 1, "built"), ("files-1", 1, "files"), ("built-z3", 2, "built"), ("files-z3", 2, "files"),
                 ("baseline", 1, "tiny")]
        results = {c[0]: [] for c in cases}
        reads = {}
        for rep in range(args.reps):
            for label, ranks, recipe in cases:
                rss, r = run(ranks, recipes[recipe], os.path.join(work, f"{label}_{rep}"))
                results[label].append(max(rss))
                reads[label] = r
        print(f"\n| case | ranks | peak RSS per rank, MiB (median, min-max of {args.reps}) | values read from the files per rank |")
        print("|---|---|---|---|")
        for label, ranks, recipe in cases:
            v = results[label]
            got = ", ".join(f"{int(a):,} of {int(b):,}" for a, b in reads[label]) or "all (loaded whole)"
            if recipe != "files":
                got = "none (built in the recipe)"
            print(f"| {label} | {ranks} | {statistics.median(v):,.0f} ({min(v):,.0f}-{max(v):,.0f}) | {got} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
