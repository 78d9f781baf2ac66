"""Models shared by Nova's tests, demo and benchmarks.

Defined once here so that every consumer (capture tests, compiler lit inputs,
benchmarks against eager torch) measures exactly the same network.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

__all__ = ["MLP", "GPT", "GPT_CONFIGS", "make_gpt"]


class MLP(nn.Module):
    """Linear-ReLU-Linear classifier; forward returns logits."""

    def __init__(self, d_in: int, d_hidden: int, d_out: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc2(F.relu(self.fc1(x)))


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, sdpa: bool) -> None:
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.sdpa = sdpa
        # One fused projection so the compiler sees a single d -> 3d GEMM.
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x: Tensor) -> Tensor:
        B, T, C = x.shape
        hd = C // self.n_heads
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.n_heads, hd).transpose(1, 2)
        k = k.view(B, T, self.n_heads, hd).transpose(1, 2)
        v = v.view(B, T, self.n_heads, hd).transpose(1, 2)
        if self.sdpa:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
            # Built from the input's device so fake/meta tracing and every
            # backend see the same op sequence (no captured constant tensor).
            causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
            att = att.masked_fill(~causal, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)


class FeedForward(nn.Module):
    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.out = nn.Linear(4 * d_model, d_model)

    def forward(self, x: Tensor) -> Tensor:
        return self.out(F.gelu(self.fc(x), approximate="tanh"))


class Block(nn.Module):
    """Pre-LN transformer block."""

    def __init__(self, d_model: int, n_heads: int, sdpa: bool) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads, sdpa)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = FeedForward(d_model)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    """GPT-2 style decoder; forward(idx, targets) returns the mean cross-entropy loss.

    The LM head is tied to the token embedding, so `named_parameters()` lists
    the shared matrix once (as `wte.weight`).
    """

    def __init__(
        self,
        vocab: int,
        d_model: int,
        n_layers: int,
        n_heads: int,
        seq_len: int,
        sdpa: bool = False,
    ) -> None:
        super().__init__()
        self.vocab = vocab
        self.seq_len = seq_len
        self.wte = nn.Embedding(vocab, d_model)
        self.wpe = nn.Embedding(seq_len, d_model)
        self.blocks = nn.ModuleList(Block(d_model, n_heads, sdpa) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)
        self.head.weight = self.wte.weight  # tied
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(m: nn.Module) -> None:
        # GPT-2 initialisation; deterministic under torch.manual_seed.
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)

    def forward(self, idx: Tensor, targets: Tensor | None = None) -> Tensor:
        """Returns the loss, or the logits when `targets` is None (generation)."""
        B, T = idx.shape
        if T > self.seq_len:
            raise ValueError(f"sequence length {T} exceeds seq_len={self.seq_len}")
        pos = torch.arange(T, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        if targets is None:
            return logits
        return F.cross_entropy(logits.view(B * T, self.vocab), targets.view(B * T))


GPT_CONFIGS: dict[str, dict[str, int]] = {
    "gpt-tiny": dict(vocab=256, d_model=64, n_layers=2, n_heads=4, seq_len=32),
    "gpt-42m": dict(vocab=32000, d_model=512, n_layers=8, n_heads=8, seq_len=512),
    "gpt-146m": dict(vocab=32000, d_model=768, n_layers=17, n_heads=12, seq_len=1024),
}


def make_gpt(name: str, **kw: Any) -> GPT:
    """Builds a named config; keyword arguments override it (e.g. sdpa=True)."""
    if name not in GPT_CONFIGS:
        raise KeyError(f"unknown GPT config {name!r}; known: {sorted(GPT_CONFIGS)}")
    return GPT(**{**GPT_CONFIGS[name], **kw})
