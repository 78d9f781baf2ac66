"""Nova's sm_90 fused attention kernels (forward and backward) on the H200:
every case against an f64 reference (forward output, log-sum-exp, dQ, dK,
dV) on random data, with NaN-poisoned outputs, odd sequence lengths, head
dim 128 and no causal mask, bf16 and f32 under TF32, and in the models' layout ("packed": q, k, v
read from the qkv projection [B, T, 3 H D], out and the gradients written
as [B, T, H D] rows). Speed is `nova bench attention`'s.

Build box (compiler installed):
    .venv/bin/python tools/attention_check.py prepare --out bench-artifacts/attention-check
GPU box (torch + iree.runtime + python/nova only):
    . tools/device/gpu-env.sh && python tools/attention_check.py run --dir bench-artifacts/attention-check
"""

from __future__ import annotations

import json
import math
import sys
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kernel_check_cli  # noqa: E402

# (name, B, H, T, D, causal, packed, dtype); f32 runs in TF32 ("high").
CASES = [
    ("gpt42m", 32, 8, 512, 64, True, False, "bf16"),
    ("gpt146m", 16, 12, 1024, 64, True, False, "bf16"),
    ("odd_t200", 2, 3, 200, 64, True, False, "bf16"),
    ("odd_t333_d128", 1, 2, 333, 128, True, False, "bf16"),
    ("d128", 8, 8, 1024, 128, True, False, "bf16"),
    ("noncausal_t300", 2, 4, 300, 64, False, False, "bf16"),
    ("noncausal_t1000_d128", 2, 2, 1000, 128, False, False, "bf16"),
    ("packed_gpt42m", 32, 8, 512, 64, True, True, "bf16"),
    ("packed_odd_t333_h3", 3, 3, 333, 64, True, True, "bf16"),
    ("packed_t300_d128", 2, 4, 300, 128, True, True, "bf16"),
    ("tf32_gpt42m", 32, 8, 512, 64, True, False, "f32"),
    ("tf32_odd_t201", 2, 3, 201, 64, True, False, "f32"),
    ("tf32_noncausal_t300", 2, 4, 300, 64, False, False, "f32"),
    ("tf32_packed_gpt42m", 32, 8, 512, 64, True, True, "f32"),
    ("tf32_packed_odd_t333_h3", 3, 3, 333, 64, True, True, "f32"),
    # Head dim 128: the forward kernel with one Q tile, the backward decomposed.
    ("tf32_d128", 4, 4, 1024, 128, True, False, "f32"),
    ("tf32_odd_t333_d128", 1, 2, 333, 128, True, False, "f32"),
    ("tf32_packed_noncausal_t300_d128", 2, 2, 300, 128, False, True, "f32"),
]

# Every case is compiled in the kernels' static block-major order; these
# also with their work handed out in groups of heads (the default; kernels
# `..._hg<G>`) as "<name>_hg", on the same data, and run twice: the second
# launches find the item counters the first left at zero. A "_hg" case
# passes only if its out, lse, dK and dV equal the static kernels' bit for
# bit (each item's arithmetic is the same); dQ, accumulated by atomic adds
# in another order, may differ, and how far is reported.
HEAD_GROUP_CASES = ("gpt42m", "gpt146m", "odd_t200", "d128", "noncausal_t300", "packed_gpt42m", "tf32_odd_t333_d128",
                    "packed_odd_t333_h3", "tf32_gpt42m", "tf32_packed_odd_t333_h3")

# Max |error| / max |reference|, the reference in f64 on the same inputs:
# bf16 operands and outputs. f32 runs TF32 products (inputs, P and dS
# rounded to TF32): within 5e-4, or within 1.5x the error of torch's own
# attention at TF32 (cuBLAS TF32 matmuls, f32 softmax) on the same inputs,
# reported next to it: rounding the inputs alone costs about that much.
TOLERANCE = {"bf16": 2e-2, "f32": 5e-4}
TORCH_TF32_FACTOR = 1.5


def torch_tf32(q, k, v, do, causal: bool, scale: float):
    """out, lse, dq, dk, dv of torch's math attention with TF32 matmuls."""
    import torch

    from nova.attention_bench import math_attention

    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        return math_attention(q, k, v, do, causal, scale)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous


def prepare(out: Path, target: str) -> None:
    from nova.attention_bench import compile_case

    out.mkdir(parents=True, exist_ok=True)
    cases = []
    variants = [(case, False) for case in CASES] + [(c, True) for c in CASES if c[0] in HEAD_GROUP_CASES]
    for (name, b, h, t, d, causal, packed, dtype), head_groups in variants:
        # The TF32 backward kernel takes head dim 64 only (the configurator).
        backward_kernel = not (dtype == "f32" and d == 128)
        vmfb, kernels = compile_case(b, h, t, d, causal, target, packed, dtype, backward_kernel, head_groups)
        if head_groups:
            name += "_hg"
            assert any("fwd" in k and "_hg" in k for k in kernels), kernels
        (out / f"{name}.vmfb").write_bytes(vmfb)
        cases.append(
            {
                "name": name,
                "b": b,
                "h": h,
                "t": t,
                "d": d,
                "causal": causal,
                "packed": packed,
                "dtype": dtype,
                "head_groups": head_groups,
                "kernels": kernels,
            }
        )
        print(name, kernels, flush=True)
    (out / "cases.json").write_text(json.dumps({"target": target, "cases": cases}, indent=1))
    print(f"wrote {len(cases)} cases to {out}")


def run(directory: Path, iters: int) -> int:
    import torch

    from nova.attention_bench import max_rel_err, pack_heads, random_operands, reference
    from nova.runtime import Session

    del iters  # correctness only
    spec = json.loads((directory / "cases.json").read_text())
    static_results: dict[str, list] = {}  # each static case's results, for its "_hg" twin

    def first_row(case: dict) -> dict:
        keys = ("b", "h", "t", "d", "causal", "dtype")
        return {"bench": "attention_check", "case": case["name"], **{k: case[k] for k in keys}}

    def check(case: dict, row: dict) -> None:
        b, h, t, d, causal = case["b"], case["h"], case["t"], case["d"], case["causal"]
        dtype = case["dtype"]
        twin = case["name"].removesuffix("_hg")  # the same data as its static twin
        q, k, v, do = random_operands(b, h, t, d, seed=zlib.crc32(twin.encode()), dtype=dtype)
        ref = reference(q, k, v, do, causal, 1 / math.sqrt(d))
        session = Session((directory / f"{case['name']}.vmfb").read_bytes(), "cuda")

        def launch() -> list:
            if case.get("packed"):
                # out [B, T, H D], lse, dqkv [B, T, 3 H D] back to [B, H, T, D] heads.
                y, lse, dqkv = (
                    session.to_torch(x)
                    for x in session.invoke("main", pack_heads(q, k, v), pack_heads(do).flatten(0, 1))
                )
                heads = lambda rows: rows.unflatten(2, (-1, d)).transpose(1, 2)  # noqa: E731
                got = [heads(y), lse, *(heads(part) for part in dqkv.chunk(3, dim=2))]
            else:
                got = [session.to_torch(x) for x in session.invoke("main", q, k, v, do)]
            torch.cuda.synchronize()
            return got

        names = ("out", "lse", "dq", "dk", "dv")
        row["nan_or_inf"] = 0
        row["max_rel_err"] = dict.fromkeys(names, 0.0)
        for _ in range(2 if case.get("head_groups") else 1):
            got = launch()
            row["nan_or_inf"] += int(sum((~torch.isfinite(x.float())).sum() for x in got))
            for n, x, r in zip(names, got, ref):
                row["max_rel_err"][n] = max(row["max_rel_err"][n], max_rel_err(x, r))
        if case.get("head_groups") and twin in static_results:
            row["max_abs_diff_vs_static"] = {
                n: float((x.float() - y.to(x.device).float()).abs().max())
                for n, x, y in zip(names, got, static_results[twin])
            }
        elif not case.get("head_groups"):
            static_results[case["name"]] = [x.cpu() for x in got]
        within = all(e < TOLERANCE[dtype] for e in row["max_rel_err"].values())
        if dtype == "f32":
            baseline = torch_tf32(q, k, v, do, causal, 1 / math.sqrt(d))
            row["torch_tf32_max_rel_err"] = {n: max_rel_err(x, r) for n, x, r in zip(names, baseline, ref)}
            within = all(
                e < max(TOLERANCE[dtype], TORCH_TF32_FACTOR * row["torch_tf32_max_rel_err"][n])
                for n, e in row["max_rel_err"].items()
            )
        same_as_static = all(
            diff == 0 for n, diff in row.get("max_abs_diff_vs_static", {}).items() if n != "dq"
        )
        row["ok"] = row["nan_or_inf"] == 0 and within and same_as_static

    return kernel_check_cli.run_cases(spec["cases"], first_row, check)

if __name__ == "__main__":
    sys.exit(kernel_check_cli.main(__doc__, prepare, run, "attention-check", iters=1))
