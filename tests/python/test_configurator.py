"""The analytic configurator in the CUDA pipeline: every matmul of a captured
train step is configured for the architecture, f32 ones at torch's matmul
precision, which is part of the cache key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from torch import nn

from nova import capture, compiler
from nova.compiled import cache_key
from nova.pipeline import compiling_gpu, kernel_cache_dir, linalg_pipeline

REPO = Path(__file__).resolve().parents[2]
GPT_TINY = REPO / "tests" / "lit" / "torch-inputs" / "gpt_tiny_adamw_train_step.mlir"


def _configured(torch_text: str, pipeline: str) -> str:
    text = compiler.run_pipeline(torch_text, "convert-torch-to-nova", allow_unregistered_dialects=True)
    text = compiler.run_pipeline(text, "nova-optimize", allow_unregistered_dialects=True)
    return compiler.run_pipeline(text, pipeline, allow_unregistered_dialects=True)


def test_linalg_pipeline_names_the_cpp_pipeline():
    assert linalg_pipeline("cpu") == "nova-lower-to-linalg{target=cpu f32-matmul-precision=highest}"
    # Away from a GPU (this machine) the known target's numbers are used.
    assert compiling_gpu("cuda:sm_90") == {} or torch.cuda.is_available()
    assert linalg_pipeline("cuda:sm_90", "high").startswith(
        "nova-lower-to-linalg{target=cuda:sm_90 f32-matmul-precision=high"
    )


@pytest.mark.parametrize(
    ("arch", "kernel", "precision"),
    [("sm_90", "wgmma_tma", "tf32x3"), ("sm_80", "mma_sync_cp_async", "tf32x3")],
)
def test_every_matmul_of_a_train_step_is_configured(arch, kernel, precision):
    # gpt-tiny's f32 AdamW step: forward, input and weight gradients, the tied
    # head and attention's batched products.
    text = _configured(GPT_TINY.read_text(), f"nova-configure-kernels{{target={arch}}}")
    matmuls = re.findall(r"nova\.matmul [^\n]*", text)
    assert len(matmuls) >= 20
    configs = [re.search(r"#nova\.lowering_config<[^>]*>", m) for m in matmuls]
    assert all(configs), [m for m, c in zip(matmuls, configs) if not c]
    assert all(f'kernel = "{kernel}"' in c.group(0) and f'precision = "{precision}"' in c.group(0) for c in configs)
    assert any("transpose_lhs" in m for m in matmuls) and any("transpose_rhs" in m for m in matmuls)


def test_cuda_kernels_are_kept_in_the_kernel_cache(fresh_cache, tmp_path, monkeypatch):
    # Each kernel of the step leaves its PTX in the cache (NOVA_CACHE_DIR, a
    # temporary folder here) under the compiler build and target; a later
    # process reads it there (tests/lit/codegen/cuda/kernel-cache.mlir). Also
    # the kernels this process built for another cache directory.
    nova_text = _configured(GPT_TINY.read_text(), "builtin.module()")
    for cache in ("first", "second"):
        monkeypatch.setenv("NOVA_CACHE_DIR", str(tmp_path / cache))
        kernels = kernel_cache_dir("cuda:sm_90")
        assert kernels.parent.parent == tmp_path / cache
        pipeline = linalg_pipeline("cuda:sm_90", "high")
        assert f"kernel-cache={kernels}" in pipeline
        text = compiler.run_pipeline(nova_text, "builtin.module(" + pipeline + ")", allow_unregistered_dialects=True)
        executables = set(re.findall(r'"hal\.executable\.export"\(\) <\{[^}]*sym_name = "(\w+)"', text))
        assert len(executables) >= 5, executables
        cached = {p.stem: p.read_text() for p in kernels.glob("*.ptx")}
        assert executables <= cached.keys(), (cache, executables - cached.keys())
        assert all(f".entry {name}(" in cached[name] for name in executables)
    assert "kernel-cache" not in linalg_pipeline("cpu")


def test_cuda_lowering_runs_the_configurator_and_leaves_no_nova_attributes():
    text = compiler.run_pipeline(
        _configured(GPT_TINY.read_text(), "builtin.module()"),
        "builtin.module(" + linalg_pipeline("cuda:sm_90", "high") + ")",
        allow_unregistered_dialects=True,
    )
    assert "nova." not in text and "linalg.generic" in text


def _capture_linear() -> capture.CapturedGraph:
    model = nn.Linear(16, 8)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batch = (torch.randn(4, 16), torch.randn(4, 8))
    return capture.capture_train_step(model, optimizer, nn.functional.mse_loss, batch)


def test_f32_matmul_precision_is_captured_and_keys_the_cache():
    previous = torch.get_float32_matmul_precision()
    try:
        torch.set_float32_matmul_precision("highest")
        exact = _capture_linear()
        torch.set_float32_matmul_precision("high")
        tf32 = _capture_linear()
    finally:
        torch.set_float32_matmul_precision(previous)
    assert (exact.f32_matmul_precision, tf32.f32_matmul_precision) == ("highest", "high")
    # A CUDA step compiled under one setting is never reused under the other;
    # CPU code is exact f32 either way.
    assert cache_key(exact, "cuda:sm_90", False) != cache_key(tf32, "cuda:sm_90", False)
    assert cache_key(exact, "cpu", False) == cache_key(tf32, "cpu", False)


def test_staged_epilogues_are_an_opt_in_that_keys_the_cache(monkeypatch):
    """NOVA_EPILOGUE_STAGED=1 asks the C++ pipeline for GEMM epilogues with a
    staged element input (nova-fuse-matmul-epilogue{stage-inputs}); the CUDA
    lowering takes the option, and the executable cache tells the steps apart."""
    captured = _capture_linear()
    monkeypatch.delenv("NOVA_EPILOGUE_STAGED", raising=False)
    assert "epilogue-staged-inputs" not in linalg_pipeline("cuda:sm_90", "high")
    default_key = cache_key(captured, "cuda:sm_90", allow_fallback=False)
    monkeypatch.setenv("NOVA_EPILOGUE_STAGED", "1")
    pipeline = linalg_pipeline("cuda:sm_90", "high")
    assert "epilogue-staged-inputs=true" in pipeline
    assert cache_key(captured, "cuda:sm_90", allow_fallback=False) != default_key
    text = compiler.run_pipeline(
        _configured(GPT_TINY.read_text(), "builtin.module()"),
        "builtin.module(" + pipeline + ")",
        allow_unregistered_dialects=True,
    )
    assert "nova." not in text and "linalg.generic" in text
