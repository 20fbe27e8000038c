"""runner, the real HF Trainer and a plain PyTorch loop (eager, and torch.compile'd) on the
same model, data, precision and optimizer, in one run: ms/step, tokens/s, MFU, peak device
memory and start-up to the first optimizer step. Each peer runs in its own process, `--reps`
times; the table gives the median and the min-max of the reps.

Workloads (issue #11 / #12 tables):
  gpt2   GPT-2 small (124M: 12 layers, 12 heads, 768 dims, vocab 50257), batch 8 x 1024 tokens
  char   nanoGPT's small char model (4 layers, 4 heads, 128 dims, vocab 65), batch 12 x 64
  mlp    the Fashion-MNIST MLP (784-256-128-10), batch 64 (fp32 on the CPU)
Precision: bf16 autocast on CUDA (and where asked on the CPU), AdamW in PyTorch's fused
kernel (HF: optim="adamw_torch_fused"), gradient clipping 1.0, constant learning rate.

Where runner's time goes: --profile 10-11 passes profile_steps to runner's timed runs and
keeps their traces in ./profile_<run> (docs/performance.md, "Profiling a step").

Before/after a change: build the older commit elsewhere and pass its binary as --baseline
(peer "baseline", interleaved with build/runner).

Usage (after scripts/build):
  .venv/bin/python3 scripts/bench/side_by_side.py --device cuda --workloads gpt2 char --out /tmp/gpu.md
  .venv/bin/python3 scripts/bench/side_by_side.py --device cpu --workloads char mlp --precision fp32
HF Trainer rows need `transformers` (and `accelerate`) importable; without them they are
left out and the table says so. MFU: against --peak-tflops (default: the H100 SXM datasheet's
989 dense bf16 TFLOP/s on CUDA) and against a matmul ceiling measured in the same run.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNNER = os.environ.get("RUNNER_BINARY", os.path.join(ROOT, "build", "runner"))

WORKLOADS = {
    "gpt2": dict(kind="gpt", vocab=50257, block=1024, layers=12, heads=12, embd=768, batch=8),
    "char": dict(kind="gpt", vocab=65, block=64, layers=4, heads=4, embd=128, batch=12),
    "mlp": dict(kind="mlp", sizes=[784, 256, 128, 10], batch=64),
}


def flops_per_step(w, params_no_embed):
    """PaLM's count: 6 FLOPs per non-embedding parameter per token plus attention scores."""
    if w["kind"] == "mlp":
        return 6 * params_no_embed * w["batch"]
    L, C, T = w["layers"], w["embd"], w["block"]
    return (6 * params_no_embed + 12 * L * C * T) * T * w["batch"]


def units_per_step(w):
    return w["batch"] * (w["block"] if w["kind"] == "gpt" else 1)


# --- the Python peers (run as worker processes of this script) -------------------------------

def worker(args):
    t_start = time.monotonic()
    import torch
    sys.path.insert(0, HERE)
    from pytorch_models import GPT, MLP
    w = WORKLOADS[args.workload]
    dev = torch.device(args.device)
    bf16 = args.precision == "bf16"
    torch.manual_seed(0)
    if w["kind"] == "gpt":
        x = torch.randint(0, w["vocab"], (w["batch"], w["block"]), device=dev)
        y = x
    else:
        x = torch.randn(w["batch"], 784, device=dev)
        y = torch.randint(0, 10, (w["batch"],), device=dev)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    if args.peer == "hf":
        return hf_worker(args, w, x, y, t_start)
    if w["kind"] == "gpt":
        model = GPT(w["vocab"], w["block"], w["layers"], w["heads"], w["embd"]).to(dev)
        params_no_embed = model.num_parameters(exclude_embeddings=True)
    else:
        model = MLP(w["sizes"]).to(dev)
        params_no_embed = sum(p.numel() for p in model.parameters())
    fwd = torch.compile(model) if args.peer == "compiled" else model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.0, fused=True)

    def step():
        with torch.autocast(device_type=dev.type, dtype=torch.bfloat16, enabled=bf16):
            loss = fwd(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)

    step()
    sync()
    startup = time.monotonic() - t_start
    for _ in range(3):
        step()
    sync()
    if dev.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    t = time.perf_counter()
    for _ in range(args.steps):
        step()
    sync()
    ms = (time.perf_counter() - t) / args.steps * 1e3
    peak = torch.cuda.max_memory_allocated() if dev.type == "cuda" else 0
    print(json.dumps(dict(ms=ms, startup=startup, peak=peak, params_no_embed=params_no_embed)))


def hf_worker(args, w, x, y, t_start):
    """The real transformers Trainer: GPT2LMHeadModel (same sizes, no dropout) or an MLP."""
    import torch
    import transformers
    from transformers import Trainer, TrainerCallback, TrainingArguments
    dev = torch.device(args.device)
    if w["kind"] == "gpt":
        cfg = transformers.GPT2Config(vocab_size=w["vocab"], n_positions=w["block"], n_embd=w["embd"], n_layer=w["layers"],
                                      n_head=w["heads"], resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
        model = transformers.GPT2LMHeadModel(cfg)
        data = [{"input_ids": x[0].cpu(), "labels": x[0].cpu()}] * (w["batch"] * (args.steps + 8))
        params_no_embed = sum(p.numel() for p in model.parameters()) - model.transformer.wte.weight.numel() - \
            model.transformer.wpe.weight.numel()
    else:
        class HfMLP(torch.nn.Module):
            def __init__(self):
                super().__init__()
                sys.path.insert(0, HERE)
                from pytorch_models import MLP
                self.mlp = MLP(w["sizes"])

            def forward(self, x, labels):
                return {"loss": self.mlp(x, labels)}
        model = HfMLP()
        data = [{"x": x[i % w["batch"]].cpu(), "labels": y[i % w["batch"]].cpu()} for i in range(w["batch"] * (args.steps + 8))]
        params_no_embed = sum(p.numel() for p in model.parameters())
    times = []

    class Clock(TrainerCallback):
        def on_step_end(self, *a, **k):
            if dev.type == "cuda":
                torch.cuda.synchronize()
            times.append(time.monotonic())
            if len(times) == 4 and dev.type == "cuda":
                torch.cuda.reset_peak_memory_stats()

    with tempfile.TemporaryDirectory() as out:
        targs = TrainingArguments(output_dir=out, per_device_train_batch_size=w["batch"], max_steps=args.steps + 4,
                                  learning_rate=1e-4, lr_scheduler_type="constant", optim="adamw_torch_fused",
                                  bf16=args.precision == "bf16", use_cpu=dev.type == "cpu", save_strategy="no",
                                  logging_strategy="no", report_to="none", dataloader_pin_memory=dev.type == "cuda",
                                  disable_tqdm=True)
        Trainer(model=model, args=targs, train_dataset=data, callbacks=[Clock()]).train()
    ms = (times[-1] - times[3]) / (len(times) - 4) * 1e3
    peak = torch.cuda.max_memory_allocated() if dev.type == "cuda" else 0
    print(json.dumps(dict(ms=ms, startup=times[0] - t_start, peak=peak, params_no_embed=params_no_embed)))


# --- runner -----------------------------------------------------------------------------------

RECIPE = """local data = require "runner.data"
local models = require "runner.models"
torch.manual_seed(0)
local ds, model
if "{kind}" == "gpt" then
  local ids = torch.randint(0, {vocab}, {{1, {block}}}):expand({n}, {block}):contiguous()
  ds = data.tensors{{ input_ids = ids, labels = ids }}
  model = models.gpt{{ vocab_size = {vocab}, block_size = {block}, n_layer = {layers}, n_head = {heads}, n_embd = {embd} }}
else
  ds = data.tensors{{ x = torch.randn({n}, 784), labels = torch.randint(0, 10, {{{n}}}) }}
  model = models.mlp{{ sizes = {{784, 256, 128, 10}}, input = "x" }}
end
return {{
  args = {{ per_device_train_batch_size = {batch}, learning_rate = 1e-4, lr_scheduler_type = "constant",
           optim = "adamw_torch_fused", save_strategy = "no", logging_first_step = true,
           disable_tqdm = true, skip_memory_metrics = false,
           train_sampling_strategy = "sequential", bf16 = {bf16}, use_cpu = {use_cpu} }},
  datasets = {{ train = ds }},
  model = model,
}}
"""


def run_runner(args, name, w, tmp, binary=RUNNER, extra=()):
    """One run of 2 x steps optimizer steps that logs steps 1, `steps` and 2 x steps: the time
    between the arrival of the last two log lines is the timed steps alone. A logging step reads
    the loss, which waits for the GPU, and runner reads nothing else from the device between
    logging steps, so the window is exact however far the host runs ahead (a difference of two
    runs' train_runtime was not: their warm-up varies more than a few fast steps take). The
    first line times start-up. `extra`: more runner arguments (runner_graphs: --cuda_graphs true)."""
    assert args.steps >= 2, "--steps must be at least 2"
    recipe = os.path.join(tmp, f"{name}.lua")
    with open(recipe, "w") as f:
        f.write(RECIPE.format(kind=w["kind"], vocab=w.get("vocab", 0), block=w.get("block", 0), layers=w.get("layers", 0),
                              heads=w.get("heads", 0), embd=w.get("embd", 0), batch=w["batch"], n=w["batch"] * (2 * args.steps + 8),
                              bf16="true" if args.precision == "bf16" else "false",
                              use_cpu="true" if args.device == "cpu" else "false"))
    out = os.path.join(tmp, f"out_{name}")
    # --profile: its steps' time counts in ms/step when they fall inside the timed window
    profile = ["--profile_steps", args.profile] if args.profile else []
    t0 = time.monotonic()
    p = subprocess.Popen([binary, recipe, "--output_dir", out, "--max_steps", str(2 * args.steps), "--logging_steps", str(args.steps),
                          *extra, *profile], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    arrivals = []
    summary = []
    for line in p.stdout:  # runner writes each log line through at once
        if "'loss'" in line:
            arrivals.append(time.monotonic() - t0)
        if profile and ("***** Profile of step" in line or (summary and "(all " not in summary[-1])):  # header to "(all N ops)"
            summary.append(line)
    if profile:
        kept = os.path.abspath(f"profile_{name}")
        shutil.copytree(os.path.join(out, "profile"), kept, dirs_exist_ok=True)
        print(f"{name}: trace in {kept}\n" + "".join(summary), file=sys.stderr)
    err = p.stderr.read()
    if p.wait() != 0:
        raise SystemExit(f"runner failed:\n{err}")
    if len(arrivals) != 3:
        raise SystemExit(f"runner logged {len(arrivals)} losses, expected 3 (steps 1, {args.steps}, {2 * args.steps})")
    with open(os.path.join(out, "train_results.json")) as f:
        results = json.load(f)
    ms = (arrivals[2] - arrivals[1]) / args.steps * 1e3
    # HF's memory metrics: the memory at the start of training plus its peak above the end.
    peak = sum(results.get(k, 0) for k in ("before_init_mem_gpu", "init_mem_gpu_alloc_delta", "train_mem_gpu_alloc_delta",
                                           "train_mem_gpu_peaked_delta"))
    return dict(ms=ms, startup=arrivals[0], peak=peak)


def matmul_ceiling(device, precision):
    import torch
    dt = torch.bfloat16 if precision == "bf16" else torch.float32
    n = 8192 if device == "cuda" else 1024
    a, b = torch.randn(n, n, dtype=dt, device=device), torch.randn(n, n, dtype=dt, device=device)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    torch.mm(a, b)
    sync()
    times = []
    for _ in range(10):
        t = time.perf_counter()
        torch.mm(a, b)
        sync()
        times.append(time.perf_counter() - t)
    return 2 * n ** 3 / statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--workloads", nargs="+", default=["gpt2", "char"], choices=list(WORKLOADS))
    ap.add_argument("--peers", nargs="+", default=None, choices=["runner", "runner_graphs", "plain", "compiled", "hf"],
                    help="default: runner, runner_graphs (cuda_graphs = true; CUDA only), plain, compiled, hf")
    ap.add_argument("--precision", default=None, choices=["bf16", "fp32"], help="default: bf16 on CUDA, fp32 on the CPU")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--profile", default=None, metavar="A-B", help="runner's profile_steps for runner's runs (steps N+1 to 2N of --steps N are timed): "
                    "traces copied to ./profile_<run>, the log summaries printed; the profiled steps' time counts in ms/step")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--peak-tflops", type=float, default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--baseline", default=None, help="another runner binary (an older commit's build) timed as the peer "
                    "'baseline', interleaved with build/runner: a before/after comparison")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--workload", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.precision = args.precision or ("bf16" if args.device == "cuda" else "fp32")
    if args.worker:
        args.peer = args.worker
        return worker(args)

    try:
        import transformers  # noqa: F401
        have_hf = True
    except ImportError:
        have_hf = False
    args.peers = args.peers or ["runner"] + (["runner_graphs"] if args.device == "cuda" else []) + ["plain", "compiled", "hf"]
    peers = [p for p in args.peers if p != "hf" or have_hf]
    if args.baseline:
        peers.insert(peers.index("runner") + 1 if "runner" in peers else 0, "baseline")
    ceiling = matmul_ceiling(args.device, args.precision)
    peak = (args.peak_tflops or (989.0 if args.device == "cuda" else ceiling / 1e12)) * 1e12
    header = (f"device {args.device}, {args.precision}, {args.steps} timed steps x {args.reps} reps (median, min-max); "
              f"matmul ceiling {ceiling / 1e12:.1f} TFLOP/s, MFU peak {peak / 1e12:.0f} TFLOP/s"
              + ("" if have_hf else "; HF Trainer rows left out: `transformers` is not installed"))
    done = {}  # workload -> (results by peer, parameters without embeddings)
    with tempfile.TemporaryDirectory() as tmp:
        for wl in args.workloads:
            w = WORKLOADS[wl]
            results = {p: [] for p in peers}
            params = None
            for rep in range(args.reps):
                for p in peers:  # interleaved, so drift hits every peer alike
                    if p == "runner":
                        r = run_runner(args, f"{wl}_{rep}", w, tmp)
                    elif p == "runner_graphs":
                        r = run_runner(args, f"{wl}_{rep}_graphs", w, tmp, extra=["--cuda_graphs", "true"])
                    elif p == "baseline":
                        r = run_runner(args, f"{wl}_{rep}_baseline", w, tmp, binary=os.path.abspath(args.baseline))
                    else:
                        cmd = [sys.executable, __file__, "--worker", p, "--workload", wl, "--device", args.device,
                               "--precision", args.precision, "--steps", str(args.steps)]
                        out = subprocess.run(cmd, capture_output=True, text=True)
                        if out.returncode != 0:
                            raise SystemExit(f"{p} failed:\n{out.stderr[-3000:]}")
                        r = json.loads(out.stdout.strip().splitlines()[-1])
                        params = params or r.get("params_no_embed")
                    results[p].append(r)
                    print(f"{wl} rep {rep + 1}/{args.reps} {p}: {r['ms']:.2f} ms/step", flush=True)
                # The table of the reps so far after every rep: a run cut short (a device call's
                # time limit) still leaves its numbers.
                done[wl] = (results, params)
                write_table(args, header, done, peers, ceiling, peak, final=False)
    write_table(args, header, done, peers, ceiling, peak, final=True)


def write_table(args, header, done, peers, ceiling, peak, final):
    unit = {"gpt": "tokens/s", "mlp": "samples/s"}
    lines = [header, "", "| workload | peer | ms/step | min-max | reps | throughput | MFU (peak) | MFU (ceiling) | peak memory GiB | "
             "start-up to step 1 s |", "|---|---|---|---|---|---|---|---|---|---|"]
    for wl, (results, params) in done.items():
        w = WORKLOADS[wl]
        flops = flops_per_step(w, params) if params else float("nan")
        for p in peers:
            if not results[p]:
                continue
            ms = [r["ms"] for r in results[p]]
            med = statistics.median(ms)
            lines.append(f"| {wl} | {p} | {med:.2f} | {min(ms):.2f}-{max(ms):.2f} | {len(ms)} | {units_per_step(w) / med * 1e3:,.0f} "
                         f"{unit[w['kind']]} | {flops / (med / 1e3) / peak:.1%} | {flops / (med / 1e3) / ceiling:.1%} | "
                         f"{statistics.median(r['peak'] for r in results[p]) / 2**30:.2f} | "
                         f"{statistics.median(r['startup'] for r in results[p]):.2f} |")
    text = "\n".join(lines)
    if final:
        print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
