"""Nova's multi-tensor AdamW kernel on the H200 against torch.optim.AdamW run
in f64 on the same state, on random data with odd sizes (runs that end
inside a block, groups past the kernel's 14 tensors, bf16 gradients); times
one update of all tensors next to torch's fused AdamW (device time of all of
each side's kernels per call, through CUPTI).

Build box (compiler installed):
    .venv/bin/python tools/adamw_check.py prepare --out bench-artifacts/adamw-check
GPU box (torch + iree.runtime + python/nova only):
    . tools/device/gpu-env.sh && python tools/adamw_check.py run --dir bench-artifacts/adamw-check

Each case is `@main(step, lr, weight_decay, beta1, beta2, eps, (param, grad,
exp_avg, exp_avg_sq) per tensor) -> (new param, exp_avg, exp_avg_sq) per
tensor`, f32 state, compiled as a train step's updates are
(`state-in-place`): the kernel writes into the state it is given, here
copies of the case's tensors, so an element it missed keeps its old value
and fails the comparison.
"""

from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path

import kernel_check_cli

# gpt-42m's parameters, in the order of its state (a tied 32000 x 512
# embedding; 8 blocks of two layer norms, qkv, proj, fc, fc2).
_GPT42M = [[32000, 512], [512, 512]] + [
    shape
    for _ in range(8)
    for shape in ([512], [512], [1536, 512], [1536], [512, 512], [512], [512], [512],
                  [2048, 512], [2048], [512, 2048], [512])
] + [[512], [512]]

CASES = [
    {"name": "odd-sizes", "shapes": [[1], [7], [1000], [1023], [1025], [3, 333], [4099]],
     "grad": "f32", "step": 1},
    # 15 tensors: five launches of 3.
    {"name": "two-groups", "shapes": [[257 * (i + 1)] for i in range(15)], "grad": "f32", "step": 7},
    {"name": "bf16-grads", "shapes": [[1536, 512], [1536], [77]], "grad": "bf16", "step": 3},
    {"name": "gpt42m-params", "shapes": _GPT42M, "grad": "f32", "step": 100},
]

HYPERS = {"lr": 3e-4, "weight_decay": 0.1, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8}


def module_text(case: dict) -> str:
    args = ["%step: tensor<f32>", "%lr: tensor<f32>", "%wd: tensor<f32>", "%b1: tensor<f32>",
            "%b2: tensor<f32>", "%eps: tensor<f32>"]
    body, results, types = [], [], []
    for i, shape in enumerate(case["shapes"]):
        t = "tensor<" + "x".join(map(str, shape)) + "xf32>"
        gt = t.replace("xf32>", f"x{case['grad']}>")
        args += [f"%p{i}: {t}", f"%g{i}: {gt}", f"%m{i}: {t}", f"%v{i}: {t}"]
        grad = f"%g{i}"
        if case["grad"] == "bf16":
            body.append(f"  %w{i} = nova.cast %g{i} : {gt} -> {t}")
            grad = f"%w{i}"
        body.append(
            f"  %np{i}, %nm{i}, %nv{i} = nova.adamw %p{i}, {grad}, %m{i}, %v{i} step(%step) lr(%lr) "
            f"betas(%b1, %b2) eps(%eps) weight_decay(%wd) : {t}"
        )
        results += [f"%np{i}", f"%nm{i}", f"%nv{i}"]
        types += [t] * 3
    return (
        f"func.func @main({', '.join(args)}) -> ({', '.join(types)}) {{\n" + "\n".join(body)
        + f"\n  return {', '.join(results)} : {', '.join(types)}\n}}\n"
    )


PIPELINE = (
    "builtin.module(nova-configure-kernels{{target={arch}}}, "
    "convert-nova-to-iree-kernels{{state-in-place=true}}, "
    "convert-nova-to-linalg, canonicalize, cse)"
)


def prepare(out: Path, target: str) -> None:
    from nova import compiler
    from nova.runtime.iree_compile import compile_to_vmfb

    out.mkdir(parents=True, exist_ok=True)
    arch = target.split(":", 1)[1]
    for case in CASES:
        text = compiler.run_pipeline(module_text(case), PIPELINE.format(arch=arch), allow_unregistered_dialects=True)
        launches = text.count('"flow.dispatch"(')
        expected = -(-len(case["shapes"]) // 3)
        assert launches == expected, f"{case['name']}: {launches} kernel launches, expected {expected}"
        case["kernels"] = sorted(set(part.split("::", 1)[0] for part in text.split("entry_points = [@")[1:]))
        text = compiler.run_pipeline(text, "builtin.module()", allow_unregistered_dialects=True, generic_output=True)
        (out / f"{case['name']}.vmfb").write_bytes(compile_to_vmfb(text, target))
        print(case["name"], case["kernels"], flush=True)
    (out / "cases.json").write_text(json.dumps({"target": target, "hypers": HYPERS, "cases": CASES}, indent=1))
    print(f"wrote {len(CASES)} cases to {out}")


def _state(case: dict, torch) -> list[tuple]:
    g = torch.Generator(device="cuda").manual_seed(zlib.crc32(case["name"].encode()))
    grad_dtype = torch.bfloat16 if case["grad"] == "bf16" else torch.float32
    state = []
    for shape in case["shapes"]:
        p = torch.randn(shape, device="cuda", generator=g)
        grad = (torch.randn(shape, device="cuda", generator=g) * 0.1).to(grad_dtype)
        m = torch.randn(shape, device="cuda", generator=g) * 0.01
        v = torch.rand(shape, device="cuda", generator=g) * 1e-3
        state.append((p, grad, m, v))
    return state


def _torch_adamw(state: list[tuple], step: int, hypers: dict, dtype, torch, fused: bool):
    """torch.optim.AdamW's step `step` over copies of `state` in `dtype`:
    (param, exp_avg, exp_avg_sq) per tensor, and the step as a callable for
    timing."""
    params = [torch.nn.Parameter(p.to(dtype).clone()) for p, _, _, _ in state]
    for param, (_, grad, _, _) in zip(params, state):
        param.grad = grad.to(dtype)
    opt = torch.optim.AdamW(params, lr=hypers["lr"], betas=(hypers["beta1"], hypers["beta2"]),
                            eps=hypers["eps"], weight_decay=hypers["weight_decay"], fused=fused,
                            foreach=False if not fused else None)
    for param, (_, _, m, v) in zip(params, state):
        opt.state[param] = {"step": torch.tensor(float(step - 1), device="cuda" if fused else "cpu"),
                            "exp_avg": m.to(dtype).clone(), "exp_avg_sq": v.to(dtype).clone()}
    opt.step()
    return [(p.detach(), opt.state[p]["exp_avg"], opt.state[p]["exp_avg_sq"]) for p in params], opt.step


def run(directory: Path, iters: int) -> int:
    import torch

    from nova.bench import device_ms_per_kernel
    from nova.runtime import Session

    spec = json.loads((directory / "cases.json").read_text())
    hypers = spec["hypers"]

    def first_row(case: dict) -> dict:
        return {"case": case["name"], "tensors": len(case["shapes"]), "kernels": case["kernels"]}

    def check(case: dict, row: dict) -> None:
        state = _state(case, torch)
        step = case["step"]
        reference, _ = _torch_adamw(state, step, hypers, torch.float64, torch, fused=False)
        scalars = [torch.tensor(float(x), device="cuda") for x in
                   (step, hypers["lr"], hypers["weight_decay"], hypers["beta1"], hypers["beta2"], hypers["eps"])]
        # Copies: the kernel updates its arguments in place.
        args = scalars + [t.clone() for entry in state for t in entry]
        session = Session((directory / f"{case['name']}.vmfb").read_bytes(), "cuda")
        got = [session.to_torch(x).double() for x in session.invoke("main", *args)]
        torch.cuda.synchronize()
        errors = {"param": 0.0, "exp_avg": 0.0, "exp_avg_sq": 0.0}
        for i, ref in enumerate(reference):
            for j, name in enumerate(errors):
                err = float((got[3 * i + j] - ref[j]).abs().max() / ref[j].abs().max())
                errors[name] = max(errors[name], err)
        row.update({f"max_rel_err_{k}": v for k, v in errors.items()})
        row["nan_or_inf"] = int(sum((~torch.isfinite(x)).sum() for x in got))
        row["ok"] = row["nan_or_inf"] == 0 and max(errors.values()) < 1e-5
        nova = device_ms_per_kernel(lambda: session.invoke("main", *args), iters)
        # The update kernels; IREE's copies of the argument buffers are not theirs.
        row["nova_ms"] = sum(ms for name, ms in nova.items() if name.startswith("nova_adamw"))
        row["nova_other_ms"] = sum(nova.values()) - row["nova_ms"]
        _, fused_step = _torch_adamw(state, step, hypers, torch.float32, torch, fused=True)
        row["torch_fused_ms"] = sum(device_ms_per_kernel(fused_step, iters).values())

    return kernel_check_cli.run_cases(spec["cases"], first_row, check)


if __name__ == "__main__":
    sys.exit(kernel_check_cli.main(__doc__, prepare, run, "adamw-check", iters=10))
