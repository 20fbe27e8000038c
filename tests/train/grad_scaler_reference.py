"""PyTorch's own GradScaler on a sequence of steps, for test_loss_scaler.cpp.

Usage: python grad_scaler_reference.py FLAGS GROWTH_INTERVAL
FLAGS is a string of 'o' (the step's gradients overflow) and '.' (finite gradients).
Prints a JSON list: [scale after each step, whether the optimizer stepped] per step.
"""
import json
import sys

import torch

flags, interval = sys.argv[1], int(sys.argv[2])
p = torch.nn.Parameter(torch.zeros(1))
opt = torch.optim.SGD([p], lr=1.0)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=interval)
out = []
for f in flags:
    before = p.detach().clone()
    opt.zero_grad()
    # backward of the scaled loss: gradient = 1.0 × scale, or inf on an overflow step
    loss = (p * (float("inf") if f == "o" else 1.0)).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    out.append([scaler.get_scale(), bool(not torch.equal(before, p.detach()))])
print(json.dumps(out))
