"""Softmax cross-entropy as torch custom ops (namespace `nova`), and the
routing of `torch.nn.functional.cross_entropy` to them while a graph is
captured.

`torch.ops.nova.cross_entropy(logits [N, C], target [N], ignore_index)
-> (loss [N], lse [N])` and `torch.ops.nova.cross_entropy_backward(grad_loss,
logits, target, lse, ignore_index) -> grad_logits` are one FX node each, which
the compiler converts to `nova.cross_entropy` / `nova.cross_entropy_backward`:
on the GPU one row kernel each, reading the logits in their own dtype (under
autocast the bf16 head output is never widened to f32 in memory). The
per-row loss is f32 and 0 on ignored rows; the reduction is torch ops on it.
The eager bodies below are the reference semantics (f32 throughout, the
gradient rounded to the logits' dtype, as autocast's cast back gives).

`route_cross_entropy()` is a TorchFunctionMode under which
`cross_entropy(input [N, C], target [N] class indices, weight=None,
ignore_index=..., reduction='mean'|'sum'|'none', label_smoothing=0.0)` takes
these ops; other calls (class weights, probabilities as targets, label
smoothing, other ranks) keep torch's path.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.overrides import TorchFunctionMode

__all__ = ["cross_entropy", "cross_entropy_backward", "route_cross_entropy"]

log = logging.getLogger(__name__)

_FLOATS = (torch.float32, torch.bfloat16, torch.float16)


@torch.library.custom_op(
    "nova::cross_entropy",
    mutates_args=(),
    schema="(Tensor logits, Tensor target, int ignore_index) -> (Tensor loss, Tensor lse)",
)
def cross_entropy(logits: Tensor, target: Tensor, ignore_index: int) -> tuple[Tensor, Tensor]:
    """Per-row -log softmax(logits)[target] (0 where target == ignore_index) and lse."""
    x = logits.float()
    lse = torch.logsumexp(x, dim=1)
    valid = target != ignore_index
    picked = x.gather(1, torch.where(valid, target, 0).unsqueeze(1)).squeeze(1)
    return torch.where(valid, lse - picked, 0.0), lse


@cross_entropy.register_fake
def _cross_entropy_fake(logits: Tensor, target: Tensor, ignore_index: int) -> tuple[Tensor, Tensor]:
    rows = logits.new_empty(logits.shape[:1], dtype=torch.float32)
    return rows, torch.empty_like(rows)


@torch.library.custom_op(
    "nova::cross_entropy_backward",
    mutates_args=(),
    schema="(Tensor grad_loss, Tensor logits, Tensor target, Tensor lse, int ignore_index) -> Tensor",
)
def cross_entropy_backward(grad_loss: Tensor, logits: Tensor, target: Tensor, lse: Tensor, ignore_index: int) -> Tensor:
    """grad_loss * (softmax(logits) - onehot(target)), 0 on ignored rows."""
    valid = target != ignore_index
    p = torch.exp(logits.float() - lse.unsqueeze(1))
    onehot = F.one_hot(torch.where(valid, target, 0), logits.shape[1]).to(p.dtype)
    g = torch.where(valid, grad_loss, 0.0).unsqueeze(1)
    return (g * (p - onehot)).to(logits.dtype)


@cross_entropy_backward.register_fake
def _cross_entropy_backward_fake(
    grad_loss: Tensor, logits: Tensor, target: Tensor, lse: Tensor, ignore_index: int
) -> Tensor:
    return torch.empty_like(logits, memory_format=torch.contiguous_format)


CROSS_ENTROPY_OP = torch.ops.nova.cross_entropy.default
CROSS_ENTROPY_BACKWARD_OP = torch.ops.nova.cross_entropy_backward.default


class _CrossEntropy(torch.autograd.Function):
    """The op with its autograd formula, usable under torch.func transforms
    (capture differentiates the step with torch.func.grad_and_value)."""

    @staticmethod
    def forward(logits: Tensor, target: Tensor, ignore_index: int) -> tuple[Tensor, Tensor]:
        return CROSS_ENTROPY_OP(logits, target, ignore_index)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: tuple[Tensor, Tensor]) -> None:
        logits, target, ignore_index = inputs
        ctx.save_for_backward(logits, target, output[1])
        ctx.ignore_index = ignore_index
        ctx.mark_non_differentiable(output[1])

    @staticmethod
    def backward(ctx: Any, grad_loss: Tensor, _grad_lse: Tensor | None) -> tuple[Tensor | None, ...]:
        logits, target, lse = ctx.saved_tensors
        with torch.no_grad():
            grad = CROSS_ENTROPY_BACKWARD_OP(grad_loss, logits, target, lse, ctx.ignore_index)
        return grad, None, None


def _routed(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor | None:
    """cross_entropy through nova.cross_entropy, or None when the call must
    keep torch's path."""
    if weight is not None or size_average is not None or reduce is not None or label_smoothing != 0.0:
        return None
    if not isinstance(input, Tensor) or not isinstance(target, Tensor):
        return None
    if input.dim() != 2 or target.dim() != 1 or target.shape[0] != input.shape[0]:
        return None
    if target.dtype not in (torch.int64, torch.int32) or input.dtype not in _FLOATS:
        return None
    if reduction not in ("mean", "sum", "none"):
        return None
    # cross_entropy is on autocast's f32 list: the op computes in f32 from
    # the logits as they are, which is what widening them first gives.
    loss, _lse = _CrossEntropy.apply(input, target, int(ignore_index))
    if reduction == "none":
        out_dtype = torch.float32 if torch.is_autocast_enabled(input.device.type) else input.dtype
        return loss.to(out_dtype)
    total = loss.sum()
    if reduction == "mean":
        total = total / (target != ignore_index).sum()
    if not torch.is_autocast_enabled(input.device.type):
        total = total.to(input.dtype)
    return total


class _RouteCrossEntropy(TorchFunctionMode):
    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None):
        kwargs = kwargs or {}
        if func is F.cross_entropy:
            routed = _routed(*args, **kwargs)
            if routed is not None:
                log.debug("cross_entropy %s -> nova.cross_entropy", tuple(args[0].shape))
                return routed
            log.debug("cross_entropy keeps torch's path")
        return func(*args, **kwargs)


@contextmanager
def route_cross_entropy() -> Iterator[None]:
    """While active, eligible cross_entropy calls become nova.cross_entropy."""
    with _RouteCrossEntropy():
        yield
