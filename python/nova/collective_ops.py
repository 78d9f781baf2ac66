"""The gradient all-reduce of data-parallel training as a torch custom op.

`torch.ops.nova.all_reduce(x, reduction) -> Tensor` ("sum" or "mean" over
the data-parallel group) marks each gradient of a captured train step when
the world has more than one rank; the compiler converts it to
`nova.all_reduce`, buckets the gradients where the backward produces them
(`nova-bucket-all-reduce`) and lowers the buckets to IREE's collectives. The
eager body is the reference: with torch.distributed initialized it
all-reduces through it, otherwise it is a world of one (the identity).
"""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch import Tensor

__all__ = ["all_reduce", "ALL_REDUCE_OP"]

_REDUCTIONS = ("sum", "mean")


@torch.library.custom_op("nova::all_reduce", mutates_args=(), schema="(Tensor x, str reduction) -> Tensor")
def all_reduce(x: Tensor, reduction: str) -> Tensor:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"nova::all_reduce: reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    if not (dist.is_available() and dist.is_initialized()):
        return x.clone()
    out = x.clone()
    dist.all_reduce(out, op=dist.ReduceOp.SUM)
    return out / dist.get_world_size() if reduction == "mean" else out


@all_reduce.register_fake
def _all_reduce_fake(x: Tensor, reduction: str) -> Tensor:
    return torch.empty_like(x)


ALL_REDUCE_OP = torch.ops.nova.all_reduce.default
