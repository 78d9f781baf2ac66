"""Shared by the model tests: wrappers that make a `transformers` model's
forward return its loss, the comparison of trained parameters, and of a
step with random ops against its captured graph run eagerly."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

import nova
from nova import capture


class CausalLM(nn.Module):
    """A language model whose forward returns the loss of (ids, labels)."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, ids: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=ids, labels=labels).loss


def eager_step(model, opt, batch, loss_fn=None, autocast_dtype=None):
    """One eager training step: the loss (`model(*batch)`, or `loss_fn` of
    the model's output on all but the last batch tensor and the last),
    backward, the optimizer's step; returns the loss."""
    with torch.autocast("cpu", dtype=autocast_dtype, enabled=autocast_dtype is not None):
        loss = model(*batch) if loss_fn is None else loss_fn(model(*batch[:-1]), batch[-1])
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.detach().float()


def without_key_bias(name: str, p: torch.Tensor, heads: int | None = None) -> torch.Tensor:
    """`p` without a key projection's bias: its true gradient is 0, so AdamW
    moves it on rounding noise (in eager and in Nova alike). A fused
    per-head [q, k, v] bias (GPT-NeoX) needs the number of `heads`."""
    if name.endswith(("key.bias", "k_proj.bias", "k_lin.bias")):
        return p[:0]
    if name.endswith(("attn.c_attn.bias", "attn.qkv.bias")):  # fused q, k, v (GPT-2, nova.models)
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


def assert_matches_captured_reference(
    make_model: Callable[[], nn.Module],
    batches: Sequence[tuple[torch.Tensor, ...]],
    loss_fn: Callable[..., Any] | None = None,
    heads: int | None = None,
) -> None:
    """A step with random ops (dropout) draws Nova's numbers, not eager
    torch's: the compiled step and the captured graph run eagerly on the
    same seeds agree, loss by loss (1e-5) and in every parameter after the
    steps (1e-3 of its update), with AdamW."""
    torch.manual_seed(0)
    model = make_model()
    reference = copy.deepcopy(model)
    initial = copy.deepcopy(model)
    step = nova.jit(model, torch.optim.AdamW(model.parameters(), lr=1e-3), loss_fn)
    ref_opt = torch.optim.AdamW(reference.parameters(), lr=1e-3)
    captured = capture.capture_train_step(reference, ref_opt, loss_fn, batches[0])
    assert captured.train_layout.random and captured.input_specs[-1].role == capture.ROLE_SEED
    for i, batch in enumerate(batches):
        torch.manual_seed(100 + i)
        loss = float(step(*batch))
        torch.manual_seed(100 + i)
        outputs = captured.graph_module(*capture.train_step_inputs(captured, reference, ref_opt, batch))
        ref_loss = float(capture.apply_train_step_outputs(captured, reference, ref_opt, outputs))
        assert abs(loss - ref_loss) <= 1e-5 * abs(ref_loss), i
    step.sync()
    assert_parameters_track(reference, model, initial, heads=heads)
