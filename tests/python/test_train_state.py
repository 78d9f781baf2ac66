"""Train-step state in the compiled module (CPU): updated in place, steps
enqueued through fences, exported with a parameter archive."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import iree.runtime as rt
import numpy as np
import pytest
import torch
from torch import nn

import nova
from nova import capture
from nova.models import MLP
from nova.importer import import_to_torch_mlir
from nova.pipeline import lower_to_iree_input, pack_state_enabled, train_step_pipeline
from nova.compiled import num_state_tensors
from nova.runtime import Session


@pytest.fixture(autouse=True)
def _fresh_cache(fresh_cache: None) -> None:
    """Every test here compiles into a cache of its own."""


def _wide_mlp_setup():
    """A model whose AdamW state dwarfs its activations (batch 2)."""
    torch.manual_seed(0)
    model = MLP(256, 1024, 256)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batch = (torch.randn(2, 256), torch.randint(0, 256, (2,)))
    return model, optimizer, batch


def _step_allocation_bytes(in_place: bool, transients: bool = False) -> tuple[int, int]:
    """(bytes the compiled @step needs beyond the state, bytes of state): its
    caller-provided transient storage (the size IREE reflects) plus the sizes
    of its `hal.device.queue.alloca`s, after IREE's stream scheduling."""
    model, optimizer, batch = _wide_mlp_setup()
    captured = capture.capture_train_step(model, optimizer, nn.functional.cross_entropy, batch)
    pipeline = train_step_pipeline(captured, in_place=in_place, transients=transients)
    # Packed as nova.jit packs (pack_state_enabled), so the plans compare.
    text = lower_to_iree_input(import_to_torch_mlir(captured), program_pipeline=pipeline, pack_state=pack_state_enabled())
    from iree.compiler.tools import compile_str

    hal = compile_str(text, target_backends=["llvm-cpu"], extra_args=["--compile-to=hal", "--iree-llvmcpu-target-cpu=host"]).decode()
    step = hal[re.search(r"func(\.func)? public @step\(", hal).start() :]
    step = step[: re.search(r"\n  \}", step).start()]
    constants = {m[0]: int(m[1]) for m in re.findall(r"(%c\w*) = arith.constant (\d+) : index", hal)}
    sizes = re.findall(r"hal\.device\.queue\.alloca<.*!hal\.buffer\{(%\w+)\}", step)
    reflected = re.search(r"iree\.abi\.transients\.size\.constant = (\d+)", step)
    assert (reflected is not None) == transients, "caller transients iff compiled with them"
    if transients:  # then the step allocates nothing itself
        assert not sizes, sizes
    state = capture.train_step_inputs(captured, model, optimizer, None)[: num_state_tensors(captured.train_layout)]
    state_bytes = sum(t.numel() * t.element_size() for t in state)
    return (int(reflected.group(1)) if reflected else 0) + sum(constants[s] for s in sizes), state_bytes


@pytest.mark.parametrize("transients", [False, True])
def test_state_is_updated_in_place(transients: bool):
    # In place, a step allocates only gradients and activations (a third of
    # AdamW's state: one gradient per param); storing new values instead
    # allocates params, m and v again. The second compile proves the check
    # can tell the two apart.
    allocated, state_bytes = _step_allocation_bytes(in_place=True, transients=transients)
    assert 0 < allocated < 0.5 * state_bytes, (allocated, state_bytes)
    if transients:
        return
    allocated_copying, _ = _step_allocation_bytes(in_place=False)
    assert allocated_copying >= state_bytes, (allocated_copying, state_bytes)


@pytest.mark.parametrize("transients", ["0", "1"])
def test_memory_plan_is_readable_from_the_step(transients: str, monkeypatch: pytest.MonkeyPatch):
    # The planned peak: the state's bytes, @step's transients as IREE laid
    # them out (the same number IREE reflects when the caller provides that
    # storage, NOVA_STEP_TRANSIENTS=1, and then counted from it), the batch
    # and the loss; logged at compile time, kept with the cached executable
    # and read back on a hit.
    monkeypatch.setenv("NOVA_STEP_TRANSIENTS", transients)
    model, optimizer, batch = _wide_mlp_setup()
    step = nova.jit(model, optimizer, nn.functional.cross_entropy)
    assert step.memory_plan is None
    step(*batch)
    plan = step.memory_plan
    reflected, state_bytes = _step_allocation_bytes(in_place=True, transients=True)
    batch_bytes = sum(b.numel() * b.element_size() for b in batch)
    hypers_and_loss = plan["inputs_and_loss"] - batch_bytes
    assert plan["state"] == state_bytes
    assert plan["step_transients"] == reflected > 0
    assert 0 < hypers_and_loss <= 64, plan
    assert plan["peak"] == plan["state"] + plan["step_transients"] + plan["inputs_and_loss"]

    from nova.runtime import default_cache

    default_cache().clear_memory()  # the next load reads the entry from disk
    model_again = copy.deepcopy(model)
    again = nova.jit(model_again, torch.optim.AdamW(model_again.parameters(), lr=1e-3), nn.functional.cross_entropy)
    again(*batch)
    assert again.memory_plan == plan


def test_step_module_signature_takes_hypers_as_one_tensor(tmp_path: Path):
    from nova.export import example_training_setup, export_train_step

    model, optimizer, batch, loss_fn = example_training_setup("mlp", "adamw", 4)
    export_train_step(model, optimizer, batch, tmp_path, loss_fn=loss_fn, write_inputs=False)
    signature = json.loads((tmp_path / "step.json").read_text())
    assert signature["function"] == "step"
    assert signature["inputs"][0] == {"role": "hyper", "name": "hypers", "shape": [6], "dtype": "f32"}
    assert [s["role"] for s in signature["inputs"][1:]] == ["batch", "batch"]
    assert len(signature["state"]) == 4 * 3 and signature["parameters"] is None
    plan = signature["memory_plan"]
    assert plan["peak"] == plan["state"] + plan["step_transients"] + plan["inputs_and_loss"] > 0
    session = Session((tmp_path / "step.vmfb").read_bytes(), "local-task")
    assert sorted(session.function_names) == ["load_state", "read_state", "step"]


class _MaskedLinear(nn.Module):
    """A step with a bool input: not whole 32-bit words, so it cannot be gated."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 2)

    def forward(self, x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        return (self.linear(x) * keep.unsqueeze(1)).sum()


def test_cuda_steps_take_caller_transients_only_gated_by_default(monkeypatch: pytest.MonkeyPatch):
    # NOVA_STEP_TRANSIENTS unset: CUDA steps are gated with the caller's
    # transients, CPU steps not; a CUDA step that cannot be gated keeps
    # IREE's own transients (IREE 3.13 never issued an ungated step with the
    # caller's), unless asked for with NOVA_STEP_TRANSIENTS=1.
    monkeypatch.delenv("NOVA_STEP_TRANSIENTS", raising=False)
    model, optimizer, batch = _wide_mlp_setup()
    mlp = capture.capture_train_step(model, optimizer, nn.functional.cross_entropy, batch)
    assert "transients=true gate=true" in train_step_pipeline(mlp, target="cuda:sm_90")
    assert "transients" not in train_step_pipeline(mlp, target="cpu")
    masked = _MaskedLinear()
    step = capture.capture_train_step(masked, torch.optim.SGD(masked.parameters(), lr=0.1), None,
                                      (torch.randn(3, 8), torch.tensor([True, False, True])))
    assert "transients" not in train_step_pipeline(step, target="cuda:sm_90")
    monkeypatch.setenv("NOVA_STEP_TRANSIENTS", "1")
    forced = train_step_pipeline(step, target="cuda:sm_90")
    assert "transients=true" in forced and "gate" not in forced
    monkeypatch.setenv("NOVA_STEP_TRANSIENTS", "0")
    assert "transients" not in train_step_pipeline(mlp, target="cuda:sm_90")
    monkeypatch.setenv("NOVA_STEP_TRANSIENTS", "yes")
    with pytest.raises(ValueError, match="NOVA_STEP_TRANSIENTS"):
        train_step_pipeline(mlp, target="cuda:sm_90")


@pytest.mark.parametrize("transients", ["0", "1"])
def test_steps_chain_through_fences_and_wait(transients: str, monkeypatch: pytest.MonkeyPatch):
    # NOVA_STEP_TRANSIENTS=1: the step's intermediates live in one buffer of
    # the program's, which every step reuses.
    monkeypatch.setenv("NOVA_STEP_TRANSIENTS", transients)
    model, optimizer, batch = _wide_mlp_setup()
    eager_model = copy.deepcopy(model)
    eager_opt = torch.optim.AdamW(eager_model.parameters(), lr=1e-3)
    step = nova.jit(model, optimizer, nn.functional.cross_entropy)
    losses = [step(*batch) for _ in range(4)]
    program = step._active.train
    assert program.timeline.enqueued == 4
    # hypers, 2 batch inputs, the loss's storage [, the transient storage]
    assert len(program._io.views) == 4 + (transients == "1")
    step.wait()
    for loss in losses:
        eager = nn.functional.cross_entropy(eager_model(batch[0]), batch[1])
        eager.backward()
        eager_opt.step()
        eager_opt.zero_grad()
        assert abs(float(loss) - float(eager)) <= 1e-5 * float(eager)
    step.sync()
    for a, b in zip(model.parameters(), eager_model.parameters()):
        assert float((a - b).norm() / b.norm()) < 1e-4


def test_missing_optimizer_state_is_made_on_the_device(monkeypatch: pytest.MonkeyPatch):
    # AdamW's m and v before the first step: zeros made by the device when
    # the state is uploaded, never torch tensors (on CUDA their cached
    # blocks would stay reserved next to the module's own state).
    model, optimizer, batch = _wide_mlp_setup()
    eager_model = copy.deepcopy(model)
    eager_opt = torch.optim.AdamW(eager_model.parameters(), lr=1e-3)
    step = nova.jit(model, optimizer, nn.functional.cross_entropy)
    step(*batch)  # compiles and uploads
    step.load()  # drops the module's state; the next step uploads it again

    def no_torch_zeros(*args, **kwargs):
        raise AssertionError("optimizer state materialized by torch")

    monkeypatch.setattr(torch, "zeros_like", no_torch_zeros)
    assert not optimizer.state
    loss = step(*batch)
    monkeypatch.undo()
    eager = nn.functional.cross_entropy(eager_model(batch[0]), batch[1])
    assert abs(float(loss) - float(eager)) <= 1e-5 * float(eager)


def test_export_runs_with_iree_run_module_from_archive(tmp_path: Path):
    out = tmp_path / "export"
    subprocess.run(
        [sys.executable, "-m", "nova.cli", "export", "--model", "mlp", "--optimizer", "adamw", "--batch", "8",
         "--out", str(out)],
        check=True,
        env={**os.environ, "NOVA_PROGRESS": "0"},
    )  # fmt: skip
    signature = json.loads((out / "step.json").read_text())
    assert signature["parameters"] == {"file": "state.irpa", "scope": "nova"}
    flags = (out / "step.flags").read_text()
    assert f"--parameters=nova={out / 'state.irpa'}" in flags and "--function=step" in flags
    # Nothing but the exported files: the state comes from the archive.
    index = rt.ParameterIndex()
    index.load(str(out / "state.irpa"))
    assert sorted(key for key, _ in index.items()) == sorted(s["name"] for s in signature["state"])
    run_module = Path(sysconfig.get_path("scripts")) / "iree-run-module"
    result = subprocess.run([str(run_module), f"--flagfile={out / 'step.flags'}"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    from nova.export import example_training_setup

    model, _, (x, y), _ = example_training_setup("mlp", "adamw", 8)
    expected = float(nn.functional.cross_entropy(model(x), y))
    assert abs(float(np.load(out / "outputs" / "loss.npy")) - expected) < 1e-5 * expected, result.stdout

    # The same files in Python: load_exported_step trains like eager.
    from nova.export import example_training_setup as setup

    eager_model, eager_opt, batch, loss_fn = setup("mlp", "adamw", 8)
    nova_model, nova_opt, _, _ = setup("mlp", "adamw", 8)
    step = nova.load_exported_step(out, nova_model, nova_opt, loss_fn)
    for _ in range(3):
        eager = loss_fn(eager_model(batch[0]), batch[1])
        eager.backward()
        eager_opt.step()
        eager_opt.zero_grad()
        assert abs(float(step(*batch)) - float(eager)) <= 1e-5 * float(eager)
    step.sync()
    for a, b in zip(nova_model.parameters(), eager_model.parameters()):
        assert float((a - b).norm() / b.norm()) < 1e-4


def test_exported_step_of_another_abi_is_refused(tmp_path: Path):
    from nova.export import example_training_setup, export_train_step

    model, optimizer, batch, loss_fn = example_training_setup("mlp", "sgd", 4)
    export_train_step(model, optimizer, batch, tmp_path, loss_fn=loss_fn, write_inputs=False)
    signature = json.loads((tmp_path / "step.json").read_text())
    signature["abi"] = "params-in-and-out"
    (tmp_path / "step.json").write_text(json.dumps(signature))
    with pytest.raises(ValueError, match="export it again"):
        nova.load_exported_step(tmp_path, model, optimizer, loss_fn)


def test_export_with_batch_norm_and_dropout(tmp_path: Path):
    """An exported step that updates buffers (BatchNorm's running statistics)
    and draws random numbers (dropout) takes its seed as one more input:
    iree-run-module runs it from the files alone, and nova.load_exported_step
    trains like the captured graph run eagerly on the same seeds."""
    from nova import capture
    from nova.export import export_train_step

    def make() -> nn.Module:
        torch.manual_seed(0)
        return nn.Sequential(nn.Conv2d(3, 4, 3, bias=False), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                             nn.Dropout(0.3), nn.Linear(4 * 6 * 6, 5))  # fmt: skip

    loss_fn = nn.functional.cross_entropy
    gen = torch.Generator().manual_seed(1)
    batch = (torch.randn(4, 3, 8, 8, generator=gen), torch.randint(0, 5, (4,), generator=gen))
    model = make()
    export_train_step(model, torch.optim.SGD(model.parameters(), lr=0.1), batch, tmp_path, loss_fn=loss_fn)
    signature = json.loads((tmp_path / "step.json").read_text())
    assert [i["role"] for i in signature["inputs"]] == ["hyper", "batch", "batch", "seed"]
    assert signature["layout"]["random"] and len(signature["layout"]["updated_buffers"]) == 3
    run_module = Path(sysconfig.get_path("scripts")) / "iree-run-module"
    result = subprocess.run([str(run_module), f"--flagfile={tmp_path / 'step.flags'}"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr

    reference = make()
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    captured = capture.capture_train_step(reference, ref_opt, loss_fn, batch)
    seed = torch.from_numpy(np.load(tmp_path / "inputs" / "seed.npy"))
    inputs = capture.train_step_inputs(captured, reference, ref_opt, batch)
    expected = float(captured.graph_module(*inputs[:-1], seed)[0])
    assert abs(float(np.load(tmp_path / "outputs" / "loss.npy")) - expected) <= 1e-5 * expected

    nova_model = make()
    step = nova.load_exported_step(tmp_path, nova_model, torch.optim.SGD(nova_model.parameters(), lr=0.1), loss_fn)
    for i in range(2):
        torch.manual_seed(10 + i)
        loss = float(step(*batch))
        torch.manual_seed(10 + i)
        outputs = captured.graph_module(*capture.train_step_inputs(captured, reference, ref_opt, batch))
        ref_loss = float(capture.apply_train_step_outputs(captured, reference, ref_opt, outputs))
        assert abs(loss - ref_loss) <= 1e-5 * ref_loss
    step.sync()
    assert int(nova_model[1].num_batches_tracked) == 2
    for (name, a), b in zip(nova_model.state_dict().items(), reference.state_dict().values()):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6, msg=name)
