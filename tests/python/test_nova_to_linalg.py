"""End to end through convert-nova-to-linalg: nova text -> nova-opt (generic
op form, MLIR 22) -> iree-compile 3.13 (llvm-cpu, LLVM 24) -> iree.runtime
(local-task) -> compared with torch.

The version skew between our MLIR and IREE's is the main risk, so every test
compiles the generic-form text IREE gets in production.

Run: NOVA_OPT=build/linalg/bin/nova-opt pytest -q tests/python/test_nova_to_linalg.py
(nova-opt is taken from $NOVA_OPT, else from PATH.)
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
import torch

# f32 results from the same f32 math: differences are libm approximations
# (erf, tanh, pow) and summation order.
F32_TOL = dict(rtol=2e-5, atol=2e-6)


def lower(nova_opt: str, text: str, *, generic: bool = True) -> str:
    args = [nova_opt, "--convert-nova-to-linalg"]
    if generic:
        args.append("--mlir-print-op-generic")
    proc = subprocess.run(args, input=text, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def compile_main(nova_opt):
    """compile_main(text) lowers `text`, compiles it for llvm-cpu and returns
    its @main on a local-task device, with that device."""
    from iree import runtime as rt
    from iree.compiler import tools as iree_tools

    config = rt.Config("local-task")

    def _compile(text: str, *, generic: bool = True):
        vmfb = iree_tools.compile_str(
            lower(nova_opt, text, generic=generic),
            target_backends=["llvm-cpu"],
            input_type="auto",
            extra_args=["--iree-llvmcpu-target-cpu=host"],
        )
        context = rt.SystemContext(config=config)
        context.add_vm_module(rt.VmModule.copy_buffer(context.instance, vmfb))
        return context.modules.module["main"], config.device

    return _compile


@pytest.fixture(scope="module")
def run(compile_main):
    """run(text, *inputs) compiles `text` and returns @main's results as numpy
    arrays."""

    def _run(text: str, *inputs: np.ndarray, generic: bool = True) -> list[np.ndarray]:
        main, _ = compile_main(text, generic=generic)
        results = main(*inputs)
        if not isinstance(results, (tuple, list)):
            results = [results]
        return [np.asarray(r.to_host()) for r in results]

    return _run


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def bf16_round(x: np.ndarray) -> np.ndarray:
    """x rounded to bf16 (round to nearest even), as f32."""
    return torch.from_numpy(x).to(torch.bfloat16).float().numpy()


# -- Elementwise ---------------------------------------------------------------


def test_elementwise_float_chain(run):
    text = """
    func.func @main(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>)
        -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>) {
      %a = nova.add %x, %y : tensor<4x8xf32>
      %b = nova.mul %a, %x : tensor<4x8xf32>
      %c = nova.sub %b, %y : tensor<4x8xf32>
      %d = nova.div %c, %y : tensor<4x8xf32>
      %e = nova.tanh %d : tensor<4x8xf32>
      %f = nova.exp %e : tensor<4x8xf32>
      %g = nova.log %y : tensor<4x8xf32>
      %h = nova.max %f, %g : tensor<4x8xf32>
      %i = nova.min %h, %x : tensor<4x8xf32>
      %j = nova.pow %y, %x : tensor<4x8xf32>
      %k = nova.sqrt %y : tensor<4x8xf32>
      %l = nova.rsqrt %y : tensor<4x8xf32>
      %m = nova.erf %x : tensor<4x8xf32>
      %n = nova.sigmoid %x : tensor<4x8xf32>
      %o = nova.relu %x : tensor<4x8xf32>
      %p = nova.neg %x : tensor<4x8xf32>
      %q = nova.abs %p : tensor<4x8xf32>
      %mk = nova.add %m, %k : tensor<4x8xf32>
      %lo = nova.add %l, %o : tensor<4x8xf32>
      %cmp = nova.compare gt, %x, %q : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
      %sel = nova.select %cmp, %n, %q : tensor<4x8xi1>, tensor<4x8xf32>
      return %i, %j, %mk, %lo, %sel, %cmp
          : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>
    }
    """
    x = rng().standard_normal((4, 8)).astype(np.float32)
    y = rng(1).uniform(0.5, 2.0, (4, 8)).astype(np.float32)
    got = run(text, x, y)

    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    e = torch.tanh((((tx + ty) * tx) - ty) / ty).exp()
    i = torch.minimum(torch.maximum(e, ty.log()), tx)
    q = (-tx).abs()
    cmp = tx > q
    want = [
        i,
        ty.pow(tx),
        torch.erf(tx) + ty.sqrt(),
        ty.rsqrt() + tx.relu(),
        torch.where(cmp, tx.sigmoid(), q),
    ]
    for g, w in zip(got[:5], want):
        np.testing.assert_allclose(g, w.numpy(), **F32_TOL)
    np.testing.assert_array_equal(got[5], cmp.numpy())


def test_elementwise_nan_propagation(run):
    text = """
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>) {
      %max = nova.max %x, %y : tensor<4xf32>
      %min = nova.min %x, %y : tensor<4xf32>
      %relu = nova.relu %x : tensor<4xf32>
      %ne = nova.compare ne, %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
      return %max, %min, %relu, %ne : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>
    }
    """
    x = np.array([np.nan, 1.0, -2.0, np.nan], np.float32)
    y = np.array([0.0, np.nan, 3.0, 5.0], np.float32)
    got = run(text, x, y)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    for g, w in zip(got, [torch.maximum(tx, ty), torch.minimum(tx, ty), tx.relu(), tx != tx]):
        np.testing.assert_array_equal(g, w.numpy())


def test_integer_ops_and_casts(run):
    text = """
    func.func @main(%a: tensor<6xi32>, %b: tensor<6xi32>, %f: tensor<6xf32>, %l: tensor<6xi64>)
        -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi1>, tensor<6xf32>, tensor<6xi32>,
            tensor<6xf32>, tensor<6xi32>, tensor<6xf32>, tensor<6xf32>) {
      %add = nova.add %a, %b : tensor<6xi32>
      %div = nova.div %add, %b : tensor<6xi32>
      %mul = nova.mul %div, %b : tensor<6xi32>
      %max = nova.max %mul, %a : tensor<6xi32>
      %neg = nova.neg %max : tensor<6xi32>
      %abs = nova.abs %neg : tensor<6xi32>
      %relu = nova.relu %neg : tensor<6xi32>
      %lt = nova.compare lt, %a, %b : tensor<6xi32>, tensor<6xi32> -> tensor<6xi1>
      %i2f = nova.cast %a : tensor<6xi32> -> tensor<6xf32>
      %f2i = nova.cast %f : tensor<6xf32> -> tensor<6xi32>
      %f2b = nova.cast %f : tensor<6xf32> -> tensor<6xi1>
      %b2f = nova.cast %f2b : tensor<6xi1> -> tensor<6xf32>
      %l2i = nova.cast %l : tensor<6xi64> -> tensor<6xi32>
      %bf = nova.cast %f : tensor<6xf32> -> tensor<6xbf16>
      %h = nova.cast %bf : tensor<6xbf16> -> tensor<6xf16>
      %back = nova.cast %h : tensor<6xf16> -> tensor<6xf32>
      %bf32 = nova.cast %bf : tensor<6xbf16> -> tensor<6xf32>
      return %div, %abs, %relu, %lt, %i2f, %f2i, %b2f, %l2i, %back, %bf32
          : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi1>, tensor<6xf32>, tensor<6xi32>,
            tensor<6xf32>, tensor<6xi32>, tensor<6xf32>, tensor<6xf32>
    }
    """
    a = np.array([7, -7, 3, 0, -100, 42], np.int32)
    b = np.array([2, 2, -4, 5, 3, -1], np.int32)
    f = np.array([1.7, -1.7, 0.0, 2.5, -0.2, 1000.123], np.float32)
    l = np.array([1, -1, 2**40 + 5, 7, -(2**33), 0], np.int64)
    got = run(text, a, b, f, l)

    ta, tb, tf, tl = map(torch.from_numpy, (a, b, f, l))
    # Integer division truncates toward zero: (-7 + 2) / 2 == -2.
    div = torch.div(ta + tb, tb, rounding_mode="trunc")
    neg = -torch.maximum(div * tb, ta)
    want = [
        div,
        neg.abs(),
        neg.relu(),
        ta < tb,
        ta.float(),
        tf.to(torch.int32),
        tf.bool().float(),
        tl.to(torch.int32),
        tf.to(torch.bfloat16).to(torch.float16).float(),
        tf.to(torch.bfloat16).float(),
    ]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w.numpy())


# -- Contraction ---------------------------------------------------------------


def test_matmul_layouts_and_bf16(run):
    text = """
    func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %bt: tensor<32x16xf32>, %at: tensor<16x8xf32>,
                    %x: tensor<4x8x16xf32>, %y: tensor<4x32x16xf32>)
        -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<4x8x32xf32>, tensor<8x32xf32>) {
      %nn = nova.matmul %a, %b : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
      %nt = nova.matmul %a, %bt {transpose_rhs} : tensor<8x16xf32>, tensor<32x16xf32> -> tensor<8x32xf32>
      %tt = nova.matmul %at, %bt {transpose_lhs, transpose_rhs} : tensor<16x8xf32>, tensor<32x16xf32> -> tensor<8x32xf32>
      %xb = nova.cast %x : tensor<4x8x16xf32> -> tensor<4x8x16xbf16>
      %yb = nova.cast %y : tensor<4x32x16xf32> -> tensor<4x32x16xbf16>
      %bmm = nova.matmul %xb, %yb {transpose_rhs} : tensor<4x8x16xbf16>, tensor<4x32x16xbf16> -> tensor<4x8x32xf32>
      %ab = nova.cast %at : tensor<16x8xf32> -> tensor<16x8xbf16>
      %bb = nova.cast %b : tensor<16x32xf32> -> tensor<16x32xbf16>
      %tn = nova.matmul %ab, %bb {transpose_lhs} : tensor<16x8xbf16>, tensor<16x32xbf16> -> tensor<8x32xbf16>
      %tn32 = nova.cast %tn : tensor<8x32xbf16> -> tensor<8x32xf32>
      return %nn, %nt, %tt, %bmm, %tn32
          : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<4x8x32xf32>, tensor<8x32xf32>
    }
    """
    r = rng(2)
    a = r.standard_normal((8, 16)).astype(np.float32)
    b = r.standard_normal((16, 32)).astype(np.float32)
    x = r.standard_normal((4, 8, 16)).astype(np.float32)
    y = r.standard_normal((4, 32, 16)).astype(np.float32)
    nn, nt, tt, bmm, tn = run(text, a, b, np.ascontiguousarray(b.T), np.ascontiguousarray(a.T), x, y)

    ref = a.astype(np.float64) @ b
    for got in (nn, nt, tt):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    # bf16 operands, products and sums in f32: only the inputs were rounded.
    ref_bmm = bf16_round(x).astype(np.float64) @ bf16_round(y).transpose(0, 2, 1)
    np.testing.assert_allclose(bmm, ref_bmm, rtol=1e-5, atol=1e-5)
    # A bf16 result: f32 accumulation, one rounding at the end.
    ref_tn = bf16_round((bf16_round(a).astype(np.float64) @ bf16_round(b)).astype(np.float32))
    np.testing.assert_allclose(tn, ref_tn, rtol=2**-8, atol=1e-2)


# -- Reductions ----------------------------------------------------------------


def test_reductions_f32(run):
    text = """
    func.func @main(%x: tensor<3x5x7xf32>) -> (tensor<1x5x1xf32>, tensor<3x7xf32>, tensor<3x1x1xf32>, tensor<f32>) {
      %s = nova.reduce_sum %x dims = [0, 2] keepdim : tensor<3x5x7xf32> -> tensor<1x5x1xf32>
      %m = nova.reduce_max %x dims = [1] : tensor<3x5x7xf32> -> tensor<3x7xf32>
      %a = nova.reduce_mean %x dims = [1, 2] keepdim : tensor<3x5x7xf32> -> tensor<3x1x1xf32>
      %t = nova.reduce_sum %x dims = [0, 1, 2] : tensor<3x5x7xf32> -> tensor<f32>
      return %s, %m, %a, %t : tensor<1x5x1xf32>, tensor<3x7xf32>, tensor<3x1x1xf32>, tensor<f32>
    }
    """
    x = rng(3).standard_normal((3, 5, 7)).astype(np.float32)
    s, m, a, t = run(text, x)
    tx = torch.from_numpy(x)
    np.testing.assert_allclose(s, tx.sum(dim=(0, 2), keepdim=True).numpy(), **F32_TOL)
    np.testing.assert_array_equal(m, tx.amax(dim=1).numpy())
    np.testing.assert_allclose(a, tx.mean(dim=(1, 2), keepdim=True).numpy(), **F32_TOL)
    np.testing.assert_allclose(t, tx.sum().numpy(), rtol=1e-5, atol=1e-5)


def test_bf16_sum_accumulates_in_f32(run):
    """NOTES §3: IREE sums bf16 in bf16 (rel. err 0.97 on 16384 elements).
    Ours accumulates in f32, so the only error is rounding the result."""
    text = """
    func.func @main(%x: tensor<16384xf32>, %y: tensor<4x4096xf32>) -> (tensor<f32>, tensor<4xf32>) {
      %xb = nova.cast %x : tensor<16384xf32> -> tensor<16384xbf16>
      %s = nova.reduce_sum %xb dims = [0] : tensor<16384xbf16> -> tensor<bf16>
      %s32 = nova.cast %s : tensor<bf16> -> tensor<f32>
      %yb = nova.cast %y : tensor<4x4096xf32> -> tensor<4x4096xbf16>
      %m = nova.reduce_mean %yb dims = [1] : tensor<4x4096xbf16> -> tensor<4xbf16>
      %m32 = nova.cast %m : tensor<4xbf16> -> tensor<4xf32>
      return %s32, %m32 : tensor<f32>, tensor<4xf32>
    }
    """
    x = rng(4).uniform(0.0, 1.0, 16384).astype(np.float32)
    y = rng(5).uniform(0.0, 1.0, (4, 4096)).astype(np.float32)
    s, m = run(text, x, y)
    exact_sum = bf16_round(x).astype(np.float64).sum()
    exact_mean = bf16_round(y).astype(np.float64).mean(axis=1)
    # bf16 has 8 significant bits: rounding the result costs <= 2^-9 relative.
    assert abs(float(s) - exact_sum) / exact_sum <= 2**-8
    np.testing.assert_allclose(m, exact_mean, rtol=2**-8)


def test_split_reductions_keep_results(nova_opt, run):
    """-nova-split-reductions (two-stage leading reductions, used for CUDA)
    computes what the single reductions do: sum and mean of bf16 in f32 with
    one rounding, max exactly, keepdim restored."""
    text = """
    func.func @main(%x: tensor<16x1024x24xf32>) -> (tensor<24xf32>, tensor<1x1x24xf32>, tensor<24xf32>) {
      %xb = nova.cast %x : tensor<16x1024x24xf32> -> tensor<16x1024x24xbf16>
      %s = nova.reduce_sum %xb dims = [0, 1] : tensor<16x1024x24xbf16> -> tensor<24xbf16>
      %s32 = nova.cast %s : tensor<24xbf16> -> tensor<24xf32>
      %m = nova.reduce_mean %x dims = [0, 1] keepdim : tensor<16x1024x24xf32> -> tensor<1x1x24xf32>
      %mx = nova.reduce_max %x dims = [0, 1] : tensor<16x1024x24xf32> -> tensor<24xf32>
      return %s32, %m, %mx : tensor<24xf32>, tensor<1x1x24xf32>, tensor<24xf32>
    }
    """
    split = subprocess.run(
        [nova_opt, "--nova-split-reductions"], input=text, capture_output=True, text=True, check=True
    ).stdout
    assert split.count("nova.reduce_") == 6, split  # each of the three now has two stages
    x = rng(6).uniform(-1.0, 1.0, (16, 1024, 24)).astype(np.float32)
    s, m, mx = run(split, x)
    rows = bf16_round(x).reshape(-1, 24).astype(np.float64)
    np.testing.assert_allclose(s, rows.sum(axis=0), rtol=2**-8, atol=2**-8 * np.abs(rows).sum(axis=0).max())
    np.testing.assert_allclose(m, x.reshape(-1, 24).mean(axis=0).reshape(1, 1, 24), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(mx, x.reshape(-1, 24).max(axis=0))


def test_round_tf32_to_nearest(run):
    """nova.round_tf32 rounds each f32 to 11 significant bits, to nearest with
    ties away from zero, and keeps f32 (against frexp arithmetic, not the bit
    trick the lowering uses), including ties, carries into the exponent,
    negatives, zeros and subnormals."""
    text = """
    func.func @main(%x: tensor<4096xf32>) -> tensor<4096xf32> {
      %r = nova.round_tf32 %x : tensor<4096xf32>
      return %r : tensor<4096xf32>
    }
    """
    g = rng(11)
    x = (g.standard_normal(4096) * np.exp2(g.integers(-20, 20, 4096))).astype(np.float32)
    bits = x.view(np.uint32)
    bits[:512] = (bits[:512] & np.uint32(0xFFFFE000)) | np.uint32(0x1000)  # exact ties
    bits[512:576] = np.uint32(0x3FFFF000) + np.arange(64, dtype=np.uint32)  # carry into the exponent
    x[576:580] = [0.0, -0.0, 1e-42, -3e-41]
    (r,) = run(text, x)
    # The quantum: 11 significant bits, or TF32's 10 mantissa bits below the
    # smallest normal exponent (subnormals keep the same mantissa positions).
    x64 = x.astype(np.float64)
    _, e = np.frexp(x64)
    quantum = np.exp2(np.maximum(e - 11, -136).astype(np.float64))
    expected = (np.sign(x64) * np.floor(np.abs(x64) / quantum + 0.5) * quantum).astype(np.float32)
    np.testing.assert_array_equal(r.view(np.uint32) & np.uint32(0x1FFF), 0)
    np.testing.assert_array_equal(r, expected)


# -- Shape ops -----------------------------------------------------------------


def test_broadcast(run):
    text = """
    func.func @main(%a: tensor<1x4xf32>, %b: tensor<3xf32>, %c: tensor<f32>)
        -> (tensor<3x5x4xf32>, tensor<3x4xf32>, tensor<2x3xf32>) {
      %0 = nova.broadcast_in_dim %a dims = [0, 2] : tensor<1x4xf32> -> tensor<3x5x4xf32>
      %1 = nova.broadcast_in_dim %b dims = [0] : tensor<3xf32> -> tensor<3x4xf32>
      %2 = nova.broadcast_in_dim %c dims = [] : tensor<f32> -> tensor<2x3xf32>
      return %0, %1, %2 : tensor<3x5x4xf32>, tensor<3x4xf32>, tensor<2x3xf32>
    }
    """
    a = rng(6).standard_normal((1, 4)).astype(np.float32)
    b = rng(7).standard_normal(3).astype(np.float32)
    c = np.array(2.5, np.float32)
    r0, r1, r2 = run(text, a, b, c)
    np.testing.assert_array_equal(r0, np.broadcast_to(a[:, None, :], (3, 5, 4)))
    np.testing.assert_array_equal(r1, np.broadcast_to(b[:, None], (3, 4)))
    np.testing.assert_array_equal(r2, np.full((2, 3), 2.5, np.float32))


def test_concat_slice_reshape_transpose(run):
    text = """
    func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %c: tensor<2x3x4xf32>)
        -> (tensor<2x8xf32>, tensor<2x2xf32>, tensor<4x6xf32>, tensor<6x4xf32>, tensor<2x3x1x4xf32>, tensor<4x2x3xf32>) {
      %cat = nova.concat %a, %b dim = 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
      %sl = nova.slice %b [0:2:1, 1:5:2] : tensor<2x5xf32> -> tensor<2x2xf32>
      %r1 = nova.reshape %c : tensor<2x3x4xf32> -> tensor<4x6xf32>
      %r2 = nova.reshape %c : tensor<2x3x4xf32> -> tensor<6x4xf32>
      %r3 = nova.reshape %c : tensor<2x3x4xf32> -> tensor<2x3x1x4xf32>
      %t = nova.transpose %c permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
      return %cat, %sl, %r1, %r2, %r3, %t
          : tensor<2x8xf32>, tensor<2x2xf32>, tensor<4x6xf32>, tensor<6x4xf32>, tensor<2x3x1x4xf32>, tensor<4x2x3xf32>
    }
    """
    a = rng(8).standard_normal((2, 3)).astype(np.float32)
    b = rng(9).standard_normal((2, 5)).astype(np.float32)
    c = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    cat, sl, r1, r2, r3, t = run(text, a, b, c)
    np.testing.assert_array_equal(cat, np.concatenate([a, b], axis=1))
    np.testing.assert_array_equal(sl, b[0:2:1, 1:5:2])
    np.testing.assert_array_equal(r1, c.reshape(4, 6))
    np.testing.assert_array_equal(r2, c.reshape(6, 4))
    np.testing.assert_array_equal(r3, c.reshape(2, 3, 1, 4))
    np.testing.assert_array_equal(t, c.transpose(2, 0, 1))


def test_constant_iota_fused(run):
    text = """
    func.func @main(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xi64>) {
      %i = nova.iota dim = 1 : tensor<3x4xf32>
      %k = nova.iota dim = 0 : tensor<3x4xi64>
      %c = nova.constant dense<0.5> : tensor<3x4xf32>
      %f = nova.fused (%x, %i, %c) : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> {
      ^bb0(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %h: tensor<3x4xf32>):
        %m = nova.mul %a, %h : tensor<3x4xf32>
        %s = nova.add %m, %b : tensor<3x4xf32>
        nova.yield %s : tensor<3x4xf32>
      }
      return %f, %k : tensor<3x4xf32>, tensor<3x4xi64>
    }
    """
    x = rng(10).standard_normal((3, 4)).astype(np.float32)
    f, k = run(text, x)
    np.testing.assert_allclose(f, x * 0.5 + np.arange(4, dtype=np.float32)[None, :], **F32_TOL)
    np.testing.assert_array_equal(k, np.broadcast_to(np.arange(3)[:, None], (3, 4)))


# -- Composite ops (decomposed inside the pass) ---------------------------------


def test_softmax_layer_norm_gelu(run):
    text = """
    func.func @main(%x: tensor<4x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>)
        -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
      %sm = nova.softmax %x dim = 1 : tensor<4x16xf32>
      %lsm = nova.log_softmax %x dim = 0 : tensor<4x16xf32>
      %ln = nova.layer_norm %x weight(%w : tensor<16xf32>) bias(%b : tensor<16xf32>)
          {normalized_rank = 1 : i64, epsilon = 1.0e-5 : f64} : tensor<4x16xf32> -> tensor<4x16xf32>
      %g = nova.gelu %x : tensor<4x16xf32>
      %gt = nova.gelu %x approximation = tanh : tensor<4x16xf32>
      %xb = nova.cast %x : tensor<4x16xf32> -> tensor<4x16xbf16>
      %smb = nova.softmax %xb dim = 1 : tensor<4x16xbf16>
      %smb32 = nova.cast %smb : tensor<4x16xbf16> -> tensor<4x16xf32>
      return %sm, %lsm, %ln, %g, %gt, %smb32
          : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
    }
    """
    r = rng(11)
    x = (3 * r.standard_normal((4, 16))).astype(np.float32)
    w = r.standard_normal(16).astype(np.float32)
    b = r.standard_normal(16).astype(np.float32)
    sm, lsm, ln, g, gt, smb = run(text, x, w, b)
    tx = torch.from_numpy(x)
    F = torch.nn.functional
    np.testing.assert_allclose(sm, F.softmax(tx, dim=1).numpy(), **F32_TOL)
    np.testing.assert_allclose(lsm, F.log_softmax(tx, dim=0).numpy(), **F32_TOL)
    ln_ref = F.layer_norm(tx, (16,), torch.from_numpy(w), torch.from_numpy(b), eps=1e-5)
    np.testing.assert_allclose(ln, ln_ref.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(g, F.gelu(tx).numpy(), **F32_TOL)
    np.testing.assert_allclose(gt, F.gelu(tx, approximate="tanh").numpy(), **F32_TOL)
    # bf16 softmax: each primitive rounds to bf16, as torch's bf16 kernels
    # (which also compute each step in f32) do; a few bf16 ulps.
    smb_ref = F.softmax(tx.to(torch.bfloat16).float(), dim=1)
    np.testing.assert_allclose(smb, smb_ref.numpy(), rtol=3 * 2**-8, atol=1e-3)


# -- Indexing ------------------------------------------------------------------


def test_gather_and_embedding(run):
    text = """
    func.func @main(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %j: tensor<2x5xi32>, %t: tensor<10x4xf32>, %k: tensor<2x3xi64>)
        -> (tensor<3x2xf32>, tensor<2x5xf32>, tensor<2x3x4xf32>) {
      %g1 = nova.gather %x[%i] dim = 1 : tensor<3x5xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
      %g0 = nova.gather %x[%j] dim = 0 : tensor<3x5xf32>, tensor<2x5xi32> -> tensor<2x5xf32>
      %e = nova.embedding %t[%k] : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
      return %g1, %g0, %e : tensor<3x2xf32>, tensor<2x5xf32>, tensor<2x3x4xf32>
    }
    """
    r = rng(12)
    x = r.standard_normal((3, 5)).astype(np.float32)
    i = r.integers(0, 5, (3, 2)).astype(np.int64)
    j = r.integers(0, 3, (2, 5)).astype(np.int32)
    t = r.standard_normal((10, 4)).astype(np.float32)
    k = np.array([[9, 0, 3], [3, 3, 7]], np.int64)
    g1, g0, e = run(text, x, i, j, t, k)
    tx = torch.from_numpy(x)
    np.testing.assert_array_equal(g1, torch.gather(tx, 1, torch.from_numpy(i)).numpy())
    np.testing.assert_array_equal(g0, torch.gather(tx, 0, torch.from_numpy(j).long()).numpy())
    np.testing.assert_array_equal(e, torch.nn.functional.embedding(torch.from_numpy(k), torch.from_numpy(t)).numpy())


def test_scatter_add_repeated_indices(run):
    """The embedding backward: every update lands, repeats accumulate."""
    text = """
    func.func @main(%d: tensor<10x4xf32>, %i: tensor<2x6xi64>, %u: tensor<2x6x4xf32>, %s: tensor<i32>, %v: tensor<4xf32>)
        -> (tensor<10x4xf32>, tensor<10x4xf32>) {
      %0 = nova.scatter_add %d[%i], %u : tensor<10x4xf32>, tensor<2x6xi64>, tensor<2x6x4xf32> -> tensor<10x4xf32>
      %1 = nova.scatter_add %d[%s], %v : tensor<10x4xf32>, tensor<i32>, tensor<4xf32> -> tensor<10x4xf32>
      return %0, %1 : tensor<10x4xf32>, tensor<10x4xf32>
    }
    """
    r = rng(13)
    d = r.standard_normal((10, 4)).astype(np.float32)
    i = np.array([[3, 3, 0, 9, 3, 1], [1, 3, 3, 0, 9, 3]], np.int64)
    u = r.standard_normal((2, 6, 4)).astype(np.float32)
    s = np.array(7, np.int32)
    v = r.standard_normal(4).astype(np.float32)
    got, single = run(text, d, i, u, s, v)
    want = torch.from_numpy(d).index_put((torch.from_numpy(i),), torch.from_numpy(u), accumulate=True)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6, atol=1e-6)
    want_single = d.copy()
    want_single[7] += v
    np.testing.assert_allclose(single, want_single, rtol=1e-6, atol=1e-6)


def test_scatter_add_leaves_device_arguments_alone(compile_main):
    """IREE 3.13 scatters in place into its `outs` and, when that is a function
    argument, into the caller's buffer (iree-org/iree#16168): the lowering
    must never scatter into `dest` itself. Host arrays hide this (they are
    uploaded per call); the runtime keeps parameters in device arrays."""
    from iree import runtime as rt

    text = """
    func.func @main(%d: tensor<10x4xf32>, %i: tensor<6xi64>, %u: tensor<6x4xf32>) -> tensor<10x4xf32> {
      %0 = nova.scatter_add %d[%i], %u : tensor<10x4xf32>, tensor<6xi64>, tensor<6x4xf32> -> tensor<10x4xf32>
      return %0 : tensor<10x4xf32>
    }
    """
    d = rng(18).standard_normal((10, 4)).astype(np.float32)
    i = np.array([1, 1, 2, 9, 1, 0], np.int64)
    u = rng(19).standard_normal((6, 4)).astype(np.float32)
    main, device = compile_main(text)
    args = [rt.asdevicearray(device, a) for a in (d, i, u)]
    first = np.asarray(main(*args).to_host())
    second = np.asarray(main(*args).to_host())
    np.testing.assert_array_equal(args[0].to_host(), d)
    want = d.copy()
    np.add.at(want, i, u)
    np.testing.assert_allclose(first, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(second, first)


def test_scatter_add_bf16(run):
    """bf16 rows accumulate in bf16 (see ScatterAddLowering): 16 updates per
    row cost at most ~16 roundings of 2^-9 each."""
    text = """
    func.func @main(%d: tensor<8x16xf32>, %i: tensor<128xi32>, %u: tensor<128x16xf32>) -> tensor<8x16xf32> {
      %db = nova.cast %d : tensor<8x16xf32> -> tensor<8x16xbf16>
      %ub = nova.cast %u : tensor<128x16xf32> -> tensor<128x16xbf16>
      %s = nova.scatter_add %db[%i], %ub : tensor<8x16xbf16>, tensor<128xi32>, tensor<128x16xbf16> -> tensor<8x16xbf16>
      %r = nova.cast %s : tensor<8x16xbf16> -> tensor<8x16xf32>
      return %r : tensor<8x16xf32>
    }
    """
    r = rng(20)
    d = r.uniform(0.0, 1.0, (8, 16)).astype(np.float32)
    i = np.repeat(np.arange(8, dtype=np.int32), 16)
    r.shuffle(i)
    u = r.uniform(0.0, 1.0, (128, 16)).astype(np.float32)
    (got,) = run(text, d, i, u)
    want = bf16_round(d).astype(np.float64)
    np.add.at(want, i, bf16_round(u).astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=16 * 2**-9)


# -- Optimizer updates ---------------------------------------------------------


def _scalar(x: float) -> np.ndarray:
    return np.array(x, np.float32)


def test_adamw_matches_torch_optim(run):
    text = """
    func.func @main(%p: tensor<8x16xf32>, %g: tensor<8x16xf32>, %m: tensor<8x16xf32>, %v: tensor<8x16xf32>,
                    %step: tensor<f32>, %lr: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>, %eps: tensor<f32>, %wd: tensor<f32>)
        -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
      %0:3 = nova.adamw %p, %g, %m, %v step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<8x16xf32>
      return %0#0, %0#1, %0#2 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
    }
    """
    lr, betas, eps, wd = 1e-2, (0.9, 0.95), 1e-8, 0.1
    r = rng(14)
    param = torch.nn.Parameter(torch.from_numpy(r.standard_normal((8, 16)).astype(np.float32)))
    opt = torch.optim.AdamW([param], lr=lr, betas=betas, eps=eps, weight_decay=wd, foreach=False)
    grads = [torch.from_numpy(r.standard_normal((8, 16)).astype(np.float32)) for _ in range(3)]
    for g in grads[:2]:
        param.grad = g
        opt.step()
    state = opt.state[param]
    before = (param.detach().clone(), state["exp_avg"].clone(), state["exp_avg_sq"].clone())
    param.grad = grads[2]
    opt.step()

    new_p, new_m, new_v = run(
        text,
        before[0].numpy(), grads[2].numpy(), before[1].numpy(), before[2].numpy(),
        _scalar(3.0), _scalar(lr), _scalar(betas[0]), _scalar(betas[1]), _scalar(eps), _scalar(wd),
    )
    np.testing.assert_allclose(new_m, state["exp_avg"].numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(new_v, state["exp_avg_sq"].numpy(), rtol=1e-6, atol=1e-8)
    # torch computes the bias corrections in double; we use f32.
    np.testing.assert_allclose(new_p, param.detach().numpy(), rtol=1e-6, atol=1e-6)


SGD_MLIR = """
func.func @main(%p: tensor<8x16xf32>, %g: tensor<8x16xf32>, %b: tensor<8x16xf32>, %lr: tensor<f32>,
                %mom: tensor<f32>, %damp: tensor<f32>, %wd: tensor<f32>, %first: tensor<f32>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %0:2 = nova.sgd %p, %g, %b lr(%lr) momentum(%mom) dampening(%damp) weight_decay(%wd) first_step(%first) NESTEROV : tensor<8x16xf32>
  return %0#0, %0#1 : tensor<8x16xf32>, tensor<8x16xf32>
}
"""


@pytest.mark.parametrize(
    "momentum,dampening,nesterov",
    [(0.9, 0.0, True), (0.9, 0.25, False), (0.0, 0.0, False)],
    ids=["nesterov", "momentum-dampening", "plain"],
)
@pytest.mark.parametrize("steps_before", [0, 2], ids=["first-step", "later-step"])
def test_sgd_matches_torch_optim(run, momentum, dampening, nesterov, steps_before):
    lr, wd = 0.05, 0.01
    r = rng(15)
    param = torch.nn.Parameter(torch.from_numpy(r.standard_normal((8, 16)).astype(np.float32)))
    opt = torch.optim.SGD(
        [param], lr=lr, momentum=momentum, dampening=dampening, weight_decay=wd, nesterov=nesterov, foreach=False
    )
    grads = [torch.from_numpy(r.standard_normal((8, 16)).astype(np.float32)) for _ in range(steps_before + 1)]
    for g in grads[:-1]:
        param.grad = g
        opt.step()
    buf = opt.state[param].get("momentum_buffer")
    buf_before = torch.zeros_like(param) if buf is None else buf.clone()
    param_before = param.detach().clone()
    param.grad = grads[-1]
    opt.step()

    text = SGD_MLIR.replace("NESTEROV", "{nesterov}" if nesterov else "")
    new_p, new_buf = run(
        text,
        param_before.numpy(), grads[-1].numpy(), buf_before.numpy(), _scalar(lr), _scalar(momentum),
        _scalar(dampening), _scalar(wd), _scalar(1.0 if steps_before == 0 else 0.0),
    )
    np.testing.assert_allclose(new_p, param.detach().numpy(), rtol=1e-6, atol=1e-7)
    if momentum:
        np.testing.assert_allclose(new_buf, opt.state[param]["momentum_buffer"].numpy(), rtol=1e-6, atol=1e-7)


# -- IREE accepts both forms; failures are diagnosed ------------------------------


def test_custom_form_is_accepted_too(run):
    """IREE 3.13 reads our custom form as well (production uses generic)."""
    text = """
    func.func @main(%d: tensor<5x3xf32>, %i: tensor<4xi64>, %u: tensor<4x3xf32>) -> tensor<5x3xf32> {
      %e = nova.exp %d : tensor<5x3xf32>
      %s = nova.scatter_add %e[%i], %u : tensor<5x3xf32>, tensor<4xi64>, tensor<4x3xf32> -> tensor<5x3xf32>
      %r = nova.reduce_sum %s dims = [1] keepdim : tensor<5x3xf32> -> tensor<5x1xf32>
      %b = nova.broadcast_in_dim %r dims = [0, 1] : tensor<5x1xf32> -> tensor<5x3xf32>
      %o = nova.div %s, %b : tensor<5x3xf32>
      return %o : tensor<5x3xf32>
    }
    """
    d = rng(16).standard_normal((5, 3)).astype(np.float32)
    i = np.array([0, 4, 0, 2], np.int64)
    u = rng(17).uniform(0.5, 1.0, (4, 3)).astype(np.float32)
    (generic,) = run(text, d, i, u)
    (custom,) = run(text, d, i, u, generic=False)
    s = np.exp(d)
    np.add.at(s, i, u)
    np.testing.assert_allclose(generic, s / s.sum(axis=1, keepdims=True), **F32_TOL)
    np.testing.assert_array_equal(custom, generic)


@pytest.mark.parametrize(
    "body,message",
    [
        (
            "%0 = nova.reduce_mean %a dims = [1] : tensor<4x5xi32> -> tensor<4xi32>",
            "failed to legalize operation 'nova.reduce_mean'",
        ),
        (
            "%d = tensor.cast %a : tensor<4x5xi32> to tensor<?x5xi32>\n"
            "  %n = nova.neg %d : tensor<?x5xi32>\n"
            "  %0 = tensor.cast %n : tensor<?x5xi32> to tensor<4x5xi32>",
            "'nova.neg' op has a dynamic shape",
        ),
    ],
    ids=["unsupported-op", "dynamic-shape"],
)
def test_leftover_nova_op_fails_with_diagnostic(nova_opt, body, message):
    result_type = "tensor<4xi32>" if "reduce_mean" in body else "tensor<4x5xi32>"
    text = f"func.func @f(%a: tensor<4x5xi32>) -> {result_type} {{\n  {body}\n  return %0 : {result_type}\n}}\n"
    proc = subprocess.run([nova_opt, "--convert-nova-to-linalg"], input=text, capture_output=True, text=True)
    assert proc.returncode != 0
    assert message in proc.stderr
