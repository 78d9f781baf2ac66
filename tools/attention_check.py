"""Nova's sm_90 fused attention kernels (forward and backward) on the H200:
every case against an f64 reference (forward output, log-sum-exp, dQ, dK,
dV) on random data, with NaN-poisoned outputs and odd sequence lengths;
times next to torch SDPA with the cuDNN and the flash backends (device time
of each side's kernels per call, through CUPTI).

Build box (compiler installed):
    .venv/bin/python tools/attention_check.py prepare --out bench-artifacts/attention-check
GPU box (torch + iree.runtime + python/nova only):
    . tools/device/gpu-env.sh && python tools/attention_check.py run --dir bench-artifacts/attention-check

Each case is `@main(q, k, v, dout) -> (out, lse, dq, dk, dv)`: one
nova.attention and its nova.attention_backward on bf16 [B, H, T, D].
FLOPs as FlashAttention counts them: forward 4 B H T^2 D (halved when
causal), backward 2.5 times that.
"""

from __future__ import annotations

import json
import math
import sys
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kernel_check_cli  # noqa: E402

# (name, B, H, T, D, causal)
CASES = [
    ("gpt42m", 32, 8, 512, 64, True),
    ("gpt146m", 16, 12, 1024, 64, True),
    ("t2048", 8, 16, 2048, 64, True),
    ("t4096", 4, 16, 4096, 64, True),
    ("odd_t200", 2, 3, 200, 64, True),
    ("odd_t333_d128", 1, 2, 333, 128, True),
    ("d128", 8, 8, 1024, 128, True),
    ("noncausal_t300", 2, 4, 300, 64, False),
]


def _case(spec: tuple) -> dict:
    name, b, h, t, d, causal = spec
    return {"name": name, "b": b, "h": h, "t": t, "d": d, "causal": causal}


def module_text(case: dict) -> str:
    b, h, t, d = case["b"], case["h"], case["t"], case["d"]
    x = f"tensor<{b}x{h}x{t}x{d}xbf16>"
    lse = f"tensor<{b}x{h}x{t}xf32>"
    attrs = ("causal, " if case["causal"] else "") + f"scale = {1 / math.sqrt(d)!r} : f64"
    return (
        f"func.func @main(%q: {x}, %k: {x}, %v: {x}, %do: {x}) -> ({x}, {lse}, {x}, {x}, {x}) {{\n"
        f"  %o, %lse = nova.attention %q, %k, %v {{{attrs}}} : {x}, {x}, {x} -> {x}, {lse}\n"
        f"  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %lse {{{attrs}}}"
        f" : {x}, {x}, {x}, {x}, {x}, {lse} -> {x}, {x}, {x}\n"
        f"  return %o, %lse, %dq, %dk, %dv : {x}, {lse}, {x}, {x}, {x}\n}}\n"
    )


PIPELINE = (
    "builtin.module(nova-configure-kernels{{target={arch}}}, "
    "convert-nova-to-iree-kernels{{poison-outputs=true}}, "
    "convert-nova-to-linalg, canonicalize, cse)"
)


def prepare(out: Path, target: str) -> None:
    from nova import compiler
    from nova.runtime.iree_compile import compile_to_vmfb

    out.mkdir(parents=True, exist_ok=True)
    arch = target.split(":", 1)[1]
    cases = [_case(spec) for spec in CASES]
    for case in cases:
        text = compiler.run_pipeline(module_text(case), PIPELINE.format(arch=arch), allow_unregistered_dialects=True)
        kernels = sorted(set(part.split("::", 1)[0] for part in text.split("entry_points = [@")[1:]))
        assert any("attention_fwd" in k for k in kernels) and any("attention_bwd" in k for k in kernels), (
            f"{case['name']}: the attention kernel path was not taken"
        )
        case["kernels"] = kernels
        text = compiler.run_pipeline(text, "builtin.module()", allow_unregistered_dialects=True, generic_output=True)
        (out / f"{case['name']}.vmfb").write_bytes(compile_to_vmfb(text, target))
        print(case["name"], kernels, flush=True)
    (out / "cases.json").write_text(json.dumps({"target": target, "cases": cases}, indent=1))
    print(f"wrote {len(cases)} cases to {out}")


TOLERANCE = 2e-2  # bf16 operands and outputs; the reference is f64


def _reference(q, k, v, do, causal: bool, scale: float):
    import torch

    q, k, v = (x.double().requires_grad_() for x in (q, k, v))
    s = (q @ k.transpose(-1, -2)) * scale
    if causal:
        t = s.shape[-1]
        mask = torch.ones(t, t, dtype=torch.bool, device=s.device).tril()
        s = s.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    out = torch.softmax(s, dim=-1) @ v
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), do.double())
    return out.detach(), lse.detach(), dq, dk, dv


def _rel(got, ref) -> float:
    return float((got.double() - ref).abs().max() / ref.abs().max())


def run(directory: Path, iters: int) -> int:
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    from nova.bench import device_ms_per_kernel
    from nova.runtime import Session

    spec = json.loads((directory / "cases.json").read_text())
    failed = 0
    for case in spec["cases"]:
        b, h, t, d, causal = case["b"], case["h"], case["t"], case["d"], case["causal"]
        scale = 1 / math.sqrt(d)
        g = torch.Generator(device="cuda").manual_seed(zlib.crc32(case["name"].encode()))
        q, k, v, do = (torch.randn(b, h, t, d, device="cuda", generator=g).to(torch.bfloat16) for _ in range(4))
        row = {"bench": "attention_check", "case": case["name"], "b": b, "h": h, "t": t, "d": d, "causal": causal}
        try:
            ref = _reference(q, k, v, do, causal, scale)
            session = Session((directory / f"{case['name']}.vmfb").read_bytes(), "cuda")
            got = [session.to_torch(x) for x in session.invoke("main", q, k, v, do)]
            torch.cuda.synchronize()
            row["nan_or_inf"] = int(sum((~torch.isfinite(x.float())).sum() for x in got))
            errors = {n: _rel(x, r) for n, x, r in zip(("out", "lse", "dq", "dk", "dv"), got, ref)}
            row["max_rel_err"] = errors
            row["ok"] = row["nan_or_inf"] == 0 and max(errors.values()) < TOLERANCE
            fwd_flops = 4.0 * b * h * t * t * d * (0.5 if causal else 1.0)
            nova = device_ms_per_kernel(lambda: session.invoke("main", q, k, v, do), iters)
            fwd_ms = sum(ms for n, ms in nova.items() if n.startswith("nova_attention_fwd"))
            bwd_ms = sum(ms for n, ms in nova.items() if n.startswith("nova_attention_bwd"))
            row.update(nova_fwd_tflops=fwd_flops / fwd_ms / 1e9, nova_bwd_tflops=2.5 * fwd_flops / bwd_ms / 1e9,
                       nova_other_ms=sum(nova.values()) - fwd_ms - bwd_ms)
            for backend, label in ((SDPBackend.CUDNN_ATTENTION, "cudnn"), (SDPBackend.FLASH_ATTENTION, "flash")):
                with sdpa_kernel(backend):
                    qq, kk, vv = (x.detach().requires_grad_() for x in (q, k, v))
                    o = sdpa(qq, kk, vv, is_causal=causal)
                    peer_err = _rel(o, ref[0])
                    f = device_ms_per_kernel(lambda: sdpa(qq, kk, vv, is_causal=causal), iters)
                    bw = device_ms_per_kernel(
                        lambda: torch.autograd.grad(o, (qq, kk, vv), do, retain_graph=True), iters
                    )
                row[f"{label}_fwd_tflops"] = fwd_flops / sum(f.values()) / 1e9
                row[f"{label}_bwd_tflops"] = 2.5 * fwd_flops / sum(bw.values()) / 1e9
                row[f"{label}_out_rel_err"] = peer_err
        except Exception as e:  # a failed case is reported, the others still run
            row.update(ok=False, error=f"{type(e).__name__}: {e}"[:400])
        failed += not row["ok"]
        print(json.dumps(row), flush=True)
    print(json.dumps({"cases": len(spec["cases"]), "failed": failed}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(kernel_check_cli.main(__doc__, prepare, run, "attention-check", iters=10))
