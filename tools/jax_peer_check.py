"""Checks the JAX peer of `nova bench train` (nova.jax_gpt) against torch.

From the same weights and batch (bench's train_setup): the f32 loss and
gradients of JAX's GPT against the torch model's, and the parameters after
`--steps` AdamW steps (optax's and the jax.numpy fallback) against
torch.optim.AdamW with bench's hyperparameters. The torch side runs on the CPU
in f32; JAX runs on its default backend (CPU here, the GPU on the GPU box),
every dot at precision "highest". On a GPU it also runs the tf32, bf16 and
cuDNN-attention variants and reports their loss next to torch's (loosely
bounded: they round differently by design).

  python tools/jax_peer_check.py [--model gpt-tiny] [--batch 4] [--steps 3]

The qkv bias starts at zero and some of its gradient entries are ~1e-9, near
AdamW's eps, where f32 rounding of the gradient (different summation orders)
moves the step visibly: gpt-tiny B4 stays within 1e-5 over 3 steps, gpt-42m B1
reaches ~4e-5 in blocks.*.attn.qkv.bias over 2 (its loss still agrees to 2e-7),
so larger models want --tol 1e-4.

Needs torch, numpy, jax (optax optional); not nova's compiled parts: nova's
modules are loaded from python/nova without running nova/__init__.py.
Prints one JSON object; exits 1 if a bound is exceeded.
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load_nova_modules():
    """nova.models, nova.bench and nova.jax_gpt from this checkout, without
    nova/__init__.py (which needs IREE's runtime and the compiled extension)."""
    if "nova" not in sys.modules:
        pkg = types.ModuleType("nova")
        pkg.__path__ = [str(ROOT / "python" / "nova")]
        sys.modules["nova"] = pkg
    import nova.bench as bench
    import nova.jax_gpt as jax_gpt
    import nova.models as models

    return models, bench, jax_gpt


def _rel(a, b) -> float:
    import numpy as np

    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def _drop_key_bias(name: str, a, d: int):
    """The key third of a qkv bias has a zero true gradient (softmax is shift
    invariant), so AdamW turns rounding noise into ±lr steps: left out, as in
    `nova bench check`."""
    import numpy as np

    if name.endswith("attn.qkv.bias"):
        return np.concatenate([a[:d], a[2 * d :]])
    return a


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="gpt-tiny")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--tol", type=float, default=1e-5, help="bound on f32 loss and parameter rel errors")
    args = parser.parse_args(argv)

    import jax
    import jax.numpy as jnp
    import numpy as np
    import torch

    models, bench, jax_gpt = _load_nova_modules()
    torch.backends.cuda.matmul.allow_tf32 = False
    cfg = models.GPT_CONFIGS[args.model]
    d = cfg["d_model"]
    backend = jax.default_backend()
    out: dict = {"model": args.model, "batch": args.batch, "steps": args.steps, "jax": jax.__version__,
                 "jax_backend": backend, "torch": torch.__version__}  # fmt: skip
    failures: list[str] = []

    # --- f32 loss and gradients from the same weights and batch -------------
    model, (idx, tgt) = bench.train_setup(args.model, args.batch, "cpu")
    params0 = jax_gpt.torch_params(model)
    idx_j, tgt_j = jnp.asarray(idx.numpy(), jnp.int32), jnp.asarray(tgt.numpy(), jnp.int32)
    torch_loss = model(idx, tgt)
    torch_loss.backward()
    torch_grads = {n: p.grad.numpy().copy() for n, p in model.named_parameters()}
    model.zero_grad(set_to_none=True)
    out["torch_loss"] = float(torch_loss.detach())
    kw = dict(n_layers=cfg["n_layers"], n_heads=cfg["n_heads"], dtype="f32")
    for attention in ("naive", "xla"):
        loss_fn = jax.jit(lambda p, i, t, a=attention: jax_gpt.gpt_loss(p, i, t, attention=a, **kw))
        loss, grads = jax.value_and_grad(loss_fn)(params0, idx_j, tgt_j)
        loss_err = abs(float(loss) - float(torch_loss)) / abs(float(torch_loss))
        grad_errs = {n: _rel(grads[n], g) for n, g in torch_grads.items()}
        worst = max(grad_errs, key=grad_errs.get)
        out[f"f32_{attention}"] = {"loss": float(loss), "loss_rel_err": loss_err,
                                   "max_grad_rel_err": grad_errs[worst], "worst_grad": worst}  # fmt: skip
        if loss_err > args.tol:
            failures.append(f"f32 {attention} loss rel err {loss_err:.2e}")
        if grad_errs[worst] > 100 * args.tol:
            failures.append(f"f32 {attention} grad rel err {grad_errs[worst]:.2e} ({worst})")

    # --- parameters after `steps` AdamW steps -------------------------------
    optimizer = bench.make_optimizer(model, fused=False)
    torch_losses = []
    for _ in range(args.steps):
        loss = model(idx, tgt)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        torch_losses.append(float(loss))
    torch_params = jax_gpt.torch_params(model)
    for impl in ("optax", "jnp"):
        try:
            step, opt_init, got = jax_gpt.make_train_step(
                cfg["n_layers"], cfg["n_heads"], dtype="f32", use_optax=impl == "optax", donate=False
            )
        except ImportError:
            out[f"adamw_{impl}"] = "optax not installed"
            continue
        params = jax.tree.map(jnp.asarray, params0)
        state = opt_init(params)
        losses = []
        for _ in range(args.steps):
            params, state, loss = step(params, state, idx_j, tgt_j)
            losses.append(float(loss))
        errs, update_errs = {}, {}
        for n, p_t in torch_params.items():
            p_j = np.asarray(params[n])
            errs[n] = _rel(_drop_key_bias(n, p_j, d), _drop_key_bias(n, p_t, d))
            update_errs[n] = _rel(_drop_key_bias(n, p_j - params0[n], d), _drop_key_bias(n, p_t - params0[n], d))
        worst, worst_u = max(errs, key=errs.get), max(update_errs, key=update_errs.get)
        loss_err = max(abs(a - b) / abs(b) for a, b in zip(losses, torch_losses))
        out[f"adamw_{got}"] = {
            "max_param_rel_err": errs[worst], "worst_param": worst,
            "max_update_rel_err": update_errs[worst_u], "worst_update": worst_u,
            "max_loss_rel_err": loss_err, "final_loss": losses[-1], "final_loss_torch": torch_losses[-1],
        }  # fmt: skip
        if errs[worst] > args.tol:
            failures.append(f"adamw {got}: param rel err {errs[worst]:.2e} ({worst})")
        if loss_err > args.tol:
            failures.append(f"adamw {got}: loss rel err {loss_err:.2e}")

    # --- reduced precision (loose): bf16 everywhere; tf32/cuDNN on a GPU ----
    fresh, _ = bench.train_setup(args.model, args.batch, "cpu")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out["torch_cpu_autocast_bf16_loss"] = float(fresh(idx, tgt))
    variants = [("naive", "bf16")] + ([("cudnn", "bf16"), ("naive", "tf32")] if backend == "gpu" else [])
    for attention, dtype in variants:
        step, opt_init, _ = jax_gpt.make_train_step(
            cfg["n_layers"], cfg["n_heads"], attention=attention, dtype=dtype, donate=False
        )
        params = jax.tree.map(jnp.asarray, params0)
        _, _, loss = step(params, opt_init(params), idx_j, tgt_j)
        err = abs(float(loss) - out["torch_loss"]) / out["torch_loss"]
        out[f"{dtype}_{attention}"] = {"first_loss": float(loss), "rel_err_vs_torch_f32": err}
        if err > (1e-3 if dtype == "tf32" else 2e-2):
            failures.append(f"{dtype} {attention}: first loss rel err {err:.2e} vs torch f32")
    if backend == "gpu":
        step, opt_init, _ = jax_gpt.make_train_step(cfg["n_layers"], cfg["n_heads"], attention="cudnn", dtype="bf16")
        params = jax.tree.map(jnp.asarray, params0)
        out["cudnn_fmha_in_hlo"] = "cudnn$fmha" in step.lower(params, opt_init(params), idx_j, tgt_j).as_text()
        if not out["cudnn_fmha_in_hlo"]:
            failures.append("attention='cudnn' lowered without a cuDNN fMHA call")

    out["failures"] = failures
    out["ok"] = not failures
    print(json.dumps(out, indent=1))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
