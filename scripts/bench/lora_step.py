"""A LoRA fine-tuning step: runner against the HF Trainer + peft on the same small Llama, the
same LoRA configuration, data, batch, optimizer and precision, in one run (issue #15's table in
docs/performance.md).

The base model is a random LlamaForCausalLM saved by transformers, `--size small` (hidden 256,
4 layers, 8 heads, 4 key/value heads, MLP 688, vocabulary 4096, batch 8 × 128 tokens) or
`--size tiny` (hidden 64, 2 layers, 4 heads, 2 key/value heads, MLP 128, vocabulary 512, batch
8 × 64: the shape of recipes/sft_lora.lua's CI model), LoRA r 16 / alpha 32
/ dropout 0.05 on q_proj, k_proj, v_proj and o_proj, AdamW (PyTorch's, fused where the peer has
it), gradient clipping 1.0, fp32 on the CPU. Each measurement is one process; ms/step is the
difference of a short and a long run's wall time divided by the extra steps, so start-up
(imports, loading the model) cancels out. The reps of the peers are interleaved; the table
gives the median and the min-max.

Usage (after scripts/build; needs transformers and peft in .venv, which scripts/setup installs):
  .venv/bin/python3 scripts/bench/lora_step.py --reps 5 --steps 30
  .venv/bin/python3 scripts/bench/lora_step.py --reps 5 --steps 200 --size tiny
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_util import per_step_ms, timed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNNER = os.path.join(ROOT, "build", "runner")
# small: matmuls dominate the step; tiny (the CI recipe's shape): the framework's own work does.
SIZES = {
    "small": (dict(vocab_size=4096, hidden_size=256, intermediate_size=688, num_hidden_layers=4, num_attention_heads=8,
                   num_key_value_heads=4, max_position_embeddings=256, tie_word_embeddings=False), 128),
    "tiny": (dict(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=256, tie_word_embeddings=False), 64),
}
SIZE = os.environ.get("LORA_BENCH_SIZE", "small")
MODEL, SEQ = SIZES[SIZE]
BATCH, ROWS = 8, 256
LORA = dict(r=16, alpha=32, dropout=0.05, targets=["q_proj", "k_proj", "v_proj", "o_proj"])

RECIPE = """local data, models = require "runner.data", require "runner.models"
local rows = {}
for r = 0, %(rows)d - 1 do
  local row = {}
  for j = 0, %(seq)d - 1 do row[j + 1] = (r * 131 + j * 17 + (r * j) %% 7) %% %(vocab)d end
  rows[r + 1] = row
end
local t = torch.tensor(rows)
local model = models.lora(models.from_pretrained("%(base)s"),
                          { r = %(r)d, alpha = %(alpha)d, dropout = %(dropout)s, target_modules = %(targets)s })
return {
  args = { output_dir = "%(out)s", max_steps = %(steps)d, per_device_train_batch_size = %(batch)d, learning_rate = 1e-4,
           train_sampling_strategy = "sequential", logging_steps = 1000, save_strategy = "no", report_to = "none",
           optim = "adamw_torch_fused" },
  datasets = { train = data.tensors{ input_ids = t, labels = t } },
  model = model,
}
"""


def rows():
    return [[(r * 131 + j * 17 + (r * j) % 7) % MODEL["vocab_size"] for j in range(SEQ)] for r in range(ROWS)]


def make_base(path):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    LlamaForCausalLM(LlamaConfig(**MODEL)).save_pretrained(path)


def hf_worker(base, steps, out):
    """The HF Trainer + peft peer (runs in its own process)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
    torch.manual_seed(0)
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(base),
                           LoraConfig(r=LORA["r"], lora_alpha=LORA["alpha"], lora_dropout=LORA["dropout"],
                                      target_modules=LORA["targets"], task_type="CAUSAL_LM"))
    data = [{"input_ids": torch.tensor(r), "labels": torch.tensor(r)} for r in rows()]
    args = TrainingArguments(output_dir=out, max_steps=steps, per_device_train_batch_size=BATCH, learning_rate=1e-4,
                             logging_steps=1000, save_strategy="no", report_to=[], use_cpu=True, disable_tqdm=True,
                             optim="adamw_torch_fused", dataloader_num_workers=0)
    Trainer(model=model, args=args, train_dataset=data).train()


def run_peer(peer, tmp, base, steps):
    out = os.path.join(tmp, f"out_{peer}_{steps}")
    if peer == "runner":
        recipe = os.path.join(tmp, f"lora_{steps}.lua")
        with open(recipe, "w") as f:
            f.write(RECIPE % dict(rows=ROWS, seq=SEQ, vocab=MODEL["vocab_size"], base=base, r=LORA["r"], alpha=LORA["alpha"],
                                  dropout=LORA["dropout"], targets="{" + ", ".join(f'"{t}"' for t in LORA["targets"]) + "}",
                                  out=out, steps=steps, batch=BATCH))
        return timed([RUNNER, recipe], tmp)
    return timed([sys.executable, __file__, "--hf-worker", base, str(steps), out], tmp)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--steps", type=int, default=30, help="extra steps of the long run")
    ap.add_argument("--short", type=int, default=3, help="steps of the short run")
    ap.add_argument("--size", choices=sorted(SIZES), default=SIZE)
    ap.add_argument("--hf-worker", nargs=3, metavar=("BASE", "STEPS", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.size != SIZE:  # the module-level shape follows the environment, which the HF workers inherit
        os.environ["LORA_BENCH_SIZE"] = a.size
        return subprocess.run([sys.executable, __file__, *sys.argv[1:]]).returncode
    if a.hf_worker:
        return hf_worker(a.hf_worker[0], int(a.hf_worker[1]), a.hf_worker[2])
    peers = ["runner", "hf"]
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base")
        make_base(base)
        ms = per_step_ms(peers, a.reps, a.short, a.steps, lambda p, n: run_peer(p, tmp, base, n))
    tokens = BATCH * SEQ
    print(f"size {SIZE}: {MODEL}, batch {BATCH} x {SEQ}\n")
    print(f"| peer | ms/step | min-max | tokens/s |\n|---|---|---|---|")
    for p in peers:
        med = statistics.median(ms[p])
        print(f"| {p} | {med:.1f} | {min(ms[p]):.1f}-{max(ms[p]):.1f} | {tokens / med * 1000:,.0f} |")
    print(f"\nrunner vs HF Trainer + peft: {statistics.median(ms['hf']) / statistics.median(ms['runner']):.2f}x "
          f"(per-rep ratios {', '.join(f'{h / r:.2f}' for r, h in zip(ms['runner'], ms['hf']))})")
    print(json.dumps(ms), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
