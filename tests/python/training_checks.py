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


def without_key_bias(name: str, p: torch.Tensor) -> torch.Tensor:
    """`p` without a key projection's bias: its true gradient is 0, so AdamW
    moves it on rounding noise (in eager and in Nova alike)."""
    if name.endswith(("attention.self.key.bias", "attention.k_proj.bias")):
        return p[:0]
    if name.endswith("attn.c_attn.bias"):  # GPT-2's fused q, k, v
        third = p.shape[0] // 3
        return torch.cat([p[:third], p[2 * third :]])
    return p


def assert_parameters_track(reference: nn.Module, compiled: nn.Module, initial: nn.Module, tol: float = 1e-3) -> None:
    """Every parameter of `compiled` is within `tol` of `reference`'s,
    relative to the reference's update from `initial` (a parameter that did
    not move: within 1e-7), key biases left out."""
    before = dict(initial.named_parameters())
    for (name, p_ref), p_nova in zip(reference.named_parameters(), compiled.parameters()):
        update = without_key_bias(name, p_ref - before[name]).detach()
        diff = without_key_bias(name, p_nova - p_ref).detach()
        if diff.numel() == 0:
            continue
        err = diff.norm() / update.norm().clamp_min(1e-12)
        assert err < tol or diff.abs().max() < 1e-7, (name, float(err))
