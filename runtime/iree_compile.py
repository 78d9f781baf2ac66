"""MLIR text -> IREE vmfb bytes.

`iree.compiler` is imported lazily inside the functions that compile: the GPU
box ships only `iree.runtime`, and a cache hit must never need the compiler.

Targets
-------
- ``"cpu"``: llvm-cpu on the local HAL device, tuned for the *host* CPU
  (``--iree-llvmcpu-target-cpu=host``). Compile on the machine that runs it.
- ``"cuda:sm_80"``, ``"cuda:sm_86"``, ``"cuda:sm_89"``: IREE's built-in CUDA
  targets via ``--iree-cuda-target``.
- ``"cuda:sm_90"``: IREE 3.13 has no sm_90 entry ("missing GPU target"). We
  build an explicit ``#hal.device.target<"cuda", ...>`` attribute whose
  ``#iree_gpu.target`` is IREE's own sm_89 description (printed by
  ``iree-compile --compile-to=executable-configurations``) with
  ``arch = "sm_90"``, Hopper's 227 KiB shared-memory limit and
  ``chip = <wgp_count = 132>`` (H200). The attribute is handed to
  ``--iree-hal-target-device=<attr>``, which iree-compile accepts in place of
  a device name; this has exactly the effect of a ``hal.device.targets``
  module attribute but needs no surgery on the module text (which may be in
  custom or generic form, with or without a ``module`` wrapper).
"""

from __future__ import annotations

import functools
import importlib.metadata
import logging
import re
import subprocess
from dataclasses import dataclass
from typing import Sequence

_log = logging.getLogger(__name__)

__all__ = [
    "NovaCompileError",
    "compile_flags",
    "compile_to_vmfb",
    "target_flags",
    "toolchain_version",
    "sm90_device_target_attr",
]

# Hopper (sm_90) numbers that differ from the sm_89 description we derive from.
_SM90_MAX_WORKGROUP_MEMORY_BYTES = 232448  # 227 KiB opt-in shared memory per block.
_H200_SM_COUNT = 132

# A module with one dispatch, only used to make iree-compile print its sm_89
# target description.
_PROBE_MODULE = """
func.func @probe(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


class NovaCompileError(RuntimeError):
    """iree-compile failed. `diagnostics` holds the compiler's stderr."""

    def __init__(self, message: str, diagnostics: str, target: str):
        super().__init__(f"{message} (target {target!r}):\n{diagnostics}")
        self.diagnostics = diagnostics
        self.target = target


@dataclass(frozen=True)
class _Target:
    backends: tuple[str, ...]  # for compile_str's legacy target_backends option
    flags: tuple[str, ...]


def toolchain_version() -> str:
    """Version of the IREE toolchain, for cache keys.

    Read from package metadata so neither `iree.compiler` nor `iree.runtime`
    gets imported. On a runtime-only machine the compiler package is absent and
    we fall back to the runtime's version: the project pins both to the same
    release, so keys computed there match keys computed where we compiled.
    """
    for dist in ("iree-base-compiler", "iree-base-runtime"):
        try:
            return f"iree-{importlib.metadata.version(dist)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return "iree-unknown"


def _balanced(text: str, start: int) -> str:
    """Returns text[start:end] where the '<' at or after `start` is closed.

    Attribute syntax nests '<' '>' (and never uses '->' inside the GPU target
    description), so counting angle brackets is enough.
    """
    open_at = text.index("<", start)
    depth = 0
    for i in range(open_at, len(text)):
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    raise ValueError("unbalanced '<' in IREE target description")


def _iree_compile_binary() -> str:
    from iree.compiler.tools.binaries import find_tool  # lazy: compiler only

    return find_tool("iree-compile")


@functools.lru_cache(maxsize=None)  # pure function of the installed compiler
def sm90_device_target_attr() -> str:
    """`#hal.device.target<"cuda", ...>` text for sm_90 (see module docstring)."""
    proc = subprocess.run(
        [
            _iree_compile_binary(),
            "-",
            "--iree-hal-target-device=cuda",
            "--iree-cuda-target=sm_89",
            "--compile-to=executable-configurations",
        ],
        input=_PROBE_MODULE.encode(),
        capture_output=True,
    )
    if proc.returncode != 0:
        raise NovaCompileError(
            "could not derive the sm_89 target description",
            proc.stderr.decode(errors="replace"),
            "cuda:sm_90",
        )
    ir = proc.stdout.decode()
    device_attr = _balanced(ir, ir.index('#hal.device.target<"cuda"'))
    gpu_start = device_attr.index("#iree_gpu.target<")
    gpu_target = _balanced(device_attr, gpu_start)

    if 'arch = "sm_89"' not in gpu_target or "wgp = <" not in gpu_target:
        raise NovaCompileError(
            "unexpected sm_89 target description format", gpu_target, "cuda:sm_90"
        )
    new_gpu = gpu_target.replace('arch = "sm_89"', 'arch = "sm_90"', 1)
    new_gpu = re.sub(
        r"max_workgroup_memory_bytes = \d+",
        f"max_workgroup_memory_bytes = {_SM90_MAX_WORKGROUP_MEMORY_BYTES}",
        new_gpu,
        count=1,
    )
    if "chip = <" not in new_gpu:
        # The chip entry is a sibling of wgp: insert before the final '>'.
        new_gpu = new_gpu[:-1] + f", chip = <wgp_count = {_H200_SM_COUNT}>>"
    # The PTX ISA feature ("+ptx84") is kept as IREE chose it for sm_89: it
    # covers every MMA intrinsic in the inherited list and is >= 7.8 (sm_90's
    # minimum); Hopper drivers (580 on the H200) accept it.
    result = device_attr[:gpu_start] + new_gpu + device_attr[gpu_start + len(gpu_target) :]
    _log.debug("sm_90 device target: %s", result)
    return result


def _resolve_target(target: str) -> _Target:
    if target == "cpu":
        return _Target(("llvm-cpu",), ("--iree-llvmcpu-target-cpu=host",))
    if target.startswith("cuda:"):
        arch = target.split(":", 1)[1]
        if arch == "sm_90":
            return _Target((), (f"--iree-hal-target-device={sm90_device_target_attr()}",))
        if re.fullmatch(r"sm_\d+a?", arch):
            return _Target(
                (), ("--iree-hal-target-device=cuda", f"--iree-cuda-target={arch}")
            )
    raise ValueError(
        f"unknown Nova target {target!r}: expected 'cpu' or 'cuda:sm_NN' "
        "(e.g. cuda:sm_80, cuda:sm_89, cuda:sm_90)"
    )


def target_flags(target: str) -> list[str]:
    """The iree-compile flags that select `target` (for logs and repro lines)."""
    t = _resolve_target(target)
    return [f"--iree-hal-target-backends={b}" for b in t.backends] + list(t.flags)


# Constant expressions are still hoisted into globals, but initialised when the
# module loads instead of by evaluating them inside iree-compile (its JIT
# costs 1.3 of 9.9 s for gpt-146m on the 2-core build box).
_COMPILE_FLAGS = ["--iree-opt-const-eval=false"]
# CUDA: resource offsets at 256 bytes, not IREE's default 64. A kernel's TMA
# and 16-byte vector stores to a buffer 64 bytes past a 128-byte line write
# partial lines: gpt-42m's gated step (its slab 64 bytes off after the
# batch's copies) ran its GEMMs 27-48% slower (H100, 2026-12-06).
_CUDA_COMPILE_FLAGS = ["--iree-stream-resource-min-offset-alignment=256"]


def compile_flags(target: str) -> list[str]:
    """Every iree-compile flag `compile_to_vmfb` passes for `target` (part of
    the executable cache key)."""
    return _compile_flags(target, _resolve_target(target))


def _compile_flags(target: str, resolved: _Target) -> list[str]:
    return (list(resolved.flags) + _COMPILE_FLAGS
            + (_CUDA_COMPILE_FLAGS if target.startswith("cuda") else []))


def compile_to_vmfb(
    mlir_text: str,
    target: str,
    input_type: str = "auto",
    extra_flags: Sequence[str] = (),
) -> bytes:
    """Compiles MLIR text to a vmfb for `target`; raises NovaCompileError.

    `input_type` is iree-compile's --iree-input-type ("torch", "tm_tensor",
    "none", "auto", ...). `extra_flags` are appended verbatim.
    """
    from iree.compiler.tools import CompilerToolError, compile_str  # lazy

    resolved = _resolve_target(target)
    flags = _compile_flags(target, resolved) + list(extra_flags)
    _log.info("iree-compile target=%s input_type=%s flags=%s", target, input_type, flags)
    try:
        vmfb = compile_str(
            mlir_text,
            target_backends=list(resolved.backends),
            input_type=input_type,
            extra_args=flags,
            # Locations make diagnostics point somewhere; they do not end up
            # in the generated code.
            output_mlir_debuginfo=True,
        )
    except CompilerToolError as e:
        raise NovaCompileError("iree-compile failed", _diagnostics(str(e)), target) from e
    if not isinstance(vmfb, (bytes, bytearray)) or not vmfb:
        raise NovaCompileError("iree-compile produced no output", "", target)
    return bytes(vmfb)


def _diagnostics(tool_error: str) -> str:
    """Cuts the compiler's stderr out of CompilerToolError's message."""
    m = re.search(r"Diagnostics:\n(.*?)\n\nInvoked with:", tool_error, re.S)
    return m.group(1).strip() if m else tool_error
