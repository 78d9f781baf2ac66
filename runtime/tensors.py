"""torch <-> numpy conversion for dtypes numpy lacks (bf16, fp8).

numpy has no bfloat16/float8: we use ml_dtypes (a dependency of iree.runtime
itself, so it exists wherever the runtime does) and move the bits through a
same-width integer view, which costs no copy in either direction.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import torch

__all__ = ["torch_to_numpy", "numpy_to_torch"]

# torch dtype -> (ml_dtypes numpy dtype, same-width integer torch dtype)
_BIT_CAST: dict[torch.dtype, tuple[np.dtype, torch.dtype]] = {
    torch.bfloat16: (np.dtype(ml_dtypes.bfloat16), torch.int16),
    torch.float8_e4m3fn: (np.dtype(ml_dtypes.float8_e4m3fn), torch.int8),
    torch.float8_e5m2: (np.dtype(ml_dtypes.float8_e5m2), torch.int8),
    torch.float8_e4m3fnuz: (np.dtype(ml_dtypes.float8_e4m3fnuz), torch.int8),
    torch.float8_e5m2fnuz: (np.dtype(ml_dtypes.float8_e5m2fnuz), torch.int8),
}
_NUMPY_TO_TORCH = {np_dt: (torch_dt, int_dt) for torch_dt, (np_dt, int_dt) in _BIT_CAST.items()}
_INT_NUMPY = {torch.int16: np.int16, torch.int8: np.int8}


def torch_to_numpy(t: torch.Tensor) -> np.ndarray:
    """A C-contiguous numpy view of a CPU tensor (a copy only if t is strided).

    Through DLPack, not `Tensor.numpy()`, which marks the tensor's storage
    not resizable for good (a parameter uploaded from would then keep its
    storage: see nova.released_storage)."""
    if t.device.type != "cpu":
        raise ValueError(f"torch_to_numpy needs a CPU tensor, got {t.device}")
    t = t.detach().resolve_conj().resolve_neg().contiguous()
    cast = _BIT_CAST.get(t.dtype)
    if cast is None:
        return np.from_dlpack(t)
    np_dtype, int_dtype = cast
    return np.from_dlpack(t.view(int_dtype)).view(np_dtype)


def numpy_to_torch(a: np.ndarray) -> torch.Tensor:
    """A CPU tensor sharing `a`'s memory (a is made contiguous/writable first)."""
    a = np.asarray(a)
    if not a.flags.c_contiguous or not a.flags.writeable:
        a = np.array(a, order="C", copy=True)  # torch.from_numpy wants both
    cast = _NUMPY_TO_TORCH.get(a.dtype)
    if cast is None:
        return torch.from_numpy(a)
    torch_dtype, int_dtype = cast
    return torch.from_numpy(a.view(_INT_NUMPY[int_dtype])).view(torch_dtype)
