"""A DPO step: runner (data.preference, data.preference_collator, models.dpo_loss) against TRL's
DPOTrainer on the same random Llama, the same preference pairs, batch, optimizer and precision,
in one run (docs/performance.md, "DPO step").

The policy is a random LlamaForCausalLM saved by transformers next to the byte-level tokenizer
of recipes/lib/byte_tokenizer (259 ids), `--size small` (hidden 256, 4 layers, 8 heads, 4
key/value heads, MLP 688) or `--size tiny` (hidden 64, 2 layers: recipes/dpo.lua's CI model);
256 synthetic pairs of about 40 prompt and 60-110 completion bytes; 8 pairs a step (16 rows);
the sigmoid loss with beta 0.1; the reference is the peers' default for full fine-tuning, a
frozen copy of the policy; AdamW (PyTorch's fused), fp32 on the CPU, no gradient
checkpointing. Each measurement is one process; ms/step is the difference of a short and a
long run's wall time divided by the extra steps, so start-up (imports, loading, tokenizing)
cancels out. The reps of the peers are interleaved; the table gives the median and min-max.

Usage (after scripts/build; needs transformers and trl in .venv, which scripts/setup installs):
  .venv/bin/python3 scripts/bench/dpo_step.py --reps 5 --steps 30
  .venv/bin/python3 scripts/bench/dpo_step.py --reps 5 --steps 200 --size tiny
"""
import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile

from bench_util import per_step_ms, timed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNNER = os.path.join(ROOT, "build", "runner")
TOKENIZER = os.path.join(ROOT, "recipes", "lib", "byte_tokenizer")
SIZES = {
    "small": dict(hidden_size=256, intermediate_size=688, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=4),
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2),
}
PAIRS, BATCH = 256, 8

RECIPE = """local data, models = require "runner.data", require "runner.models"
return {
  args = { output_dir = "%(out)s", max_steps = %(steps)d, per_device_train_batch_size = %(batch)d, learning_rate = 1e-6,
           logging_steps = 1000, save_strategy = "no", report_to = "none", optim = "adamw_torch_fused" },
  datasets = { train = data.preference{ path = "%(pairs)s", tokenizer = "%(base)s/tokenizer.json" } },
  data_collator = data.preference_collator{},
  model = models.from_pretrained("%(base)s"),
  compute_loss = models.dpo_loss{ beta = 0.1 },
}
"""


def write_pairs(path):
    rng = random.Random(0)
    words = "the a river castle garden window pencil rocket silver marble candle forest planet button copper ladder".split()

    def text(n):
        return " ".join(rng.choice(words) for _ in range(n))
    with open(path, "w") as f:
        for _ in range(PAIRS):
            f.write(json.dumps({"prompt": "Say something about " + text(4) + ":", "chosen": " " + text(rng.randrange(10, 18)),
                                "rejected": " " + text(rng.randrange(10, 18))}) + "\n")


def make_base(path, size):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    shutil.copytree(TOKENIZER, path)
    with open(os.path.join(TOKENIZER, "tokenizer.json")) as f:
        t = json.load(f)
    vocab = len(t["model"]["vocab"]) + len(t.get("added_tokens", []))
    torch.manual_seed(0)
    LlamaForCausalLM(LlamaConfig(vocab_size=vocab, max_position_embeddings=512, tie_word_embeddings=False, **SIZES[size])).save_pretrained(path)


def trl_worker(base, pairs, steps, out):
    """TRL's DPOTrainer (runs in its own process)."""
    import torch
    from datasets import load_dataset
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging
    from trl import DPOConfig, DPOTrainer
    hf_logging.set_verbosity_error()
    torch.manual_seed(0)
    args = DPOConfig(output_dir=out, max_steps=steps, per_device_train_batch_size=BATCH, learning_rate=1e-6, logging_steps=1000,
                     save_strategy="no", report_to=[], use_cpu=True, bf16=False, gradient_checkpointing=False, disable_tqdm=True,
                     optim="adamw_torch_fused", dataloader_num_workers=0, beta=0.1)
    DPOTrainer(model=AutoModelForCausalLM.from_pretrained(base), args=args, train_dataset=load_dataset("json", data_files=pairs, split="train"),
               processing_class=PreTrainedTokenizerFast.from_pretrained(base)).train()


def run_peer(peer, tmp, base, pairs, steps):
    out = os.path.join(tmp, f"out_{peer}_{steps}")
    if peer == "runner":
        recipe = os.path.join(tmp, f"dpo_{steps}.lua")
        with open(recipe, "w") as f:
            f.write(RECIPE % dict(out=out, steps=steps, batch=BATCH, pairs=pairs, base=base))
        return timed([RUNNER, recipe], tmp)
    return timed([sys.executable, __file__, "--trl-worker", base, pairs, str(steps), out], tmp)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--steps", type=int, default=30, help="extra steps of the long run")
    ap.add_argument("--short", type=int, default=3, help="steps of the short run")
    ap.add_argument("--size", choices=sorted(SIZES), default="small")
    ap.add_argument("--trl-worker", nargs=4, metavar=("BASE", "PAIRS", "STEPS", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.trl_worker:
        return trl_worker(a.trl_worker[0], a.trl_worker[1], int(a.trl_worker[2]), a.trl_worker[3])
    peers = ["runner", "trl"]
    with tempfile.TemporaryDirectory() as tmp:
        base, pairs = os.path.join(tmp, "base"), os.path.join(tmp, "pairs.jsonl")
        make_base(base, a.size)
        write_pairs(pairs)
        ms = per_step_ms(peers, a.reps, a.short, a.steps, lambda p, n: run_peer(p, tmp, base, pairs, n))
    print(f"size {a.size}: {SIZES[a.size]}, {BATCH} pairs a step\n")
    print("| peer | ms/step | min-max | pairs/s |\n|---|---|---|---|")
    for p in peers:
        med = statistics.median(ms[p])
        print(f"| {'runner' if p == 'runner' else 'TRL DPOTrainer'} | {med:.1f} | {min(ms[p]):.1f}-{max(ms[p]):.1f} | {BATCH / med * 1000:,.1f} |")
    print(f"\nrunner vs TRL: {statistics.median(ms['trl']) / statistics.median(ms['runner']):.2f}x "
          f"(per-rep ratios {', '.join(f'{t / r:.2f}' for r, t in zip(ms['runner'], ms['trl']))})")
    print(json.dumps(ms), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
