"""Nova: an MLIR JIT compiler for whole PyTorch training steps, running on IREE.

The compiler half (torch-mlir, the nova MLIR passes, iree-compile) is imported
lazily: a machine that only runs cached or exported steps needs torch, numpy
and iree.runtime alone.
"""

from __future__ import annotations

__version__ = "0.1.0"

from nova.compiled import CompiledFunction, TrainStep, jit, load_exported_step  # noqa: E402
from nova.runtime import cache_info  # noqa: E402

__all__ = ["CompiledFunction", "TrainStep", "__version__", "cache_info", "jit", "load_exported_step"]
