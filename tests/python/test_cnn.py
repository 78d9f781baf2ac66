"""Convolutional models trained by nova.jit on CPU next to eager (issue: real
models): convolutions (strided, padded, dilated, grouped, transposed, 1-d
and 2-d) and their backward as nova.convolution, max and average pooling
(ceil mode, padding, count_include_pad) and BatchNorm, whose running
statistics and batch counter are buffers the step updates; `model.eval()`
runs a separately compiled program with the running statistics.

Compared after each step: the loss (relative 1e-4); after the run, every
parameter (relative norm error of the update 1e-3) and buffer (1e-5).
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import nova
from training_checks import assert_matches_captured_reference, assert_parameters_track, eager_step


@pytest.fixture(autouse=True)
def _fresh_cache(fresh_cache: None) -> None:
    """Every test here compiles into a cache of its own."""


class SmallCNN(nn.Module):
    """Conv-BN-ReLU blocks (no conv bias before a BatchNorm, as usual), max
    and average pooling, global average pooling and a linear head."""

    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.pool = nn.MaxPool2d(2)
        self.block = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.avg = nn.AvgPool2d(2)
        self.head = nn.Linear(16, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.avg(self.block(self.pool(self.stem(x))))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


class ConvVariants(nn.Module):
    """Every convolution and pooling form the converter handles, on odd sizes."""

    def __init__(self) -> None:
        super().__init__()
        self.grouped = nn.Conv2d(4, 8, (3, 2), stride=(2, 1), padding=(1, 0), groups=2)
        self.dilated = nn.Conv2d(8, 8, 3, padding=2, dilation=2)
        self.up = nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1, dilation=1, ceil_mode=True)
        self.avgpool = nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
        self.conv1d = nn.Conv1d(6, 5, 4, stride=3, padding=2)
        self.pool1d = nn.MaxPool1d(2)
        self.head = nn.Linear(5, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.tanh(self.dilated(torch.tanh(self.grouped(x))))
        x = self.avgpool(self.maxpool(torch.tanh(self.up(x))))
        x = self.pool1d(torch.tanh(self.conv1d(x.flatten(2))))
        return self.head(x.mean(-1))


def _assert_trains_like_eager(make_model, batch_shape, classes, steps=4, lr=1e-2):
    torch.manual_seed(0)
    eager = make_model()
    compiled = copy.deepcopy(eager)
    init = copy.deepcopy(eager)
    eager_opt = torch.optim.AdamW(eager.parameters(), lr=lr)
    step = nova.jit(compiled, torch.optim.AdamW(compiled.parameters(), lr=lr), F.cross_entropy)
    gen = torch.Generator().manual_seed(3)
    for _ in range(steps):
        x = torch.randn(batch_shape, generator=gen)
        y = torch.randint(0, classes, batch_shape[:1], generator=gen)
        loss = eager_step(eager, eager_opt, (x, y), F.cross_entropy)
        nova_loss = step(x, y)
        assert abs(float(nova_loss) - float(loss)) <= 1e-4 * abs(float(loss))
    step.sync()
    assert_parameters_track(eager, compiled, init)
    for (name, b_eager), b_nova in zip(eager.named_buffers(), compiled.buffers()):
        assert torch.allclose(b_nova.float(), b_eager.float(), rtol=1e-5, atol=1e-6), name
    return eager, compiled, step


def test_cnn_with_batch_norm_trains_like_eager():
    eager, compiled, _ = _assert_trains_like_eager(SmallCNN, (4, 3, 16, 16), 10)
    # The running statistics moved and the batch counter counted the steps.
    bn = compiled.stem[1]
    assert int(bn.num_batches_tracked) == 4
    assert float(bn.running_var.sub(1).abs().max()) > 1e-3


def test_cnn_with_dropout_matches_its_reference():
    """SmallCNN with dropout before its head: against the captured graph run
    eagerly on the same seeds (Nova's masks are not eager torch's)."""

    def make() -> nn.Module:
        model = SmallCNN()
        model.head = nn.Sequential(nn.Dropout(0.25), model.head)
        return model

    gen = torch.Generator().manual_seed(3)
    batches = [(torch.randn(4, 3, 16, 16, generator=gen), torch.randint(0, 10, (4,), generator=gen)) for _ in range(3)]
    assert_matches_captured_reference(make, batches, F.cross_entropy)


def test_convolution_and_pooling_variants_train_like_eager():
    _assert_trains_like_eager(ConvVariants, (2, 4, 11, 9), 3)


def test_eval_mode_is_its_own_program():
    """A step in eval mode normalizes with the running statistics and leaves
    them alone; switching back to train mode uses the training program."""
    torch.manual_seed(0)
    eager = SmallCNN()
    compiled = copy.deepcopy(eager)
    eager_opt = torch.optim.SGD(eager.parameters(), lr=0.05)
    step = nova.jit(compiled, torch.optim.SGD(compiled.parameters(), lr=0.05), F.cross_entropy)
    gen = torch.Generator().manual_seed(1)
    for mode in ("train", "eval", "train"):
        eager.train(mode == "train")
        compiled.train(mode == "train")
        x = torch.randn((4, 3, 16, 16), generator=gen)
        y = torch.randint(0, 10, (4,), generator=gen)
        loss = eager_step(eager, eager_opt, (x, y), F.cross_entropy)
        assert abs(float(step(x, y)) - float(loss)) <= 1e-4 * float(loss), mode
    step.sync()
    assert len(step._programs) == 2
    assert int(compiled.stem[1].num_batches_tracked) == 2
    for (name, b_eager), b_nova in zip(eager.named_buffers(), compiled.buffers()):
        assert torch.allclose(b_nova.float(), b_eager.float(), rtol=1e-5, atol=1e-6), name


def test_compiled_forward_of_a_cnn_in_eval_mode():
    torch.manual_seed(0)
    model = SmallCNN()
    model.train()
    model(torch.randn(8, 3, 16, 16))  # running statistics away from (0, 1)
    model.eval()
    x = torch.randn(2, 3, 16, 16)
    forward = nova.jit(model)
    with torch.no_grad():
        torch.testing.assert_close(forward(x), model(x), rtol=1e-5, atol=1e-5)


def test_batch_norm_without_momentum_is_a_clear_error():
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4, momentum=None), nn.Flatten(), nn.LazyLinear(2))
    model(torch.randn(2, 3, 8, 8))
    step = nova.jit(model, torch.optim.SGD(model.parameters(), lr=0.1), F.cross_entropy)
    with pytest.raises(NotImplementedError, match="momentum=None"):
        step(torch.randn(2, 3, 8, 8), torch.tensor([0, 1]))


@pytest.mark.parametrize("track_running_stats", [True, False])
def test_batch_norm_1d_trains_like_eager(track_running_stats: bool):
    """Without running statistics BatchNorm normalizes with the batch's in
    eval mode too, and the step updates no buffer."""
    torch.manual_seed(0)
    eager = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8, track_running_stats=track_running_stats), nn.Linear(8, 1))
    compiled = copy.deepcopy(eager)
    eager_opt = torch.optim.SGD(eager.parameters(), lr=0.1)
    step = nova.jit(compiled, torch.optim.SGD(compiled.parameters(), lr=0.1), loss_fn=F.mse_loss)
    gen = torch.Generator().manual_seed(2)
    for _ in range(3):
        x, y = torch.randn(16, 8, generator=gen), torch.randn(16, 1, generator=gen)
        loss = eager_step(eager, eager_opt, (x, y), F.mse_loss)
        assert abs(float(step(x, y)) - float(loss)) <= 1e-4 * float(loss)
    step.sync()
    layout = next(iter(step._programs.values())).layout
    assert len(layout.updated_buffers) == (3 if track_running_stats else 0)
    for (name, t_eager), t_nova in zip(eager.state_dict().items(), compiled.state_dict().values()):
        torch.testing.assert_close(t_nova, t_eager, rtol=1e-4, atol=1e-6, msg=name)


def test_gradient_accumulation_carries_batch_norm_statistics():
    """With 2 micro-batches a step, BatchNorm's running statistics are
    updated by each micro-batch in turn, as in eager accumulation."""
    torch.manual_seed(0)
    eager = SmallCNN()
    compiled = copy.deepcopy(eager)
    eager_opt = torch.optim.SGD(eager.parameters(), lr=0.05, momentum=0.9)
    step = nova.jit(compiled, torch.optim.SGD(compiled.parameters(), lr=0.05, momentum=0.9), F.cross_entropy,
                    gradient_accumulation_steps=2)  # fmt: skip
    gen = torch.Generator().manual_seed(4)
    for _ in range(2):
        x, y = torch.randn((8, 3, 16, 16), generator=gen), torch.randint(0, 10, (8,), generator=gen)
        losses = []
        for xm, ym in zip(x.chunk(2), y.chunk(2)):
            loss = F.cross_entropy(eager(xm), ym)
            (loss / 2).backward()
            losses.append(float(loss))
        eager_opt.step()
        eager_opt.zero_grad(set_to_none=True)
        assert abs(float(step(x, y)) - sum(losses) / 2) <= 1e-4 * sum(losses) / 2
    step.sync()
    assert int(compiled.stem[1].num_batches_tracked) == 4
    for (name, t_eager), t_nova in zip(eager.state_dict().items(), compiled.state_dict().values()):
        torch.testing.assert_close(t_nova, t_eager, rtol=1e-4, atol=1e-5, msg=name)


class RunningScale(nn.Module):
    """Normalizes by a running mean of the batch's scale, kept in buffers
    its forward writes in place (like BatchNorm's, outside BatchNorm)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scale", torch.ones(()))
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))
        self.register_buffer("fixed", torch.full((), 2.0))  # read, never written
        self.linear = nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            with torch.no_grad():
                self.scale.mul_(0.9).add_(0.1 * x.abs().mean())
                self.calls += 1
        return self.linear(x / self.scale * self.fixed)


def test_buffers_a_forward_writes_are_step_state():
    torch.manual_seed(0)
    eager = RunningScale()
    compiled = copy.deepcopy(eager)
    eager_opt = torch.optim.SGD(eager.parameters(), lr=0.1)
    step = nova.jit(compiled, torch.optim.SGD(compiled.parameters(), lr=0.1), F.cross_entropy)
    gen = torch.Generator().manual_seed(6)
    for _ in range(3):
        x, y = 3 * torch.randn(4, 8, generator=gen), torch.randint(0, 3, (4,), generator=gen)
        loss = eager_step(eager, eager_opt, (x, y), F.cross_entropy)
        assert abs(float(step(x, y)) - float(loss)) <= 1e-5 * float(loss)
    step.sync()
    layout = next(iter(step._programs.values())).layout
    assert layout.updated_buffers == ("scale", "calls")
    for (name, t_eager), t_nova in zip(eager.state_dict().items(), compiled.state_dict().values()):
        torch.testing.assert_close(t_nova, t_eager, rtol=1e-5, atol=1e-6, msg=name)


def _layers(*modules: nn.Module, conv_bias: bool = True) -> nn.Module:
    # A bias before instance norm has a true gradient of 0 (the norm removes
    # it): AdamW would move it on rounding noise.
    return nn.Sequential(nn.Conv2d(3, 4, 3, bias=conv_bias), *modules, nn.Flatten(), nn.LazyLinear(3))


LAYERS = {
    "group-norm": lambda: _layers(nn.GroupNorm(2, 4)),
    "instance-norm": lambda: _layers(nn.InstanceNorm2d(4, affine=True, track_running_stats=True), conv_bias=False),
    "instance-norm-plain": lambda: _layers(nn.InstanceNorm2d(4), conv_bias=False),
    "upsample-nearest": lambda: _layers(nn.Upsample(scale_factor=2)),
    "upsample-nearest-size": lambda: _layers(nn.Upsample(size=(11, 5))),
    "upsample-bilinear": lambda: _layers(nn.Upsample(scale_factor=1.5, mode="bilinear")),
    "upsample-bilinear-corners": lambda: _layers(nn.Upsample(size=(13, 7), mode="bilinear", align_corners=True)),
    "adaptive-avg-pool": lambda: _layers(nn.AdaptiveAvgPool2d((3, 5))),
    "adaptive-max-pool": lambda: _layers(nn.AdaptiveMaxPool2d((3, 2))),
    "pixel-shuffle": lambda: _layers(nn.Conv2d(4, 8, 1), nn.PixelShuffle(2)),
    "activations": lambda: _layers(nn.SiLU(), nn.Conv2d(4, 4, 1), nn.Mish(), nn.Conv2d(4, 4, 1), nn.LeakyReLU(0.2),
                                   nn.Conv2d(4, 4, 1), nn.ELU(), nn.Conv2d(4, 4, 1), nn.Softplus(),
                                   nn.Conv2d(4, 4, 1), nn.Hardswish()),  # fmt: skip
    "conv3d": lambda: nn.Sequential(nn.Unflatten(1, (3, 1)), nn.Conv3d(3, 4, (1, 3, 3), padding=(0, 1, 1)),
                                    nn.MaxPool3d((1, 2, 2)), nn.AvgPool3d((1, 2, 1)), nn.Flatten(),
                                    nn.LazyLinear(3)),  # fmt: skip
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_more_layers_train_like_eager(name):
    """Normalization, resampling (nearest and bilinear upsampling, adaptive
    pooling as constant matrices; their backward the transposed ones),
    activations (leaky_relu, elu/expm1, softplus/log1p, ...) and 3-d layers."""

    def make() -> nn.Module:
        torch.manual_seed(0)
        model = LAYERS[name]()
        model(torch.randn(2, 3, 10, 9))  # the lazy head's size
        return model

    _assert_trains_like_eager(make, (2, 3, 10, 9), 3, steps=3)


@pytest.mark.parametrize("make_model,shape", [(SmallCNN, (4, 3, 16, 16)), (ConvVariants, (2, 4, 11, 9))],
                         ids=["cnn", "variants"])
def test_cuda_step_of_a_cnn_compiles(make_model, shape):
    """The bf16 CUDA lowering of convolutions, pooling and BatchNorm (IREE's
    codegen for the convolutions) is accepted by iree-compile for sm_90;
    the numerics are checked on the GPU (tools/device)."""
    from nova import capture
    from nova.pipeline import compile_captured

    torch.manual_seed(0)
    model = make_model()
    x = torch.randn(shape)
    y = torch.randint(0, 3, shape[:1])
    captured = capture.capture_train_step(
        model, torch.optim.AdamW(model.parameters()), F.cross_entropy, (x, y), autocast_dtype=torch.bfloat16
    )
    assert captured.train_layout.updated_buffers == tuple(
        n for n, _ in model.named_buffers()
    )
    vmfb, _ = compile_captured(captured, "cuda:sm_90", name=make_model.__name__)
    assert vmfb
