"""Fine-tuning on a GPU, runner against the HF Trainer (+ peft for LoRA) in one run on the same
GPU (issue #25's fine-tuning rows in docs/performance.md).

Workloads (random-init models with the public configs' shapes, synthetic packed tokens:
every row a full window of token ids, labels = input_ids, no padding):
  full_1b     Llama-3.2-1B shape, full fine-tune, batch 1 x 2048
  lora_8b     Llama-3.1-8B shape, LoRA r 16 / alpha 32 / dropout 0 on every linear layer
              (q, k, v, o, gate, up, down), base weights bf16, batch 1 x 2048, gradient
              checkpointing on (--lora-gc false turns it off; the peer runner_nogc runs runner
              without it: issue #25 asks for 2x HF + peft within 24 GiB, and a step that fits
              without recomputing the blocks does a third less GEMM work)
  longest_8b  one lora_8b step of a single sequence, one process per length (2048, 4096, ...,
              --max-seq), each under --timeout: the longest that fits (out of memory and
              time are failures), searched from the cap down (--longest-order up: from 2048
              until the first failure), in --mem-cap-gib of GPU memory (default 79.6: an 80 GB
              H100's total; on a larger GPU both peers get the allocator setting
              per_process_memory_fraction, read by the c10 allocator both of them use);
              runner also sets activation_offload (its checkpointed blocks' inputs wait in
              pinned host memory: runner's way to its longest sequence; HF has no such argument)
Precision, the same for both peers: `bf16` (HF Trainer bf16=True semantics) is bf16 autocast;
full_1b keeps fp32 master weights and gradients, lora_8b a bf16 base with fp32 adapters
(peft's autocast_adapter_dtype; runner does the same). AdamW in PyTorch's fused kernel
(optim adamw_torch_fused), constant learning rate, no weight decay, gradient clipping 1.0,
no evaluation, no saving, no logging.

The random model is written once per shape (transformers, on the device, bf16) and both peers
read that folder: the same weights, and start-up reads 16 GB from the page cache instead of
initialising 8B parameters on the CPU in every process (runner's models.llama{...} would).

Measurement: each peer in its own process of 2 x --steps optimizer steps; ms/step is the
wall time of the second --steps steps, divided by --steps, so start-up, the first steps'
allocations and warm-up stay out. HF: a callback waits for the GPU at each step's end and
reads the clock; runner: its log lines at steps --steps and 2 x --steps (logging_steps =
--steps) are timed as they arrive; a logging step reads the loss, which waits for the GPU,
and runner reads nothing else from the device between logging steps. (The difference of two
runs' train_runtime, used before, was noisier than a few fast steps on a GPU: warm-up varies
between processes.) Reps are interleaved (runner, hf, runner, ...);
the table gives the median and the min-max. Peak GPU memory: runner's train_results.json
memory metrics (before_init + init delta + train delta + train peaked delta, the caching
allocator's counters, skip_memory_metrics = false), HF's torch.cuda.max_memory_allocated()
after train(); n/a on the CPU.

Budget on one H100 (an estimate from the shapes, not yet measured; defaults --reps 5
--steps 5): writing the models about 0.5 min; full_1b 10 processes of 5-10 s, about 1.5 min;
lora_8b 10 processes of 10-20 s (16 GB of bf16 weights from the page cache), about 3 min
(15 and 4.5 min with the peer runner_nogc, as gpu_bench.sh runs it);
longest_8b 1-3 processes a peer, the longest step (131072 tokens) about a minute, about 2.5
min: about 9 min in all. --workloads runs a subset (two calls when one must be shorter).

Where runner's time goes: --profile 6-7 --reps 1 --peers runner passes profile_steps to
runner's runs and prints its summary of the profiled steps (the kernels with the most CUDA
time) to stderr; those runs' own ms/step includes the profiler's cost.

Usage (on the GPU machine; runner from RUNNER_BINARY, default build/runner):
  RUNNER_BINARY=.gpu/bin/runner python3 scripts/bench/finetune_gpu.py --out finetune.md
Dry run of the same code path on the CPU (tiny shapes, seconds per process):
  RUNNER_BINARY=build/runner .venv/bin/python3 scripts/bench/finetune_gpu.py --scale tiny --device cpu --reps 2
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNNER = os.environ.get("RUNNER_BINARY", os.path.join(ROOT, "build", "runner"))

# Public configs (config.json of meta-llama/Llama-3.2-1B and meta-llama/Llama-3.1-8B on the
# Hugging Face hub), in transformers v5's form; runner reads the same keys.
_LLAMA3 = dict(hidden_act="silu", rms_norm_eps=1e-5, initializer_range=0.02, max_position_embeddings=131072,
               attention_bias=False, mlp_bias=False, bos_token_id=128000, eos_token_id=128001)
SHAPES = {
    "1b": dict(_LLAMA3, vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
               num_attention_heads=32, num_key_value_heads=8, head_dim=64, tie_word_embeddings=True,
               rope_parameters=dict(rope_type="llama3", rope_theta=500000.0, factor=32.0, low_freq_factor=1.0,
                                    high_freq_factor=4.0, original_max_position_embeddings=8192)),
    "8b": dict(_LLAMA3, vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
               num_attention_heads=32, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
               rope_parameters=dict(rope_type="llama3", rope_theta=500000.0, factor=8.0, low_freq_factor=1.0,
                                    high_freq_factor=4.0, original_max_position_embeddings=8192)),
}
# --scale tiny: the same code path in seconds on a CPU (the shapes keep each model's tying).
TINY = dict(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, head_dim=16, bos_token_id=1, eos_token_id=2)
WORKLOADS = {  # shape, LoRA or not
    "full_1b": ("1b", False),
    "lora_8b": ("8b", True),
    "longest_8b": ("8b", True),
}
LORA = dict(r=16, alpha=32, dropout=0.0, target_modules="all-linear")
LR = 1e-5


def token_ids(torch, rows, seq, vocab):
    """Pseudo-random ids from a quadratic in the position, computed the same way in the
    runner recipe (RECIPE), so both peers train on the same tokens."""
    i = torch.arange(rows * seq).reshape(rows, seq)
    return (i * i * 31 + i * 17 + 7) % vocab


# --- the model folder ------------------------------------------------------------------------

def make_model_worker(a):
    """Writes the random model (its own process, so the driver holds no GPU memory or CUDA
    context while the peers run) and prints the GPU's name and memory."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    with torch.device(a.device):  # initialise where it is fast (the GPU); bf16 halves what is written
        model = LlamaForCausalLM._from_config(LlamaConfig(**json.loads(a.config)), dtype=torch.bfloat16)
    model.save_pretrained(a.model_dir)
    cuda = a.device == "cuda"
    print(json.dumps(dict(gpu=torch.cuda.get_device_name(0) if cuda else None,
                          total=torch.cuda.get_device_properties(0).total_memory if cuda else None)))


def make_model(a, shape, path):
    cmd = [sys.executable, os.path.abspath(__file__), "--make-model", "--config", json.dumps(a.shapes[shape]),
           "--model-dir", path, "--device", a.device]
    a.gpu = json.loads(run(cmd, None, None)[0].strip().splitlines()[-1])


# --- the HF Trainer peer (a worker process of this script) -----------------------------------

def hf_worker(a):
    import torch
    from transformers import AutoModelForCausalLM, Trainer, TrainerCallback, TrainingArguments
    cuda = a.device == "cuda"
    lora = WORKLOADS[a.workload][1]
    # full fine-tune: fp32 master weights under bf16 autocast (Trainer bf16=True); LoRA: a bf16 base
    dtype = torch.bfloat16 if lora else torch.float32
    model = AutoModelForCausalLM.from_pretrained(a.model_dir, dtype=dtype, device_map="cuda" if cuda else None)
    if lora:
        from peft import LoraConfig, get_peft_model
        model = get_peft_model(model, LoraConfig(r=LORA["r"], lora_alpha=LORA["alpha"], lora_dropout=LORA["dropout"],
                                                 target_modules=LORA["target_modules"], task_type="CAUSAL_LM"))
    ids = token_ids(torch, a.batch * a.max_steps, a.seq, model.config.vocab_size)
    data = [{"input_ids": r, "labels": r} for r in ids]
    ends = []  # the wall clock at each optimizer step's end, the GPU waited for

    class Clock(TrainerCallback):
        def on_step_end(self, *args, **kwargs):
            if cuda:
                torch.cuda.synchronize()
            ends.append(time.monotonic())

    with tempfile.TemporaryDirectory() as out:
        # Non-reentrant checkpointing: PyTorch's recommended form, and it needs no
        # enable_input_require_grads() for the frozen embeddings under peft.
        targs = TrainingArguments(output_dir=out, max_steps=a.max_steps, per_device_train_batch_size=a.batch,
                                  learning_rate=LR, lr_scheduler_type="constant", weight_decay=0.0, max_grad_norm=1.0,
                                  optim="adamw_torch_fused", bf16=a.bf16, gradient_checkpointing=a.gc,
                                  gradient_checkpointing_kwargs={"use_reentrant": False} if a.gc else None,
                                  use_cpu=not cuda, save_strategy="no", eval_strategy="no", logging_strategy="no",
                                  report_to="none", disable_tqdm=True, dataloader_num_workers=0,
                                  dataloader_pin_memory=cuda)
        metrics = Trainer(model=model, args=targs, train_dataset=data, callbacks=[Clock()]).train().metrics
    peak = torch.cuda.max_memory_allocated() if cuda else None
    print(json.dumps(dict(train_runtime=metrics["train_runtime"], ends=ends, peak=peak)))


# --- runner ----------------------------------------------------------------------------------

RECIPE = """local data, models = require "runner.data", require "runner.models"
local i = torch.arange({rows} * {seq}):reshape({rows}, {seq})
local ids = (i * i * 31 + i * 17 + 7) % {vocab}
local model = models.from_pretrained("{model_dir}", {{ dtype = "{dtype}" }})
if {lora} then
  model = models.lora(model, {{ r = {r}, alpha = {alpha}, dropout = {dropout}, target_modules = "{targets}" }})
end
return {{
  args = {{ output_dir = "{out}", max_steps = {steps}, per_device_train_batch_size = {batch}, learning_rate = {lr},
           lr_scheduler_type = "constant", weight_decay = 0.0, max_grad_norm = 1.0, optim = "adamw_torch_fused",
           bf16 = {bf16}, gradient_checkpointing = {gc}, activation_offload = {offload}, use_cpu = {use_cpu},
           train_sampling_strategy = "sequential",
           save_strategy = "no", eval_strategy = "no", logging_steps = {logging_steps}, report_to = "none",
           disable_tqdm = true, skip_memory_metrics = false{profile} }},
  datasets = {{ train = data.tensors{{ input_ids = ids, labels = ids }} }},
  model = model,
}}
"""


def lua_bool(b):
    return "true" if b else "false"


class Failed(Exception):
    def __init__(self, why, log):
        super().__init__(why)
        self.why, self.log = why, log


def run(cmd, timeout, env, mark=None):
    """Runs cmd; returns its stdout and the arrival times (monotonic) of the stdout lines that
    contain `mark`, read as the process writes them."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    killer = threading.Timer(timeout, p.kill) if timeout else None
    if killer:
        killer.start()
    err = []
    drain = threading.Thread(target=lambda: err.append(p.stderr.read()))  # a full stderr pipe would block the child
    drain.start()
    out, arrivals = [], []
    for line in p.stdout:
        if mark and mark in line:
            arrivals.append(time.monotonic())
        out.append(line)
    code = p.wait()
    drain.join()
    timed_out = killer is not None and not killer.is_alive() and code < 0
    if killer:
        killer.cancel()
    if timed_out:
        raise Failed("timeout", "")
    if code != 0:
        log = "".join(out)[-2000:] + "".join(err)[-4000:]
        raise Failed("OOM" if "out of memory" in log.lower() else f"exit {code}", log)
    return "".join(out), arrivals


def run_peer(peer, a, workload, model_dir, seq, steps, tmp, timeout=None, env=None, timed=0):
    """One training process of `steps` optimizer steps; returns (seconds, peak bytes or None):
    with `timed`, the wall time of the last `timed` steps (steps = 2 x timed), else the run's
    train_runtime."""
    shape, lora = WORKLOADS[workload]
    gc = (a.lora_gc if lora else a.full_gc) and peer != "runner_nogc"
    if peer == "hf":
        cmd = [sys.executable, os.path.abspath(__file__), "--hf-worker", "--workload", workload, "--model-dir", model_dir,
               "--device", a.device, "--batch", str(a.batch), "--seq", str(seq), "--max-steps", str(steps),
               "--bf16", lua_bool(a.bf16), "--gc", lua_bool(gc)]
        r = json.loads(run(cmd, timeout, env)[0].strip().splitlines()[-1])
        return (r["ends"][-1] - r["ends"][-1 - timed] if timed else r["train_runtime"]), r["peak"]
    out = os.path.join(tmp, f"out_{workload}_{seq}_{steps}")
    shutil.rmtree(out, ignore_errors=True)  # a fresh output folder per run: no earlier rep's results
    recipe = os.path.join(tmp, f"{workload}_{seq}_{steps}.lua")
    with open(recipe, "w") as f:
        f.write(RECIPE.format(rows=a.batch * steps, seq=seq, vocab=a.shapes[shape]["vocab_size"], model_dir=model_dir,
                              dtype="bfloat16" if lora else "float32", lora=lua_bool(lora), r=LORA["r"], alpha=LORA["alpha"],
                              dropout=LORA["dropout"], targets=LORA["target_modules"], out=out, steps=steps, batch=a.batch,
                              lr=LR, bf16=lua_bool(a.bf16), gc=lua_bool(gc), offload=lua_bool(gc and workload == "longest_8b"),
                              use_cpu=lua_bool(a.device == "cpu"), logging_steps=timed or steps,
                              profile=f', profile_steps = "{a.profile}"' if a.profile and peer.startswith("runner") else ""))
    if peer == "runner_plain":  # runner with HF's op chains instead of its fused RMSNorm/SwiGLU/rotary kernels
        env = {**(env or os.environ), "RUNNER_FUSED_KERNELS": "0"}
    stdout, logged = run([RUNNER, recipe], timeout, env, mark="'loss'")  # logs at steps `timed` and 2 x `timed`
    if a.profile:  # runner's summary of the profiled steps: the kernels with the most CUDA time
        block = stdout[stdout.find("***** Profile of step"):]
        print(f"{workload} {peer}:\n" + block[:block.find("\n", block.find("(all ")) + 1], file=sys.stderr)
    if timed and len(logged) != 2:
        raise Failed(f"runner logged {len(logged)} losses, expected 2", "")
    with open(os.path.join(out, "train_results.json")) as f:
        r = json.load(f)
    keys = ("before_init_mem_gpu", "init_mem_gpu_alloc_delta", "train_mem_gpu_alloc_delta", "train_mem_gpu_peaked_delta")
    peak = sum(r.get(k, 0) for k in keys) if any(k in r for k in keys) else None
    return (logged[1] - logged[0] if timed else r["train_runtime"]), peak


# --- the workloads ---------------------------------------------------------------------------

def gib(b):
    return "n/a" if b is None else f"{b / 2**30:.2f}"


def step_rows(a, workload, model_dir, tmp):
    """ms/step and peak memory of each peer, reps interleaved."""
    res = {p: [] for p in a.peers}
    for rep in range(a.reps):
        for p in a.peers:
            seconds, peak = run_peer(p, a, workload, model_dir, a.seq, 2 * a.steps, tmp, timeout=a.timeout, timed=a.steps)
            res[p].append((1000 * seconds / a.steps, peak))
            print(f"{workload} rep {rep + 1}: {p} {res[p][-1][0]:.1f} ms/step, peak {gib(peak)} GiB", file=sys.stderr)
    tokens = a.batch * a.seq
    med = {p: statistics.median(ms for ms, _ in res[p]) for p in a.peers}
    peak = {p: None if res[p][0][1] is None else statistics.median(pk for _, pk in res[p]) for p in a.peers}
    lines = []
    for p in a.peers:
        ms = [m for m, _ in res[p]]
        ratio = "-"
        if p.startswith("runner") and p != "runner_plain" and "hf" in a.peers:
            mem = "" if peak[p] is None or not peak["hf"] else f", memory {peak[p] / peak['hf']:.2f}x"
            if WORKLOADS[workload][1] and peak[p] is not None:  # issue #25's LoRA target: at most 24 GiB
                mem += ", peak allocated within 24 GiB" if peak[p] <= 24 * 2**30 else ", peak allocated over 24 GiB"
            ratio = f"{med['hf'] / med[p]:.2f}x tokens/s{mem}"
        lines.append(f"| {workload} | {p} | {med[p]:.1f} | {min(ms):.1f}-{max(ms):.1f} | {tokens / med[p] * 1000:,.0f} | "
                     f"{gib(peak[p])} | {ratio} |")
    return lines


def longest_rows(a, model_dir, tmp):
    """For each peer, one LoRA step per process at the lengths seq, 2 seq, 4 seq, ... up to
    --max-seq. Order down (default): from the longest, the first that fits is the answer
    (memory grows with the length), which skips the many short lengths a peer surely fits
    and keeps the run inside its budget; order up: from seq, until the first failure."""
    env = dict(os.environ)
    if a.device == "cuda":
        frac = a.mem_cap_gib * 2**30 / a.gpu["total"]
        if frac < 1:  # a larger GPU than the cap: both peers' caching allocators stop at the cap
            conf = env.get("PYTORCH_CUDA_ALLOC_CONF")
            env["PYTORCH_CUDA_ALLOC_CONF"] = (conf + "," if conf else "") + f"per_process_memory_fraction:{frac:.4f}"
    lengths = [a.seq]
    while lengths[-1] * 2 <= a.max_seq:
        lengths.append(lengths[-1] * 2)
    down = a.longest_order == "down"
    best = {}
    for p in a.peers:
        fit, failure = None, None  # failure: the shortest length seen to fail
        for seq in reversed(lengths) if down else lengths:
            t0 = time.monotonic()
            try:
                runtime, peak = run_peer(p, a, "longest_8b", model_dir, seq, 1, tmp, timeout=a.timeout, env=env)
            except Failed as e:
                failure = f"{e.why} at {seq}"
                print(f"longest_8b: {p} {seq} tokens: {e.why} after {time.monotonic() - t0:.0f} s\n{e.log[-1500:]}",
                      file=sys.stderr)
                if down:
                    continue
                break
            fit = (seq, runtime, peak)
            print(f"longest_8b: {p} {seq} tokens fit, step {runtime:.1f} s, peak {gib(peak)} GiB", file=sys.stderr)
            if down:
                break
        best[p] = (fit, failure or f"none up to --max-seq {a.max_seq}")
    lines = []
    for p in a.peers:
        fit, failure = best[p]
        ratio = "-"
        if p == "runner" and "hf" in a.peers and fit and best["hf"][0]:
            ratio = f"{fit[0] / best['hf'][0][0]:.1f}x" + (" (runner at the cap)" if fit[0] == lengths[-1] else "")
        lines.append(f"| longest_8b | {p} | {fit[0] if fit else 'none'} | {f'{fit[1]:.1f}' if fit else '-'} | "
                     f"{gib(fit[2]) if fit else '-'} | {failure} | {ratio} |")
    return lines


def header(a):
    from importlib.metadata import version
    gpu = a.gpu["gpu"] if a.device == "cuda" else f"none (CPU, {os.cpu_count()} cores: a dry run, not a result)"
    versions = ", ".join(f"{m} {version(m)}" for m in ("torch", "transformers", "peft"))
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    cmd = " ".join(shlex.quote(x) for x in [os.path.relpath(sys.executable, ROOT) if sys.executable.startswith(ROOT)
                                            else "python3", os.path.relpath(os.path.abspath(__file__), ROOT), *sys.argv[1:]])
    return [f"- GPU: {gpu}; {versions}; checkout {commit or '?'}, runner {RUNNER}",
            f"- command: `RUNNER_BINARY={RUNNER} {cmd}`",
            f"- scale {a.scale}, batch {a.batch} x {a.seq} tokens, {'bf16 autocast' if a.bf16 else 'fp32'}, {a.steps} timed steps "
            f"(after as many warm-up steps) x {a.reps} reps, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS))
    ap.add_argument("--peers", nargs="+", default=["runner", "hf"], choices=["runner", "runner_nogc", "runner_plain", "hf"],
                    help="runner_plain: runner with RUNNER_FUSED_KERNELS=0 (what its fused kernels pay); runner_nogc: "
                         "runner without gradient checkpointing in lora_8b (whether its step fits 24 GiB without it)")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--scale", default="full", choices=["full", "tiny"], help="tiny: small shapes for a CPU dry run")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--steps", type=int, default=None, help="timed steps, after as many warm-up steps (default 5; tiny 20)")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=None, help="tokens per row (default 2048; tiny 64); longest_8b starts here")
    ap.add_argument("--max-seq", type=int, default=None, help="longest_8b's cap (default 131072; tiny 512)")
    ap.add_argument("--timeout", type=float, default=150, help="seconds for one process (longest_8b: a failure)")
    ap.add_argument("--longest-order", default="down", choices=["down", "up"], help="longest_8b: from the cap down, or up")
    ap.add_argument("--mem-cap-gib", type=float, default=79.6, help="longest_8b's GPU memory (an 80 GB H100's total)")
    ap.add_argument("--full-gc", type=lambda s: s == "true", default=False, help="gradient checkpointing in full_1b (true/false)")
    ap.add_argument("--lora-gc", type=lambda s: s == "true", default=True, help="gradient checkpointing in the LoRA workloads")
    ap.add_argument("--precision", default="bf16", choices=["bf16", "fp32"])
    ap.add_argument("--workdir", default=None, help="where the model folders go (default: a temporary folder; 8B: 16 GB)")
    ap.add_argument("--out", default=None, help="also write the table to this file")
    ap.add_argument("--profile", default=None, metavar="A-B",
                    help="runner's profile_steps for runner's runs; its summary (top kernels) goes to stderr. The "
                         "profiler slows the steps it records: time such runs apart (--reps 1)")
    # worker-only arguments
    ap.add_argument("--hf-worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--make-model", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--config", help=argparse.SUPPRESS)
    ap.add_argument("--workload", help=argparse.SUPPRESS)
    ap.add_argument("--model-dir", help=argparse.SUPPRESS)
    ap.add_argument("--max-steps", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--bf16", type=lambda s: s == "true", help=argparse.SUPPRESS)
    ap.add_argument("--gc", type=lambda s: s == "true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.hf_worker:
        return hf_worker(a)
    if a.make_model:
        return make_model_worker(a)
    tiny = a.scale == "tiny"
    a.seq = a.seq or (64 if tiny else 2048)
    a.steps = a.steps or (20 if tiny else 5)
    if a.device == "cpu":  # a dry run: one thread per peer, so OpenMP's spinning threads do not fight
        os.environ.setdefault("OMP_NUM_THREADS", "1")  # the machine's other load (the children inherit it)
    a.max_seq = a.max_seq or (512 if tiny else 131072)
    a.bf16 = a.precision == "bf16"
    a.shapes = {k: dict(v, **TINY) if tiny else v for k, v in SHAPES.items()}
    steps = ["", "| workload | peer | ms/step (median) | min-max | tokens/s | peak GPU memory GiB | runner vs HF |",
             "|---|---|---|---|---|---|---|"]
    longest = ["", "| workload | peer | longest sequence that fit | step s | peak GPU memory GiB | shortest failure tried | runner vs HF |",
               "|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory(dir=a.workdir) as tmp:
        dirs = {}
        for wl in a.workloads:
            shape = WORKLOADS[wl][0]
            try:
                if shape not in dirs:
                    dirs[shape] = os.path.join(tmp, f"llama_{shape}")
                    t = time.monotonic()
                    make_model(a, shape, dirs[shape])
                    print(f"model {shape} written in {time.monotonic() - t:.0f} s", file=sys.stderr)
                if wl == "longest_8b":
                    longest += longest_rows(a, dirs[shape], tmp)
                else:
                    steps += step_rows(a, wl, dirs[shape], tmp)
            except Failed as e:
                raise SystemExit(f"{wl}: a run failed ({e.why}):\n{e.log}")
    lines = header(a)
    if len(steps) > 3:
        lines += steps
    if len(longest) > 3:
        lines += longest
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
