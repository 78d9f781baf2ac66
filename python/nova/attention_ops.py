"""Fused attention as torch custom ops (namespace `nova`), and the routing of
`torch.nn.functional.scaled_dot_product_attention` to them while a graph is
captured.

`torch.ops.nova.attention(q, k, v, causal, scale) -> (out, lse)` and
`torch.ops.nova.attention_backward(dout, q, k, v, out, lse, causal, scale)
-> (dq, dk, dv)` are ONE node each in a traced FX graph (the decomposition
table leaves custom ops whole), which the torch-mlir FX importer emits as
`torch.operator "torch.nova.attention"` / `"torch.nova.attention_backward"`
and the compiler converts to `nova.attention` / `nova.attention_backward`.
The backward is the autograd formula of the forward, so a captured train
step holds both ops.

q is `[batch..., Tq, D]`, k `[batch..., Tk, D]`, v `[batch..., Tk, Dv]`
(same leading dims and dtype); `lse` is the f32 natural-log log-sum-exp of
each row of the scaled, masked scores, which the backward recomputes the
probabilities from. `causal` keeps the lower triangle including the
diagonal (Tq == Tk). The eager kernels below are the reference semantics:
scores `q @ k^T` and `dout @ v^T` accumulated in f32, softmax in f32, the
probabilities (and `ds`) rounded to the operands' dtype for the matmuls that
produce `out`, `dq`, `dk` and `dv` in that dtype (as autocast computes them).

`route_sdpa()` is a TorchFunctionMode under which
`scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0,
is_causal=..., scale=...)` calls `nova.attention` instead of torch's
decomposition (whose MATH backend traces to ops Nova does not convert);
calls with a mask, dropout, GQA or shapes the op does not take keep torch's
path.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.overrides import TorchFunctionMode

__all__ = [
    "attention",
    "attention_backward",
    "attention_with_grad",
    "route_sdpa",
    "ATTENTION_OP",
    "ATTENTION_BACKWARD_OP",
]

log = logging.getLogger(__name__)

_ATTENTION_SCHEMA = "(Tensor q, Tensor k, Tensor v, bool causal, float scale) -> (Tensor out, Tensor lse)"
_ATTENTION_BACKWARD_SCHEMA = (
    "(Tensor dout, Tensor q, Tensor k, Tensor v, Tensor out, Tensor lse, bool causal, float scale) "
    "-> (Tensor dq, Tensor dk, Tensor dv)"
)

# The element types nova.attention takes.
_DTYPES = (torch.float32, torch.bfloat16, torch.float16)


def _scores(q: Tensor, k: Tensor, causal: bool, scale: float) -> Tensor:
    """f32 `scale * q @ k^T` (f32 products and sums of the operands), -inf where
    the key position exceeds the query's when causal."""
    s = (q.float() @ k.float().transpose(-2, -1)) * scale
    if causal:
        t_q, t_k = q.shape[-2], k.shape[-2]
        above = torch.ones(t_q, t_k, dtype=torch.bool, device=q.device).triu(1)
        s = s.masked_fill(above, float("-inf"))
    return s


@torch.library.custom_op("nova::attention", mutates_args=(), schema=_ATTENTION_SCHEMA)
def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool, scale: float) -> tuple[Tensor, Tensor]:
    """softmax(scale * q k^T, causal) v and the f32 row log-sum-exp of the scores."""
    s = _scores(q, k, causal, scale)
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse.unsqueeze(-1))
    return (p.to(q.dtype) @ v).contiguous(), lse


@attention.register_fake
def _attention_fake(q: Tensor, k: Tensor, v: Tensor, causal: bool, scale: float) -> tuple[Tensor, Tensor]:
    return q.new_empty((*q.shape[:-1], v.shape[-1])), q.new_empty(q.shape[:-1], dtype=torch.float32)


@torch.library.custom_op("nova::attention_backward", mutates_args=(), schema=_ATTENTION_BACKWARD_SCHEMA)
def attention_backward(
    dout: Tensor, q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor, causal: bool, scale: float
) -> tuple[Tensor, Tensor, Tensor]:
    """Gradients of `attention` with respect to q, k and v, with p recomputed from lse."""
    p = torch.exp(_scores(q, k, causal, scale) - lse.unsqueeze(-1))
    dv = p.to(q.dtype).transpose(-2, -1) @ dout
    dp = dout.float() @ v.float().transpose(-2, -1)
    row_dot = (dout.float() * out.float()).sum(dim=-1, keepdim=True)
    ds = ((p * (dp - row_dot)) * scale).to(q.dtype)
    return (ds @ k).contiguous(), (ds.transpose(-2, -1) @ q).contiguous(), dv.contiguous()


@attention_backward.register_fake
def _attention_backward_fake(
    dout: Tensor, q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor, causal: bool, scale: float
) -> tuple[Tensor, Tensor, Tensor]:
    # Contiguous, as the kernel's matmuls return them (empty_like would keep
    # the strides of a transposed q).
    return q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape)


def _setup_context(ctx: Any, inputs: tuple[Any, ...], output: tuple[Tensor, Tensor]) -> None:
    q, k, v, causal, scale = inputs
    out, lse = output
    ctx.save_for_backward(q, k, v, out, lse)
    ctx.causal = causal
    ctx.scale = scale
    # lse is an auxiliary output for the backward, not part of the function.
    ctx.mark_non_differentiable(lse)


def _backward(ctx: Any, dout: Tensor, _dlse: Tensor | None) -> tuple[Tensor | None, ...]:
    q, k, v, out, lse = ctx.saved_tensors
    # First derivatives only: the backward op has no derivative of its own.
    with torch.no_grad():
        dq, dk, dv = ATTENTION_BACKWARD_OP(dout, q, k, v, out, lse, ctx.causal, ctx.scale)
    return dq, dk, dv, None, None


attention.register_autograd(_backward, setup_context=_setup_context)

# The OpOverloads as they appear as FX node targets.
ATTENTION_OP = torch.ops.nova.attention.default
ATTENTION_BACKWARD_OP = torch.ops.nova.attention_backward.default


class _Attention(torch.autograd.Function):
    """nova.attention with the same autograd formula, usable under torch.func
    transforms: the autograd that register_autograd gives a custom op (torch
    2.13) is rejected by functorch (it has no separate setup_context), and
    capture differentiates the step with torch.func.grad_and_value."""

    @staticmethod
    def forward(q: Tensor, k: Tensor, v: Tensor, causal: bool, scale: float) -> tuple[Tensor, Tensor]:
        return ATTENTION_OP(q, k, v, causal, scale)

    setup_context = staticmethod(_setup_context)
    backward = staticmethod(_backward)


def attention_with_grad(q: Tensor, k: Tensor, v: Tensor, causal: bool, scale: float) -> Tensor:
    """nova.attention's output, differentiable under autograd and torch.func alike."""
    out, _lse = _Attention.apply(q, k, v, causal, scale)
    return out


def _routable(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> tuple[tuple[Tensor, Tensor, Tensor], bool, float] | None:
    """(q, k, v), causal, scale for nova.attention, or None when the call must
    keep torch's path (a mask, dropout, GQA, broadcast batch dims, ...)."""
    if attn_mask is not None or dropout_p != 0.0 or enable_gqa:
        return None
    tensors = (query, key, value)
    if not all(isinstance(t, Tensor) for t in tensors):
        return None
    rank = query.dim()
    if rank < 3 or key.dim() != rank or value.dim() != rank:
        return None
    if not (query.shape[:-2] == key.shape[:-2] == value.shape[:-2]):
        return None
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        return None
    if is_causal and query.shape[-2] != key.shape[-2]:
        return None
    device_type = query.device.type
    if torch.is_autocast_enabled(device_type):
        # SDPA is on autocast's lower-precision list: its operands are cast.
        dtype = torch.get_autocast_dtype(device_type)
        tensors = tuple(t.to(dtype) if t.is_floating_point() else t for t in tensors)
    if tensors[0].dtype not in _DTYPES or any(t.dtype != tensors[0].dtype for t in tensors):
        return None
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    return tensors, bool(is_causal), float(scale)


class _RouteSDPA(TorchFunctionMode):
    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None):
        kwargs = kwargs or {}
        if func is F.scaled_dot_product_attention:
            routed = _routable(*args, **kwargs)
            if routed is not None:
                (q, k, v), causal, scale = routed
                log.debug("scaled_dot_product_attention %s causal=%s -> nova.attention", tuple(q.shape), causal)
                return attention_with_grad(q, k, v, causal, scale)
            log.debug("scaled_dot_product_attention keeps torch's path")
        return func(*args, **kwargs)


@contextmanager
def route_sdpa() -> Iterator[None]:
    """While active, eligible scaled_dot_product_attention calls become nova.attention."""
    with _RouteSDPA():
        yield
