"""Batch normalization as traceable torch ops while a step is captured.

torch's `native_batch_norm` updates the running statistics without saying so
in its schema, so neither functionalization nor a trace sees the update
(the step would silently keep the old statistics). `route_batch_norm()` is a
TorchFunctionMode under which `F.batch_norm` is computed from plain ops
(`var_mean`, arithmetic) and the running statistics are written with
`copy_`, which the capture turns into new buffer values of the step. The
batch statistics are f32 (the input is widened under autocast, as torch's
kernels accumulate), the output has the input's dtype; autograd of these ops
is the backward.
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

__all__ = ["batch_norm", "route_batch_norm"]

log = logging.getLogger(__name__)


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float | None = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """F.batch_norm's semantics from traceable ops (see the module doc)."""
    if input.dim() < 2:
        raise ValueError(f"batch_norm expects an input of at least 2 dims, got {tuple(input.shape)}")
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    x = input.float()
    if training or running_mean is None or running_var is None:
        dims = [0, *range(2, input.dim())]
        var, mean = torch.var_mean(x, dims, correction=0)
        if training and running_mean is not None and running_var is not None:
            if momentum is None:
                raise NotImplementedError("nova.jit: batch_norm(momentum=None) is not supported; give it a momentum")
            count = input.numel() // input.shape[1]
            with torch.no_grad():
                unbiased = var.detach() * (count / max(count - 1, 1))
                running_mean.copy_(((1 - momentum) * running_mean + momentum * mean.detach()).to(running_mean.dtype))
                running_var.copy_(((1 - momentum) * running_var + momentum * unbiased).to(running_var.dtype))
    else:
        mean, var = running_mean.float(), running_var.float()
    out = (x - mean.reshape(shape)) * torch.rsqrt(var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.float().reshape(shape)
    if bias is not None:
        out = out + bias.float().reshape(shape)
    return out.to(input.dtype)


class _RouteBatchNorm(TorchFunctionMode):
    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None):
        kwargs = kwargs or {}
        if func is F.batch_norm:
            return batch_norm(*args, **kwargs)
        return func(*args, **kwargs)


@contextmanager
def route_batch_norm() -> Iterator[None]:
    """While active, F.batch_norm (every BatchNorm module) is traced as plain ops."""
    with _RouteBatchNorm():
        yield
