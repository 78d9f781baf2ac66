"""Nova's sm_90 GEMM kernel (TMA + wgmma) on the H200: every config class
against an f64 reference, on random data, with NaN-poisoned outputs and odd
shapes; times next to cuBLAS (device time of all of each side's kernels per
call, through CUPTI).

Build box (compiler installed):
    .venv/bin/python tools/gemm_check.py prepare --out bench-artifacts/gemm-check
GPU box (torch + iree.runtime + python/nova only):
    . tools/device/gpu-env.sh && python tools/gemm_check.py run --dir bench-artifacts/gemm-check

Each case is `@main(lhs, rhs) -> result` with one nova.matmul in the layout
given (`tl`: lhs stored [K, M]; `tr`: rhs stored [N, K]). A case with a
`config` pins that #nova.lowering_config (a config class the configurator
might not pick for the shape); the others are configured for sm_90.
"""

from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path

import kernel_check_cli

# Ping-pong configs: one warp group per tile (stages as fit beside two C tiles).
PP128 = dict(tile=(128, 128), consumers=1, stages=6, kernel="wgmma_tma_pingpong", persistent=132, raster=8)
PP64 = dict(tile=(64, 256), consumers=1, stages=4, kernel="wgmma_tma_pingpong", persistent=132, raster=8)
# Cooperative 128x256 tiles at 4 stages (what fits beside the epilogue's box
# rings) and at 3.
COOP = dict(tile=(128, 256), consumers=2, stages=4, persistent=132, raster=16)
COOP3 = dict(COOP, stages=3)
# Stream-K over a persistent grid of 132 (the configurator does not choose it).
SK = dict(tile=(128, 192), consumers=2, stages=4, kernel="wgmma_tma_stream_k", persistent=132, raster=4)

# (name, dtype, out dtype, batch, M, N, K, tl, tr, config or None); dtype
# f32 runs TF32, f32x3 exact f32.
CASES = [
    ("fwd-bf16", "bf16", "bf16", 1, 4096, 3072, 768, False, True, None),
    ("dgrad-bf16-nn", "bf16", "bf16", 1, 4096, 768, 3072, False, False, None),
    ("wgrad-bf16-tn-f32out", "bf16", "f32", 1, 768, 768, 16384, True, False, None),
    ("head-bf16", "bf16", "bf16", 1, 2048, 32000, 512, False, True, None),
    ("odd-bf16", "bf16", "bf16", 1, 1000, 1000, 1000, False, True, None),
    ("tiny-odd-bf16-kpad", "bf16", "f32", 1, 77, 130, 100, False, True, None),
    ("batched-bf16-qk", "bf16", "bf16", 64, 512, 512, 64, False, True, None),
    ("batched-bf16-pv", "bf16", "bf16", 64, 512, 64, 512, False, False, None),
    ("tile64x64-bf16", "bf16", "f32", 1, 300, 200, 256, False, True,
     dict(tile=(64, 64), consumers=1, stages=3)),
    ("tile256x128-bf16", "bf16", "bf16", 1, 1024, 1024, 512, False, True,
     dict(tile=(256, 128), consumers=2, stages=4, raster=4)),
    ("splitk3-bf16", "bf16", "bf16", 1, 256, 384, 4000, True, False,
     dict(tile=(128, 128), consumers=2, stages=4, split=3)),
    ("persistent-raster-bf16", "bf16", "f32", 2, 1000, 1500, 520, False, True,
     dict(tile=(128, 192), consumers=2, stages=4, persistent=20, raster=2)),
    # M = 100 rows are not 16-byte multiples: A is transposed, B read MN-major.
    ("tn-odd-m-bf16", "bf16", "bf16", 1, 100, 72, 256, True, False, None),
    # gpt-146m's MLP weight gradients (96 tiles of 128x192: 0.73 of a wave),
    # and the same split in 4 over a persistent grid with 2-CTA clusters
    # (384 CTAs): on the H200 the whole tiles ran at ~570 TFLOP/s, the split
    # one 530 with its partials' sum (2026-12-03); the configurator chooses
    # stream-K (671 and 685, 2026-12-04).
    ("wgrad-bf16-768x3072", "bf16", "bf16", 1, 768, 3072, 16384, True, False, None),
    ("wgrad-bf16-3072x768", "bf16", "bf16", 1, 3072, 768, 16384, True, False, None),
    ("wgrad-bf16-768x3072-split4", "bf16", "bf16", 1, 768, 3072, 16384, True, False,
     dict(tile=(128, 192), consumers=2, stages=3, split=4, persistent=132, cluster=2, raster=4)),
    # Stream-K (pinned; the configurator's choice for the weight gradients
    # above): the weight gradients, odd edges with a K
    # tail, batches with direct f32 stores, TF32 and exact f32 (one
    # consumer); then onto 5 CTAs for 6 tiles of 64 K steps, so that a CTA
    # runs a tile's end, a whole tile and the next one's start, and tiles are
    # split in three.
    ("sk-wgrad-bf16-768x3072", "bf16", "bf16", 1, 768, 3072, 16384, True, False, SK),
    ("sk-wgrad-bf16-3072x768", "bf16", "bf16", 1, 3072, 768, 16384, True, False, dict(SK, raster=8)),
    ("sk-odd-bf16", "bf16", "bf16", 1, 1000, 520, 15000, True, False, SK),
    ("sk-batched-f32out", "bf16", "f32", 3, 333, 517, 4000, False, True, dict(SK, stages=5, raster=2)),
    ("sk-tf32", "f32", "f32", 1, 768, 768, 16384, False, True, SK),
    ("sk-f32-exact", "f32x3", "f32", 1, 768, 768, 4096, False, True,
     dict(tile=(64, 128), consumers=1, stages=7, kernel="wgmma_tma_stream_k", persistent=132, raster=8)),
    ("sk-pinned5-bf16", "bf16", "bf16", 1, 300, 200, 4096, False, True,
     dict(tile=(128, 128), consumers=2, stages=4, kernel="wgmma_tma_stream_k", persistent=5, raster=2)),
    # Ping-pong (two consumers taking alternate tiles): odd edges, batches,
    # MN-major operands, TF32; then gpt-146m's short-K shapes in each tile.
    ("pp128x128-odd-bf16", "bf16", "bf16", 1, 1000, 1000, 1000, False, True, PP128),
    ("pp64x256-odd-f32out", "bf16", "f32", 3, 333, 517, 136, False, False, PP64),
    ("pp128x128-tn-bf16", "bf16", "bf16", 1, 768, 3072, 4096, True, False, PP128),
    ("pp128x128-odd-tf32", "f32", "f32", 1, 333, 517, 129, False, True, PP128),
    ("coop-16384x768x768", "bf16", "bf16", 1, 16384, 768, 768, False, True, COOP),
    ("coop3-16384x768x768", "bf16", "bf16", 1, 16384, 768, 768, False, True, COOP3),
    ("pp128x128-16384x768x768", "bf16", "bf16", 1, 16384, 768, 768, False, True, PP128),
    ("coop-16384x3072x768", "bf16", "bf16", 1, 16384, 3072, 768, False, True, COOP),
    ("coop3-16384x3072x768", "bf16", "bf16", 1, 16384, 3072, 768, False, True, COOP3),
    ("pp128x128-16384x3072x768", "bf16", "bf16", 1, 16384, 3072, 768, False, True, PP128),
    ("coop-16384x768x3072", "bf16", "bf16", 1, 16384, 768, 3072, False, False, COOP),
    ("coop3-16384x768x3072", "bf16", "bf16", 1, 16384, 768, 3072, False, False, COOP3),
    ("pp128x128-16384x768x3072", "bf16", "bf16", 1, 16384, 768, 3072, False, False, PP128),
    ("coop-16384x3072x768-nn", "bf16", "bf16", 1, 16384, 3072, 768, False, False, COOP),
    ("pp128x128-16384x3072x768-nn", "bf16", "bf16", 1, 16384, 3072, 768, False, False, PP128),
    ("tf32-16384x3072x768", "f32", "f32", 1, 16384, 3072, 768, False, True, None),
    ("tf32-16384x768x3072", "f32", "f32", 1, 16384, 768, 3072, False, True, None),
    ("fwd-tf32", "f32", "f32", 1, 4096, 3072, 768, False, True, None),
    ("wgrad-tf32-tn", "f32", "f32", 1, 768, 768, 16384, True, False, None),
    ("odd-tf32-kpad", "f32", "f32", 1, 333, 517, 129, False, False, None),
    ("batched-tf32", "f32", "f32", 16, 512, 512, 64, False, True, None),
    ("splitk2-tf32", "f32", "f32", 1, 200, 264, 3000, False, True,
     dict(tile=(128, 128), consumers=2, stages=4, split=2)),
    # TF32 operands stored MN-major, transposed (and rounded) by the GEMM in
    # shared memory: weight and input gradients; M, N and K tails (TMA
    # zero fill) with both operands or one (M = 102 is not a 16-byte row: A
    # goes through the transpose kernel); batches; a 64x64 tile (two boxes
    # of one operand for three transposer warps); split-K, stream-K and
    # ping-pong.
    # Where the model moves a transpose to memory: the input gradient's
    # weight, and the 768-row operand of a 3072x768 weight gradient (its
    # A stays MN-major, "mk").
    ("dgrad-tf32-nn", "f32", "f32", 1, 16384, 768, 3072, False, False, None),
    ("wgrad-tf32-3072x768-tn", "f32", "f32", 1, 3072, 768, 16384, True, False, None),
    ("tf32-tn-odd", "f32", "f32", 1, 100, 72, 260, True, False, None),
    ("tf32-tn-mixed", "f32", "f32", 1, 102, 72, 260, True, False, None),
    ("batched-tf32-nn", "f32", "f32", 4, 256, 200, 96, False, False, None),
    ("tile64x64-tf32-tn", "f32", "f32", 1, 300, 200, 256, True, False,
     dict(tile=(64, 64), consumers=1, stages=3)),
    ("splitk2-tf32-tn", "f32", "f32", 1, 200, 264, 3000, True, False,
     dict(tile=(128, 128), consumers=2, stages=4, split=2)),
    ("sk-tf32-tn", "f32", "f32", 1, 768, 768, 16384, True, False, SK),
    ("pp128x128-tf32-nn", "f32", "f32", 1, 1000, 1000, 1000, False, False, PP128),
    # Exact f32 (torch's "highest"): hi*hi + hi*lo + lo*hi in one TF32 GEMM.
    ("fwd-f32-exact", "f32x3", "f32", 1, 4096, 3072, 768, False, True, None),
    ("wgrad-f32-exact-tn", "f32x3", "f32", 1, 768, 768, 16384, True, False, None),
    ("odd-f32-exact", "f32x3", "f32", 3, 333, 517, 129, False, False, None),
    # 2-CTA clusters (B multicast; the kernel's name ends in _x2): the model's
    # input gradient (B MN-major, two of four boxes a CTA) and forward (B
    # K-major, half the rows a CTA), cooperative and ping-pong; fewer
    # clusters than tile pairs with batches, a K tail and f32 out; TF32.
    ("cluster-coop-16384x768x3072-nn", "bf16", "bf16", 1, 16384, 768, 3072, False, False, dict(COOP, cluster=2)),
    ("cluster-pp128-16384x3072x768", "bf16", "bf16", 1, 16384, 3072, 768, False, True, dict(PP128, cluster=2)),
    ("cluster-few-ctas-f32out", "bf16", "f32", 2, 1024, 640, 200, False, True,
     dict(tile=(128, 128), consumers=2, stages=4, persistent=6, cluster=2, raster=4)),
    ("cluster-pp-nn-batched", "bf16", "bf16", 3, 512, 256, 136, False, False,
     dict(PP128, cluster=2, persistent=4)),
    ("cluster-pp128-tf32", "f32", "f32", 1, 512, 384, 256, False, True, dict(PP128, cluster=2, persistent=4)),
]

# The MLIR element type and f32-matmul-precision of each case dtype.
ELEMENT = {"bf16": "bf16", "f32": "f32", "f32x3": "f32"}
PRECISION = {"bf16": "high", "f32": "high", "f32x3": "highest"}

def _case(spec: tuple) -> dict:
    name, dtype, out, batch, m, n, k, tl, tr, config = spec
    return {"name": name, "dtype": dtype, "out": out, "batch": batch, "m": m, "n": n, "k": k,
            "tl": tl, "tr": tr, "config": config}


def _shapes(case: dict) -> tuple[list[int], list[int], list[int]]:
    pre = [case["batch"]] if case["batch"] > 1 else []
    m, n, k = case["m"], case["n"], case["k"]
    lhs = pre + ([k, m] if case["tl"] else [m, k])
    rhs = pre + ([n, k] if case["tr"] else [k, n])
    return lhs, rhs, pre + [m, n]


def _config_attr(case: dict) -> str:
    c = case["config"]
    bk = 64 if case["dtype"] == "bf16" else 32
    mma_k = 16 if case["dtype"] == "bf16" else 8
    precision = {"bf16": "bf16", "f32": "tf32", "f32x3": "tf32x3"}[case["dtype"]]
    bm, bn = c["tile"]
    return (
        f"#nova.lowering_config<tile_sizes = [{bm}, {bn}, {bk}], warp_layout = [{c['consumers']}, 1], "
        f"mma_shape = [64, {bn}, {mma_k}], pipeline_stages = {c['stages']}, swizzle = 128, "
        f'kernel = "{c.get("kernel", "wgmma_tma")}", precision = "{precision}", producer_warpgroups = 1, '
        f"cluster_m = {c.get('cluster', 1)}, split_k = {c.get('split', 1)}, "
        f"persistent_ctas = {c.get('persistent', 0)}, "
        f"raster_group = {c.get('raster', 1)}>"
    )


def module_text(case: dict) -> str:
    lhs, rhs, out = _shapes(case)

    def ty(shape: list[int], dtype: str) -> str:
        return "tensor<" + "x".join(map(str, shape)) + f"x{dtype}>"

    attrs = [name for name, on in (("transpose_lhs", case["tl"]), ("transpose_rhs", case["tr"])) if on]
    if case["config"]:
        attrs.append("lowering_config = " + _config_attr(case))
    attr_text = " {" + ", ".join(attrs) + "}" if attrs else ""
    element = ELEMENT[case["dtype"]]
    a, b, c = ty(lhs, element), ty(rhs, element), ty(out, case["out"])
    return (
        f"func.func @main(%a: {a}, %b: {b}) -> {c} {{\n"
        f"  %0 = nova.matmul %a, %b{attr_text} : {a}, {b} -> {c}\n"
        f"  return %0 : {c}\n}}\n"
    )


PIPELINE = (
    "builtin.module(nova-configure-kernels{{target={arch} f32-matmul-precision={precision}}}, "
    "convert-nova-to-iree-kernels{{poison-outputs=true gemm-stmatrix={stmatrix}}}, "
    "convert-nova-to-linalg, canonicalize, cse)"
)


def prepare(out: Path, target: str) -> None:
    from nova import compiler
    from nova.pipeline import gemm_stmatrix_enabled
    from nova.runtime.iree_compile import compile_to_vmfb

    out.mkdir(parents=True, exist_ok=True)
    arch = target.split(":", 1)[1]
    stmatrix = str(gemm_stmatrix_enabled()).lower()
    cases = [_case(spec) for spec in CASES]
    for case in cases:
        pipeline = PIPELINE.format(arch=arch, precision=PRECISION[case["dtype"]], stmatrix=stmatrix)
        text = compiler.run_pipeline(module_text(case), pipeline, allow_unregistered_dialects=True)
        assert "nova_gemm_" in text, f"{case['name']}: the GEMM kernel path was not taken"
        config = text.split("entry_points = [@", 1)[1].split("::", 1)[0]
        assert config.endswith("_x2") or not case["name"].startswith("cluster-"), (case["name"], config)
        case["kernel"] = config
        text = compiler.run_pipeline(text, "builtin.module()", allow_unregistered_dialects=True, generic_output=True)
        (out / f"{case['name']}.vmfb").write_bytes(compile_to_vmfb(text, target))
        print(case["name"], config, flush=True)
    (out / "cases.json").write_text(json.dumps({"target": target, "cases": cases}, indent=1))
    print(f"wrote {len(cases)} cases to {out}")


TOLERANCE = {("bf16", "bf16"): 1e-2, ("bf16", "f32"): 1e-4, ("f32", "f32"): 5e-4, ("f32x3", "f32"): 1e-5}


def _torch_matmul(case: dict, torch):
    tl, tr = case["tl"], case["tr"]

    def fn(a, b):
        a = a.transpose(-1, -2) if tl else a
        b = b.transpose(-1, -2) if tr else b
        return torch.matmul(a, b)

    return fn


def run(directory: Path, iters: int) -> int:
    import torch

    from nova.bench import device_ms_per_kernel
    from nova.runtime import Session

    spec = json.loads((directory / "cases.json").read_text())

    def first_row(case: dict) -> dict:
        return {"case": case["name"], "kernel": case["kernel"]}

    def check(case: dict, row: dict) -> None:
        lhs_shape, rhs_shape, _ = _shapes(case)
        dtype = torch.bfloat16 if case["dtype"] == "bf16" else torch.float32
        # cuBLAS as the case's precision: TF32 for tf32, SGEMM for exact f32.
        torch.backends.cuda.matmul.allow_tf32 = case["dtype"] == "f32"
        g = torch.Generator(device="cuda").manual_seed(zlib.crc32(case["name"].encode()))
        a = torch.randn(lhs_shape, device="cuda", generator=g).to(dtype)
        b = torch.randn(rhs_shape, device="cuda", generator=g).to(dtype)
        matmul = _torch_matmul(case, torch)
        reference = matmul(a.double(), b.double())
        session = Session((directory / f"{case['name']}.vmfb").read_bytes(), "cuda")
        got = session.to_torch(session.invoke("main", a, b)[0]).double()
        torch.cuda.synchronize()
        row["nan_or_inf"] = int((~torch.isfinite(got)).sum())
        row["max_rel_err"] = float((got - reference).abs().max() / reference.abs().max())
        cublas = matmul(a, b).double()
        row["cublas_max_rel_err"] = float((cublas - reference).abs().max() / reference.abs().max())
        tol = TOLERANCE[(case["dtype"], case["out"])]
        row["ok"] = row["nan_or_inf"] == 0 and row["max_rel_err"] < tol
        flops = 2.0 * case["batch"] * case["m"] * case["n"] * case["k"]
        # The GEMM kernel alone: the poison fill and layout glue are not the kernel's.
        nova = device_ms_per_kernel(lambda: session.invoke("main", a, b), iters)
        gemm_ms = sum(ms for name, ms in nova.items() if name.startswith("nova_gemm"))
        cublas_ms = sum(device_ms_per_kernel(lambda: matmul(a, b), iters).values())
        # A split-K GEMM's second stage sums its f32 partials: part of the GEMM.
        reduce_ms = (sum(ms for name, ms in nova.items() if not name.startswith("nova_gemm") and "reduction" in name)
                     if "_partial_" in case["kernel"] else 0.0)
        row.update(gemm_tflops=flops / gemm_ms / 1e9, cublas_tflops=flops / cublas_ms / 1e9,
                   split_reduce_ms=reduce_ms, gemm_with_reduce_tflops=flops / (gemm_ms + reduce_ms) / 1e9,
                   other_kernels_ms=sum(nova.values()) - gemm_ms)
        row["gemm_vs_cublas"] = row["gemm_tflops"] / row["cublas_tflops"]
        # Once more on new data after the timed calls: state a kernel keeps
        # between calls (stream-K's flags, left zero by each call) must not
        # leak into the next.
        a = torch.randn(lhs_shape, device="cuda", generator=g).to(dtype)
        b = torch.randn(rhs_shape, device="cuda", generator=g).to(dtype)
        reference = matmul(a.double(), b.double())
        got = session.to_torch(session.invoke("main", a, b)[0]).double()
        row["repeat_max_rel_err"] = float((got - reference).abs().max() / reference.abs().max())
        row["ok"] = row["ok"] and row["repeat_max_rel_err"] < tol

    return kernel_check_cli.run_cases(spec["cases"], first_row, check)

if __name__ == "__main__":
    sys.exit(kernel_check_cli.main(__doc__, prepare, run, "gemm-check", iters=10))
