"""Batch and instance normalization as traceable torch ops while a step is
captured.

torch's `native_batch_norm` updates the running statistics without saying so
in its schema, so neither functionalization nor a trace sees the update
(the step would silently keep the old statistics); instance norm goes
through it too. `route_batch_norm()` is a TorchFunctionMode under which
`F.batch_norm` and `F.instance_norm` are computed from plain ops
(`var_mean`, arithmetic) and the running statistics are written with
`copy_`, which the capture turns into new buffer values of the step. The
statistics are f32 (the input is widened under autocast, as torch's kernels
accumulate), the output has the input's dtype; autograd of these ops is the
backward.
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

__all__ = ["batch_norm", "instance_norm", "route_batch_norm"]

log = logging.getLogger(__name__)


def _update_running(running: Tensor, momentum: float, value: Tensor) -> None:
    with torch.no_grad():
        running.copy_(((1 - momentum) * running + momentum * value.detach()).to(running.dtype))


def _normalized(x: Tensor, mean: Tensor, var: Tensor, weight: Tensor | None, bias: Tensor | None, eps: float,
                shape: list[int]) -> Tensor:  # fmt: skip
    """(x - mean) / sqrt(var + eps), scaled and shifted per channel."""
    out = (x - mean) * torch.rsqrt(var + eps)
    if weight is not None:
        out = out * weight.float().reshape(shape)
    if bias is not None:
        out = out + bias.float().reshape(shape)
    return out


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
            _update_running(running_mean, momentum, mean)
            _update_running(running_var, momentum, var * (count / max(count - 1, 1)))
    else:
        mean, var = running_mean.float(), running_var.float()
    return _normalized(x, mean.reshape(shape), var.reshape(shape), weight, bias, eps, shape).to(input.dtype)


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """F.instance_norm's semantics from traceable ops: each (sample, channel)
    normalized over its spatial dims; the running statistics (when tracked)
    move toward the mean over the batch of the instances' statistics."""
    if input.dim() < 3:
        raise ValueError(f"instance_norm expects an input of at least 3 dims, got {tuple(input.shape)}")
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    x = input.float()
    if use_input_stats or running_mean is None or running_var is None:
        var, mean = torch.var_mean(x, list(range(2, input.dim())), correction=0, keepdim=True)
        if use_input_stats and running_mean is not None and running_var is not None:
            count = input[0, 0].numel()
            _update_running(running_mean, momentum, mean.mean(0).flatten())
            _update_running(running_var, momentum, (var * (count / max(count - 1, 1))).mean(0).flatten())
    else:
        mean, var = running_mean.float().reshape(shape), running_var.float().reshape(shape)
    return _normalized(x, mean, var, weight, bias, eps, shape).to(input.dtype)


class _RouteBatchNorm(TorchFunctionMode):
    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None):
        kwargs = kwargs or {}
        if func is F.batch_norm:
            return batch_norm(*args, **kwargs)
        if func is F.instance_norm:
            return instance_norm(*args, **kwargs)
        return func(*args, **kwargs)


@contextmanager
def route_batch_norm() -> Iterator[None]:
    """While active, F.batch_norm and F.instance_norm (every BatchNorm and
    InstanceNorm module) are traced as plain ops."""
    with _RouteBatchNorm():
        yield
