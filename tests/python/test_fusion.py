"""Whole-step elementwise fusion (compile only, and on CPU end to end).

nova-fuse-elementwise groups the step's elementwise chains, last-dim
reductions and column sums into nova.fused regions. On CUDA every region of
gpt-tiny's step must run on Nova's fused-rows kernel (a region the kernel
cannot take would silently fall back to IREE's slower code generation); on
CPU the regions are inlined back, and the train-step tests compare the
result with eager. The kernels' numerics run on the GPU box
(tools/fused_rows_check.py, `nova bench check`).
"""

from __future__ import annotations

import re
from pathlib import Path

from nova import compiler
from nova.pipeline import _Stages, lower_to_iree_input
from nova.runtime.iree_compile import compile_to_vmfb

REPO = Path(__file__).resolve().parents[2]
GPT_TINY = REPO / "tests" / "lit" / "torch-inputs" / "gpt_tiny_adamw_train_step.mlir"


def _nova_optimized(tmp_path: Path) -> str:
    dump = tmp_path / "cpu"
    lower_to_iree_input(GPT_TINY.read_text(), target="cpu", stages=_Stages("gpt-tiny", dump))
    return next(dump.glob("*-nova-optimized.mlir")).read_text()


def test_every_region_of_the_cuda_step_runs_on_a_fused_rows_kernel(tmp_path):
    nova = _nova_optimized(tmp_path)
    fused = compiler.run_pipeline(nova, "nova-fuse-elementwise")
    regions = fused.count("nova.fused")
    # Per block: residual + layer norm, their backward, bias + GELU and its
    # backward, and the column sums of every bias and norm gradient.
    assert regions >= 8, regions
    text = lower_to_iree_input(GPT_TINY.read_text(), target="cuda:sm_90")
    assert "nova.fused" not in text
    dispatches = re.findall(r'"flow\.dispatch"\([^)]*\) <\{entry_points = \[@(nova_fused_rows_\w+)::', text)
    assert len(dispatches) == regions, (regions, len(dispatches))
    # One executable per distinct region (the blocks' regions are alike).
    sources = set(re.findall(r'sym_name = "(nova_fused_rows_\w+)", sym_visibility = "private"', text))
    assert sources == set(dispatches) and len(sources) < regions
    assert compile_to_vmfb(text, "cuda:sm_90")


def test_column_sums_leave_partials_to_the_kernel(tmp_path):
    """A bias gradient (a sum over all rows) keeps its first stage in the
    region that makes its input: the region yields [groups, C] f32 partials."""
    fused = compiler.run_pipeline(_nova_optimized(tmp_path), "nova-fuse-elementwise")
    partials = re.findall(r"nova\.reduce_sum %\S+ dims = \[1\] : tensor<(\d+)x(\d+)x(\d+)xf32>", fused)
    assert partials, "no partial column sums in any region"
    for groups, rows, _ in partials:
        assert 1 < int(rows) <= 16 and int(groups) > 1


def test_cuda_step_merges_column_sums():
    """The regions' column partials are summed by as few column-sums launches
    as a dispatch's bindings allow (8 partials each), not one per region."""
    text = lower_to_iree_input(GPT_TINY.read_text(), target="cuda:sm_90")
    launches = [int(n) for n in re.findall(r'entry_points = \[@nova_column_sums_n(\d+)_\w+::', text)]
    assert launches, "no column-sums launch"
    assert len(launches) == -(-sum(launches) // 8), launches
    assert max(launches) == 8, launches
