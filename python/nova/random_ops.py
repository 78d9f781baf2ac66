"""Random numbers inside a captured step: a counter-based generator as a
torch custom op (namespace `nova`), and the decompositions that route
torch's random ops to it while a train step is traced.

`torch.ops.nova.uniform(seed, stream, shape) -> Tensor` (f32 in [0, 1)) is a
pure function of a 0-d int64 `seed` tensor, a `stream` number and each
element's row-major index: the splitmix64 finalizer of
`seed ^ mix(stream) + (index + 1) * golden`, whose top 24 bits become the
float. Each random op of a step draws from its own stream; the seed is an
input of the step, drawn by `nova.jit` from torch's default generator before
each call, so steps differ, and the sequence is reproducible under
`torch.manual_seed`. The compiler converts the op to `nova.random_uniform`,
which lowers to the same integer arithmetic (the eager body below is the
reference, bit for bit). The masks are not eager torch's: torch's CPU and
CUDA generators are not reproducible by a compiler.

With `random_decompositions(streams)` in make_fx's table, dropout
(`native_dropout`, `bernoulli`), `rand`/`rand_like`, `randn`/`randn_like`
(Box-Muller over two streams) and `uniform` trace to these ops; a trace
without them (a forward-only function) keeps torch's random ops, which the
compiler reports as unsupported.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor

__all__ = ["uniform", "RandomStreams", "random_decompositions", "UNIFORM_OP"]

log = logging.getLogger(__name__)

# splitmix64's constants (Steele, Lea, Flood 2014), as signed int64.
_GOLDEN = 0x9E3779B97F4A7C15 - (1 << 64)
_STREAM_MIX = 0xD1B54A32D192ED03 - (1 << 64)
_MIX1 = 0xBF58476D1CE4E5B9 - (1 << 64)
_MIX2 = 0x94D049BB133111EB - (1 << 64)


def _stream_key(stream: int) -> int:
    """stream * _STREAM_MIX modulo 2**64, as a signed int64."""
    key = (stream * _STREAM_MIX) % (1 << 64)
    return key - (1 << 64) if key >= 1 << 63 else key


def _shr(x: Tensor, bits: int) -> Tensor:
    """Logical right shift of int64 (torch's >> is arithmetic)."""
    return (x >> bits) & ((1 << (64 - bits)) - 1)


@torch.library.custom_op("nova::uniform", mutates_args=(), schema="(Tensor seed, int stream, int[] shape) -> Tensor")
def uniform(seed: Tensor, stream: int, shape: Sequence[int]) -> Tensor:
    """f32 uniform numbers in [0, 1) of `shape`, a function of (seed, stream, index)."""
    count = math.prod(shape)
    index = torch.arange(1, count + 1, dtype=torch.int64, device=seed.device)
    z = (seed.to(torch.int64) ^ _stream_key(stream)) + index * _GOLDEN
    z = (z ^ _shr(z, 30)) * _MIX1
    z = (z ^ _shr(z, 27)) * _MIX2
    z = z ^ _shr(z, 31)
    return (_shr(z, 40).to(torch.float32) * 2.0**-24).reshape(list(shape))


@uniform.register_fake
def _uniform_fake(seed: Tensor, stream: int, shape: Sequence[int]) -> Tensor:
    return seed.new_empty(list(shape), dtype=torch.float32)


UNIFORM_OP = torch.ops.nova.uniform.default


@dataclasses.dataclass
class RandomStreams:
    """Where a trace's random ops draw from: a traced 0-d int64 `seed` input,
    one stream per op (`count` so far)."""

    seed: Tensor
    count: int = 0

    def draw(self, shape: Sequence[int], device: Any) -> Tensor:
        stream, self.count = self.count, self.count + 1
        u = UNIFORM_OP(self.seed, stream, [int(d) for d in shape])
        return u.to(torch.device(device) if device is not None else u.device)


def _rand(rng: RandomStreams, shape: Sequence[int], dtype: torch.dtype | None, device: Any) -> Tensor:
    return rng.draw(shape, device).to(dtype or torch.get_default_dtype())


def _randn(rng: RandomStreams, shape: Sequence[int], dtype: torch.dtype | None, device: Any) -> Tensor:
    u1, u2 = rng.draw(shape, device), rng.draw(shape, device)
    # Box-Muller; 1 - u1 is in (0, 1], so the log is finite.
    z = torch.sqrt(-2.0 * torch.log(1.0 - u1)) * torch.cos((2.0 * math.pi) * u2)
    return z.to(dtype or torch.get_default_dtype())


def _native_dropout(rng: RandomStreams, x: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    if not train or p == 0:
        return x.clone(), torch.ones_like(x, dtype=torch.bool)
    if p >= 1:
        return torch.zeros_like(x), torch.zeros_like(x, dtype=torch.bool)
    keep = rng.draw(x.shape, x.device) >= p
    return x * keep.to(x.dtype) * (1.0 / (1.0 - p)), keep


def _bernoulli_p(rng: RandomStreams, x: Tensor, p: float = 0.5, generator: Any = None) -> Tensor:
    return (rng.draw(x.shape, x.device) < p).to(x.dtype)


def _bernoulli(rng: RandomStreams, x: Tensor, generator: Any = None) -> Tensor:
    return (rng.draw(x.shape, x.device) < x.float()).to(x.dtype)


def _bernoulli_tensor(rng: RandomStreams, x: Tensor, p: Tensor, generator: Any = None) -> Tensor:
    return (rng.draw(x.shape, x.device) < p.float()).to(x.dtype)


def _uniform(rng: RandomStreams, x: Tensor, low: float = 0.0, high: float = 1.0, generator: Any = None) -> Tensor:
    return (low + (high - low) * rng.draw(x.shape, x.device)).to(x.dtype)


def _factory(sample: Callable[..., Tensor], rng: RandomStreams) -> Callable[..., Tensor]:
    def decomposition(size: Sequence[int], *, dtype: Any = None, layout: Any = None, device: Any = None,
                      pin_memory: Any = None, generator: Any = None) -> Tensor:
        return sample(rng, size, dtype, device)

    return decomposition


def _like(sample: Callable[..., Tensor], rng: RandomStreams) -> Callable[..., Tensor]:
    def decomposition(x: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                      pin_memory: Any = None, memory_format: Any = None) -> Tensor:
        return sample(rng, x.shape, dtype or x.dtype, device or x.device)

    return decomposition


def _inplace(functional: Callable[..., Tensor], rng: RandomStreams) -> Callable[..., Tensor]:
    def decomposition(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return x.copy_(functional(rng, x, *args, **kwargs))

    return decomposition


def random_decompositions(rng: RandomStreams) -> dict[Any, Callable[..., Any]]:
    """make_fx decompositions of torch's random ops into nova.uniform draws
    from `rng`."""
    aten = torch.ops.aten
    bound = functools.partial
    return {
        aten.native_dropout.default: bound(_native_dropout, rng),
        aten.bernoulli.p: bound(_bernoulli_p, rng),
        aten.bernoulli.default: bound(_bernoulli, rng),
        aten.bernoulli.Tensor: bound(_bernoulli_tensor, rng),
        aten.bernoulli_.float: _inplace(_bernoulli_p, rng),
        aten.bernoulli_.Tensor: _inplace(_bernoulli_tensor, rng),
        aten.uniform.default: bound(_uniform, rng),
        aten.uniform_.default: _inplace(_uniform, rng),
        aten.rand.default: _factory(_rand, rng),
        aten.randn.default: _factory(_randn, rng),
        aten.rand_like.default: _like(_rand, rng),
        aten.randn_like.default: _like(_randn, rng),
    }
