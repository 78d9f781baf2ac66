"""Softmax cross-entropy: nova.cross_entropy / nova.cross_entropy_backward.

Capture routes `F.cross_entropy` over class indices to the nova::cross_entropy
custom op (loss_ops.py); on CPU nova-lower-to-linalg decomposes it again, on
CUDA it runs Nova's row kernels. The eager op must match torch (values and
gradients, ignored rows included), eligible calls must be captured whole,
others keep torch's path, and a classifier with ignored targets must train
like eager. The loss and its backward are one op where the loss gradient
allows (nova-fuse-cross-entropy): one CUDA kernel for both, split back on the
CPU, so every CPU step runs the fusion too. Tolerances: f32 1e-5 relative (losses), 1e-4 (parameters after
SGD steps); bf16 logits 1e-2.
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor, nn

import nova
from nova import capture, loss_ops
from nova.models import make_gpt
from training_checks import without_key_bias


@pytest.fixture(autouse=True)
def _fresh_cache(fresh_cache: None) -> None:
    """Every test here compiles into a cache of its own."""


def rel_err(a: Tensor, b: Tensor) -> float:
    a, b = a.detach().double(), b.detach().double()
    return float((a - b).norm() / b.norm().clamp_min(1e-12))


def logits_and_targets(dtype: torch.dtype, n: int = 12, c: int = 37, ignore: int = -100):
    g = torch.Generator().manual_seed(0)
    logits = (3 * torch.randn(n, c, generator=g)).to(dtype).requires_grad_()
    target = torch.randint(0, c, (n,), generator=g)
    target[[1, 5]] = ignore
    return logits, target


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype, tol", [(torch.float32, 1e-5), (torch.bfloat16, 1e-2)])
def test_routed_cross_entropy_matches_torch(reduction: str, dtype: torch.dtype, tol: float) -> None:
    logits, target = logits_and_targets(dtype)
    want = F.cross_entropy(logits, target, reduction=reduction)
    (want_grad,) = torch.autograd.grad(want.float().sum(), logits)
    with loss_ops.route_cross_entropy():
        got = F.cross_entropy(logits, target, reduction=reduction)
    (got_grad,) = torch.autograd.grad(got.float().sum(), logits)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert rel_err(got, want) < tol
    assert got_grad.dtype == dtype
    assert rel_err(got_grad, want_grad) < tol
    assert float(got_grad[[1, 5]].abs().max()) == 0.0  # ignored rows


def test_unsupported_calls_keep_torch_path() -> None:
    logits, target = logits_and_targets(torch.float32)
    weight = torch.rand(logits.shape[1])
    with loss_ops.route_cross_entropy():
        smoothed = F.cross_entropy(logits, target, label_smoothing=0.1)
        weighted = F.cross_entropy(logits, target, weight=weight)
    assert torch.equal(smoothed, F.cross_entropy(logits, target, label_smoothing=0.1))
    assert torch.equal(weighted, F.cross_entropy(logits, target, weight=weight))


def test_gpt_cross_entropy_is_captured_whole() -> None:
    torch.manual_seed(0)
    model = make_gpt("gpt-tiny")
    g = torch.Generator().manual_seed(2)
    batch = (torch.randint(0, 256, (2, 32), generator=g), torch.randint(0, 256, (2, 32), generator=g))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    captured = capture.capture_train_step(model, opt, None, batch)
    targets = [n.target for n in captured.graph_module.graph.nodes]
    assert targets.count(loss_ops.CROSS_ENTROPY_OP) == 1
    assert targets.count(loss_ops.CROSS_ENTROPY_BACKWARD_OP) == 1


def test_gpt_loss_and_its_gradient_are_one_cuda_kernel() -> None:
    # Compile only (no GPU): the step's cross-entropy and its backward are
    # one dispatch of the fused row kernel, writing the gradient over the
    # logits (nothing reads them after it).
    import re

    from nova.importer import import_to_torch_mlir
    from nova.pipeline import lower_to_iree_input

    torch.manual_seed(0)
    model = make_gpt("gpt-tiny")
    g = torch.Generator().manual_seed(2)
    batch = (torch.randint(0, 256, (2, 32), generator=g), torch.randint(0, 256, (2, 32), generator=g))
    captured = capture.capture_train_step(model, torch.optim.AdamW(model.parameters(), lr=1e-3), None, batch)
    text = lower_to_iree_input(import_to_torch_mlir(captured), target="cuda:sm_90")
    kernels = re.findall(r"entry_points = \[@(nova_cross_entropy_\w+)::", text)
    assert len(kernels) == 1 and re.fullmatch(r"nova_cross_entropy_fused_f32_i64_t\d+_v4_u\d+_inplace", kernels[0]), kernels


class Classifier(nn.Module):
    def __init__(self, reduction: str) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 11))
        self.loss = nn.CrossEntropyLoss(ignore_index=-1, reduction=reduction)

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        return self.loss(self.net(x), y)


def train_like_eager(eager: nn.Module, make_opt, batches) -> None:
    """Trains `eager` and a copy through nova.jit on the same batches (the
    model returns its loss): losses within 1e-5, parameters within 1e-4
    relative (the key bias excepted) after the steps."""
    compiled = copy.deepcopy(eager)
    eager_opt = make_opt(eager)
    step = nova.jit(compiled, make_opt(compiled))
    for batch in batches:
        loss = eager(*batch)
        loss.backward()
        want = float(loss.detach())
        eager_opt.step()
        eager_opt.zero_grad(set_to_none=True)
        got = float(step(*batch))
        assert abs(got - want) <= 1e-5 * abs(want)
    step.sync()
    for (name, p), q in zip(eager.named_parameters(), compiled.parameters()):
        assert rel_err(without_key_bias(name, q), without_key_bias(name, p)) < 1e-4, name


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_classifier_with_ignored_targets_trains_like_eager(reduction: str) -> None:
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    batches = []
    for _ in range(4):
        x = torch.randn(24, 16, generator=g)
        y = torch.randint(0, 11, (24,), generator=g)
        y[::5] = -1
        batches.append((x, y))
    train_like_eager(Classifier(reduction), lambda m: torch.optim.SGD(m.parameters(), lr=0.05), batches)


def test_gpt_head_in_chunks_trains_like_eager(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    # NOVA_HEAD_CHUNK_MIB: the head and its cross-entropy in chunks of rows
    # (nova-chunk-cross-entropy). gpt-tiny at 8 x 32 tokens: 256 x 256 f32
    # logits (256 KiB) in chunks of at most 128 KiB, two of 128 rows.
    monkeypatch.setenv("NOVA_HEAD_CHUNK_MIB", "0.125")
    monkeypatch.setenv("NOVA_DUMP_IR", str(tmp_path / "ir"))
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    batches = [(torch.randint(0, 256, (8, 32), generator=g), torch.randint(0, 256, (8, 32), generator=g))
               for _ in range(4)]
    train_like_eager(make_gpt("gpt-tiny"), lambda m: torch.optim.AdamW(m.parameters(), lr=1e-3), batches)
    # The program that ran took its targets in two chunks of 128.
    (linalg,) = (tmp_path / "ir").glob("*/04-linalg.mlir")
    assert "tensor<256xi64> to tensor<128xi64>" in linalg.read_text()


def test_step_over_the_memory_limit_is_compiled_with_its_head_in_chunks(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    # NOVA_MEMORY_LIMIT_GIB: a step planned above it (1 KiB: every step) is
    # compiled again with its head in 4, 6 and 8 chunks, the least peak kept.
    # gpt-tiny at 16 x 32 tokens: 512 rows, so 4 chunks of 128 rows.
    monkeypatch.setenv("NOVA_MEMORY_LIMIT_GIB", str(1 / 2**20))
    monkeypatch.setenv("NOVA_DUMP_IR", str(tmp_path / "ir"))
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(4)
    batches = [(torch.randint(0, 256, (16, 32), generator=g), torch.randint(0, 256, (16, 32), generator=g))
               for _ in range(3)]
    with caplog.at_level("WARNING", logger="nova.pipeline"):
        train_like_eager(make_gpt("gpt-tiny"), lambda m: torch.optim.AdamW(m.parameters(), lr=1e-3), batches)
    compiles = sorted(p.name.rsplit(".", 1)[-1] for p in (tmp_path / "ir").iterdir())
    assert len(compiles) == 4 and compiles[1:] == ["head-4-chunks", "head-6-chunks", "head-8-chunks"]
    (chunked,) = (tmp_path / "ir").glob("*.head-4-chunks/04-linalg.mlir")
    assert "tensor<512xi64> to tensor<128xi64>" in chunked.read_text()
    assert "is over the memory limit" in caplog.text  # none fits 1 KiB
