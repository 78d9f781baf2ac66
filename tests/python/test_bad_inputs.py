"""Bad input raises where the user can act on it: out-of-range indices as
eager's IndexError (checked before a CPU step is enqueued), a dtype
mismatch at the user's line without torch's internals, a batch on another
device than the model."""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest
import torch
from torch import Tensor, nn

import nova
from nova import capture, index_checks


@pytest.fixture(autouse=True)
def _fresh_cache(fresh_cache: None) -> None:
    """Every test here compiles into a cache of its own."""


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 10) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, 8)
        self.head = nn.Linear(8, vocab)

    def forward(self, ids: Tensor, targets: Tensor) -> Tensor:
        hidden = self.emb(ids)
        return nn.functional.cross_entropy(self.head(hidden).flatten(0, 1), targets.flatten())


def _setup():
    torch.manual_seed(0)
    model = TinyLM()
    step = nova.jit(model, torch.optim.SGD(model.parameters(), lr=0.1))
    ids, targets = torch.randint(0, 10, (2, 4)), torch.randint(0, 10, (2, 4))
    return model, step, ids, targets


def test_index_bounds_follow_views_to_batch_inputs():
    model, _, ids, targets = _setup()
    captured = capture.capture_train_step(model, torch.optim.SGD(model.parameters(), lr=0.1), None, (ids, targets))
    bounds = index_checks.index_bounds(captured)
    assert index_checks.IndexBound(0, 10, "embedding") in bounds
    # The target reaches cross-entropy through flatten (a view); -100 is its ignore_index.
    assert index_checks.IndexBound(1, 10, "cross_entropy target", ignore=-100) in bounds
    assert len(bounds) == 2


@pytest.mark.parametrize("bad", [10, 12, -1])
def test_embedding_index_out_of_range_raises_like_eager(bad: int):
    model, step, ids, targets = _setup()
    step(ids, targets)
    ids[1, 2] = bad
    with pytest.raises(IndexError, match="index out of range in self"):
        model(ids, targets)  # eager
    with pytest.raises(IndexError, match=rf"index out of range in self \(nova: batch input 0 holds {bad}"):
        step(ids, targets)


def test_target_out_of_range_raises_and_ignore_index_passes():
    model, step, ids, targets = _setup()
    targets[0, 0] = 12
    with pytest.raises(IndexError, match="Target 12 is out of bounds"):
        model(ids, targets)
    with pytest.raises(IndexError, match="Target 12 is out of bounds"):
        step(ids, targets)
    targets[0, 0] = -100  # ignored, as in eager
    loss = step(ids, targets)
    assert torch.isfinite(loss)


def test_a_good_step_after_a_rejected_one_matches_eager():
    # The rejected batch never ran: the state is the one before it.
    model, step, ids, targets = _setup()
    eager = TinyLM()
    eager.load_state_dict(model.state_dict())
    eager_opt = torch.optim.SGD(eager.parameters(), lr=0.1)
    bad = ids.clone()
    bad[0, 0] = 99
    with pytest.raises(IndexError):
        step(bad, targets)
    loss = step(ids, targets)
    eager_loss = eager(ids, targets)
    eager_loss.backward()
    eager_opt.step()
    assert float(loss) == pytest.approx(float(eager_loss.detach()), rel=1e-5)
    step.sync()
    for (name, p), q in zip(model.named_parameters(), eager.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6, msg=name)


def test_function_index_out_of_range_raises():
    emb = nn.Embedding(6, 4)
    fn = nova.jit(emb)
    ids = torch.tensor([0, 5, 2])
    torch.testing.assert_close(fn(ids), emb(ids), rtol=1e-6, atol=1e-6)
    with pytest.raises(IndexError, match="index out of range in self"):
        fn(torch.tensor([0, 6, 2]))


def test_gpu_checks_need_the_debug_switch(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("NOVA_CHECK_INDICES", raising=False)
    assert index_checks.checks_enabled(torch.device("cpu"))
    assert not index_checks.checks_enabled(torch.device("cuda", 0))
    monkeypatch.setenv("NOVA_CHECK_INDICES", "1")
    assert index_checks.checks_enabled(torch.device("cuda", 0))


def test_dtype_mismatch_names_the_users_line():
    _, step, ids, targets = _setup()
    with pytest.raises(RuntimeError) as err:
        step(ids.float(), targets)
    line = next(i for i, text in enumerate(Path(__file__).read_text().splitlines(), 1) if "hidden = self.emb(ids)" in text)
    assert "Expected tensor for argument #1 'indices'" in str(err.value)
    assert f"test_bad_inputs.py:{line}, in forward: hidden = self.emb(ids)" in str(err.value)
    torch_dir = str(Path(torch.__file__).parent)
    assert not [f for f in traceback.extract_tb(err.value.__traceback__) if f.filename.startswith(torch_dir)]
    assert err.value.__suppress_context__ and err.value.nova_cause is not None


def test_batch_on_another_device_raises():
    _, step, ids, targets = _setup()
    with pytest.raises(ValueError, match="batch input 0 is on meta but the model's parameters are on cpu"):
        step(ids.to("meta"), targets)


def test_model_without_parameters_is_a_clear_error():
    class NoParams(nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            return x.square().mean()

    model = NoParams()
    step = nova.jit(model, torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1))
    with pytest.raises(ValueError, match="optimizer holds parameters that are not in the model"):
        step(torch.randn(3))


def test_index_bounds_follow_micro_batches():
    """With gradient accumulation the ids reach the embedding through the
    split into micro-batches: still checked, like eager."""
    torch.manual_seed(0)
    model = TinyLM()
    step = nova.jit(model, torch.optim.SGD(model.parameters(), lr=0.1), gradient_accumulation_steps=2)
    ids, targets = torch.randint(0, 10, (4, 4)), torch.randint(0, 10, (4, 4))
    step(ids, targets)
    ids[3, 1] = 10
    with pytest.raises(IndexError, match="index out of range"):
        step(ids, targets)
