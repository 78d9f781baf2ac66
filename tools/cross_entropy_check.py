"""Nova's softmax cross-entropy row kernels (forward and backward, and the
two fused: nova.cross_entropy_with_grad) on the H200: every case against an
f64 reference (per-row loss, lse, gradient of the logits) on random data,
with NaN-poisoned outputs, ignored rows, class counts that only narrow loads
divide, i32 targets and every logits dtype. The "_inplace" cases make their
logits inside the function (x + x), so the gradient is written over them;
the caller's tensor must stay as it was. The gpt-head cases (16384 x 32000) are
also timed: their kernels' CUPTI time per call ("kernel_us"), the fused
kernel with the configurator's choice and with other threads/loads in
flight ("_t<threads>_u<loads>").

Build box (compiler installed):
    .venv/bin/python tools/cross_entropy_check.py prepare --out bench-artifacts/cross-entropy-check
GPU box (torch + iree.runtime + python/nova only):
    . tools/device/gpu-env.sh && python tools/cross_entropy_check.py run --dir bench-artifacts/cross-entropy-check
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kernel_check_cli  # noqa: E402

# (name, N, C, logits dtype, target dtype); "fused_" cases are one
# nova.cross_entropy_with_grad, "_t<threads>_u<loads>[_o<CTAs an SM>]" with
# that config.
CASES = [
    ("gpt_head", 16384, 32000, "bf16", "i64"),
    ("gpt_head_inplace", 16384, 32000, "bf16", "i64"),
    ("rows_64", 64, 32000, "bf16", "i64"),
    ("odd_c1001_f16", 37, 1001, "f16", "i64"),
    ("c10_f32_i32", 5, 10, "f32", "i32"),
    ("c4098_f32", 300, 4098, "f32", "i64"),
    ("c4098_f32_inplace", 300, 4098, "f32", "i64"),
    ("fused_gpt_head", 16384, 32000, "bf16", "i64"),
    ("fused_gpt_head_inplace", 16384, 32000, "bf16", "i64"),
    ("fused_gpt_head_inplace_t512_u4", 16384, 32000, "bf16", "i64"),
    ("fused_gpt_head_inplace_t1024_u4", 16384, 32000, "bf16", "i64"),
    ("fused_gpt_head_inplace_t1024_u4_o2", 16384, 32000, "bf16", "i64"),
    ("fused_rows_64", 64, 32000, "bf16", "i64"),
    ("fused_odd_c1001_f16", 37, 1001, "f16", "i64"),
    ("fused_c10_f32_i32", 5, 10, "f32", "i32"),
    ("fused_c4098_f32_inplace", 300, 4098, "f32", "i64"),
]
TIMED_ROWS = 16384
IGNORE = -100
TOLERANCE = {"bf16": 2e-2, "f16": 5e-3, "f32": 1e-5}
PIPELINE = (
    "builtin.module(nova-configure-kernels{{target={arch}}}, "
    "convert-nova-to-iree-kernels{{poison-outputs=true}}, "
    "convert-nova-to-linalg, canonicalize, cse)"
)


def case_form(name: str) -> tuple[bool, bool, str]:
    """(fused, in place, explicit lowering_config attributes or "")."""
    fused, in_place = name.startswith("fused_"), "_inplace" in name
    m = re.search(r"_t(\d+)_u(\d+)(?:_o(\d+))?$", name)
    config = ""
    if m:
        threads, unroll, ctas = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
        config = (f", lowering_config = #nova.lowering_config<tile_sizes = [1, 8, 1], warp_layout = [{threads // 32}, 1],"
                  f" mma_shape = [1, 1, 1], pipeline_stages = {unroll}, swizzle = 0, kernel = \"cross_entropy_rows\","
                  f" precision = \"bf16\", min_ctas_per_sm = {ctas}>")
    return fused, in_place, config


def module_text(name: str, n: int, c: int, dtype: str, target: str) -> str:
    fused, in_place, config = case_form(name)
    x, t, rows = f"tensor<{n}x{c}x{dtype}>", f"tensor<{n}x{target}>", f"tensor<{n}xf32>"
    # In place: logits made here (x + x: exact, and no fold makes them the
    # argument again, which IREE then overwrites), read last by the gradient.
    make = f"  %l = nova.add %x, %x : {x}\n" if in_place else ""
    logits = "%l" if in_place else "%x"
    if fused:
        body = (f"  %loss, %lse, %dx = nova.cross_entropy_with_grad {logits}, %t, %g"
                f" {{ignore_index = {IGNORE}{config}}} : {x}, {t}, {rows} -> {rows}, {rows}, {x}\n")
    else:
        body = (
            f"  %loss, %lse = nova.cross_entropy {logits}, %t {{ignore_index = {IGNORE}}} : {x}, {t} -> {rows}, {rows}\n"
            f"  %dx = nova.cross_entropy_backward %g, {logits}, %t, %lse {{ignore_index = {IGNORE}}}"
            f" : {rows}, {x}, {t}, {rows} -> {x}\n"
        )
    return (
        f"func.func @main(%x: {x}, %t: {t}, %g: {rows}) -> ({rows}, {rows}, {x}) {{\n{make}{body}"
        f"  return %loss, %lse, %dx : {rows}, {rows}, {x}\n}}\n"
    )


def prepare(out: Path, target: str) -> None:
    from nova import compiler
    from nova.runtime.iree_compile import compile_to_vmfb

    out.mkdir(parents=True, exist_ok=True)
    arch = target.split(":", 1)[1]
    cases = []
    for name, n, c, dtype, tdtype in CASES:
        fused, in_place, _ = case_form(name)
        text = compiler.run_pipeline(
            module_text(name, n, c, dtype, tdtype), PIPELINE.format(arch=arch), allow_unregistered_dialects=True
        )
        kernels = sorted({part.split("::", 1)[0] for part in text.split("entry_points = [@")[1:]})
        ce = [k for k in kernels if "cross_entropy" in k]
        expected = ["_fused_"] if fused else ["_bwd_", "_fwd_"]
        if [next((e for e in expected if e in k), None) for k in ce] != expected or any(
            k.endswith("_inplace") != (in_place and "_fwd_" not in k) for k in ce
        ):
            raise RuntimeError(f"{name}: not on Nova's cross-entropy kernels (in place: {in_place}): {kernels}")
        text = compiler.run_pipeline(text, "builtin.module()", allow_unregistered_dialects=True, generic_output=True)
        (out / f"{name}.vmfb").write_bytes(compile_to_vmfb(text, target))
        cases.append({"name": name, "n": n, "c": c, "dtype": dtype, "target": tdtype, "kernels": kernels})
        print(name, kernels, flush=True)
    (out / "cases.json").write_text(json.dumps({"target": target, "cases": cases}, indent=1))


def reference(x, t, g):
    """loss, lse, grad in f64."""
    import torch

    x64 = x.double()
    lse = torch.logsumexp(x64, dim=1)
    valid = t != IGNORE
    safe = torch.where(valid, t, 0).long()
    loss = torch.where(valid, lse - x64.gather(1, safe.unsqueeze(1)).squeeze(1), 0.0)
    p = torch.exp(x64 - lse.unsqueeze(1))
    onehot = torch.nn.functional.one_hot(safe, x.shape[1]).double()
    grad = torch.where(valid, g.double(), 0.0).unsqueeze(1) * (p - onehot)
    return loss, lse, grad


def run(directory: Path, iters: int) -> int:
    import torch

    from nova.runtime import Session

    del iters
    dtypes = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
    spec = json.loads((directory / "cases.json").read_text())

    def first_row(case: dict) -> dict:
        return {"bench": "cross_entropy_check", **{k: case[k] for k in ("name", "n", "c", "dtype", "target")}}

    def check(case: dict, row: dict) -> None:
        n, c = case["n"], case["c"]
        gen = torch.Generator(device="cuda").manual_seed(n * 7 + c)
        x = (4 * torch.randn(n, c, device="cuda", generator=gen)).to(dtypes[case["dtype"]])
        t = torch.randint(0, c, (n,), device="cuda", generator=gen)
        t[1::4] = IGNORE  # rows 1, 5, ...: never all of them
        t = t.to(torch.int32 if case["target"] == "i32" else torch.int64)
        g = torch.rand(n, device="cuda", generator=gen) + 0.5
        session = Session((directory / f"{case['name']}.vmfb").read_bytes(), "cuda")
        x_before = x.clone()
        got = [session.to_torch(v) for v in session.invoke("main", x, t, g)]
        torch.cuda.synchronize()
        row["input_unchanged"] = bool(torch.equal(x, x_before))
        ref = reference(x + x if case_form(case["name"])[1] else x, t, g)
        row["nan_or_inf"] = int(sum((~torch.isfinite(v.float())).sum() for v in got))
        errs = {}
        for name, v, r in zip(("loss", "lse", "grad"), got, ref):
            errs[name] = float((v.double() - r).abs().max() / r.abs().max())
        # Per-row gradient sums are 0 (softmax minus one-hot): the bias a
        # wrong lse would leave.
        errs["grad_row_sum"] = float(got[2].double().sum(dim=1).abs().max() / ref[2].abs().max())
        row["max_rel_err"] = errs
        tol = TOLERANCE[case["dtype"]]
        row["ok"] = row["nan_or_inf"] == 0 and max(errs.values()) < tol and row["input_unchanged"]
        if n == TIMED_ROWS:
            row["kernel_us"] = kernel_us(session, x, t, g)

    def kernel_us(session, x, t, g) -> float:
        """CUPTI time of the case's cross-entropy kernels per call."""
        from torch.profiler import ProfilerActivity, profile

        for _ in range(3):
            session.invoke("main", x, t, g)
        torch.cuda.synchronize()
        calls = 10
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                session.invoke("main", x, t, g)
            torch.cuda.synchronize()
        return sum(e.device_time for e in prof.events()
                   if e.device_type == torch.autograd.DeviceType.CUDA and "cross_entropy" in e.name) / calls

    return kernel_check_cli.run_cases(spec["cases"], first_row, check)

if __name__ == "__main__":
    sys.exit(kernel_check_cli.main(__doc__, prepare, run, "cross-entropy-check", iters=1))
