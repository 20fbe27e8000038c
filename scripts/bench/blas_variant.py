"""Time fp32 matmul and a small GPT training step with whatever libblas.so.3 is active.

Run through scripts/bench/blas_variant.sh, which switches the Debian alternative and calls
this once per OpenBLAS variant so both numbers come from the same machine and minute.
"""
import math, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
torch.set_num_threads(threads)
torch.manual_seed(0)


def best_of(fn, reps):
    fn()  # warm-up: first call pays allocation and thread start-up
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]  # median is robust to a noisy neighbour


n = 1024
a, b = torch.randn(n, n), torch.randn(n, n)
t_mm = best_of(lambda: torch.mm(a, b), 10)
gflops = 2 * n ** 3 / t_mm / 1e9


class Block(nn.Module):
    def __init__(self, c, h):
        super().__init__()
        self.h = h
        self.ln1, self.ln2 = nn.LayerNorm(c), nn.LayerNorm(c)
        self.qkv, self.proj = nn.Linear(c, 3 * c), nn.Linear(c, c)
        self.fc, self.out = nn.Linear(c, 4 * c), nn.Linear(4 * c, c)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // self.h)
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab=65, block=64, layers=4, heads=4, c=128):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, c), nn.Embedding(block, c)
        self.blocks = nn.ModuleList(Block(c, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(c)
        self.head = nn.Linear(c, vocab, bias=False)

    def forward(self, idx, targets):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.ln(x))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


model = GPT()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
idx = torch.randint(0, 65, (12, 64))
tgt = torch.randint(0, 65, (12, 64))


def step():
    loss = model(idx, tgt)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


t_step = best_of(step, 30)
print(f"threads={threads} matmul1024_gflops={gflops:.1f} gpt_step_ms={t_step * 1e3:.1f}")
