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
import torch

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
    copy one before every GEMM)."""
    _, text = _lower(tmp_path, "cuda:sm_90", "high")
    hal = compile_to_vmfb(text, "cuda:sm_90", extra_flags=["--compile-to=hal"]).decode()
    gemms = len(_gemm_dispatches(text))
    dispatches = hal.count("hal.command_buffer.dispatch<")
    copies = hal.count("hal.command_buffer.copy_buffer<")
    assert dispatches >= gemms >= 10
    assert copies < gemms // 4, (copies, gemms)


def _mlp_adamw_step(transients: bool | None = None) -> tuple[torch.nn.Module, str, str, int]:
    """(model, torch text, IREE input text, params) of an MLP's AdamW train
    step for sm_90, state in the module updated in place (`transients`: see
    `train_step_pipeline`)."""
    from torch import nn

    from nova import capture
    from nova.importer import import_to_torch_mlir
    from nova.models import MLP
    from nova.pipeline import train_step_pipeline

    torch.manual_seed(0)
    model = MLP(64, 128, 64)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batch = (torch.randn(8, 64), torch.randint(0, 64, (8,)))
    captured = capture.capture_train_step(model, optimizer, nn.functional.cross_entropy, batch)
    torch_text = import_to_torch_mlir(captured)
    text = lower_to_iree_input(
        torch_text,
        target="cuda:sm_90",
        program_pipeline=train_step_pipeline(captured, target="cuda:sm_90", transients=transients),
        state_in_place=True,
    )
    return model, torch_text, text, len(captured.train_layout.param_names)


def test_step_command_buffer_is_recorded_once():
    """Nova's kernels bind their buffers indirectly (every binding of their
    layouts is Indirect), so IREE records @step's command buffer once at
    module init and each call only executes it with a binding table: no
    dispatch is recorded in @step itself (with direct bindings the step
    captured its transients and the globals, and every call recorded all of
    its dispatches again). This is the blocking step (NOVA_STEP_TRANSIENTS=0);
    the gated one, with its transients from the caller, records its
    dispatches in @step: its host runs a step ahead of the GPU instead."""
    _, _, text, _ = _mlp_adamw_step(transients=False)
    assert "Indirect" in text
    vm = compile_to_vmfb(text, "cuda:sm_90", extra_flags=["--compile-to=vm"]).decode()
    functions = dict(re.findall(r"vm\.func (?:private |public )?@([\w$.]+)(.*?)(?=\n    vm\.func |\Z)", vm, re.S))
    step = functions["step"]
    assert "hal.device.queue.execute.indirect" in step
    assert "hal.command_buffer.dispatch" not in step and "memoize_apply" not in step
    recorded = [name for name, body in functions.items() if "hal.command_buffer.dispatch" in body]
    assert recorded and all(name != "step" for name in recorded)


def test_train_step_adamw_kernel_updates_state_in_place():
    """On CUDA a train step's AdamW updates run Nova's multi-tensor kernel
    (3 tensors a launch) on the module's globals in place: IREE's stream
    program for @step copies no state. The same step lowered as a pure
    function keeps the linalg updates (the kernel would write into the
    caller's arguments)."""
    model, torch_text, text, params = _mlp_adamw_step()
    launches = re.findall(r'"flow\.dispatch"\([^)]*\) <\{entry_points = \[@(nova_adamw_f32_x\d)::', text)
    assert len(launches) == -(-params // 3) and set(launches) <= {"nova_adamw_f32_x3", "nova_adamw_f32_x1", "nova_adamw_f32_x2"}
    stream = compile_to_vmfb(text, "cuda:sm_90", extra_flags=["--compile-to=stream"]).decode()
    step = stream[re.search(r"util\.func public @step\(", stream).start() :]
    step = step[: re.search(r"\n  \}", step).start()]
    state_bytes = {t.numel() * 4 for t in model.parameters()}
    copies = [int(n) for n in re.findall(r"stream\.cmd\.copy .*, %c(\d+) :", step)]
    assert not [n for n in copies if n in state_bytes], copies

    pure = lower_to_iree_input(torch_text, target="cuda:sm_90")
    assert "nova_adamw" not in pure and pure.count("math.powf") >= params


def test_stream_k_gemms_keep_their_own_flags():
    """Two stream-K GEMMs of the same shape, each with flags of its own,
    read as an input (no tied operand, so IREE writes C where its consumer
    wants it: no copy), each from its own place even where IREE makes the
    zeros a constant of the module; the kernels leave them zero
    (tools/gemm_check.py repeats each case on new data on the GPU)."""
    config = (
        "#nova.lowering_config<tile_sizes = [128, 192, 64], warp_layout = [2, 1], mma_shape = [64, 192, 16], "
        'pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma_stream_k", precision = "bf16", '
        "producer_warpgroups = 1, persistent_ctas = 132, raster_group = 4>"
    )
    a, b, c = "tensor<4096x768xbf16>", "tensor<4096x768xbf16>", "tensor<768x768xbf16>"
    module = (
        f"func.func @main(%x: {a}, %g: {b}) -> ({c}, {c}) {{\n"
        f"  %0 = nova.matmul %x, %g {{transpose_lhs, lowering_config = {config}}} : {a}, {b} -> {c}\n"
        f"  %1 = nova.matmul %g, %x {{transpose_lhs, lowering_config = {config}}} : {b}, {a} -> {c}\n"
        f"  return %0, %1 : {c}, {c}\n}}\n"
    )
    text = compiler.run_pipeline(
        module,
        "builtin.module(convert-nova-to-iree-kernels, convert-nova-to-linalg, canonicalize, cse)",
        allow_unregistered_dialects=True,
    )
    text = compiler.run_pipeline(text, "builtin.module()", allow_unregistered_dialects=True, generic_output=True)
    stream = compile_to_vmfb(text, "cuda:sm_90", extra_flags=["--compile-to=stream"]).decode()
    main = stream[re.search(r"util\.func public @main\(", stream).start() :]
    dispatches = re.findall(r"stream\.cmd\.dispatch @nova_gemm_\w+_sk::\S+\([^)]*\) \{\n((?:\s+\S+ %\w+\[[^\]]*\][^\n]*\n)+)", main)
    assert len(dispatches) == 2
    flags = [re.findall(r"(\w+) (%\w+\[[^\]]*\])", d)[2] for d in dispatches]
    assert flags[0][1] != flags[1][1], flags
    assert all(access == "ro" for access, _ in flags), flags
    assert "stream.cmd.copy" not in main
