"""Nova runtime: cache keys, the executable cache, IREE compile and sessions.

Importable with only torch, numpy and iree.runtime installed (the GPU box):
`iree.compiler` is imported lazily by `compile_to_vmfb` alone.
"""

from .cache import CacheInfo, ExecutableCache, cache_info, default_cache, reset_default_cache
from .iree_compile import NovaCompileError, compile_flags, compile_to_vmfb, toolchain_version
from .session import DeviceArray, Session, to_host
from .structural_hash import structural_hash
from .train_program import TrainProgram, Zeros

__all__ = [
    "Zeros",
    "CacheInfo",
    "DeviceArray",
    "ExecutableCache",
    "NovaCompileError",
    "Session",
    "TrainProgram",
    "cache_info",
    "compile_flags",
    "compile_to_vmfb",
    "default_cache",
    "reset_default_cache",
    "structural_hash",
    "to_host",
    "toolchain_version",
]
