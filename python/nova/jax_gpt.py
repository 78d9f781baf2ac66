"""The GPT of `nova.models` in JAX/XLA: a peer for `nova bench train`.

Exactly the torch network (pre-LN blocks, fused qkv Linear with bias, tanh-GELU
MLP 4x, learned positional embedding, final LayerNorm, LM head tied to the
token embedding, mean cross-entropy), with its parameters taken from a torch
model's `named_parameters()` so that both start from the same weights, and
AdamW with torch's update rule (decoupled decay `p -= lr*wd*p`, bias-corrected
moments). The whole training step is one `jax.jit` that donates the parameters
and the optimizer state.

Precision (`dtype`):
  f32   every dot at `precision="highest"` (IEEE f32; the CPU check).
  tf32  f32 tensors, every dot with the `TF32_TF32_F32` dot algorithm: XLA's
        cuBLAS path allows TF32 for `Precision.HIGH` ("tensorfloat32") too,
        but its Triton GEMM emitter allows TF32 only for `DEFAULT` precision or
        an algorithm with TF32 inputs, so "tensorfloat32" could leave fused
        GEMMs in full f32; the algorithm is TF32 on every GPU path, like torch's
        `allow_tf32`. (Not supported by XLA's CPU backend.)
  bf16  f32 master weights; like torch autocast: Linears/matmuls take bf16
        operands and give bf16 results, LayerNorm, softmax and the loss run in
        f32, the residual stream stays f32.

Attention: "naive" is the explicit causal softmax of `nova.models`
(scores, -inf mask, softmax, @v); "cudnn" is
`jax.nn.dot_product_attention(..., is_causal=True, implementation="cudnn")`
(cuDNN flash attention; bf16/fp16 only, so not with tf32); "xla" is the same
call with JAX's own XLA implementation (used by the CPU check to test the
layout the cuDNN call gets).

JAX is imported lazily: importing this module needs only numpy.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np

ATTENTIONS = ("naive", "cudnn", "xla")
DTYPES = ("f32", "tf32", "bf16")
TF32_PRECISION = "TF32_TF32_F32"

# bench's make_optimizer: torch.optim.AdamW(lr=1e-4) with torch's defaults.
ADAMW_DEFAULTS = dict(lr=1e-4, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01)


def torch_params(model: Any) -> dict[str, np.ndarray]:
    """f32 numpy copies of a `nova.models.GPT`'s parameters, keyed by torch's
    parameter names (the tied head is `wte.weight`, listed once)."""
    return {name: p.detach().cpu().float().numpy().copy() for name, p in model.named_parameters()}


def matmul_precision(dtype: str) -> str | None:
    """The `precision=` of every dot for `dtype`; for tf32,
    $NOVA_JAX_TF32_PRECISION overrides the TF32_TF32_F32 algorithm (e.g.
    "default" or "tensorfloat32", should a GPU backend refuse it)."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype {dtype!r} is not one of {DTYPES}")
    if dtype == "tf32":
        return os.environ.get("NOVA_JAX_TF32_PRECISION") or TF32_PRECISION
    return {"f32": "highest", "bf16": None}[dtype]


def check_supported(attention: str, dtype: str) -> None:
    """Raises NotImplementedError for combinations the backend cannot run."""
    if attention not in ATTENTIONS:
        raise ValueError(f"attention {attention!r} is not one of {ATTENTIONS}")
    if attention == "cudnn" and dtype != "bf16":
        raise NotImplementedError(
            f"cuDNN flash attention takes fp16/bf16 inputs only; dtype {dtype} runs f32 attention"
        )


def gpt_loss(
    params: dict[str, Any],
    idx: Any,
    tgt: Any,
    *,
    n_layers: int,
    n_heads: int,
    attention: str = "naive",
    dtype: str = "f32",
) -> Any:
    """Mean cross-entropy of `nova.models.GPT` (params as from `torch_params`)."""
    import jax
    import jax.numpy as jnp

    f32 = jnp.float32
    cdt = jnp.bfloat16 if dtype == "bf16" else None
    precision = matmul_precision(dtype)

    def linear(x, w, b=None):
        # torch layout: w is (out, in); autocast casts x, w and b to bf16.
        if cdt is not None:
            x, w = x.astype(cdt), w.astype(cdt)
            b = None if b is None else b.astype(cdt)
        y = jnp.matmul(x, w.T, precision=precision)
        return y if b is None else y + b

    def layer_norm(x, w, b, eps=1e-5):
        x = x.astype(f32)
        mean = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + eps) * w + b

    B, T = idx.shape
    wte = params["wte.weight"]
    C = wte.shape[1]
    hd = C // n_heads
    x = jnp.take(wte, idx, axis=0) + params["wpe.weight"][:T]
    causal = jnp.tril(jnp.ones((T, T), dtype=bool))
    for i in range(n_layers):
        p = f"blocks.{i}."
        h = layer_norm(x, params[p + "ln1.weight"], params[p + "ln1.bias"])
        qkv = linear(h, params[p + "attn.qkv.weight"], params[p + "attn.qkv.bias"])
        q, k, v = (t.reshape(B, T, n_heads, hd) for t in jnp.split(qkv, 3, axis=-1))  # (B, T, N, H)
        if attention == "naive":
            s = jnp.einsum("btnh,bsnh->bnts", q, k, precision=precision) * (1.0 / math.sqrt(hd))
            s = jnp.where(causal, s, -jnp.inf)
            a = jax.nn.softmax(s.astype(f32), axis=-1)
            if cdt is not None:
                a = a.astype(cdt)
            y = jnp.einsum("bnts,bsnh->btnh", a, v, precision=precision)
        else:
            y = jax.nn.dot_product_attention(
                q, k, v, is_causal=True, implementation="cudnn" if attention == "cudnn" else "xla"
            )
        x = x + linear(y.reshape(B, T, C), params[p + "attn.proj.weight"], params[p + "attn.proj.bias"])
        h = layer_norm(x, params[p + "ln2.weight"], params[p + "ln2.bias"])
        h = jax.nn.gelu(linear(h, params[p + "mlp.fc.weight"], params[p + "mlp.fc.bias"]), approximate=True)
        x = x + linear(h, params[p + "mlp.out.weight"], params[p + "mlp.out.bias"])
    h = layer_norm(x, params["ln_f.weight"], params["ln_f.bias"])
    logits = linear(h, wte).astype(f32)  # tied head
    lse = jax.nn.logsumexp(logits, axis=-1)
    picked = jnp.take_along_axis(logits, tgt[..., None].astype(jnp.int32), axis=-1)[..., 0]
    return jnp.mean(lse - picked)


def adamw(
    lr: float, b1: float, b2: float, eps: float, weight_decay: float, use_optax: bool | None = None
) -> tuple[Callable, Callable, str]:
    """(init(params) -> state, update(grads, state, params) -> (params, state), impl).

    optax.adamw when importable (and `use_optax` is not False), else the same
    rule in jax.numpy. Both equal torch.optim.AdamW:
    p <- p*(1 - lr*wd) - lr * m_hat / (sqrt(v_hat) + eps)."""
    import jax
    import jax.numpy as jnp

    if use_optax is not False:
        try:
            import optax
        except ImportError:
            if use_optax:
                raise
        else:
            tx = optax.adamw(learning_rate=lr, b1=b1, b2=b2, eps=eps, weight_decay=weight_decay)

            def optax_update(grads, state, params):
                updates, state = tx.update(grads, state, params)
                return optax.apply_updates(params, updates), state

            return tx.init, optax_update, "optax"

    def init(params):
        zeros = jax.tree.map(jnp.zeros_like, params)
        return (jnp.zeros((), jnp.int32), zeros, jax.tree.map(jnp.zeros_like, params))

    def update(grads, state, params):
        count, mu, nu = state
        count = count + 1
        t = count.astype(jnp.float32)
        mu = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, mu, grads)
        nu = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * jnp.square(g), nu, grads)
        bc1, bc2 = 1 - b1**t, 1 - b2**t
        params = jax.tree.map(
            lambda p, m, v: p * (1 - lr * weight_decay) - lr * (m / bc1) / (jnp.sqrt(v / bc2) + eps), params, mu, nu
        )
        return params, (count, mu, nu)

    return init, update, "jnp"


def make_train_step(
    n_layers: int,
    n_heads: int,
    *,
    attention: str = "naive",
    dtype: str = "f32",
    use_optax: bool | None = None,
    donate: bool = True,
    **adamw_kw: float,
) -> tuple[Callable, Callable, str]:
    """(step, opt_init, optimizer impl). `step(params, opt_state, idx, tgt)`
    -> (params, opt_state, loss) is one jax.jit; params and opt_state are
    donated (pass the returned ones to the next call)."""
    import jax

    check_supported(attention, dtype)
    hp = {**ADAMW_DEFAULTS, **adamw_kw}
    opt_init, opt_update, impl = adamw(
        hp["lr"], hp["b1"], hp["b2"], hp["eps"], hp["weight_decay"], use_optax=use_optax
    )
    loss_fn = functools.partial(gpt_loss, n_layers=n_layers, n_heads=n_heads, attention=attention, dtype=dtype)

    def step(params, opt_state, idx, tgt):
        loss, grads = jax.value_and_grad(loss_fn)(params, idx, tgt)
        params, opt_state = opt_update(grads, opt_state, params)
        return params, opt_state, loss

    return jax.jit(step, donate_argnums=(0, 1) if donate else ()), opt_init, impl


class BenchStep:
    """The benchmark's view of a JAX training step: `run()` dispatches one
    step (asynchronously) and returns its loss; `sync()` waits for the device.
    Built from a torch GPT and its batch, so every mode starts the same."""

    def __init__(self, model: Any, idx: Any, tgt: Any, *, attention: str, dtype: str) -> None:
        import jax
        import jax.numpy as jnp

        check_supported(attention, dtype)
        self.jax = jax
        n_heads = model.blocks[0].attn.n_heads
        self.step, opt_init, self.optimizer_impl = make_train_step(
            len(model.blocks), n_heads, attention=attention, dtype=dtype
        )
        self.device = jax.devices()[0]
        self.params = jax.device_put(torch_params(model), self.device)
        self.opt_state = jax.jit(opt_init)(self.params)
        self.idx = jax.device_put(jnp.asarray(idx.cpu().numpy(), jnp.int32), self.device)
        self.tgt = jax.device_put(jnp.asarray(tgt.cpu().numpy(), jnp.int32), self.device)
        self.attention = attention
        self.loss = None

    def run(self) -> Any:
        self.params, self.opt_state, self.loss = self.step(self.params, self.opt_state, self.idx, self.tgt)
        return self.loss

    def sync(self) -> None:
        self.jax.block_until_ready((self.params, self.opt_state, self.loss))

    def info(self) -> dict[str, Any]:
        """Extra row fields: versions, backend, allocator statistics, and for
        cuDNN attention whether the lowered step holds cuDNN's fMHA call."""
        out: dict[str, Any] = {
            "jax": self.jax.__version__,
            "jax_backend": self.device.platform,
            "optimizer_impl": self.optimizer_impl,
        }
        stats = self.device.memory_stats() or {}
        if "peak_bytes_in_use" in stats:
            out["jax_peak_gib"] = stats["peak_bytes_in_use"] / 2**30
        if "bytes_limit" in stats:
            out["jax_bytes_limit_gib"] = stats["bytes_limit"] / 2**30
        if self.attention == "cudnn":
            hlo = self.step.lower(self.params, self.opt_state, self.idx, self.tgt).as_text()
            out["cudnn_fmha_in_hlo"] = "cudnn$fmha" in hlo
        return out


def xla_environment(cap_bytes: int | None, total_bytes: int, env: dict[str, str]) -> dict[str, str | None]:
    """The XLA_* variables a JAX benchmark worker sets (None: unsets) before
    importing jax.

    Preallocation off, so the device's used memory (NVML) follows what XLA
    really holds; XLA's BFC allocator still grows in pools up to
    memory_fraction * the device's total memory (with or without
    preallocation), so a cap is cap/total, set as XLA_PYTHON_CLIENT_MEM_FRACTION
    (every jaxlib reads it; newer ones also read XLA_CLIENT_MEM_FRACTION and
    refuse both at once, so that one is unset). Uncapped, the fraction is 0.95
    (XLA's default is 0.75) unless `env` already sets one: torch's allocator
    may also take the whole device. The allocator itself is left alone
    (XLA_PYTHON_CLIENT_ALLOCATOR=platform would be slow)."""
    out: dict[str, str | None] = {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    if cap_bytes:
        out["XLA_PYTHON_CLIENT_MEM_FRACTION"] = f"{min(1.0, cap_bytes / total_bytes):.6f}"
        out["XLA_CLIENT_MEM_FRACTION"] = None
    elif "XLA_PYTHON_CLIENT_MEM_FRACTION" not in env and "XLA_CLIENT_MEM_FRACTION" not in env:
        out["XLA_PYTHON_CLIENT_MEM_FRACTION"] = "0.95"
    return out
