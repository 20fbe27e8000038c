"""The quality peer of recipes/char_gpt.lua: nanoGPT's shakespeare_char training on a CPU,
restated in plain PyTorch (bias-free GPT, exact GELU, nanoGPT's init, its get_batch /
get_lr / AdamW groups), so the runner's validation loss can be compared with the very
procedure behind nanoGPT's published 1.88, seed by seed.

For each seed it prints two validation losses after the last step:
  full   -- the mean over the whole validation split in windows of block_size + 1
            characters (what the runner's eval_loss measures for char_gpt.lua);
  est20  -- nanoGPT's estimate_loss: 20 random batches of batch_size windows.

Usage: python3 scripts/bench/char_gpt_nanogpt.py TEXT_FILE [--seeds 1 2 3] [--iters 2000]
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class LayerNorm(nn.Module):
    """LayerNorm without a bias (torch 1.13's nn.LayerNorm cannot drop only the bias)."""
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, None, 1e-5)


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.n_head = n_head
        self.ln_1 = LayerNorm(n_embd)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=False)
        self.attn_c_proj = nn.Linear(n_embd, n_embd, bias=False)
        self.ln_2 = LayerNorm(n_embd)
        self.c_fc = nn.Linear(n_embd, 4 * n_embd, bias=False)
        self.mlp_c_proj = nn.Linear(4 * n_embd, n_embd, bias=False)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        # nanoGPT's path for torch < 2.0 (no scaled_dot_product_attention)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.shape[-1]))
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        y = att.masked_fill(~causal, float("-inf")).softmax(dim=-1) @ v
        x = x + self.attn_c_proj(y.transpose(1, 2).reshape(B, T, C))
        return x + self.mlp_c_proj(F.gelu(self.c_fc(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer, n_head, n_embd):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList(Block(n_embd, n_head) for _ in range(n_layer))
        self.ln_f = LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.wte.weight = self.lm_head.weight
        # nanoGPT: N(0, 0.02) everywhere, residual projections scaled by 1/sqrt(2 n_layer).
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * n_layer))

    def forward(self, idx, targets):
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(T))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.reshape(-1))


def get_lr(it, a):
    if it < a.warmup:  # nanoGPT since Dec 2024; before, lr * it / warmup (0 at step 0)
        return a.lr * (it if a.feb2023 else it + 1) / (a.warmup if a.feb2023 else a.warmup + 1)
    ratio = (it - a.warmup) / (a.iters - a.warmup)
    return a.min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (a.lr - a.min_lr)


def get_batch(data, a):
    ix = torch.randint(len(data) - a.block_size, (a.batch_size,))
    x = torch.stack([data[i:i + a.block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + a.block_size] for i in ix])
    return x, y


@torch.no_grad()
def full_split_loss(model, val, a):
    """Non-overlapping windows of block_size + 1 characters, block_size predictions each."""
    w = a.block_size + 1
    n = (len(val) - w) // w + 1
    windows = val[: n * w].view(n, w)
    total, count = 0.0, 0
    for s in range(0, n, 64):
        chunk = windows[s:s + 64]
        loss = model(chunk[:, :-1], chunk[:, 1:])
        total += loss.item() * chunk[:, 1:].numel()
        count += chunk[:, 1:].numel()
    return total / count


@torch.no_grad()
def estimate_loss(model, val, a):
    return sum(model(*get_batch(val, a)).item() for _ in range(20)) / 20


def run(seed, text, a):
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    n = int(len(data) * 0.9)
    train, val = data[:n], data[n:]
    torch.manual_seed(seed)
    model = GPT(len(chars), a.block_size, a.n_layer, a.n_head, a.n_embd)
    params = [p for p in model.parameters() if p.requires_grad]
    # nanoGPT since May 2023 decays every 2-D tensor; before, only Linear weights (not the
    # embeddings, nor the lm_head tied to wte): --decay linear.
    embeddings = {id(model.wte.weight), id(model.wpe.weight)}
    decay = [p.dim() >= 2 and (a.decay == "all2d" or id(p) not in embeddings) for p in params]
    groups = [{"params": [p for p, d in zip(params, decay) if d], "weight_decay": a.weight_decay},
              {"params": [p for p, d in zip(params, decay) if not d], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=a.lr, betas=(0.9, 0.99))
    start = time.time()
    for it in range(a.iters):
        for g in opt.param_groups:
            g["lr"] = get_lr(it, a)
        loss = model(*get_batch(train, a))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
    secs = time.time() - start
    model.eval()
    return {"seed": seed, "full": full_split_loss(model, val, a), "est20": estimate_loss(model, val, a), "secs": secs}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("text")
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--iters", type=int, default=2000)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--weight_decay", type=float, default=0.1)
    p.add_argument("--decay", choices=["all2d", "linear"], default="all2d")
    p.add_argument("--feb2023", action="store_true",
                   help="nanoGPT as of its README's 1.88 (5 Feb 2023): weight decay 0.01 on Linear weights only, warmup from 0")
    p.add_argument("--json", help="write the per-seed results here")
    a = p.parse_args()
    a.block_size, a.batch_size, a.n_layer, a.n_head, a.n_embd = 64, 12, 4, 4, 128
    a.lr, a.min_lr, a.warmup = 1e-3, 1e-4, 100
    if a.feb2023:
        a.weight_decay, a.decay = 0.01, "linear"
    torch.set_num_threads(a.threads)
    with open(a.text, encoding="utf-8") as f:
        text = f.read()
    results = []
    for seed in a.seeds:
        r = run(seed, text, a)
        results.append(r)
        print(f"nanogpt seed {seed}  {a.iters} steps  full {r['full']:.4f}  est20 {r['est20']:.4f}  ({r['secs']:.0f} s)",
              flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f)


if __name__ == "__main__":
    main()
