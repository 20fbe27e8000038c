"""Runner vs a plain PyTorch loop on the same models, in one run.

For each workload (GPT and MLP, fp32 and bf16 autocast) it times training steps in a
PyTorch loop (the .venv PyTorch, whose LibTorch the runner links: same ATen, BLAS and threads) and in the
runner binary, and reports ms/step, tokens (or samples) per second, MFU against a matmul
ceiling measured here, and the runner/PyTorch time ratio (< 1 means the runner is faster).

Runner timing is differential: two runs of the same recipe with max_steps N and N + M;
(train_runtime(N + M) − train_runtime(N)) / M excludes start-up, recipe loading and warm-up.

Usage: .venv/bin/python3 scripts/bench/compare_pytorch.py [--steps M] [--threads T] [--out FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.dirname(__file__))
from pytorch_models import GPT, MLP  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "build", "runner")

GPT_CFG = dict(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128)
GPT_BATCH = 12
MLP_SIZES = [784, 256, 128, 10]
MLP_BATCH = 64


def matmul_ceiling(dtype, n=1024, reps=10):
    a, b = torch.randn(n, n, dtype=dtype), torch.randn(n, n, dtype=dtype)
    torch.mm(a, b)
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        torch.mm(a, b)
        times.append(time.perf_counter() - t)
    return 2 * n ** 3 / statistics.median(times)


def gpt_flops_per_step(model):
    # 6 FLOPs per parameter per token (forward + backward) plus attention scores (PaLM's count)
    L, H, C, T = GPT_CFG["n_layer"], GPT_CFG["n_head"], GPT_CFG["n_embd"], GPT_CFG["block_size"]
    per_token = 6 * model.num_parameters(exclude_embeddings=True) + 12 * L * H * (C // H) * T
    return per_token * T * GPT_BATCH


def time_pytorch(kind, bf16, steps):
    torch.manual_seed(0)
    if kind == "gpt":
        model = GPT(**GPT_CFG)
        x = torch.randint(0, GPT_CFG["vocab_size"], (GPT_BATCH, GPT_CFG["block_size"]))
        y = x
        flops = gpt_flops_per_step(model)
        units = GPT_BATCH * GPT_CFG["block_size"]
    else:
        model = MLP(MLP_SIZES)
        x = torch.randn(MLP_BATCH, 784)
        y = torch.randint(0, 10, (MLP_BATCH,))
        flops = 6 * sum(p.numel() for p in model.parameters()) * MLP_BATCH
        units = MLP_BATCH
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1)

    def step():
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    for _ in range(5):
        step()
    t = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - t) / steps, flops, units


RECIPE = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(0)
local kind = "{kind}"
local ds, model
if kind == "gpt" then
  local ids = torch.randint(0, {vocab}, {{{n}, {block}}})
  ds = data.tensors{{ input_ids = ids, labels = ids }}
  model = models.gpt{{ vocab_size = {vocab}, block_size = {block}, n_layer = {layers}, n_head = {heads}, n_embd = {embd} }}
else
  ds = data.tensors{{ x = torch.randn({n}, 784), labels = torch.randint(0, 10, {{{n}}}) }}
  model = models.mlp{{ sizes = {{784, 256, 128, 10}} }}
end
return {{
  args = {{ per_device_train_batch_size = {batch}, learning_rate = 1e-3, adam_beta2 = 0.99, weight_decay = 0.1,
           lr_scheduler_type = "constant", save_strategy = "no", logging_strategy = "no", disable_tqdm = true,
           train_sampling_strategy = "sequential", bf16 = {bf16} }},
  datasets = {{ train = ds }},
  model = model,
}}
"""


def time_runner(kind, bf16, steps, tmp):
    batch = GPT_BATCH if kind == "gpt" else MLP_BATCH
    recipe = os.path.join(tmp, f"{kind}_{bf16}.lua")
    with open(recipe, "w") as f:
        f.write(RECIPE.format(kind=kind, vocab=GPT_CFG["vocab_size"], block=GPT_CFG["block_size"], layers=GPT_CFG["n_layer"],
                              heads=GPT_CFG["n_head"], embd=GPT_CFG["n_embd"], batch=batch, n=batch * (steps + 20),
                              bf16="true" if bf16 else "false"))

    def runtime(max_steps):
        out = os.path.join(tmp, f"out_{kind}_{bf16}_{max_steps}")
        p = subprocess.run([RUNNER, recipe, "--output_dir", out, "--max_steps", str(max_steps)], capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"runner failed:\n{p.stderr}")
        with open(os.path.join(out, "train_results.json")) as f:
            return json.load(f)["train_runtime"]

    return (runtime(5 + steps) - runtime(5)) / steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    ceilings = {False: matmul_ceiling(torch.float32), True: matmul_ceiling(torch.bfloat16)}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("gpt", "mlp"):
            for bf16 in (False, True):
                py, flops, units = time_pytorch(kind, bf16, args.steps)
                rn = time_runner(kind, bf16, args.steps, tmp)
                rows.append((kind, "bf16" if bf16 else "fp32", py, rn, flops, units, ceilings[bf16]))
    unit = {"gpt": "tokens/s", "mlp": "samples/s"}
    lines = [f"threads={args.threads}, timed steps={args.steps}, matmul ceiling fp32 {ceilings[False] / 1e9:.0f} GFLOP/s, "
             f"bf16 {ceilings[True] / 1e9:.0f} GFLOP/s",
             "",
             "| workload | precision | PyTorch ms/step | runner ms/step | runner/PyTorch | runner throughput | PyTorch MFU | runner MFU |",
             "|---|---|---|---|---|---|---|---|"]
    for kind, prec, py, rn, flops, units, ceil in rows:
        lines.append(f"| {kind} | {prec} | {py * 1e3:.1f} | {rn * 1e3:.1f} | {rn / py:.2f} | {units / rn:,.0f} {unit[kind]} | "
                     f"{flops / py / ceil:.1%} | {flops / rn / ceil:.1%} |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
