"""nova.scatter_add on CUDA (Nova's own kernel) vs torch's index_add_.

Build box (compiler installed): compile the standalone scatter_add modules
    .venv/bin/python tools/scatter_check.py prepare --out bench-artifacts/scatter-check
GPU box (torch + iree.runtime + python/nova only):
    . tools/device/gpu-env.sh && python tools/scatter_check.py run --dir bench-artifacts/scatter-check

Each case is `@main(dest f32[V,D], indices i64[N], updates f32[N,D]) -> f32[V,D]`;
inputs are generated on the GPU from the seed in cases.json (nothing big is
carried). `run` checks the result against `dest.clone().index_add_(0, idx, upd)`
over the in-range indices, checks that `dest` (a device argument) is left
untouched, and times the call against torch's index_add_.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import kernel_check_cli

CASES = [
    # gpt-42m's token-embedding backward: 16384 tokens into 32000 x 512.
    {"name": "gpt42m-embedding", "V": 32000, "D": 512, "N": 16384, "hot_rows": 512, "bad": 0, "seed": 0},
    # Out-of-range rows (-1, V, big) are skipped; many repeats of few rows.
    {"name": "small-bad-indices", "V": 100, "D": 3, "N": 1000, "hot_rows": 5, "bad": 50, "seed": 1},
    # One row, heavy contention on every element.
    {"name": "one-row", "V": 1, "D": 1024, "N": 4096, "hot_rows": 1, "bad": 0, "seed": 2},
]

MODULE = """
func.func @main(%d: tensor<{V}x{D}xf32>, %i: tensor<{N}xi64>, %u: tensor<{N}x{D}xf32>) -> tensor<{V}x{D}xf32> {{
  %0 = nova.scatter_add %d[%i], %u : tensor<{V}x{D}xf32>, tensor<{N}xi64>, tensor<{N}x{D}xf32> -> tensor<{V}x{D}xf32>
  return %0 : tensor<{V}x{D}xf32>
}}
"""


def prepare(out: Path, target: str) -> None:
    from nova import compiler
    from nova.pipeline import linalg_pipeline
    from nova.runtime.iree_compile import compile_to_vmfb

    out.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        text = compiler.run_pipeline(
            MODULE.format(**case), linalg_pipeline(target), allow_unregistered_dialects=True
        )
        assert '"flow.dispatch"' in text and "iree_linalg_ext.scatter" not in text, "kernel path not taken"
        text = compiler.run_pipeline(text, "builtin.module()", allow_unregistered_dialects=True, generic_output=True)
        (out / f"{case['name']}.vmfb").write_bytes(compile_to_vmfb(text, target))
    (out / "cases.json").write_text(json.dumps({"target": target, "cases": CASES}, indent=1))
    print(f"wrote {len(CASES)} cases to {out}")


def _inputs(case: dict, torch):
    g = torch.Generator(device="cuda").manual_seed(case["seed"])
    V, D, N = case["V"], case["D"], case["N"]
    idx = torch.randint(0, V, (N,), generator=g, device="cuda")
    hot = torch.randint(0, case["hot_rows"], (N,), generator=g, device="cuda")
    idx = torch.where(torch.rand(N, generator=g, device="cuda") < 0.5, hot, idx)
    if case["bad"]:
        bad = torch.tensor([-1, V, V + 7, -(2**40), 2**40], device="cuda")
        pos = torch.randperm(N, generator=g, device="cuda")[: case["bad"]]
        idx[pos] = bad[torch.arange(case["bad"], device="cuda") % len(bad)]
    dest = torch.randn(V, D, generator=g, device="cuda")
    upd = torch.randn(N, D, generator=g, device="cuda")
    return dest, idx.to(torch.int64), upd


def run(directory: Path, iters: int) -> int:
    import torch

    from nova.runtime import Session

    spec = json.loads((directory / "cases.json").read_text())
    failed = 0
    for case in spec["cases"]:
        session = Session((directory / f"{case['name']}.vmfb").read_bytes(), "cuda")
        dest, idx, upd = _inputs(case, torch)
        dest_before = dest.clone()
        (got,) = session.invoke("main", dest, idx, upd)
        got = session.to_torch(got)
        torch.cuda.synchronize()
        ok_rows = (idx >= 0) & (idx < case["V"])
        want = dest.clone().index_add_(0, idx[ok_rows], upd[ok_rows])
        err = ((got - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()
        untouched = torch.equal(dest, dest_before)

        def timed(fn) -> float:
            fn()
            torch.cuda.synchronize()
            t = time.perf_counter()
            for _ in range(iters):
                fn()
            torch.cuda.synchronize()
            return (time.perf_counter() - t) / iters * 1e3

        nova_ms = timed(lambda: session.invoke("main", dest, idx, upd))
        torch_ms = timed(lambda: dest.clone().index_add_(0, idx[ok_rows], upd[ok_rows]))
        ok = err < 1e-5 and untouched
        failed += not ok
        print(
            json.dumps(
                {"case": case["name"], "ok": ok, "max_rel_err": err, "dest_untouched": untouched,
                 "nova_ms": round(nova_ms, 4), "torch_index_add_ms": round(torch_ms, 4)}
            )
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(kernel_check_cli.main(__doc__, prepare, run, "scatter-check", iters=20))
