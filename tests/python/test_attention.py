"""Fused attention: nova.attention / nova.attention_backward on CPU.

Two routes lead to the ops: nova-form-attention recognizes the decomposed
naive attention of the captured GPT (`sdpa=False`), and capture routes
`scaled_dot_product_attention` (`sdpa=True`) to the nova::attention custom op.
Both must give the same optimized IR, train like eager torch (CPU then
decomposes the ops again in nova-lower-to-linalg), and leave attention with
any other mask to the primitives.

Tolerances as in test_jit.py: f32 losses to 1e-4 relative at every step,
parameters and optimizer state after 10 AdamW steps to a relative norm error
of 1e-3 (the key third of the fused qkv bias excluded: its true gradient is
0); bf16 autocast losses to 3e-2, state to 1e-1. Measured: f32 losses within
4e-7, parameters 2e-5; bf16 losses 7e-5, parameters 6.3e-2 (small biases,
where AdamW's normalization turns bf16-level gradient differences into update
differences), optimizer state 1.7e-2.
"""

from __future__ import annotations

import copy
import math
import re
from collections import Counter
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor

import nova
from nova import attention_ops, capture, compiler
from nova.importer import import_to_torch_mlir
from nova.models import CausalSelfAttention, make_gpt
from training_checks import without_key_bias

N_LAYERS = 2  # gpt-tiny
T = 32


@pytest.fixture(autouse=True)
def _fresh_cache(fresh_cache: None) -> None:
    """Every test here compiles into a cache of its own."""


def rel_err(a: Tensor, b: Tensor) -> float:
    a, b = a.detach().double(), b.detach().double()
    return float((a - b).norm() / b.norm().clamp_min(1e-12))


def gpt_batches(n: int, batch: int = 2) -> list[tuple[Tensor, Tensor]]:
    g = torch.Generator().manual_seed(2)
    return [
        (torch.randint(0, 256, (batch, T), generator=g), torch.randint(0, 256, (batch, T), generator=g))
        for _ in range(n)
    ]


class LookaheadAttention(CausalSelfAttention):
    """The naive attention with tril(diagonal=1): each query also sees the next
    key. (diagonal=-1 would mask all of row 0, a NaN softmax in eager too.)"""

    def forward(self, x: Tensor) -> Tensor:
        B, T, C = x.shape
        hd = C // self.n_heads
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_heads, hd).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        keep = torch.ones(T, T, dtype=torch.bool, device=x.device).tril(diagonal=1)
        att = F.softmax(att.masked_fill(~keep, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)


def make_model(variant: str):
    torch.manual_seed(0)
    model = make_gpt("gpt-tiny", sdpa=variant == "sdpa")
    if variant == "lookahead":
        for block in model.blocks:
            block.attn.__class__ = LookaheadAttention
    return model


def make_opt(model) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)


def optimized_ir(variant: str, autocast_dtype: torch.dtype | None = None) -> str:
    """The nova-optimized IR of gpt-tiny's AdamW step (03-nova-optimized.mlir)."""
    model = make_model(variant)
    captured = capture.capture_train_step(model, make_opt(model), None, gpt_batches(1)[0], autocast_dtype)
    text = compiler.run_pipeline(
        import_to_torch_mlir(captured), "convert-torch-to-nova", allow_unregistered_dialects=True
    )
    return compiler.run_pipeline(text, "nova-optimize", allow_unregistered_dialects=True)


def attention_counts(ir: str) -> tuple[int, int, int]:
    """nova.attention ops, nova.attention_backward ops, reduce_max over T x T scores."""
    forward = len(re.findall(r"= nova\.attention ", ir))
    backward = len(re.findall(r"= nova\.attention_backward ", ir))
    score_max = len(re.findall(rf"nova\.reduce_max .*: tensor<[0-9x]*{T}x{T}x[a-z0-9]+>", ir))
    return forward, backward, score_max


def train_both(variant: str, steps: int, autocast_dtype: torch.dtype | None = None):
    eager_model = make_model(variant)
    nova_model = copy.deepcopy(eager_model)
    eager_opt, nova_opt = make_opt(eager_model), make_opt(nova_model)
    step = nova.jit(nova_model, nova_opt, autocast_dtype=autocast_dtype)
    losses = []
    for idx, tgt in gpt_batches(steps):
        with torch.autocast("cpu", dtype=autocast_dtype, enabled=autocast_dtype is not None):
            loss = eager_model(idx, tgt)
        loss.backward()
        eager_opt.step()
        eager_opt.zero_grad(set_to_none=True)
        losses.append((float(loss.detach()), float(step(idx, tgt))))
    step.sync()
    return eager_model, eager_opt, nova_model, nova_opt, losses


def check_trained_alike(result, loss_tol: float, state_tol: float) -> None:
    eager_model, eager_opt, nova_model, nova_opt, losses = result
    for eager_loss, nova_loss in losses:
        assert abs(nova_loss - eager_loss) <= loss_tol * abs(eager_loss), losses
    names = [name for name, _ in eager_model.named_parameters()]
    for name, p_eager, p_nova in zip(names, eager_model.parameters(), nova_model.parameters()):
        assert rel_err(without_key_bias(name, p_nova), without_key_bias(name, p_eager)) < state_tol, name
    eager_state, nova_state = eager_opt.state_dict()["state"], nova_opt.state_dict()["state"]
    for i, state in eager_state.items():
        for key in ("exp_avg", "exp_avg_sq"):
            got, want = without_key_bias(names[i], nova_state[i][key]), without_key_bias(names[i], state[key])
            assert rel_err(got, want) < state_tol, (names[i], key)


def dumped_optimized_ir(dump_dir: Path) -> str:
    (path,) = dump_dir.glob("*/03-nova-optimized.mlir")
    return path.read_text()


# ----------------------------------------------------------------------------
# The custom ops (eager) and the SDPA routing at capture.
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, tol", [(torch.float32, 1e-5), (torch.bfloat16, 2e-2)])
@pytest.mark.parametrize("causal", [True, False])
def test_custom_ops_match_sdpa(dtype: torch.dtype, tol: float, causal: bool) -> None:
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 8, 16, dtype=dtype, requires_grad=True) for _ in range(3))
    dy = torch.randn(2, 3, 8, 16, dtype=dtype)
    want = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    want_grads = torch.autograd.grad(want, (q, k, v), dy)
    with attention_ops.route_sdpa():
        got = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert got.grad_fn is not None and "_Attention" in type(got.grad_fn).__name__
    got_grads = torch.autograd.grad(got, (q, k, v), dy)
    assert rel_err(got, want) < tol
    for g, w in zip(got_grads, want_grads):
        assert rel_err(g, w) < tol
    # lse is the log-sum-exp of the scaled, masked scores.
    _, lse = attention_ops.ATTENTION_OP(q.detach(), k.detach(), v.detach(), causal, 0.25)
    s = (q.detach().float() @ k.detach().float().transpose(-2, -1)) * 0.25
    if causal:
        s = s.masked_fill(torch.ones(8, 8, dtype=torch.bool).triu(1), float("-inf"))
    assert rel_err(lse, torch.logsumexp(s, -1)) < tol


def test_sdpa_is_captured_whole() -> None:
    model = make_model("sdpa")
    captured = capture.capture_train_step(model, make_opt(model), None, gpt_batches(1)[0])
    targets = [n.target for n in captured.graph_module.graph.nodes]
    assert targets.count(attention_ops.ATTENTION_OP) == N_LAYERS
    assert targets.count(attention_ops.ATTENTION_BACKWARD_OP) == N_LAYERS
    (node, *_) = (n for n in captured.graph_module.graph.nodes if n.target == attention_ops.ATTENTION_OP)
    assert node.args[3:] == (True, 0.25)  # causal, 1/sqrt(head dim 16)


def test_sdpa_with_mask_or_dropout_keeps_torch_path() -> None:
    q = torch.randn(2, 2, 8, 16)
    mask = torch.ones(8, 8, dtype=torch.bool).tril()
    for kwargs in (dict(attn_mask=mask), dict(dropout_p=0.1)):
        captured = capture.capture_function(lambda q, kw=kwargs: F.scaled_dot_product_attention(q, q, q, **kw), (q,))
        targets = {n.target for n in captured.graph_module.graph.nodes}
        assert attention_ops.ATTENTION_OP not in targets, kwargs


# ----------------------------------------------------------------------------
# Formation in nova-optimize.
# ----------------------------------------------------------------------------


def _attention_lines(ir: str) -> list[str]:
    """The nova.attention(_backward) ops and the ops that make their operands,
    SSA names numbered in order of appearance and locations dropped."""
    ir = re.sub(r" loc\(.*?\)$", "", ir, flags=re.M)
    defs = {}
    for m in re.finditer(r"^\s*(%\w+(?:, %\w+)*) = (.*)$", ir, flags=re.M):
        for name in m.group(1).split(", "):
            defs[name] = m.group(2)
    lines = [line.strip() for line in ir.splitlines() if re.search(r"= nova\.attention(_backward)? ", line)]
    names: dict[str, str] = {}

    def canon(text: str) -> str:
        return re.sub(r"%[\w]+", lambda m: names.setdefault(m.group(0), f"%v{len(names)}"), text)

    out = []
    for line in lines:
        op_text = line.split(" = ", 1)[1]
        for operand in re.findall(r"%\w+", op_text.split(" {")[0]):
            out.append(canon(f"{operand} = {defs.get(operand, '<arg>')}"))
        out.append(canon(line))
    return out


def _op_histogram(ir: str) -> Counter[str]:
    return Counter(re.findall(r"= (nova\.\w+)", ir))


def test_both_routes_give_the_same_attention_ir() -> None:
    naive, sdpa = optimized_ir("naive"), optimized_ir("sdpa")
    assert attention_counts(naive) == attention_counts(sdpa) == (N_LAYERS, N_LAYERS, 0)
    assert _attention_lines(naive) == _attention_lines(sdpa)
    # Nothing of the mask or the softmax is left: the programs have the same ops.
    assert _op_histogram(naive) == _op_histogram(sdpa)
    assert "{causal, scale = 2.500000e-01 : f64}" in _attention_lines(naive)[-1]


@pytest.mark.parametrize("variant", ["naive", "sdpa"])
def test_bf16_autocast_forms_attention(variant: str) -> None:
    ir = optimized_ir(variant, torch.bfloat16)
    assert attention_counts(ir) == (N_LAYERS, N_LAYERS, 0)
    assert re.search(r"= nova\.attention %\S+, %\S+, %\S+ \{causal, scale = 2.500000e-01 : f64\} : tensor<2x4x32x16xbf16>", ir)


# ----------------------------------------------------------------------------
# End to end on CPU against eager torch.
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["naive", "sdpa"])
def test_gpt_attention_trains_like_eager(variant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOVA_DUMP_IR", str(tmp_path / "ir"))
    check_trained_alike(train_both(variant, steps=10), loss_tol=1e-4, state_tol=1e-3)
    # The program that ran had the fused ops (then decomposed for the CPU).
    assert attention_counts(dumped_optimized_ir(tmp_path / "ir")) == (N_LAYERS, N_LAYERS, 0)
    assert nova.cache_info().misses == 1


@pytest.mark.parametrize("variant", ["naive", "sdpa"])
def test_gpt_attention_bf16_trains_like_eager(variant: str) -> None:
    check_trained_alike(train_both(variant, steps=10, autocast_dtype=torch.bfloat16), loss_tol=3e-2, state_tol=1e-1)


def test_other_mask_trains_without_attention_op(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOVA_DUMP_IR", str(tmp_path / "ir"))
    check_trained_alike(train_both("lookahead", steps=10), loss_tol=1e-4, state_tol=1e-3)
    forward, backward, score_max = attention_counts(dumped_optimized_ir(tmp_path / "ir"))
    assert (forward, backward) == (0, 0) and score_max == N_LAYERS


# ----------------------------------------------------------------------------
# `nova bench prepare --attention` on the build box (no GPU needed to compile).
# ----------------------------------------------------------------------------


def test_bench_prepare_attention_into_new_folder(tmp_path: Path) -> None:
    from nova import attention_bench, bench

    out = tmp_path / "new" / "artifacts"
    bench.main(["prepare", "--models", "--dtypes", "bf16", "--attention", "--target", "cuda:sm_90", "--out", str(out)])
    for dtype in attention_bench.PEERS:
        for b, h, t, d in attention_bench.ATTENTION_SHAPES:
            vmfb = (out / f"{attention_bench.case_name(b, h, t, d, True, dtype)}.vmfb").read_bytes()
            # The pipelined forward (three stages) and the backward, each
            # embedded as PTX.
            suffix = "_tf32" if dtype == "tf32" else ""
            assert f"nova_attention_fwd_d64_128x{128 if dtype == 'bf16' else 64}_s3_causal{suffix}".encode() in vmfb
            assert b"nova_attention_bwd_d64_128x" in vmfb
