"""Functional optimizer updates as torch custom ops (namespace `nova`).

Each parameter's update is ONE opaque node in a traced FX graph
(`torch.ops.nova.sgd.default` / `torch.ops.nova.adamw.default`), which the
torch-mlir FX importer emits as `torch.operator "torch.nova.sgd"` /
`"torch.nova.adamw"` and the Nova compiler maps to its own fused ops.

Hyperparameters are 0-d float32 tensors, not Python numbers, so they are graph
INPUTS: changing a learning rate (or advancing the step count) never forces a
recompile. Everything that would otherwise be a Python branch in
torch.optim (first step, momentum == 0) is a `torch.where` for the same reason.

The eager kernels below are the reference semantics (they mirror
torch.optim.SGD / torch.optim.AdamW single-tensor code paths, up to float32
rounding of the hyperparameter arithmetic).
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["sgd", "adamw", "adam_arithmetic", "SGD_OP", "ADAMW_OP"]

# Explicit schemas (rather than inferred ones) so the result names are part of
# the op's contract and the argument order is exactly what the compiler expects.
_SGD_SCHEMA = (
    "(Tensor param, Tensor grad, Tensor momentum_buf, Tensor lr, Tensor momentum, "
    "Tensor dampening, Tensor weight_decay, Tensor is_first_step, bool nesterov) "
    "-> (Tensor new_param, Tensor new_momentum_buf)"
)
_ADAMW_SCHEMA = (
    "(Tensor param, Tensor grad, Tensor exp_avg, Tensor exp_avg_sq, Tensor step, "
    "Tensor lr, Tensor beta1, Tensor beta2, Tensor eps, Tensor weight_decay) "
    "-> (Tensor new_param, Tensor new_exp_avg, Tensor new_exp_avg_sq)"
)


# device_types=None registers the kernel as CompositeExplicitAutograd: it runs
# on every device, and -- unlike CompositeImplicitAutograd -- make_fx never
# decomposes it, so the op stays one node in the graph.
@torch.library.custom_op("nova::sgd", mutates_args=(), schema=_SGD_SCHEMA)
def sgd(
    param: Tensor,
    grad: Tensor,
    momentum_buf: Tensor,
    lr: Tensor,
    momentum: Tensor,
    dampening: Tensor,
    weight_decay: Tensor,
    is_first_step: Tensor,
    nesterov: bool,
) -> tuple[Tensor, Tensor]:
    """One torch.optim.SGD step for one parameter; returns (new_param, new_momentum_buf).

    On the first step the buffer is the (decayed) gradient itself; later it is
    momentum*buf + (1-dampening)*grad. With momentum == 0 the update is the
    plain decayed gradient (dampening ignored, as in torch); the returned buffer
    is then meaningless and torch keeps no 'momentum_buffer' state.
    """
    d_p = grad + weight_decay * param
    buf = torch.where(
        is_first_step != 0, d_p, momentum * momentum_buf + (1 - dampening) * d_p
    )
    update = d_p + momentum * buf if nesterov else buf
    update = torch.where(momentum != 0, update, d_p)
    return param - lr * update, buf


@sgd.register_fake
def _sgd_fake(
    param: Tensor,
    grad: Tensor,
    momentum_buf: Tensor,
    lr: Tensor,
    momentum: Tensor,
    dampening: Tensor,
    weight_decay: Tensor,
    is_first_step: Tensor,
    nesterov: bool,
) -> tuple[Tensor, Tensor]:
    return torch.empty_like(param), torch.empty_like(momentum_buf)


@torch.library.custom_op("nova::adamw", mutates_args=(), schema=_ADAMW_SCHEMA)
def adamw(
    param: Tensor,
    grad: Tensor,
    exp_avg: Tensor,
    exp_avg_sq: Tensor,
    step: Tensor,
    lr: Tensor,
    beta1: Tensor,
    beta2: Tensor,
    eps: Tensor,
    weight_decay: Tensor,
) -> tuple[Tensor, Tensor, Tensor]:
    """One torch.optim.AdamW step for one parameter (amsgrad=False, maximize=False).

    `step` is the step count AFTER incrementing (1 on the first update).
    Returns (new_param, new_exp_avg, new_exp_avg_sq).
    """
    new_param, new_exp_avg, new_exp_avg_sq, _ = adam_arithmetic(
        param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay
    )
    return new_param, new_exp_avg, new_exp_avg_sq


def adam_arithmetic(
    param: Tensor,
    grad: Tensor,
    exp_avg: Tensor,
    exp_avg_sq: Tensor,
    step: Tensor,
    lr: Tensor,
    beta1: Tensor,
    beta2: Tensor,
    eps: Tensor,
    weight_decay: Tensor,
    max_exp_avg_sq: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor | None]:
    """AdamW's single-tensor update as plain tensor ops (the nova::adamw
    kernel, and amsgrad traced into a step): with `max_exp_avg_sq` the
    denominator uses the running maximum of exp_avg_sq (amsgrad), returned
    as the fourth value."""
    param = param * (1 - lr * weight_decay)
    # lerp wants the weight in the state's dtype.
    new_exp_avg = torch.lerp(exp_avg, grad, (1 - beta1).to(exp_avg.dtype))
    new_exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * grad * grad
    second = new_exp_avg_sq
    if max_exp_avg_sq is not None:
        max_exp_avg_sq = second = torch.maximum(max_exp_avg_sq, new_exp_avg_sq)
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    step_size = lr / bias_correction1
    denom = second.sqrt() / bias_correction2.sqrt() + eps
    return param - step_size * (new_exp_avg / denom), new_exp_avg, new_exp_avg_sq, max_exp_avg_sq


@adamw.register_fake
def _adamw_fake(
    param: Tensor,
    grad: Tensor,
    exp_avg: Tensor,
    exp_avg_sq: Tensor,
    step: Tensor,
    lr: Tensor,
    beta1: Tensor,
    beta2: Tensor,
    eps: Tensor,
    weight_decay: Tensor,
) -> tuple[Tensor, Tensor, Tensor]:
    return torch.empty_like(param), torch.empty_like(exp_avg), torch.empty_like(exp_avg_sq)


# The OpOverloads as they appear as FX node targets.
SGD_OP = torch.ops.nova.sgd.default
ADAMW_OP = torch.ops.nova.adamw.default
