"""An independent GPT-2 in plain PyTorch, the reference for test_gpt_golden.

usage: gpt_reference.py CONFIG_JSON WEIGHTS BATCH OUT

Builds the model from a Hugging Face style config.json, loads WEIGHTS (GPT2LMHeadModel
names, or hub-style GPT2Model names without "transformer.", with or without lm_head.weight,
with attn.bias / attn.masked_bias buffers), runs BATCH (input_ids, optional labels) in
float32 and writes OUT: logits, and with labels the loss and "grad.<name>" for every
parameter after one backward pass. Written from the architecture description: pre-LN
blocks, Conv1D weights applied as x @ W + b, tanh-approximated GELU, causal attention,
tied output embedding, loss of logits[:, :-1] against labels[:, 1:] ignoring -100.
"""
import json
import math
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st_io  # noqa: E402


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


class Conv1D(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias


class Attention(nn.Module):
    def __init__(self, c, n_head):
        super().__init__()
        self.n_head = n_head
        self.c_attn = Conv1D(c, 3 * c)
        self.c_proj = Conv1D(c, c)

    def forward(self, x):
        b, t, c = x.shape
        d = c // self.n_head
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.reshape(b, t, self.n_head, d).permute(0, 2, 1, 3) for z in (q, k, v))
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(d)
        allowed = torch.ones(t, t, dtype=torch.bool).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
        y = torch.einsum("bhqk,bhkd->bhqd", scores.softmax(dim=-1), v)
        return self.c_proj(y.permute(0, 2, 1, 3).reshape(b, t, c))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_fc = Conv1D(c, 4 * c)
        self.c_proj = Conv1D(4 * c, c)

    def forward(self, x):
        return self.c_proj(gelu_tanh(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, c, n_head, eps):
        super().__init__()
        self.ln_1 = nn.LayerNorm(c, eps=eps)
        self.attn = Attention(c, n_head)
        self.ln_2 = nn.LayerNorm(c, eps=eps)
        self.mlp = MLP(c)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Trunk(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        c, eps = cfg["n_embd"], cfg.get("layer_norm_epsilon", 1e-5)
        self.wte = nn.Embedding(cfg["vocab_size"], c)
        self.wpe = nn.Embedding(cfg.get("n_positions", cfg.get("n_ctx")), c)
        self.h = nn.ModuleList([Block(c, cfg["n_head"], eps) for _ in range(cfg["n_layer"])])
        self.ln_f = nn.LayerNorm(c, eps=eps)


class GPT2(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.transformer = Trunk(cfg)

    def forward(self, ids):
        tr = self.transformer
        x = tr.wte(ids) + tr.wpe(torch.arange(ids.shape[1]))
        for block in tr.h:
            x = block(x)
        return tr.ln_f(x) @ tr.wte.weight.t()  # tied output embedding


def load(model, weights):
    state = {}
    head = None
    for name, t in weights.items():
        if name.endswith(".attn.bias") or name.endswith(".attn.masked_bias"):
            continue
        if name == "lm_head.weight":
            head = t
            continue
        state[name if name.startswith("transformer.") else "transformer." + name] = t.float()
    model.load_state_dict(state, strict=True)
    if head is not None:
        assert torch.equal(head.float(), state["transformer.wte.weight"]), "lm_head is not tied"


def main():
    config_path, weights_path, batch_path, out_path = sys.argv[1:5]
    with open(config_path) as f:
        cfg = json.load(f)
    torch.manual_seed(0)
    model = GPT2(cfg)
    load(model, st_io.read(weights_path))
    batch = st_io.read(batch_path)
    logits = model(batch["input_ids"].long())
    out = {"logits": logits}
    if "labels" in batch:
        v = logits.shape[-1]
        loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, v), batch["labels"][:, 1:].reshape(-1).long(),
                                           ignore_index=-100)
        loss.backward()
        out["loss"] = loss.reshape(())
        for name, p in model.named_parameters():
            out["grad." + name] = p.grad
    st_io.write(out_path, out)


if __name__ == "__main__":
    main()
