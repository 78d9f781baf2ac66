"""CUDA lowering of nova.scatter_add to Nova's own kernel (compile only).

IREE 3.13 runs `iree_linalg_ext.scatter` with non-unique indices on one GPU
thread; for CUDA targets convert-nova-to-linalg{target=cuda} dispatches an
inline PTX kernel instead (compiler/transforms/NovaToLinalg.cpp). These tests
compile for CUDA with iree-compile (no GPU needed) and check, in the
executable sources IREE dumps, that no scatter dispatch is left and that the
kernel's executable is there. The numerics run on the GPU box
(tools/scatter_check.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nova import compiler
from nova.pipeline import linalg_pipeline, lower_to_iree_input
from nova.runtime.iree_compile import compile_to_vmfb

REPO = Path(__file__).resolve().parents[2]
GPT_TINY = REPO / "tests" / "lit" / "torch-inputs" / "gpt_tiny_adamw_train_step.mlir"

SCATTER_MODULE = """
func.func @main(%d: tensor<64x8xf32>, %i: tensor<4x32xi64>, %u: tensor<4x32x8xf32>,
                %j: tensor<16xi32>, %v: tensor<16x8xbf16>, %e: tensor<64x8xbf16>) -> (tensor<64x8xf32>, tensor<64x8xbf16>) {
  %0 = nova.scatter_add %d[%i], %u : tensor<64x8xf32>, tensor<4x32xi64>, tensor<4x32x8xf32> -> tensor<64x8xf32>
  %1 = nova.scatter_add %e[%j], %v : tensor<64x8xbf16>, tensor<16xi32>, tensor<16x8xbf16> -> tensor<64x8xbf16>
  return %0, %1 : tensor<64x8xf32>, tensor<64x8xbf16>
}
"""


def _lower_nova(text: str, target: str) -> str:
    text = compiler.run_pipeline(text, linalg_pipeline(target), allow_unregistered_dialects=True)
    return compiler.run_pipeline(text, "builtin.module()", allow_unregistered_dialects=True, generic_output=True)


def _compile_and_dump(text: str, target: str, tmp_path: Path) -> tuple[bytes, dict[str, str]]:
    """The vmfb and the dumped executable sources (*.mlir) and PTX (*.ptx)."""
    dump = tmp_path / "dump"
    vmfb = compile_to_vmfb(
        text,
        target,
        extra_flags=[
            f"--iree-hal-dump-executable-sources-to={dump}",
            f"--iree-hal-dump-executable-binaries-to={dump}",
        ],
    )
    return vmfb, {p.name: p.read_text() for p in dump.iterdir() if p.suffix in (".mlir", ".ptx")}


def test_cpu_lowering_keeps_iree_scatter():
    text = _lower_nova(SCATTER_MODULE, "cpu")
    assert text.count('"iree_linalg_ext.scatter"') == 2
    assert "flow.dispatch" not in text and "hal.executable" not in text


@pytest.mark.parametrize("target", ["cuda:sm_90", "cuda:sm_80"])
def test_scatter_add_compiles_to_nova_kernel(target, tmp_path):
    text = _lower_nova(SCATTER_MODULE, target)
    assert text.count('"flow.dispatch"') == 1  # f32 only
    assert text.count('"iree_linalg_ext.scatter"') == 1  # the bf16 one
    vmfb, sources = _compile_and_dump(text, target, tmp_path)
    assert vmfb
    kernel = [n for n, s in sources.items() if "@nova_scatter_add_f32" in s]
    assert kernel == ["module_nova_scatter_add.mlir"], sorted(sources)
    # The PTX IREE embeds is Nova's own (inline data, no file path).
    ptx = sources["module_nova_scatter_add_cuda_nvptx_fb.ptx"]
    assert ".entry nova_scatter_add_f32(" in ptx and "red.global.add.f32" in ptx
    scatters = [n for n, s in sources.items() if "iree_linalg_ext.scatter" in s]
    assert len(scatters) == 1 and "bf16" in sources[scatters[0]]


def test_gpt_tiny_train_step_has_no_scatter_dispatch(tmp_path):
    text = lower_to_iree_input(GPT_TINY.read_text(), target="cuda:sm_90")
    assert '"flow.dispatch"' in text
    vmfb, sources = _compile_and_dump(text, "cuda:sm_90", tmp_path)
    assert len(vmfb) > 0
    assert "module_nova_scatter_add.mlir" in sources
    assert [n for n, s in sources.items() if "iree_linalg_ext.scatter" in s] == []
    # The CPU text for the same step is unchanged: IREE's scatter, no kernel.
    cpu = lower_to_iree_input(GPT_TINY.read_text(), target="cpu")
    assert '"iree_linalg_ext.scatter"' in cpu and "hal.executable.source" not in cpu
