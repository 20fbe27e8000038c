"""The benchmark's PyTorch side: the same GPT-2-style decoder and MLP the runner builds with
models.gpt / models.mlp (pre-LayerNorm blocks, tanh GELU, tied embeddings, causal
attention through F.scaled_dot_product_attention; Linear-ReLU stack), written plainly with torch.nn as a user would."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, n_embd, n_head, dropout):
        super().__init__()
        self.n_head = n_head
        self.ln_1 = nn.LayerNorm(n_embd)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.attn_proj = nn.Linear(n_embd, n_embd)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.mlp_proj = nn.Linear(4 * n_embd, n_embd)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        # what a PyTorch 2 user writes (nanoGPT too): fused attention, flash where it can
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.drop.p if self.training else 0.0, is_causal=True)
        y = y.transpose(1, 2).reshape(B, T, C)
        x = x + self.drop(self.attn_proj(y))
        return x + self.drop(self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer, n_head, n_embd, dropout=0.0):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList(Block(n_embd, n_head, dropout) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, 0.0, 0.02)
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, input_ids, labels):
        T = input_ids.shape[1]
        x = self.drop(self.wte(input_ids) + self.wpe(torch.arange(T, device=input_ids.device)))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        # labels shifted inside the model, as HF causal LMs do
        return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))

    def num_parameters(self, exclude_embeddings=True):
        n = sum(p.numel() for p in self.parameters())
        return n - (self.wte.weight.numel() + self.wpe.weight.numel() if exclude_embeddings else 0)


class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i + 2 < len(sizes):
                layers.append(nn.ReLU())
        self.layers = nn.Sequential(*layers)

    def forward(self, x, labels):
        return F.cross_entropy(self.layers(x.flatten(1)), labels)
