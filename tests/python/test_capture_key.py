"""nova.capture_key: a warm process finds its compiled train step without
capturing, and anything the capture depends on changes the key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from torch import nn

from nova import capture_key

SCALE = 2.0


def _double(x: torch.Tensor) -> torch.Tensor:
    return x * SCALE


def _triple(x: torch.Tensor) -> torch.Tensor:
    return x * 3.0


class Net(nn.Module):
    def __init__(self, tie: bool = False, p: float = 0.0) -> None:
        super().__init__()
        self.inp = nn.Linear(8, 8)
        self.out = nn.Linear(8, 8)
        if tie:
            self.out.weight = self.inp.weight
        self.drop = nn.Dropout(p)
        self.eps = 1e-5

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.drop(_double(self.inp(x)))).sum() * self.eps


def _key(model: nn.Module | None = None, optimizer: torch.optim.Optimizer | None = None,
         batch: tuple[torch.Tensor, ...] | None = None, options: dict | None = None, loss_fn=None) -> str | None:
    torch.manual_seed(0)
    model = model or Net()
    optimizer = optimizer or torch.optim.AdamW(model.parameters(), lr=1e-3)
    batch = batch or (torch.randn(4, 8),)
    return capture_key.train_step_capture_key(model, optimizer, loss_fn, batch, options or {"target": "cpu"})


def test_key_is_stable_and_ignores_values() -> None:
    torch.manual_seed(0)
    a, b = Net(), Net()  # different weights: values are inputs of the step
    assert _key(a) == _key(b) is not None
    assert _key(batch=(torch.zeros(4, 8),)) == _key(batch=(torch.ones(4, 8),))
    model = Net()
    assert _key(model, torch.optim.AdamW(model.parameters(), lr=1e-3)) == \
        _key(model, torch.optim.AdamW(model.parameters(), lr=0.5))  # lr is an input


@pytest.mark.parametrize("change", [
    "attribute", "submodule-attribute", "tied", "eval", "dtype", "batch", "options", "weight-decay",
    "optimizer-state", "global-function", "global-constant", "loss-fn",
])
def test_what_the_capture_reads_changes_the_key(change: str, monkeypatch: pytest.MonkeyPatch) -> None:
    base = _key()
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batch, options, loss_fn = (torch.randn(4, 8),), {"target": "cpu"}, None
    if change == "attribute":
        model.eps = 1e-6
    elif change == "submodule-attribute":
        model.drop.p = 0.1
    elif change == "tied":
        model = Net(tie=True)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    elif change == "eval":
        model.eval()
    elif change == "dtype":
        model.out.to(torch.float64)
    elif change == "batch":
        batch = (torch.randn(5, 8),)
    elif change == "options":
        options = {"target": "cpu", "autocast_dtype": "torch.bfloat16"}
    elif change == "weight-decay":
        optimizer.param_groups[0]["weight_decay"] = 0.5
    elif change == "optimizer-state":
        optimizer.state[model.inp.weight]["exp_avg"] = torch.zeros(8, 8)
    elif change == "global-function":  # forward's helper is another function now
        monkeypatch.setitem(globals(), "_double", _triple)
    elif change == "global-constant":  # read by the helper forward calls
        monkeypatch.setitem(globals(), "SCALE", 4.0)
    elif change == "loss-fn":
        loss_fn = nn.MSELoss()
    assert _key(model, optimizer, batch, options, loss_fn) not in (base, None)


class _Opaque:
    """An attribute whose inspection fails."""

    @property
    def __dict__(self):
        raise RuntimeError("opaque")


def test_unkeyable_values_and_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    model = Net()
    model.table = torch.randn(512, 1024)  # traced as a constant, too large to key by value
    assert _key(model) is None
    model = Net()
    model.opaque = _Opaque()  # no crash: captured as without the key
    assert _key(model) is None
    monkeypatch.setenv(capture_key.ENV, "0")
    assert _key() is None


_WARM_SCRIPT = textwrap.dedent("""
    import json, sys, torch
    import nova
    from nova import capture
    from nova.models import make_gpt

    if sys.argv[1] == "warm":
        def refuse(*args, **kwargs):
            raise AssertionError("a warm process captured the step")
        capture.capture_train_step = refuse
    torch.manual_seed(0)
    model = make_gpt("gpt-tiny")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step = nova.jit(model, optimizer)
    g = torch.Generator().manual_seed(1)
    batches = [(torch.randint(0, 256, (2, 16), generator=g), torch.randint(0, 256, (2, 16), generator=g))
               for _ in range(3)]
    losses = [float(step(*b)) for b in batches]
    info = nova.cache_info()
    print(json.dumps({"losses": losses, "misses": info.misses}))
""")


def test_a_warm_process_runs_without_capturing(tmp_path: Path) -> None:
    """A second process with the same cache finds the step by its capture key
    (its capture would raise) and trains exactly as the first, whose step
    was captured and compiled."""
    script = tmp_path / "warm.py"
    script.write_text(_WARM_SCRIPT)
    env = {**os.environ, "NOVA_CACHE_DIR": str(tmp_path / "cache")}

    def run(mode: str, seed: str) -> dict:
        done = subprocess.run([sys.executable, str(script), mode], env={**env, "PYTHONHASHSEED": seed},
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    cold = run("cold", "1")
    warm = run("warm", "2")  # another string-hash seed: the key must not depend on it
    assert cold["misses"] == 1 and warm["misses"] == 0
    assert warm["losses"] == cold["losses"]
