"""`nova bench train`'s peers, the parts that run without a GPU or JAX: the
report's best-peer ratios, the mode table, the XLA environment of a JAX worker.

bench.py and jax_gpt.py are loaded from the source tree by path (they import
only torch/numpy at module level), so this tests the checkout even where the
installed package is older, and needs neither nova's compiled extension nor jax.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "python" / "nova"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"_nova_src_{name}", SRC / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return _load("bench")


def _row(mode, tokens, peak, status="ok", **kw):
    row = {"bench": "train", "model": "gpt-42m", "dtype": "bf16", "batch": 32, "mem_cap_gib": None,
           "mode": mode, "status": status, "tokens_per_s": tokens, "peak_mem_gib": peak, "step_ms": 1.0,
           "first_compile_s": 1.0, "final_loss": 9.0}  # fmt: skip
    row.update(kw)
    if tokens is None:
        del row["tokens_per_s"]
    return row


def _rows():
    return [
        _row("nova", 200_000.0, 6.0),  # Nova: never its own peer, even where leanest
        _row("eager", 450_000.0, 15.0),
        _row("eager-sdpa", 600_000.0, 12.0),
        _row("compile", 700_000.0, 11.0),
        _row("compile-sdpa", 800_000.0, 10.0),  # fastest peer
        _row("jax", 5_000_000.0, 1.0, status="error"),  # not ok: ignored however fast/lean
        _row("jax-cudnn", 750_000.0, 8.0),  # leanest peer
        # Another group (capped): its own best peers.
        _row("nova", 100_000.0, 4.0, mem_cap_gib=12.0),
        _row("eager", 300_000.0, 11.5, mem_cap_gib=12.0),
        _row("compile", None, 12.0, status="oom", mem_cap_gib=12.0),
    ]


def test_best_peers_per_group(bench):
    peers = bench.best_peers(_rows())
    uncapped = peers[("gpt-42m", "bf16", 32, None)]
    assert uncapped["speed"]["mode"] == "compile-sdpa"
    assert uncapped["memory"]["mode"] == "jax-cudnn"
    capped = peers[("gpt-42m", "bf16", 32, 12.0)]
    assert capped["speed"]["mode"] == "eager" and capped["memory"]["mode"] == "eager"


def test_peer_ratios(bench):
    rows = _rows()
    peers = bench.best_peers(rows)
    nova = bench.peer_ratios(rows[0], peers[bench._peer_group(rows[0])])
    assert nova["speed_peer"] == "compile-sdpa" and nova["speed_ratio"] == pytest.approx(0.25)
    assert nova["memory_peer"] == "jax-cudnn" and nova["memory_ratio"] == pytest.approx(0.75)
    best = bench.peer_ratios(rows[4], peers[bench._peer_group(rows[4])])
    assert best["speed_ratio"] == pytest.approx(1.0)
    failed = bench.peer_ratios(rows[5], peers[bench._peer_group(rows[5])])
    assert failed["speed_ratio"] is None and failed["memory_ratio"] is None
    capped_nova = bench.peer_ratios(rows[7], peers[bench._peer_group(rows[7])])
    assert capped_nova["speed_ratio"] == pytest.approx(1 / 3) and capped_nova["memory_ratio"] == pytest.approx(4 / 11.5)


def test_no_ok_peer_gives_no_ratio(bench):
    rows = [_row("nova", 1.0, 1.0), _row("eager", None, 3.0, status="oom")]
    ratios = bench.peer_ratios(rows[0], bench.best_peers(rows)[bench._peer_group(rows[0])])
    assert ratios == {"speed_peer": None, "speed_ratio": None, "memory_peer": None, "memory_ratio": None}


def test_largest_batch_under_the_cap(bench):
    capped = [
        _row("nova", 300.0, 10.9, batch=16, mem_cap_gib=12.0),
        _row("nova", 320.0, 12.4, batch=20, mem_cap_gib=12.0),
        _row("nova", None, 11.4, status="oom", batch=24, mem_cap_gib=12.0),
        _row("nova", None, 11.8, status="oom", batch=32, mem_cap_gib=12.0),
        _row("compile-sdpa", 390.0, 11.4, batch=16, mem_cap_gib=12.0),
        _row("compile-sdpa", None, 12.1, status="oom", batch=20, mem_cap_gib=12.0),
        _row("eager-sdpa", None, 10.8, status="oom", batch=16, mem_cap_gib=12.0),
        _row("compile", 1.0, 1.0),  # uncapped: not part of it
    ]
    largest = bench.largest_batches(capped)[("gpt-42m", "bf16", 12.0)]
    assert largest == {
        "nova": {"fits": 20, "oom": 24},
        "compile-sdpa": {"fits": 16, "oom": 20},
        "eager-sdpa": {"fits": None, "oom": 16},
    }
    text = bench.report(capped)
    assert ("Largest batch under 12 GiB, gpt-42m bf16: nova batch 20 (out of memory at 24); "
            "compile-sdpa batch 16 (out of memory at 20); eager-sdpa no batch trained (out of memory at 16).") in text


def test_report_names_best_peer(bench):
    text = bench.report(_rows())
    nova_line = next(line for line in text.splitlines() if "| nova |" in line and "| - |" in line)
    assert "0.25x (compile-sdpa)" in nova_line
    assert "0.75x (jax-cudnn)" in nova_line
    capped_nova = next(line for line in text.splitlines() if "| nova |" in line and "| 12.0 |" in line)
    assert "0.33x (eager)" in capped_nova


def test_matmul_report_separates_operand_preparation(bench):
    # A TF32 call: Nova's rounding and transpose kernels, its GEMM and a
    # split-K reduction (microseconds per call); ready: 2*M*N*K / 100 us.
    row = {"bench": "matmul", "dtype": "tf32", "m": 1000, "n": 2000, "k": 3000, "layout": "nn",
           "nova_tflops": 60.0, "cublas_tflops": 100.0, "nova_vs_cublas": 0.6, "nova_max_rel_err": 3e-4,
           "cublas_max_rel_err": 3e-4,
           "nova_kernels": {"nova_fused_rows_1000x3000_x": 90.0, "nova_transpose_f32_tf32": 10.0,
                            "nova_gemm_tf32_partial_128x256x32_s4_k2": 95.0,
                            "main_dispatch_0_reduction_2000000x2_f32": 5.0}}  # fmt: skip
    assert bench.matmul_operands_ready_tflops(row) == pytest.approx(120.0)
    assert bench.matmul_operands_ready_tflops({**row, "nova_kernels": {}}) is None
    text = bench.report([row])
    assert "| tf32 | 1000 | 2000 | 3000 | nn | 60.0 | 100.0 | 0.600 | 120.0 | 1.200 |" in text
    assert "geomean Nova with its operands ready / cuBLAS over the 1 model shapes: 1.200" in text


def test_report_reads_old_rows(bench):
    """Rows from before the peers (modes nova/eager/compile, no allocator
    peaks, a crashed row without shape fields) still render."""
    old = [
        {"bench": "train", "mode": "nova", "model": "gpt-42m", "dtype": "tf32", "batch": 32, "mem_cap_gib": None,
         "first_compile_s": 8.2, "load_s": 0.02, "step_ms": 1566.9, "tokens_per_s": 10456.4, "final_loss": 9.0452,
         "status": "ok", "peak_mem_gib": 17.27, "gpu": "NVIDIA H200", "date": "2026-11-29", "commit": "e3c7ea3"},
        {"bench": "train", "mode": "eager", "model": "gpt-42m", "dtype": "tf32", "batch": 32, "mem_cap_gib": None,
         "first_compile_s": 0.3, "step_ms": 44.5, "tokens_per_s": 368134.3, "final_loss": 9.0451,
         "status": "ok", "peak_mem_gib": 14.87},
        {"bench": "train", "mode": "compile", "status": "crashed", "error": "Traceback ..."},
    ]  # fmt: skip
    text = bench.report(old)
    nova_line = next(line for line in text.splitlines() if "| nova |" in line)
    assert "0.03x (eager)" in nova_line and "1.16x (eager)" in nova_line
    assert "| compile |" in text and "crashed" in text


def test_train_modes(bench):
    assert list(bench.TRAIN_MODES) == ["nova", "eager", "eager-sdpa", "compile", "compile-sdpa", "jax", "jax-cudnn"]
    assert {mode: attention for mode, (_, attention) in bench.TRAIN_MODES.items()}["compile-sdpa"] == "sdpa"
    assert bench.TRAIN_MODES["jax-cudnn"] == ("jax", "cudnn")


def test_failure_status(bench):
    for error, status in (
        (RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1.00GiB."), "oom"),
        (ValueError("something else"), "error"),
    ):
        result: dict = {}
        bench._record_failure(result, error)
        assert result["status"] == status, error


def test_jax_gpt_imports_without_jax():
    had_jax = "jax" in sys.modules
    jax_gpt = _load("jax_gpt")
    assert had_jax or "jax" not in sys.modules
    with pytest.raises(NotImplementedError):
        jax_gpt.check_supported("cudnn", "tf32")
    jax_gpt.check_supported("cudnn", "bf16")
    assert jax_gpt.matmul_precision("f32") == "highest" and jax_gpt.matmul_precision("bf16") is None


def test_xla_environment():
    jax_gpt = _load("jax_gpt")
    total = 140 * 2**30
    capped = jax_gpt.xla_environment(12 * 2**30, total, {"XLA_CLIENT_MEM_FRACTION": "0.5"})
    assert capped["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"
    assert float(capped["XLA_PYTHON_CLIENT_MEM_FRACTION"]) == pytest.approx(12 / 140, abs=1e-6)
    assert capped["XLA_CLIENT_MEM_FRACTION"] is None  # both set is an error in jaxlib
    uncapped = jax_gpt.xla_environment(None, total, {})
    assert uncapped == {"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.95"}
    assert jax_gpt.xla_environment(None, total, {"XLA_PYTHON_CLIENT_MEM_FRACTION": "0.6"}) == {
        "XLA_PYTHON_CLIENT_PREALLOCATE": "false"
    }
    assert "XLA_PYTHON_CLIENT_ALLOCATOR" not in capped  # the platform allocator would be slow


def test_idle_gaps_classes_and_longest(bench):
    # Two steps: kernels a..c overlap (no gap between a and b), one 3 us gap,
    # one 300 us bubble between the steps, one 40 us gap in the second step.
    spans = [(0.0, 10.0, "a"), (5.0, 12.0, "b"), (15.0, 20.0, "c"),
             (320.0, 330.0, "d"), (370.0, 371.0, "e")]  # fmt: skip
    idle = bench.idle_gaps(spans, steps=2)
    assert idle["ms_per_step"] == pytest.approx((3 + 300 + 40) / 1e3 / 2)
    counts = {c["up_to_us"]: c["count_per_step"] for c in idle["classes"]}
    assert counts == {2.0: 0, 5.0: 0.5, 10.0: 0, 50.0: 0.5, 200.0: 0, None: 0.5}
    assert [(g["us"], g["after"], g["before"]) for g in idle["longest"]] == [
        (300.0, "c", "d"), (40.0, "d", "e"), (3.0, "b", "c")]
    # Gaps up to 10 us by the kernel they precede.
    assert idle["short_before"] == [{"kernel": "c", "count_per_step": 0.5, "mean_us": 3.0, "ms_per_step": 0.0015}]


def test_report_prints_idle_gaps(bench):
    idle = bench.idle_gaps([(0.0, 1.0, "k1"), (101.0, 102.0, "k2")], steps=1)
    row = {"bench": "profile", "model": "gpt-42m", "dtype": "bf16", "batch": 32, "gpu_ms_per_step": 0.002,
           "step_ms": 0.2, "host_overhead_ms": 0.198, "enqueue_ms_per_step": 0.19, "kernels_per_step": 2,
           "top": [], "idle": idle}  # fmt: skip
    text = bench.report([row])
    assert "GPU idle between kernels: 0.10 ms/step; a step call returns after 0.19 ms" in text
    assert "| 100.0 | `k1` | `k2` |" in text
    idle = bench.idle_gaps([(0.0, 1.0, "k1"), (3.0, 4.0, "k2"), (7.0, 8.0, "k2")], steps=1)
    text = bench.report([{**row, "idle": idle}])
    assert "| `k2` | 2.0 | 2.5 | 0.005 |" in text
