"""Shared by the model tests: wrappers that make a `transformers` model's
forward return its loss, and the comparison of trained parameters."""

from __future__ import annotations

import torch
from torch import nn


class CausalLM(nn.Module):
    """A language model whose forward returns the loss of (ids, labels)."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, ids: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=ids, labels=labels).loss


def without_key_bias(name: str, p: torch.Tensor, heads: int | None = None) -> torch.Tensor:
    """`p` without a key projection's bias: its true gradient is 0, so AdamW
    moves it on rounding noise (in eager and in Nova alike). A fused
    per-head [q, k, v] bias (GPT-NeoX) needs the number of `heads`."""
    if name.endswith(("key.bias", "k_proj.bias", "k_lin.bias")):
        return p[:0]
    if name.endswith("attn.c_attn.bias"):  # GPT-2's fused q, k, v
        third = p.shape[0] // 3
        return torch.cat([p[:third], p[2 * third :]])
    if name.endswith("query_key_value.bias") and heads:
        per_head = p.reshape(heads, 3, -1)
        return torch.cat([per_head[:, 0], per_head[:, 2]], dim=1).flatten()
    return p


def assert_parameters_track(
    reference: nn.Module, compiled: nn.Module, initial: nn.Module, tol: float = 1e-3, heads: int | None = None
) -> None:
    """Every parameter of `compiled` is within `tol` of `reference`'s,
    relative to the reference's update from `initial` (a parameter that did
    not move: within 1e-7), key biases left out (`heads`: see
    without_key_bias)."""
    before = dict(initial.named_parameters())
    for (name, p_ref), p_nova in zip(reference.named_parameters(), compiled.parameters()):
        update = without_key_bias(name, p_ref - before[name], heads).detach()
        diff = without_key_bias(name, p_nova - p_ref, heads).detach()
        if diff.numel() == 0:
            continue
        err = diff.norm() / update.norm().clamp_min(1e-12)
        assert err < tol or diff.abs().max() < 1e-7, (name, float(err))
