"""CUDA lowering of nova.matmul to Nova's sm_90 GEMM kernel (compile only).

For sm_90, every configured matmul of a captured train step becomes a
dispatch of Nova's TMA + wgmma kernel (compiler/codegen/cuda/
WgmmaGemmKernel.cpp) at the precision torch was set to at capture (exact f32
as three TF32 products); other targets keep IREE's code generation. iree-compile accepts the
result (no GPU needed); the numerics run on the GPU box
(tools/gemm_check.py, `nova bench check`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nova import compiler
from nova.pipeline import _Stages, lower_to_iree_input
from nova.runtime.iree_compile import compile_to_vmfb

REPO = Path(__file__).resolve().parents[2]
GPT_TINY = REPO / "tests" / "lit" / "torch-inputs" / "gpt_tiny_adamw_train_step.mlir"


def _lower(tmp_path: Path, target: str, precision: str) -> tuple[str, str]:
    """(the optimized nova text, the IREE input text) of gpt-tiny's step."""
    dump = tmp_path / f"{target.replace(':', '_')}-{precision}"
    text = lower_to_iree_input(
        GPT_TINY.read_text(), target=target, f32_matmul_precision=precision, stages=_Stages("gpt-tiny", dump)
    )
    nova = next(dump.glob("*-nova-optimized.mlir")).read_text()
    return nova, text


def _gemm_dispatches(text: str) -> list[str]:
    return re.findall(r'"flow\.dispatch"\([^)]*\) <\{entry_points = \[@(nova_gemm_\w+)::', text)


@pytest.mark.parametrize("precision", ["high", "highest"])
def test_every_matmul_of_the_step_runs_on_nova_gemm(precision, tmp_path):
    """TF32 at "high"; at "highest" (exact f32) three TF32 products per
    product, as one GEMM over hi/lo parts laid along K."""
    nova, text = _lower(tmp_path, "cuda:sm_90", precision)
    # nova-lower-to-linalg first decomposes nova.attention(_backward) into matmuls.
    decomposed = compiler.run_pipeline(nova, "nova-decompose-attention")
    matmuls = decomposed.count("nova.matmul")
    assert matmuls >= 10  # forward, input and weight gradients of each Linear, attention, head
    kernels = _gemm_dispatches(text)
    assert len(kernels) == matmuls, (matmuls, kernels)
    assert all(k.startswith("nova_gemm_tf32_") for k in kernels)
    # Each distinct configuration is one executable, declared once.
    sources = re.findall(r'sym_name = "(nova_gemm_\w+)", sym_visibility = "private"', text)
    assert sorted(sources) == sorted(set(kernels))
    # Exact f32 lays out each operand's hi/lo parts: three insert_slices each,
    # once for matmuls of the same operands (the backward's recomputed q k^T
    # and the forward's share their parts).
    distinct = compiler.run_pipeline(decomposed, "cse").count("nova.matmul")
    slices = text.count('"tensor.insert_slice"')
    assert slices >= 6 * distinct if precision == "highest" else slices < 6 * distinct
    assert len(compile_to_vmfb(text, "cuda:sm_90")) > 0


def test_other_targets_keep_iree_codegen(tmp_path):
    _, ampere = _lower(tmp_path, "cuda:sm_80", "high")
    assert _gemm_dispatches(ampere) == []


@pytest.mark.parametrize("layout, kernel_layout", [("nt", ""), ("nn", "_kn"), ("tn", "_mn")])
def test_bf16_matmul_layouts_need_no_transposes(layout, kernel_layout):
    """x @ W.t(), dy @ W and dy.t() @ x: bf16 operands are read in the
    layout they are stored in (MN-major ones through wgmma's transposed
    modes), so the IR around the kernel has no copy, only reshapes."""
    import torch

    from nova import capture
    from nova.bench import layout_matmul, matmul_operands
    from nova.importer import import_to_torch_mlir

    a_shape, b_shape = matmul_operands(256, 192, 128, layout)
    operands = (torch.empty(a_shape, dtype=torch.bfloat16), torch.empty(b_shape, dtype=torch.bfloat16))
    captured = capture.capture_function(layout_matmul(layout), operands)
    text = lower_to_iree_input(import_to_torch_mlir(captured), target="cuda:sm_90")
    (kernel,) = _gemm_dispatches(text)
    assert re.fullmatch(rf"nova_gemm_bf16{kernel_layout}_bf16_\w+", kernel), kernel
    assert '"linalg.generic"' not in text


def test_step_copies_no_buffer_before_its_gemms(tmp_path):
    """Each GEMM's C and tensor-map scratch are results the kernel writes
    whole, so IREE allocates them: no `copy_buffer` into a buffer the GEMM
    then writes (a tied tensor.empty, merged by CSE across GEMMs, made IREE
    copy one before every GEMM).

    The multi-tensor AdamW kernel updates params and states in place: this
    pure step's are the caller's arguments, so IREE copies each of them
    first (3 per update; in a train step they are module globals, updated
    without copies): those are counted apart."""
    nova, text = _lower(tmp_path, "cuda:sm_90", "high")
    hal = compile_to_vmfb(text, "cuda:sm_90", extra_flags=["--compile-to=hal"]).decode()
    gemms = len(_gemm_dispatches(text))
    dispatches = hal.count("hal.command_buffer.dispatch<")
    copies = hal.count("hal.command_buffer.copy_buffer<")
    state_copies = 3 * nova.count("nova.adamw ")
    assert dispatches >= gemms >= 10
    assert state_copies > 0 and "@nova_adamw_f32_x3" in text
    assert copies - state_copies < gemms // 4, (copies, state_copies, gemms)
