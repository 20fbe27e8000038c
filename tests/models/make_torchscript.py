"""Writes the TorchScript modules test_torchscript loads, with reference inputs and
outputs.

usage: make_torchscript.py OUT_DIR

OUT_DIR/mlp.pt:   forward(x, labels: Optional[Tensor] = None) -> (loss or None, logits),
                  a 2-layer MLP with a BatchNorm1d (running stats = buffers; train and
                  eval modes differ) and dropout.
OUT_DIR/dict.pt:  forward(batch: Dict[str, Tensor]) -> Dict[str, Tensor].
OUT_DIR/plain.pt: forward(x) -> Tensor.
OUT_DIR/reference.safetensors: x, labels, and each module's eval-mode outputs.
"""
import os
import sys
from typing import Dict, Optional, Tuple

import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st_io  # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.norm = nn.BatchNorm1d(16)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x: torch.Tensor, labels: Optional[torch.Tensor] = None) -> Tuple[Optional[torch.Tensor], torch.Tensor]:
        logits = self.fc2(self.drop(torch.relu(self.norm(self.fc1(x)))))
        loss: Optional[torch.Tensor] = None
        if labels is not None:
            loss = F.cross_entropy(logits, labels)
        return loss, logits


class DictModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 3)

    def forward(self, batch: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        out = {"logits": self.proj(batch["x"])}
        if "labels" in batch:
            out["loss"] = F.cross_entropy(out["logits"], batch["labels"])
        return out


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 4)

    def forward(self, x):
        return torch.tanh(self.lin(x))


def main():
    out_dir = sys.argv[1]
    torch.manual_seed(0)
    x = torch.randn(8, 6)
    labels = torch.randint(0, 3, (8,))
    ref = {"x": x, "labels": labels}
    mlp = MLP()
    mlp.train()
    for _ in range(3):  # move the BatchNorm running statistics off their defaults
        mlp(torch.randn(8, 6) * 2 + 1)
    scripted = torch.jit.script(mlp)
    scripted.save(os.path.join(out_dir, "mlp.pt"))  # saved in training mode
    scripted.eval()
    with torch.no_grad():
        loss, logits = scripted(x, labels)
    ref["mlp.loss"] = loss.reshape(())
    ref["mlp.logits"] = logits
    for name, p in scripted.state_dict().items():
        ref["mlp.state." + name] = p

    d = torch.jit.script(DictModel().eval())
    d.save(os.path.join(out_dir, "dict.pt"))
    with torch.no_grad():
        out = d({"x": x, "labels": labels})
    ref["dict.logits"], ref["dict.loss"] = out["logits"], out["loss"].reshape(())

    p = torch.jit.script(Plain().eval())
    p.save(os.path.join(out_dir, "plain.pt"))
    with torch.no_grad():
        ref["plain.logits"] = p(x)
    st_io.write(os.path.join(out_dir, "reference.safetensors"), ref)


if __name__ == "__main__":
    main()
