"""nova.jit end to end on CPU (llvm-cpu / local-task) against eager PyTorch.

Tolerances: fp32 losses agree to 1e-4 relative at every step; parameters and
optimizer state after 10 steps to a relative norm error of 1e-3 (AdamW turns
the sign of a near-zero gradient into a full ±lr step, so elementwise checks
on its updates are meaningless). bf16 autocast: losses to 3e-2 relative, state
to 5e-2 (Nova accumulates bf16 reductions in f32; eager CPU autocast does not
everywhere); AdamW's sqrt(v) normalization turns bf16-level gradient
differences into update differences, so small GPT biases (|b| ~ 5e-3) may
differ by up to 10% after 10 steps.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import Tensor, nn

import nova
from nova.models import MLP, make_gpt
from training_checks import eager_step, without_key_bias


@pytest.fixture(autouse=True)
def _fresh_cache(fresh_cache: None) -> None:
    """Every test here compiles into a cache of its own."""


def rel_err(a: Tensor, b: Tensor) -> float:
    a, b = a.detach().double(), b.detach().double()
    return float((a - b).norm() / b.norm().clamp_min(1e-12))


def mlp_batches(n: int, batch: int = 16) -> list[tuple[Tensor, Tensor]]:
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(batch, 32, generator=g), torch.randint(0, 10, (batch,), generator=g)) for _ in range(n)]


def gpt_batches(n: int, batch: int = 2) -> list[tuple[Tensor, Tensor]]:
    g = torch.Generator().manual_seed(2)
    return [
        (torch.randint(0, 256, (batch, 32), generator=g), torch.randint(0, 256, (batch, 32), generator=g))
        for _ in range(n)
    ]


def train_both(make_model, make_opt, batches, loss_fn=None, autocast_dtype=None):
    torch.manual_seed(0)
    eager_model = make_model()
    nova_model = copy.deepcopy(eager_model)
    eager_opt, nova_opt = make_opt(eager_model), make_opt(nova_model)
    step = nova.jit(nova_model, nova_opt, loss_fn, autocast_dtype=autocast_dtype)
    losses = []
    for batch in batches:
        losses.append((eager_step(eager_model, eager_opt, batch, loss_fn, autocast_dtype), step(*batch)))
    step.sync()
    return eager_model, eager_opt, nova_model, nova_opt, losses


def check_state(eager_model, eager_opt, nova_model, nova_opt, tol):
    names = [name for name, _ in eager_model.named_parameters()]
    for name, p_eager, p_nova in zip(names, eager_model.parameters(), nova_model.parameters()):
        assert rel_err(without_key_bias(name, p_nova), without_key_bias(name, p_eager)) < tol, name
    eager_state, nova_state = eager_opt.state_dict()["state"], nova_opt.state_dict()["state"]
    assert eager_state.keys() == nova_state.keys()
    for i in eager_state:
        assert eager_state[i].keys() == nova_state[i].keys()
        for key, value in eager_state[i].items():
            if key == "step":
                assert float(nova_state[i][key]) == float(value)
            else:
                name = names[i]
                assert rel_err(without_key_bias(name, nova_state[i][key]), without_key_bias(name, value)) < tol, (name, key)


@pytest.mark.parametrize("autocast_dtype, loss_tol, state_tol", [(None, 1e-4, 1e-3), (torch.bfloat16, 3e-2, 5e-2)])
def test_mlp_sgd_momentum_matches_eager(autocast_dtype, loss_tol, state_tol):
    result = train_both(
        lambda: MLP(32, 64, 10),
        lambda m: torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4),
        mlp_batches(10),
        loss_fn=nn.functional.cross_entropy,
        autocast_dtype=autocast_dtype,
    )
    for eager_loss, nova_loss in result[-1]:
        assert abs(float(nova_loss) - float(eager_loss)) <= loss_tol * abs(float(eager_loss))
    check_state(*result[:4], tol=state_tol)


@pytest.mark.parametrize("pack_state", [False, True], ids=["per-param", "packed"])
@pytest.mark.parametrize("autocast_dtype, loss_tol, state_tol", [(None, 1e-4, 1e-3), (torch.bfloat16, 3e-2, 1e-1)])
def test_gpt_adamw_matches_eager(autocast_dtype, loss_tol, state_tol, pack_state, monkeypatch: pytest.MonkeyPatch):
    # Packed (NOVA_PACK_STATE=1): params and AdamW state in flat globals,
    # one update per group (nova-pack-optimizer-state).
    monkeypatch.setenv("NOVA_PACK_STATE", "1" if pack_state else "0")
    result = train_both(
        lambda: make_gpt("gpt-tiny"),
        lambda m: torch.optim.AdamW(m.parameters(), lr=1e-3, weight_decay=0.1),
        gpt_batches(10),
        autocast_dtype=autocast_dtype,
    )
    for eager_loss, nova_loss in result[-1]:
        assert abs(float(nova_loss) - float(eager_loss)) <= loss_tol * abs(float(eager_loss))
    check_state(*result[:4], tol=state_tol)
    assert nova.cache_info().misses == 1


def test_packed_adamw_param_groups_match_eager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Two param groups (weight decay on the weights only): two packed groups,
    # each three flat globals; the biases (64 and 10 elements) leave gaps
    # that the 64-element alignment fills with zeros. sync() unpacks into
    # the model and the optimizer's state.
    monkeypatch.setenv("NOVA_PACK_STATE", "1")
    monkeypatch.setenv("NOVA_DUMP_IR", str(tmp_path / "ir"))

    def make_opt(m: nn.Module) -> torch.optim.Optimizer:
        weights = [p for n, p in m.named_parameters() if n.endswith("weight")]
        biases = [p for n, p in m.named_parameters() if n.endswith("bias")]
        return torch.optim.AdamW([{"params": weights, "weight_decay": 0.1}, {"params": biases, "weight_decay": 0.0}], lr=2e-3)

    result = train_both(lambda: MLP(32, 100, 10), make_opt, mlp_batches(6), loss_fn=nn.functional.cross_entropy)
    for eager_loss, nova_loss in result[-1]:
        assert abs(float(nova_loss) - float(eager_loss)) <= 1e-4 * abs(float(eager_loss))
    check_state(*result[:4], tol=1e-3)
    (program,) = (tmp_path / "ir").glob("*/06-iree-input.mlir")
    globals_ = re.findall(r'sym_name = "(state\w+)"', program.read_text())
    assert len(globals_) == 6 and all("_packed_" in g for g in globals_), globals_


@pytest.mark.parametrize(
    "make_opt",
    [
        lambda m: torch.optim.Adam(m.parameters(), lr=2e-3, weight_decay=1e-2),
        lambda m: torch.optim.Adam(m.parameters(), lr=2e-3, weight_decay=1e-2, amsgrad=True),
        lambda m: torch.optim.AdamW(m.parameters(), lr=2e-3, weight_decay=0.1, amsgrad=True),
    ],
    ids=["adam", "adam-amsgrad", "adamw-amsgrad"],
)
def test_mlp_adam_variants_match_eager(make_opt):
    """torch.optim.Adam (L2 decay through the gradient) and amsgrad (a third
    state tensor, max_exp_avg_sq, in torch's state_dict) compiled whole."""
    result = train_both(lambda: MLP(32, 64, 10), make_opt, mlp_batches(10), loss_fn=nn.functional.cross_entropy)
    for eager_loss, nova_loss in result[-1]:
        assert abs(float(nova_loss) - float(eager_loss)) <= 1e-4 * abs(float(eager_loss))
    check_state(*result[:4], tol=1e-3)


def test_gradient_clipping_matches_eager():
    """`max_grad_norm` clips inside the step as clip_grad_norm_ before
    optimizer.step() does in eager (the norm is above 0.5 on every step here,
    so the clipping is active)."""
    torch.manual_seed(0)
    eager_model = MLP(32, 64, 10)
    nova_model = copy.deepcopy(eager_model)
    make_opt = lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)  # noqa: E731
    eager_opt, nova_opt = make_opt(eager_model), make_opt(nova_model)
    step = nova.jit(nova_model, nova_opt, nn.functional.cross_entropy, max_grad_norm=0.5)
    for x, t in mlp_batches(8):
        loss = nn.functional.cross_entropy(eager_model(x), t)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(eager_model.parameters(), 0.5)
        assert norm > 0.5
        eager_opt.step()
        eager_opt.zero_grad(set_to_none=True)
        nova_loss = step(x, t)
        assert abs(float(nova_loss) - float(loss)) <= 1e-4 * abs(float(loss))
    step.sync()
    check_state(eager_model, eager_opt, nova_model, nova_opt, tol=1e-4)
    with pytest.raises(ValueError, match="max_grad_norm must be positive"):
        nova.jit(MLP(32, 64, 10), make_opt(MLP(32, 64, 10)), nn.functional.cross_entropy, max_grad_norm=0.0)(
            *mlp_batches(1)[0]
        )


def test_gradient_accumulation_matches_eager():
    """`gradient_accumulation_steps=4`: each batch of 16 runs as 4
    micro-batches of 4 inside the step, as eager's (loss / 4).backward() per
    micro-batch and one optimizer.step(); the step returns the mean loss."""
    torch.manual_seed(0)
    eager_model = MLP(32, 64, 10)
    nova_model = copy.deepcopy(eager_model)
    make_opt = lambda m: torch.optim.AdamW(m.parameters(), lr=1e-2)  # noqa: E731
    eager_opt, nova_opt = make_opt(eager_model), make_opt(nova_model)
    step = nova.jit(nova_model, nova_opt, nn.functional.cross_entropy, gradient_accumulation_steps=4)
    gen = torch.Generator().manual_seed(5)
    for _ in range(3):
        x, t = torch.randn(16, 32, generator=gen), torch.randint(0, 10, (16,), generator=gen)
        losses = []
        for xm, tm in zip(x.chunk(4), t.chunk(4)):
            loss = nn.functional.cross_entropy(eager_model(xm), tm)
            (loss / 4).backward()
            losses.append(float(loss))
        eager_opt.step()
        eager_opt.zero_grad(set_to_none=True)
        mean = sum(losses) / 4
        assert abs(float(step(x, t)) - mean) <= 1e-5 * mean
    step.sync()
    check_state(eager_model, eager_opt, nova_model, nova_opt, tol=1e-4)
    with pytest.raises(ValueError, match=r"batch input 0 of shape \(18, 32\) does not split into 4 equal micro-batches"):
        step(torch.randn(18, 32), torch.randint(0, 10, (18,)))
    with pytest.raises(TypeError, match="need an optimizer"):
        nova.jit(MLP(32, 64, 10), gradient_accumulation_steps=2)


def test_gradients_match_eager():
    """Gradients of the GPT, computed by a Nova-compiled forward-only function."""
    torch.manual_seed(0)
    model = make_gpt("gpt-tiny")
    params = {k: v.detach() for k, v in model.named_parameters()}
    idx, tgt = gpt_batches(1)[0]

    def grads(idx: Tensor, tgt: Tensor):
        return torch.func.grad(lambda p: torch.func.functional_call(model, p, (idx, tgt)))(params)

    eager = grads(idx, tgt)
    compiled = nova.jit(grads)(idx, tgt)
    for (name, g_eager), g_nova in zip(eager.items(), compiled):
        assert rel_err(g_nova, g_eager) < 1e-4, name


def test_lr_change_without_recompile():
    torch.manual_seed(0)
    model = MLP(32, 64, 10)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    step = nova.jit(model, opt, nn.functional.cross_entropy)
    batch = mlp_batches(1)[0]
    step(*batch)
    step.sync()
    before = [p.detach().clone() for p in model.parameters()]
    opt.param_groups[0]["lr"] = 0.0
    step(*batch)
    step.sync()
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
    assert nova.cache_info().misses == 1


def test_cache_hits_and_new_shape_recompiles():
    torch.manual_seed(0)
    model = MLP(32, 64, 10)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    step = nova.jit(model, opt, nn.functional.cross_entropy)
    for batch in mlp_batches(5):
        step(*batch)
    info = nova.cache_info()
    assert info.misses == 1 and info.hits == 4  # every step after the first reuses the executable
    for batch in mlp_batches(2, batch=8):  # a new batch shape: one more entry
        step(*batch)
    info = nova.cache_info()
    assert info.misses == 2 and info.compile_seconds > 0
    # A fresh jit of the same structure hits the cache: no compile.
    model2 = MLP(32, 64, 10)
    step2 = nova.jit(model2, torch.optim.SGD(model2.parameters(), lr=0.1, momentum=0.9), nn.functional.cross_entropy)
    step2(*mlp_batches(1)[0])
    assert nova.cache_info().misses == 2 and nova.cache_info().disk_hits == 0
    assert nova.cache_info().hits == 4 + 1 + 1  # two steps at batch 8 (one compiled), one memory hit for step2


def test_checkpoint_and_resume(tmp_path: Path):
    make_opt = lambda m: torch.optim.AdamW(m.parameters(), lr=1e-3)  # noqa: E731
    batches = gpt_batches(6)
    torch.manual_seed(0)
    eager_model = make_gpt("gpt-tiny")
    nova_model = copy.deepcopy(eager_model)
    eager_opt, nova_opt = make_opt(eager_model), make_opt(nova_model)
    step = nova.jit(nova_model, nova_opt)
    for batch in batches[:3]:
        eager_step(eager_model, eager_opt, batch, None, None)
        step(*batch)
    step.sync()
    torch.save({"model": nova_model.state_dict(), "opt": nova_opt.state_dict()}, tmp_path / "ckpt.pt")

    checkpoint = torch.load(tmp_path / "ckpt.pt")
    resumed_model = make_gpt("gpt-tiny")
    resumed_model.load_state_dict(checkpoint["model"])
    resumed_opt = make_opt(resumed_model)
    resumed_opt.load_state_dict(checkpoint["opt"])
    resumed = nova.jit(resumed_model, resumed_opt)
    for batch in batches[3:]:
        eager_loss = eager_step(eager_model, eager_opt, batch, None, None)
        assert abs(float(resumed(*batch)) - float(eager_loss)) <= 1e-4 * float(eager_loss)
    resumed.sync()
    check_state(eager_model, eager_opt, resumed_model, resumed_opt, tol=1e-3)


def test_forward_function_and_module():
    torch.manual_seed(0)
    mlp = MLP(32, 64, 10)
    x = torch.randn(4, 32)
    np.testing.assert_allclose(nova.jit(mlp)(x).numpy(), mlp(x).detach().numpy(), rtol=1e-5, atol=1e-5)

    def f(a: Tensor, b: Tensor):
        return torch.tanh(a @ b).sum(dim=0), a.exp()

    a, b = torch.randn(3, 5), torch.randn(5, 2)
    out = nova.jit(f)(a, b)
    for got, want in zip(out, f(a, b)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_dump_ir_writes_every_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NOVA_DUMP_IR", str(tmp_path / "ir"))
    nova.jit(lambda x: torch.relu(x) * 2)(torch.randn(4))
    stages = sorted(p.name for p in (tmp_path / "ir").glob("*/*.mlir"))
    assert [s.split("-", 1)[1] for s in stages] == [
        "torch.mlir",
        "nova.mlir",
        "nova-optimized.mlir",
        "linalg.mlir",
        "iree-input.mlir",
    ]


class AtanHead(nn.Module):
    """A model using an op the torch→nova conversion does not cover."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x: Tensor) -> Tensor:
        return torch.atan(self.linear(x)).square().mean()


class PrefixSums(nn.Module):
    """cumsum forward (and flip + cumsum in its backward), integer cumsum of
    a mask as position ids, as transformers models compute them."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)
        self.pos = nn.Embedding(9, 8)

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        positions = torch.cumsum(mask, dim=1) * mask
        h = self.linear(x) + self.pos(positions)
        return torch.cumsum(h, dim=1).square().mean()


def test_unsupported_op_names_op_and_source_line():
    from nova.compiler import CompilerError

    model = AtanHead()
    step = nova.jit(model, torch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(CompilerError) as err:
        step(torch.randn(4, 8))
    line = next(i for i, text in enumerate(Path(__file__).read_text().splitlines(), 1) if "torch.atan(" in text)
    assert "unsupported torch op 'torch.aten.atan'" in err.value.diagnostics
    assert f"test_jit.py:{line}:" in err.value.diagnostics


def test_steps_are_captured_with_locations_only_when_they_fail(monkeypatch):
    # Recording a source location per node is a quarter of a capture's time:
    # nova.jit captures without, and again with them only to name the line
    # of an error.
    from nova import capture

    calls = []
    original = capture.capture_train_step

    def recording(*args, **kwargs):
        calls.append(kwargs["stack_traces"])
        return original(*args, **kwargs)

    monkeypatch.setattr(capture, "capture_train_step", recording)
    model = nn.Linear(8, 1)
    step = nova.jit(model, torch.optim.SGD(model.parameters(), lr=0.1), lambda out, y: (out - y).square().mean())
    step(torch.randn(4, 8), torch.randn(4, 1))
    assert calls == [False]
    calls.clear()
    failing = AtanHead()
    step = nova.jit(failing, torch.optim.SGD(failing.parameters(), lr=0.1))
    with pytest.raises(Exception, match="unsupported torch op"):
        step(torch.randn(4, 8))
    assert calls == [False, True]


def test_cumsum_trains_like_eager_without_fallback():
    torch.manual_seed(0)
    eager_model = PrefixSums()
    nova_model = copy.deepcopy(eager_model)
    eager_opt = torch.optim.AdamW(eager_model.parameters(), lr=1e-2)
    step = nova.jit(nova_model, torch.optim.AdamW(nova_model.parameters(), lr=1e-2))
    for _ in range(3):
        x = torch.randn(4, 8, 8)
        mask = (torch.rand(4, 8) > 0.3).long()
        eager_loss = eager_step(eager_model, eager_opt, (x, mask), None, None)
        assert abs(float(step(x, mask)) - float(eager_loss)) <= 1e-5 * float(eager_loss)
    step.sync()
    check_state(eager_model, eager_opt, nova_model, step.optimizer, tol=1e-4)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: torch.cumsum(x, dim=1),
        lambda x: torch.cumsum(x, dim=-2) * 2,
        lambda x: torch.flip(x, [0, 1]) + 1,
        lambda x: torch.flip(torch.cumsum(torch.flip(x, [1]), 1), [1]),  # a suffix sum
        lambda x: torch.cumsum(x.bfloat16(), 0).float(),
        lambda x: torch.cumsum((x > 0).long(), 1),  # bool -> int64, as torch
    ],
    ids=["cumsum", "cumsum_negative_dim", "flip", "suffix_sum", "cumsum_bf16", "cumsum_mask"],
)
def test_cumsum_and_flip_match_eager(fn):
    x = torch.randn(5, 7)
    out = nova.jit(fn)(x)
    expected = fn(x)
    assert out.dtype == expected.dtype
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)


class InPlaceAtanHead(nn.Module):
    """An unsupported op (atan, left to IREE) next to in-place ops: they are
    functionalized at capture, so IREE's torch lowering never sees `copy_`."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x: Tensor) -> Tensor:
        h = self.linear(x) * 1.0
        h.mul_(2.0)
        h = torch.atan(h)
        h.add_(0.5)
        h.relu_()
        return h.square().mean()


@pytest.mark.parametrize("make_model", [AtanHead, InPlaceAtanHead], ids=["atan", "atan-in-place-ops"])
def test_unsupported_op_falls_back_to_iree(make_model):
    """atan is left to IREE's torch lowering, alone or next to in-place ops
    (functionalized before IREE sees them); training matches eager."""
    torch.manual_seed(0)
    eager_model = make_model()
    nova_model = copy.deepcopy(eager_model)
    eager_opt = torch.optim.SGD(eager_model.parameters(), lr=0.1)
    step = nova.jit(nova_model, torch.optim.SGD(nova_model.parameters(), lr=0.1), allow_fallback=True)
    for _ in range(3):
        x = torch.randn(4, 8)
        eager_loss = eager_step(eager_model, eager_opt, (x,), None, None)
        assert abs(float(step(x)) - float(eager_loss)) <= 1e-5 * float(eager_loss)
    step.sync()
    check_state(eager_model, eager_opt, nova_model, step.optimizer, tol=1e-5)


class SliceAssign(nn.Module):
    """A write into a view whose old value the backward needs: autograd's
    backward of the copy indexes the view (index.Tensor over two dims) and
    scatters into it (as_strided_scatter), both converted by Nova."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x: Tensor) -> Tensor:
        h = self.linear(x) * 1.0
        h[:, 2:5] = torch.tanh(h[:, 2:5].clone()) * 3
        return h.square().mean()


def test_write_into_a_view_trains_like_eager_without_fallback():
    torch.manual_seed(0)
    eager_model = SliceAssign()
    nova_model = copy.deepcopy(eager_model)
    eager_opt = torch.optim.SGD(eager_model.parameters(), lr=0.1)
    step = nova.jit(nova_model, torch.optim.SGD(nova_model.parameters(), lr=0.1))
    for _ in range(3):
        x = torch.randn(4, 8)
        eager_loss = eager_step(eager_model, eager_opt, (x,), None, None)
        assert abs(float(step(x)) - float(eager_loss)) <= 1e-5 * float(eager_loss)
    step.sync()
    check_state(eager_model, eager_opt, nova_model, step.optimizer, tol=1e-5)


def test_indexing_with_several_index_tensors_matches_eager():
    x = torch.randn(3, 4, 5)
    i = torch.tensor([[0, 2], [1, -1]])
    j = torch.tensor([3, -4])  # broadcast against i; negative indices wrap
    out = nova.jit(lambda t, a, b: t[a, b])(x, i, j)
    torch.testing.assert_close(out, x[i, j], rtol=0, atol=0)


def _released(tensors) -> bool:
    """Whether every tensor holds one element's memory (released: a NaN
    expanded to its shape)."""
    return all(t.untyped_storage().nbytes() == t.element_size() and torch.isnan(t).all() for t in tensors)


def test_release_torch_state_frees_and_restores_the_state():
    # With release_torch_state, torch's copy of the params (and, once torch
    # holds it, of the optimizer state) is released while the module holds
    # them; a state_dict, running the model, a new batch shape and load()
    # each write the module's values back first. The numbers match eager's.
    make_opt = lambda m: torch.optim.AdamW(m.parameters(), lr=1e-3)  # noqa: E731
    torch.manual_seed(0)
    eager_model = make_gpt("gpt-tiny")
    nova_model = copy.deepcopy(eager_model)
    eager_opt, nova_opt = make_opt(eager_model), make_opt(nova_model)
    step = nova.jit(nova_model, nova_opt, release_torch_state=True)
    params = list(nova_model.parameters())
    shapes = [p.shape for p in params]
    batches = gpt_batches(6)

    def both(batch) -> None:
        eager_loss = eager_step(eager_model, eager_opt, batch, None, None)
        assert abs(float(step(*batch)) - float(eager_loss)) <= 1e-4 * float(eager_loss)

    for batch in batches[:2]:
        both(batch)
    assert _released(params) and [p.shape for p in params] == shapes
    assert nova_opt.state == {}  # made on the device, never in torch
    # state_dict syncs: the values are the module's.
    saved = nova_model.state_dict()
    assert not any(_released([p]) for p in params)
    check_state(eager_model, eager_opt, nova_model, nova_opt, tol=1e-3)
    assert saved.keys() == eager_model.state_dict().keys()

    both(batches[2])  # now torch holds optimizer state too: both are released
    assert _released(params)
    assert _released([s for p in params for s in nova_opt.state[p].values() if s.dim() > 0])
    # Running the model syncs before its forward.
    with torch.no_grad():
        assert torch.allclose(nova_model(*batches[0]), eager_model(*batches[0]), rtol=1e-4)
    both(batches[3])
    both(gpt_batches(1, batch=3)[0])  # a new batch shape: captured from the synced model
    assert _released(params)
    step.load()  # the module's values come back to torch before its state is dropped
    assert not any(_released([p]) for p in params)
    both(batches[5])
    step.sync()
    check_state(eager_model, eager_opt, nova_model, nova_opt, tol=1e-3)


def test_released_storage_restores_shape_and_strides():
    from nova.released_storage import ReleasedStorage

    a = torch.randn(4, 6)
    b = torch.randn(6, 4).t()  # column-major
    tied = [a, b, a]
    released = ReleasedStorage(tied)
    assert released.nbytes == 2 * 24 * 4
    assert a.shape == (4, 6) and torch.isnan(a).all() and torch.isnan(b).all()
    with pytest.raises(RuntimeError):
        a.add_(1.0)  # one memory location for every element: torch refuses
    released.restore()
    assert a.stride() == (6, 1) and b.stride() == (1, 4)
    a.fill_(1.0)
    assert float(a.sum()) == 24.0
