"""`nova bench attention`: Nova's fused attention kernels next to torch SDPA,
forward and backward, same run, same GPU: bf16 next to SDPA's cuDNN and flash
backends, TF32 (f32 operands, torch's "high" matmul precision) next to its
memory-efficient backend and its math backend (TF32 matmuls), the two that
take f32.

Each case is one nova module `@main(q, k, v, dout) -> (out, lse, dq, dk, dv)`
(a nova.attention and its nova.attention_backward on bf16 [B, H, T, D], or
f32 computed in TF32),
compiled for the target on the build box (`nova bench prepare --attention`).
Times are the device time per call of each side's attention kernels (CUPTI);
FLOPs as FlashAttention counts them: forward 4 B H T^2 D (halved when
causal), backward 2.5 times that. Errors are against an f64 reference.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

# The two models' attention (B, H, T, D), then longer sequences; all causal.
ATTENTION_SHAPES: list[tuple[int, int, int, int]] = [
    (32, 8, 512, 64),
    (16, 12, 1024, 64),
    (8, 16, 2048, 64),
    (4, 16, 4096, 64),
]


# Each dtype's SDPA peers: (backend name in torch.nn.attention.SDPBackend, label).
PEERS = {
    "bf16": (("CUDNN_ATTENTION", "cudnn"), ("FLASH_ATTENTION", "flash")),
    "tf32": (("EFFICIENT_ATTENTION", "efficient"), ("MATH", "math")),
}


def case_name(b: int, h: int, t: int, d: int, causal: bool, dtype: str = "bf16") -> str:
    suffix = "" if dtype == "bf16" else f"-{dtype}"
    return f"attention-b{b}-h{h}-t{t}-d{d}{'-causal' if causal else ''}{suffix}"


def module_text(b: int, h: int, t: int, d: int, causal: bool, packed: bool = False, dtype: str = "bf16") -> str:
    """`@main(q, k, v, dout) -> (out, lse, dq, dk, dv)` on [B, H, T, D] of
    `dtype` (bf16 or f32); with `packed`, the model's layout instead:
    `@main(qkv [B, T, 3 H D], dout [B T, H D]) -> (out [B, T, H D], lse, dqkv
    [B, T, 3 H D])`, q, k, v the transposed head views of qkv (what a GPT's
    attention captures as)."""
    x = f"tensor<{b}x{h}x{t}x{d}x{dtype}>"
    lse = f"tensor<{b}x{h}x{t}xf32>"
    attrs = ("causal, " if causal else "") + f"scale = {1 / math.sqrt(d)!r} : f64"
    attention = (
        f"  %o, %lse = nova.attention %q, %k, %v {{{attrs}}} : {x}, {x}, {x} -> {x}, {lse}\n"
        f"  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %lse {{{attrs}}}"
        f" : {x}, {x}, {x}, {x}, {x}, {lse} -> {x}, {x}, {x}\n"
    )
    if not packed:
        return (
            f"func.func @main(%q: {x}, %k: {x}, %v: {x}, %do: {x}) -> ({x}, {lse}, {x}, {x}, {x}) {{\n"
            + attention
            + f"  return %o, %lse, %dq, %dk, %dv : {x}, {lse}, {x}, {x}, {x}\n}}\n"
        )
    c = h * d
    rows = f"tensor<{b}x{t}x{c}x{dtype}>"
    qkv = f"tensor<{b}x{t}x{3 * c}x{dtype}>"
    tokens = f"tensor<{b}x{t}x{h}x{d}x{dtype}>"
    heads = "permutation = [0, 2, 1, 3]"
    lines = [f"func.func @main(%qkv: {qkv}, %g: tensor<{b * t}x{c}x{dtype}>) -> ({rows}, {lse}, {qkv}) {{"]
    for i, name in enumerate("qkv"):
        lines += [
            f"  %{name}0 = nova.slice %qkv[0:{b}:1, 0:{t}:1, {i * c}:{(i + 1) * c}:1] : {qkv} -> {rows}",
            f"  %{name}1 = nova.reshape %{name}0 : {rows} -> {tokens}",
            f"  %{name} = nova.transpose %{name}1 {heads} : {tokens} -> {x}",
        ]
    lines += [
        f"  %do1 = nova.reshape %g : tensor<{b * t}x{c}x{dtype}> -> {tokens}",
        f"  %do = nova.transpose %do1 {heads} : {tokens} -> {x}",
        attention.rstrip("\n"),
        f"  %y1 = nova.transpose %o {heads} : {x} -> {tokens}",
        f"  %y = nova.reshape %y1 : {tokens} -> {rows}",
    ]
    for name in ("dq", "dk", "dv"):
        lines += [
            f"  %{name}1 = nova.transpose %{name} {heads} : {x} -> {tokens}",
            f"  %{name}2 = nova.reshape %{name}1 : {tokens} -> {rows}",
        ]
    lines += [
        f"  %dqkv = nova.concat %dq2, %dk2, %dv2 dim = 2 : ({rows}, {rows}, {rows}) -> {qkv}",
        f"  return %y, %lse, %dqkv : {rows}, {lse}, {qkv}",
        "}",
    ]
    return "\n".join(lines) + "\n"


def pack_heads(*xs):
    """[B, H, T, D] tensors as one [B, T, n H D] (the packed layout's rows)."""
    import torch

    return torch.cat([x.transpose(1, 2).flatten(2) for x in xs], dim=2)


# f32 operands run under torch's "high" precision: TF32.
# As nova-lower-to-linalg configures a step: an attention op Nova has no
# kernel for is decomposed, and its matmuls configured in turn.
_PIPELINE = (
    "builtin.module(nova-configure-kernels{{target={arch} f32-matmul-precision=high{groups}}}, "
    "nova-decompose-attention, nova-configure-kernels{{target={arch} f32-matmul-precision=high{groups}}}, "
    "convert-nova-to-iree-kernels{{poison-outputs=true}}, "
    "convert-nova-to-linalg, canonicalize, cse)"
)


def compile_case(
    b: int, h: int, t: int, d: int, causal: bool, target: str, packed: bool = False, dtype: str = "bf16",
    backward_kernel: bool = True, head_groups: bool = True,
) -> tuple[bytes, list[str]]:
    """The case's vmfb for `target` and the Nova kernels it dispatches; fails
    if the forward did not take Nova's kernel, or the backward did not (with
    `backward_kernel`) or did (without). `head_groups`: the kernels hand out
    their work in groups of heads (the default), else in their static
    block-major order (NOVA_ATTENTION_HEAD_GROUPS=0)."""
    from nova import compiler
    from nova.runtime.iree_compile import compile_to_vmfb

    arch = target.split(":", 1)[1]
    text = compiler.run_pipeline(
        module_text(b, h, t, d, causal, packed, dtype),
        _PIPELINE.format(arch=arch, groups=f" attention-head-groups={str(head_groups).lower()}"),
        allow_unregistered_dialects=True,
    )
    kernels = sorted({part.split("::", 1)[0] for part in text.split("entry_points = [@")[1:]})
    if not any("attention_fwd" in k for k in kernels):
        raise RuntimeError(f"{case_name(b, h, t, d, causal)}: no Nova attention kernel for {target}")
    if any("attention_bwd" in k for k in kernels) != backward_kernel:
        raise RuntimeError(f"{case_name(b, h, t, d, causal)}: the backward {'did not take' if backward_kernel else 'took'}"
                           f" Nova's kernel on {target}")
    text = compiler.run_pipeline(text, "builtin.module()", allow_unregistered_dialects=True, generic_output=True)
    return compile_to_vmfb(text, target), kernels


def prepare(out: Path, target: str) -> None:
    from nova.pipeline import attention_head_groups_enabled

    for dtype in PEERS:
        for b, h, t, d in ATTENTION_SHAPES:
            vmfb, _ = compile_case(b, h, t, d, True, target, dtype="f32" if dtype == "tf32" else dtype,
                                   head_groups=attention_head_groups_enabled())
            (out / f"{case_name(b, h, t, d, True, dtype)}.vmfb").write_bytes(vmfb)


def math_attention(q, k, v, do, causal: bool, scale: float):
    """out, lse, dq, dk, dv of plain attention (scores, softmax, autograd) in
    the operands' dtype, under torch's current matmul settings."""
    import torch

    q, k, v = (x.detach().requires_grad_() for x in (q, k, v))
    s = (q @ k.transpose(-1, -2)) * scale
    if causal:
        t = s.shape[-1]
        mask = torch.ones(t, t, dtype=torch.bool, device=s.device).tril()
        s = s.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    out = torch.softmax(s, dim=-1) @ v
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), do)
    return out.detach(), lse.detach(), dq, dk, dv


def reference(q, k, v, do, causal: bool, scale: float):
    """out, lse, dq, dk, dv in f64."""
    return math_attention(*(x.double() for x in (q, k, v, do)), causal, scale)


def max_rel_err(got, ref) -> float:
    return float((got.detach().double() - ref).abs().max() / ref.abs().max())


def random_operands(b: int, h: int, t: int, d: int, seed: int, dtype: str = "bf16"):
    import torch

    g = torch.Generator(device="cuda").manual_seed(seed)
    torch_dtype = torch.bfloat16 if dtype == "bf16" else torch.float32
    return [torch.randn(b, h, t, d, device="cuda", generator=g).to(torch_dtype) for _ in range(4)]


def bench(artifacts: Path, iters: int) -> list[dict[str, Any]]:
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    from nova.bench import device_ms_per_kernel
    from nova.runtime import Session

    rows = []
    # The math backend's matmuls in TF32, as torch runs f32 attention at "high".
    torch.backends.cuda.matmul.allow_tf32 = True
    for dtype, (b, h, t, d) in ((dt, shape) for dt in PEERS for shape in ATTENTION_SHAPES):
        path = artifacts / f"{case_name(b, h, t, d, True, dtype)}.vmfb"
        if not path.exists():  # artifacts prepared before the TF32 cases
            continue
        causal, scale = True, 1 / math.sqrt(d)
        q, k, v, do = random_operands(b, h, t, d, seed=t, dtype="f32" if dtype == "tf32" else dtype)
        ref = reference(q, k, v, do, causal, scale)
        fwd_flops = 4.0 * b * h * t * t * d * (0.5 if causal else 1.0)
        row: dict[str, Any] = {"bench": "attention", "dtype": dtype, "b": b, "h": h, "t": t, "d": d, "causal": causal}
        session = Session(path.read_bytes(), "cuda")
        got = [session.to_torch(x) for x in session.invoke("main", q, k, v, do)]
        row["nova_err"] = {n: max_rel_err(x, r) for n, x, r in zip(("out", "lse", "dq", "dk", "dv"), got, ref)}
        nova = device_ms_per_kernel(lambda: session.invoke("main", q, k, v, do), iters)
        fwd_ms = sum(ms for n, ms in nova.items() if n.startswith("nova_attention_fwd"))
        bwd_ms = sum(ms for n, ms in nova.items() if n.startswith("nova_attention_bwd"))
        row.update(nova_fwd_tflops=fwd_flops / fwd_ms / 1e9, nova_bwd_tflops=2.5 * fwd_flops / bwd_ms / 1e9)
        for backend, label in PEERS[dtype]:
            try:
                with sdpa_kernel(getattr(SDPBackend, backend)):
                    qq, kk, vv = (x.detach().requires_grad_() for x in (q, k, v))
                    o = sdpa(qq, kk, vv, is_causal=causal)
                    grads = torch.autograd.grad(o, (qq, kk, vv), do, retain_graph=True)
                    row[f"{label}_err"] = {
                        n: max_rel_err(x, r)
                        for n, x, r in zip(("out", "dq", "dk", "dv"), (o, *grads), (ref[0], *ref[2:]))
                    }
                    f = device_ms_per_kernel(lambda: sdpa(qq, kk, vv, is_causal=causal), iters)
                    bw = device_ms_per_kernel(
                        lambda: torch.autograd.grad(o, (qq, kk, vv), do, retain_graph=True), iters
                    )
            except RuntimeError as e:  # a backend that does not take this case: a row that says so
                row[f"{label}_error"] = str(e)[:300]
                continue
            row[f"{label}_fwd_tflops"] = fwd_flops / sum(f.values()) / 1e9
            row[f"{label}_bwd_tflops"] = 2.5 * fwd_flops / sum(bw.values()) / 1e9
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def report(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    for dtype, ((_, first), (_, second)) in PEERS.items():
        chosen = [r for r in rows if r.get("dtype", "bf16") == dtype]
        if not chosen:
            continue
        out += [
            f"Attention ({dtype}, causal), TFLOP/s of each side's attention kernels (CUPTI), forward / backward; "
            "max relative error of dq against f64.\n",
            f"| B | H | T | D | Nova | {first} | {second} | Nova / {first} | Nova dq err | {first} dq err |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        def pair(r: dict[str, Any], side: str) -> str:
            if f"{side}_fwd_tflops" not in r:
                return "failed"
            return f"{r[side + '_fwd_tflops']:.0f} / {r[side + '_bwd_tflops']:.0f}"

        for r in chosen:
            ratio = (
                f"{r['nova_fwd_tflops'] / r[first + '_fwd_tflops']:.2f} / "
                f"{r['nova_bwd_tflops'] / r[first + '_bwd_tflops']:.2f}"
                if f"{first}_fwd_tflops" in r
                else "-"
            )
            first_err = f"{r[first + '_err']['dq']:.1e}" if f"{first}_err" in r else "-"
            out.append(
                f"| {r['b']} | {r['h']} | {r['t']} | {r['d']} | {pair(r, 'nova')} | {pair(r, first)} "
                f"| {pair(r, second)} | {ratio} | {r['nova_err']['dq']:.1e} | {first_err} |"
            )
        out.append("")
    return out
