"""Register budgets of Nova's sm_90 kernels, checked with ptxas (no GPU).

Warp-specialized kernels move registers from the producer warp group to the
consumers with setmaxnreg; ptxas then allocates each role within its share
and spills what does not fit to local memory. A spill inside a consumer's MMA
loop costs every iteration, so each GEMM and attention kernel class is
compiled here and ptxas's spill report held to a budget: none, except the
attention backward's (below).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nova import compiler

# ptxas's spill stores + loads (bytes a thread) the head-dim-64 attention
# backward keeps outside its MMA loop (see the attention test).
D64_BACKWARD_SPILL_BUDGET = 40


def _ptxas() -> str:
    for candidate in (shutil.which("ptxas"), *sorted(Path("/usr/local").glob("cuda*/bin/ptxas"))):
        if candidate:
            return str(candidate)
    pytest.skip("ptxas (CUDA toolkit) is not installed")


def _embedded_ptx(text: str) -> dict[str, str]:
    """The PTX of every executable object in `text`, by kernel name."""
    ptx = [bytes.fromhex(h).decode() for h in re.findall(r'#hal\.executable\.object<\{data = dense<"0x([0-9A-Fa-f]+)">', text)]
    return {re.search(r"\.entry (\w+)", p).group(1): p for p in ptx}


def _kernels(text: str, configure: str = "target=sm_90", convert: str = "") -> dict[str, str]:
    """PTX of every kernel the configured ops of `text` lower to, by name."""
    pipeline = f"nova-configure-kernels{{{configure}}},convert-nova-to-iree-kernels{{{convert}}}"
    return _embedded_ptx(compiler.run_pipeline(text, pipeline, allow_unregistered_dialects=True))


def _spilled_bytes(ptx: str, tmp_path: Path) -> int:
    """ptxas's spill stores + loads for the PTX's one kernel, assembled for
    sm_90 (the driver JIT-compiles portable PTX, e.g. `.target sm_60`, for
    the GPU it runs on; sm_90a PTX only for sm_90a). ptxas must warn of
    nothing and must not report that it serializes the kernel's wgmmas
    ("Potential Performance Loss", C7510-C7520: e.g. an accumulator read
    while its wgmma is in flight, a wgmma in a branch), which makes a kernel
    several times slower and passes every numeric check."""
    arch = "sm_90a" if re.search(r"\.target sm_90a", ptx) else "sm_90"
    source = tmp_path / "kernel.ptx"
    source.write_text(ptx)
    run = subprocess.run(
        [_ptxas(), f"-arch={arch}", "-v", str(source), "-o", str(tmp_path / "kernel.cubin")],
        capture_output=True,
        text=True,
    )
    report = run.stderr
    assert run.returncode == 0, report
    assert "warning" not in report and "Performance Loss" not in report, report
    stores = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    assert stores, report
    return int(stores.group(1)) + int(stores.group(2))


def _attention(d: int, causal: bool, dtype: str, t: int = 200) -> str:
    q = f"tensor<2x4x{t}x{d}x{dtype}>"
    lse = f"tensor<2x4x{t}xf32>"
    flags = f"{{{'causal, ' if causal else ''}scale = 0.125 : f64}}"
    return f"""func.func @attention(%q: {q}, %k: {q}, %v: {q}, %do: {q}) -> ({q}, {q}, {q}, {q}) {{
  %o, %lse = nova.attention %q, %k, %v {flags} : {q}, {q}, {q} -> {q}, {lse}
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %lse {flags} : {q}, {q}, {q}, {q}, {q}, {lse} -> {q}, {q}, {q}
  return %o, %dq, %dk, %dv : {q}, {q}, {q}, {q}
}}"""


def _matmul(m: int, n: int, k: int, dtype: str, out: str, layout: str) -> str:
    """A matmul of layout "nt" (B stored [N, K]), "nn" or "tn" (A stored [K, M])."""
    a = f"tensor<{k}x{m}x{dtype}>" if layout == "tn" else f"tensor<{m}x{k}x{dtype}>"
    b = f"tensor<{n}x{k}x{dtype}>" if layout == "nt" else f"tensor<{k}x{n}x{dtype}>"
    flags = {"nt": "{transpose_rhs}", "nn": "", "tn": "{transpose_lhs}"}[layout]
    c = f"tensor<{m}x{n}x{out}>"
    return f"""func.func @matmul(%a: {a}, %b: {b}) -> {c} {{
  %c = nova.matmul %a, %b {flags} : {a}, {b} -> {c}
  return %c : {c}
}}"""


def _gelu_epilogue(m: int, n: int, k: int) -> str:
    """An MLP's fc1 forward as nova-fuse-matmul-epilogue forms it: bias +
    tanh GELU in the GEMM's epilogue, the product stored too."""
    x, w, p = f"tensor<{m}x{k}xbf16>", f"tensor<{n}x{k}xbf16>", f"tensor<{m}x{n}xbf16>"
    f = f"tensor<{m}x{n}xf32>"
    return f"""func.func @fc1(%x: {x}, %w: {w}, %b: tensor<{n}xbf16>) -> ({p}, {p}) {{
  %r:2 = nova.fused(%x, %w, %b) : ({x}, {w}, tensor<{n}xbf16>) -> ({p}, {p}) {{
  ^bb0(%lhs: {x}, %rhs: {w}, %bias: tensor<{n}xbf16>):
    %h = nova.matmul %lhs, %rhs {{transpose_rhs}} : {x}, {w} -> {p}
    %half = nova.constant dense<5.000000e-01> : {f}
    %one = nova.constant dense<1.000000e+00> : {f}
    %bb = nova.broadcast_in_dim %bias dims = [1] : tensor<{n}xbf16> -> {p}
    %pre = nova.add %h, %bb : {p}
    %p32 = nova.cast %pre : {p} -> {f}
    %t = nova.tanh %p32 : {f}
    %t1 = nova.add %t, %one : {f}
    %g = nova.mul %p32, %t1 : {f}
    %y = nova.mul %g, %half : {f}
    %yb = nova.cast %y : {f} -> {p}
    nova.yield %yb, %h : {p}, {p}
  }}
  return %r#0, %r#1 : {p}, {p}
}}"""


def _staged_gelu_backward(m: int, n: int, k: int) -> str:
    """An MLP's GELU backward in its input gradient's epilogue, as
    nova-fuse-matmul-epilogue{stage-inputs} forms it: the pre-activation
    staged in shared memory, the bias gradient's partial sums and the
    recomputed activation."""
    dy, w, p, f = f"tensor<{m}x{k}xbf16>", f"tensor<{k}x{n}xbf16>", f"tensor<{m}x{n}xbf16>", f"tensor<{m}x{n}xf32>"
    s = f"tensor<{m // 16}x{n}xf32>"
    return f"""func.func @gelu_backward(%dy: {dy}, %w: {w}, %b: tensor<{n}xbf16>, %h: {p}) -> ({p}, {s}, {p}) {{
  %r:3 = nova.fused(%dy, %w, %b, %h) : ({dy}, {w}, tensor<{n}xbf16>, {p}) -> ({p}, {s}, {p}) {{
  ^bb0(%lhs: {dy}, %rhs: {w}, %bias: tensor<{n}xbf16>, %x: {p}):
    %d = nova.matmul %lhs, %rhs : {dy}, {w} -> {p}
    %half = nova.constant dense<5.000000e-01> : {f}
    %one = nova.constant dense<1.000000e+00> : {f}
    %bb = nova.broadcast_in_dim %bias dims = [1] : tensor<{n}xbf16> -> {p}
    %pre = nova.add %x, %bb : {p}
    %p32 = nova.cast %pre : {p} -> {f}
    %t = nova.tanh %p32 : {f}
    %t1 = nova.add %t, %one : {f}
    %dg = nova.mul %t1, %half : {f}
    %d32 = nova.cast %d : {p} -> {f}
    %dx = nova.mul %d32, %dg : {f}
    %out = nova.cast %dx : {f} -> {p}
    %groups = nova.reshape %dx : {f} -> tensor<{m // 16}x16x{n}xf32>
    %sums = nova.reduce_sum %groups dims = [1] : tensor<{m // 16}x16x{n}xf32> -> {s}
    %y = nova.mul %p32, %dg : {f}
    %yb = nova.cast %y : {f} -> {p}
    nova.yield %out, %sums, %yb : {p}, {s}, {p}
  }}
  return %r#0, %r#1, %r#2 : {p}, {s}, {p}
}}"""


# The model's GEMM classes (gpt-146m shapes): forward (ping-pong), input
# gradient (cooperative, B read MN-major), weight gradients (stream-K and
# split-K partial sums), TF32 with operands transposed in shared memory, exact
# f32 (three TF32 products), and epilogues: fc1's bias + GELU (ping-pong),
# the GELU backward with its pre-activation staged in shared memory (held to
# 64 accumulators a thread: at ping-pong 128x128 ptxas serializes its MMAs).
GEMMS = {
    "bf16 forward": (_matmul(16384, 3072, 768, "bf16", "bf16", "nt"), "target=sm_90"),
    "bf16 input gradient": (_matmul(16384, 768, 3072, "bf16", "bf16", "nn"), "target=sm_90"),
    "bf16 weight gradient": (_matmul(768, 3072, 16384, "bf16", "bf16", "tn"), "target=sm_90"),
    "bf16 split-K": (_matmul(768, 768, 16384, "bf16", "f32", "tn"), "target=sm_90"),
    "tf32 weight gradient": (
        _matmul(3072, 768, 16384, "f32", "f32", "tn"),
        "target=sm_90 f32-matmul-precision=high",
    ),
    "tf32 forward": (_matmul(16384, 2048, 512, "f32", "f32", "nt"), "target=sm_90 f32-matmul-precision=high"),
    "exact f32": (_matmul(4096, 4096, 4096, "f32", "f32", "nt"), "target=sm_90 f32-matmul-precision=highest"),
    "bf16 forward + GELU epilogue": (_gelu_epilogue(16384, 3072, 768), "target=sm_90"),
    "bf16 input gradient + staged GELU backward": (_staged_gelu_backward(16384, 3072, 768), "target=sm_90"),
}


@pytest.mark.parametrize("stmatrix", [False, True], ids=["pairs", "stmatrix"])
@pytest.mark.parametrize("case", list(GEMMS))
def test_gemm_kernels_do_not_spill(case, stmatrix, tmp_path):
    text, configure = GEMMS[case]
    kernels = _kernels(text, configure, f"gemm-stmatrix={str(stmatrix).lower()}")
    gemms = {name: ptx for name, ptx in kernels.items() if name.startswith("nova_gemm_")}
    assert gemms, kernels.keys()
    for name, ptx in gemms.items():
        assert "setmaxnreg" in ptx or "_c1_" in name, name
        assert _spilled_bytes(ptx, tmp_path) == 0, name


@pytest.mark.parametrize("head_groups", [False, True], ids=["static", "head-groups"])
@pytest.mark.parametrize("causal", [True, False], ids=["causal", "full"])
@pytest.mark.parametrize(("d", "dtype"), [(64, "bf16"), (128, "bf16"), (64, "f32"), (128, "f32")])
def test_attention_kernels_register_budget(d, dtype, causal, head_groups, tmp_path):
    """The forwards never spill. The backward's consumers hold dK and dV (D / 2
    f32 registers each) beside S and dP of a 64-query block (32 each): at
    D = 64 all of it fits their 240 registers (what is left, a word or three
    outside the MMA loop); at D = 128 they cannot: ~380 bytes of stores and
    ~590 of loads (a known cost: smaller query blocks would need 64-byte
    swizzled bf16 tiles). TF32 at D = 128 has a forward kernel only (one Q
    tile); its backward is left for the decomposition. Work handed out in
    groups of heads (an atomic counter) keeps the same budgets."""
    configure = "target=sm_90" + (" f32-matmul-precision=high" if dtype == "f32" else "")
    if not head_groups:
        configure += " attention-head-groups=false"
    kernels = _kernels(_attention(d, causal, dtype), configure)
    forward = [n for n in kernels if n.startswith("nova_attention_fwd_")]
    backward = [n for n in kernels if n.startswith("nova_attention_bwd_")]
    has_backward = not (dtype == "f32" and d == 128)
    assert len(forward) == 1 and len(backward) == int(has_backward), kernels.keys()
    assert all(("_hg" in n) == head_groups for n in forward + backward), forward + backward
    assert _spilled_bytes(kernels[forward[0]], tmp_path) == 0
    if has_backward:
        budget = D64_BACKWARD_SPILL_BUDGET if d == 64 else 1024
        assert _spilled_bytes(kernels[backward[0]], tmp_path) <= budget, backward[0]


@pytest.mark.parametrize("dtype", ["bf16", "tf32"])
def test_every_kernel_of_a_cuda_train_step_assembles(dtype, tmp_path):
    """Every kernel Nova puts in a small GPT's sm_90 train step (head dim 64,
    so attention runs Nova's kernels; AdamW in place) is PTX that ptxas
    accepts, within the budgets above."""
    import torch

    from nova import capture
    from nova.importer import import_to_torch_mlir
    from nova.models import make_gpt
    from nova.pipeline import lower_to_iree_input, train_step_pipeline

    torch.manual_seed(0)
    model = make_gpt("gpt-tiny", d_model=128, n_heads=2, seq_len=64, vocab=512)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    idx = torch.randint(0, 512, (2, 64))
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high" if dtype == "tf32" else "highest")
    try:
        captured = capture.capture_train_step(
            model, optimizer, None, (idx, idx), autocast_dtype=torch.bfloat16 if dtype == "bf16" else None,
            stack_traces=False,
        )  # fmt: skip
    finally:
        torch.set_float32_matmul_precision(previous)
    text = lower_to_iree_input(
        import_to_torch_mlir(captured),
        target="cuda:sm_90",
        program_pipeline=train_step_pipeline(captured, target="cuda:sm_90"),
        f32_matmul_precision=captured.f32_matmul_precision,
        state_in_place=True,
    )
    kernels = _embedded_ptx(text)
    families = {name.split("_")[1] for name in kernels}
    assert {"gemm", "attention", "fused", "adamw", "cross"} <= families, kernels.keys()
    for name, kernel in kernels.items():
        budget = D64_BACKWARD_SPILL_BUDGET if name.startswith("nova_attention_bwd_") else 0
        assert _spilled_bytes(kernel, tmp_path) <= budget, name
