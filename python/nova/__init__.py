"""Nova: an MLIR JIT compiler for whole PyTorch training steps, running on IREE.

The compiler half (torch-mlir, the nova MLIR passes, iree-compile) is imported
lazily: a machine that only runs cached or exported steps needs torch, numpy
and iree.runtime alone.
"""

__version__ = "0.1.0"
