"""Freeing torch's copy of state a compiled step's module holds.

While Nova's module owns the parameters and the optimizer state, torch's own
tensors of them are a stale second copy (0.54 GiB of f32 parameters for
gpt-146m, twice that again once the optimizer state exists in torch).
`ReleasedStorage` points each of those tensors (`.data`, so the Parameter
objects the model and the optimizer hold stay the same) at one NaN expanded
to its shape, which frees its memory once nothing else holds it, and gives
each a fresh allocation of its old layout back before the module's values
are written into it. Shape, dtype and device stay right throughout; reading
the values before then shows NaN, and an in-place write is refused by torch
(every element is one memory location), never a crash.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import torch

log = logging.getLogger(__name__)

__all__ = ["ReleasedStorage"]


class ReleasedStorage:
    """`tensors`' memory freed until `restore()` reallocates it (the contents
    then undefined: the caller writes every one). A tensor listed twice (tied
    weights) is released once."""

    def __init__(self, tensors: Iterable[torch.Tensor]) -> None:
        # (tensor, a meta tensor of its old size and strides)
        self._released: list[tuple[torch.Tensor, torch.Tensor]] = []
        placeholders: dict[tuple[torch.dtype, torch.device], torch.Tensor] = {}
        seen: set[int] = set()
        freed = 0
        for t in tensors:
            if id(t) in seen or t.numel() == 0:
                continue
            seen.add(id(t))
            key = (t.dtype, t.device)
            if key not in placeholders:
                fill = float("nan") if t.dtype.is_floating_point or t.dtype.is_complex else 0
                placeholders[key] = torch.full((), fill, dtype=t.dtype, device=t.device)
            self._released.append((t, torch.empty_like(t, device="meta")))
            freed += t.numel() * t.element_size()
            t.data = placeholders[key].expand(t.shape)
        if any(t.is_cuda for t, _ in self._released):
            # The caching allocator keeps freed blocks for torch; hand them back to the device.
            torch.cuda.empty_cache()
        self.nbytes = freed
        log.info("nova: released torch's copy of %d state tensors (%.2f GiB) while the step's module holds them",
                 len(self._released), freed / 2**30)

    def restore(self) -> None:
        for t, layout in self._released:
            t.data = torch.empty_strided(layout.shape, layout.stride(), dtype=t.dtype, device=t.device)
        self._released = []
