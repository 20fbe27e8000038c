"""Export a tiny classifier as TorchScript for recipes/torchscript_finetune.lua.

    .venv/bin/python3 scripts/make_tiny_torchscript.py OUT.pt [--features 4 --classes 3 --seed 0]

The module's forward takes batch fields by name (x, and labels when training) and returns a
tuple: (loss, logits) with labels; without labels TorchScript still needs a tuple, so it
returns (logits, logits). runner's models.torchscript takes the loss from the first element
when labels were passed and the first element as logits otherwise (the HF convention).
"""
import argparse
from typing import Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyClassifier(nn.Module):
    def __init__(self, features: int, classes: int, hidden: int = 16):
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor, labels: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
        logits = self.fc2(torch.relu(self.fc1(x)))
        if labels is None:
            return logits, logits
        return F.cross_entropy(logits, labels), logits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--features", type=int, default=4)
    ap.add_argument("--classes", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.jit.script(TinyClassifier(args.features, args.classes)).save(args.out)


if __name__ == "__main__":
    main()
