"""Nova's fused-rows kernels (nova.fused regions formed by
nova-fuse-elementwise) on the H200: torch functions as a training step
spells them (residual add + layer norm, the layer-norm backward, bias +
tanh GELU in bf16, a softmax, the erf/sigmoid/sqrt/log/select family, a
weight cast over few long rows), captured and compiled as Nova compiles
them, every kernel's outputs NaN-poisoned, odd row counts and rows that no
chunk divides, against f64 references on random data. The `gemm_*` cases
are regions computed in the epilogue of the GEMM that makes their input
(nova-fuse-matmul-epilogue): a bias add with its column sums (QKV's shape,
and edges of every dim), a bias + exact GELU, a bias + tanh GELU whose
product is a result too (fc1's shape; the epilogue stores both), and the
GELU backward with its pre-activation staged in shared memory (fc2's input
gradient, with and without the bias gradient's sums, and edges). Column
sums finish as on CUDA, in Nova's column-sums kernel (column-sums=true).

Build box (compiler installed):
    .venv/bin/python tools/fused_rows_check.py prepare --out bench-artifacts/fused-rows-check
GPU box (torch + iree.runtime + python/nova only):
    . tools/device/gpu-env.sh && python tools/fused_rows_check.py run --dir bench-artifacts/fused-rows-check
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kernel_check_cli  # noqa: E402

PIPELINE = (
    "builtin.module(nova-fuse-elementwise{{column-sums=true}}, nova-split-reductions, "
    "nova-fuse-matmul-epilogue{{target={arch} stage-inputs=true}}, "
    "nova-configure-kernels{{target={arch}}}, "
    "convert-nova-to-iree-kernels{{poison-outputs=true}}, "
    "convert-nova-to-linalg, canonicalize, cse)"
)
# Max |error| over max |reference| per output dtype (f32 sums of 16384
# rows: f32 rounding of the partials and the second stage). A GEMM case's
# f32 sums add up bf16 values (the product and the gradient are rounded to
# bf16 as torch's bf16 matmul rounds them): bf16's tolerance.
TOLERANCE = {"bfloat16": 1e-2, "float32": 2e-5}
GEMM_TOLERANCE = 1e-2


def _ln_forward(x, res, w, b):
    import torch

    h = x + res.float()
    y = torch.nn.functional.layer_norm(h, (h.shape[-1],), w, b, 1e-5)
    return y.to(torch.bfloat16), h


def _ln_backward(dy, xhat, rstd, w):
    # torch's native_layer_norm_backward input gradient, as the joint graph
    # decomposes it.
    n = xhat.shape[-1]
    g = dy.float() * w
    return rstd / n * (n * g - g.sum(-1, keepdim=True) - xhat * (g * xhat).sum(-1, keepdim=True))


def _ln_backward_with_sums(dy, xhat, rstd, w):
    # The input gradient (row reductions) with the gain's and bias's
    # gradients (column sums) in the same kernel, their partials in shared
    # memory.
    dx = _ln_backward(dy, xhat, rstd, w)
    return dx, (dy.float() * xhat).sum(0), dy.float().sum(0)


def _bias_gelu(x, b):
    import torch

    return torch.nn.functional.gelu(x + b, approximate="tanh")


def _bias_cast_gelu(x, b):
    # Autocast's Linear: the f32 bias cast to bf16 before it is added.
    import torch

    return torch.nn.functional.gelu(x + b.to(x.dtype), approximate="tanh")


def _softmax(x):
    import torch

    return torch.softmax(x, dim=-1), torch.logsumexp(x, dim=-1)


def _pointwise(x):
    import torch

    a = torch.erf(x) * torch.sigmoid(x) + torch.tanh(0.1 * x)
    b = torch.where(x > 0, torch.sqrt(x.abs()), torch.log(x.abs() + 1.0))
    return a, b, torch.amax(torch.relu(x), dim=-1)


def _column_sums(dy, x):
    import torch

    # A bias and a weight gradient of a norm, and a max and mean over rows:
    # first stages in the kernel that makes their input, one per K rows.
    g = dy.float() * x
    return dy.float().sum(0), g.sum(0), torch.amax(g, dim=0), (g * 0.5 + x).mean(0)


def _weight_cast(w):
    import torch

    return w.to(torch.bfloat16), (w * 0.5).to(torch.bfloat16).float()


def _gemm_bias_sums(x, w, b):
    # A projection's bias add with the column sums of its result: a column
    # vector and partial sums over 16 rows in the GEMM's epilogue.
    y = x @ w + b
    return y, y.float().sum(0)


def _gemm_bias_erf_gelu(x, w, b):
    # A product only a bias + exact GELU reads: no partial sums.
    import torch

    return torch.nn.functional.gelu(x @ w + b)


def _gemm_bias_gelu_and_product(x, w, b):
    # A product read by a bias + tanh GELU and by another op (an MLP's
    # pre-activation, which its backward reads): the epilogue stores both.
    import torch

    h = x @ w
    return torch.nn.functional.gelu(h + b, approximate="tanh"), h


def _gemm_gelu_backward(dy, w, pre, b):
    # An MLP's GELU backward in the epilogue of its second layer's input
    # gradient (dy @ w), the pre-activation staged in shared memory: the
    # gradient and its column sums (the bias gradient). (The train step's
    # region also recomputes the activation; the train-step checks run it.)
    import torch

    g = torch.ops.aten.gelu_backward(dy @ w, pre + b, approximate="tanh")
    return g, g.float().sum(0)


def _gemm_gelu_backward_no_sums(dy, w, pre, b):
    # The same without the column sums: rows no group of 16 divides.
    import torch

    return torch.ops.aten.gelu_backward(dy @ w, pre + b, approximate="tanh")


# name -> (function, input shapes and dtypes); the references run the same
# functions in f64.
CASES: dict[str, tuple[Callable[..., Any], list[tuple[tuple[int, ...], str]]]] = {
    "ln_fwd_1001x768": (_ln_forward, [((1001, 768), "float32"), ((1001, 768), "bfloat16"), ((768,), "float32"), ((768,), "float32")]),
    "ln_bwd_37x520": (_ln_backward, [((37, 520), "bfloat16"), ((37, 520), "float32"), ((37, 1), "float32"), ((520,), "float32")]),
    "ln_bwd_sums_16384x768": (_ln_backward_with_sums, [((16384, 768), "bfloat16"), ((16384, 768), "float32"), ((16384, 1), "float32"), ((768,), "float32")]),
    "ln_bwd_sums_16400x520": (_ln_backward_with_sums, [((16400, 520), "bfloat16"), ((16400, 520), "float32"), ((16400, 1), "float32"), ((520,), "float32")]),
    "ln_bwd_sums_16384x2048": (_ln_backward_with_sums, [((16384, 2048), "bfloat16"), ((16384, 2048), "float32"), ((16384, 1), "float32"), ((2048,), "float32")]),
    "bias_gelu_bf16_300x2052": (_bias_gelu, [((300, 2052), "bfloat16"), ((2052,), "bfloat16")]),
    "bias_cast_gelu_bf16_300x2304": (_bias_cast_gelu, [((300, 2304), "bfloat16"), ((2304,), "float32")]),
    "softmax_513x96": (_softmax, [((513, 96), "float32")]),
    "pointwise_65x1000": (_pointwise, [((65, 1000), "float32")]),
    "weight_cast_64x32000": (_weight_cast, [((64, 32000), "float32")]),
    "column_sums_16384x520": (_column_sums, [((16384, 520), "bfloat16"), ((16384, 520), "float32")]),
    "column_sums_1000x64": (_column_sums, [((1000, 64), "bfloat16"), ((1000, 64), "float32")]),
    "gemm_bias_sums_16384x2304x768": (_gemm_bias_sums, [((16384, 768), "bfloat16"), ((768, 2304), "bfloat16"), ((2304,), "bfloat16")]),
    "gemm_bias_sums_1008x776x200": (_gemm_bias_sums, [((1008, 200), "bfloat16"), ((200, 776), "bfloat16"), ((776,), "bfloat16")]),
    "gemm_bias_erf_gelu_1000x520x96": (_gemm_bias_erf_gelu, [((1000, 96), "bfloat16"), ((96, 520), "bfloat16"), ((520,), "bfloat16")]),
    "gemm_bias_gelu_and_product_1000x520x96": (_gemm_bias_gelu_and_product, [((1000, 96), "bfloat16"), ((96, 520), "bfloat16"), ((520,), "bfloat16")]),
    "gemm_bias_gelu_and_product_16384x3072x768": (_gemm_bias_gelu_and_product, [((16384, 768), "bfloat16"), ((768, 3072), "bfloat16"), ((3072,), "bfloat16")]),
    "gemm_gelu_backward_16384x3072x768": (_gemm_gelu_backward, [((16384, 768), "bfloat16"), ((768, 3072), "bfloat16"), ((16384, 3072), "bfloat16"), ((3072,), "bfloat16")]),
    "gemm_gelu_backward_1008x520x96": (_gemm_gelu_backward, [((1008, 96), "bfloat16"), ((96, 520), "bfloat16"), ((1008, 520), "bfloat16"), ((520,), "bfloat16")]),
    "gemm_gelu_backward_no_sums_1000x264x200": (_gemm_gelu_backward_no_sums, [((1000, 200), "bfloat16"), ((200, 264), "bfloat16"), ((1000, 264), "bfloat16"), ((264,), "bfloat16")]),
}


def _example(shapes, device: str = "cpu", seed: int = 0):
    import torch

    gen = torch.Generator(device=device).manual_seed(seed)
    out = []
    for i, (shape, dtype) in enumerate(shapes):
        t = torch.randn(shape, generator=gen, device=device) * (1.0 + i)
        if len(shape) == 2 and shape[1] == 1:
            t = t.abs() + 0.5  # an rstd
        out.append(t.to(getattr(torch, dtype)))
    return out


def prepare(out: Path, target: str) -> None:
    from nova import capture, compiler
    from nova.importer import import_to_torch_mlir
    from nova.runtime.iree_compile import compile_to_vmfb

    out.mkdir(parents=True, exist_ok=True)
    arch = target.split(":", 1)[1]
    cases = []
    for name, (fn, shapes) in CASES.items():
        captured = capture.capture_function(fn, _example(shapes))
        text = import_to_torch_mlir(captured)
        for stage in ("convert-torch-to-nova", "nova-optimize", PIPELINE.format(arch=arch)):
            text = compiler.run_pipeline(text, stage, allow_unregistered_dialects=True)
        kernels = sorted({p.split("::", 1)[0] for p in text.split("entry_points = [@")[1:]})
        expected = "_e0x" if name.startswith("gemm_") else "fused_rows"
        if not any(expected in k for k in kernels) or "nova.fused" in text:
            raise RuntimeError(f"{name}: not on Nova's {expected} kernels: {kernels}")
        text = compiler.run_pipeline(text, "builtin.module()", allow_unregistered_dialects=True, generic_output=True)
        (out / f"{name}.vmfb").write_bytes(compile_to_vmfb(text, target))
        cases.append({"name": name, "kernels": kernels})
        print(name, kernels, flush=True)
    (out / "cases.json").write_text(json.dumps({"target": target, "cases": cases}, indent=1))


def run(directory: Path, iters: int) -> int:
    import torch

    from nova.runtime import Session

    spec = json.loads((directory / "cases.json").read_text())

    def first_row(case: dict) -> dict:
        return {"bench": "fused_rows_check", "name": case["name"], "kernels": len(case["kernels"])}

    def check(case: dict, row: dict) -> None:
        name = case["name"]
        fn, shapes = CASES[name]
        inputs = _example(shapes, device="cuda", seed=len(name))
        session = Session((directory / f"{name}.vmfb").read_bytes(), "cuda")
        got = [session.to_torch(v) for v in session.invoke("main", *inputs)]
        torch.cuda.synchronize()
        ref = fn(*[t.double() for t in inputs])
        ref = ref if isinstance(ref, tuple) else (ref,)
        row["nan_or_inf"] = int(sum((~torch.isfinite(v.float())).sum() for v in got))
        errs, ok = [], row["nan_or_inf"] == 0
        for v, r in zip(got, ref):
            err = float((v.double() - r).abs().max() / r.abs().max())
            errs.append(err)
            tolerance = TOLERANCE[str(v.dtype).removeprefix("torch.")]
            ok &= err < (GEMM_TOLERANCE if name.startswith("gemm_") else tolerance)
        row["max_rel_err"] = errs
        start = time.perf_counter()
        for _ in range(iters):
            session.invoke("main", *inputs)
        torch.cuda.synchronize()
        row["ms_per_call"] = (time.perf_counter() - start) / max(iters, 1) * 1e3
        row["ok"] = bool(ok and len(got) == len(ref))

    return kernel_check_cli.run_cases(spec["cases"], first_row, check)

if __name__ == "__main__":
    sys.exit(kernel_check_cli.main(__doc__, prepare, run, "fused-rows-check", iters=3))
