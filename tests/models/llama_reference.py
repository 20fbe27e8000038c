"""The real transformers Llama-family models, the reference for test_llama_golden.

usage:
  llama_reference.py make DIR MODEL_TYPE CONFIG_JSON SEED
      a tiny random model of transformers' own (AutoConfig.for_model + from_config), weights
      spread out so the comparison has signal, saved with save_pretrained into DIR
  llama_reference.py run DIR BATCH OUT
      loads DIR with transformers' from_pretrained (SDPA attention, its default; float32), runs BATCH
      (input_ids and optionally attention_mask, position_ids, labels) in training mode and
      writes OUT: logits, and with labels the loss and "grad.<name>" for every parameter
  llama_reference.py generate DIR BATCH MAX_NEW_TOKENS NUM_BEAMS OUT
      generate() without sampling (greedy, or beam search with NUM_BEAMS > 1) from BATCH's
      input_ids / attention_mask (left-padded), pad id 0, the config's eos id; writes "ids"

Exit status 3 when transformers cannot be imported (the test then skips, saying so).
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st_io  # noqa: E402

try:
    from transformers import AutoConfig, AutoModelForCausalLM
except ImportError:
    sys.exit(3)


def make(out_dir, model_type, config_json, seed):
    config = AutoConfig.for_model(model_type, **json.loads(config_json))
    torch.manual_seed(int(seed))
    model = AutoModelForCausalLM.from_config(config)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1.0 + 0.2 * torch.randn_like(p))
            elif "embed_tokens" in name:
                p.copy_(0.5 * torch.randn_like(p))
            elif name.endswith(".bias"):
                p.copy_(0.05 * torch.randn_like(p))
            else:
                p.copy_(0.15 * torch.randn_like(p))
    model.save_pretrained(out_dir)


def load(model_dir):
    model = AutoModelForCausalLM.from_pretrained(model_dir, attn_implementation="sdpa", dtype=torch.float32)
    return model


def run(model_dir, batch_path, out_path):
    model = load(model_dir)
    model.train()
    batch = st_io.read(batch_path)
    # use_cache=False as in training: transformers honours packed position_ids (attention stops
    # where positions restart) only without a cache, and would otherwise create one.
    out = model(**batch, use_cache=False)
    result = {"logits": out.logits.detach()}
    if "labels" in batch:
        out.loss.backward()
        result["loss"] = out.loss.detach()
        for name, p in model.named_parameters():
            result["grad." + name] = p.grad
    st_io.write(out_path, result)


def generate(model_dir, batch_path, max_new_tokens, num_beams, out_path):
    model = load(model_dir)
    model.eval()
    batch = st_io.read(batch_path)
    with torch.no_grad():
        ids = model.generate(**batch, max_new_tokens=int(max_new_tokens), do_sample=False, num_beams=int(num_beams),
                             pad_token_id=0)
    st_io.write(out_path, {"ids": ids})


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    {"make": make, "run": run, "generate": generate}[mode](*args)
