"""`nova export`: a model's training step as a standalone .vmfb + JSON signature.

The directory also gets the step's initial inputs as .npy files and an
iree-run-module flag file, so the step runs without Python; it writes the
outputs (loss, new params, new optimizer state) to OUT/outputs/NNN.npy:

    iree-run-module --flagfile=OUT/step.flags
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

import nova
from nova import capture
from nova.compiled import DTYPE_NAMES, runtime_device
from nova.models import MLP, make_gpt
from nova.pipeline import compile_captured

log = logging.getLogger(__name__)

def _spec_json(spec: capture.TensorSpec) -> dict[str, object]:
    return {"role": spec.role, "name": spec.name, "shape": list(spec.shape), "dtype": DTYPE_NAMES.get(spec.dtype, str(spec.dtype))}


def _compile_and_write(captured: capture.CapturedGraph, target: str, out_dir: Path, stem: str, name: str) -> None:
    """Compiles `captured` and writes <stem>.vmfb and its signature <stem>.json
    (the layout too for a train step, for nova.load_exported_step)."""
    vmfb, report = compile_captured(captured, target, name=name)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{stem}.vmfb").write_bytes(vmfb)
    signature: dict[str, object] = {
        "function": "main",
        "target": target,
        "nova_version": nova.__version__,
        "inputs": [_spec_json(s) for s in captured.input_specs],
        "outputs": [_spec_json(s) for s in captured.output_specs],
        "compile_seconds": report.stage_seconds,
    }
    if captured.train_layout is not None:
        signature["layout"] = dataclasses.asdict(captured.train_layout)
    (out_dir / f"{stem}.json").write_text(json.dumps(signature, indent=2) + "\n")


def example_training_setup(
    model_name: str, optimizer_name: str, batch: int, seed: int = 0
) -> tuple[torch.nn.Module, torch.optim.Optimizer, tuple[torch.Tensor, ...], Callable | None]:
    """A model from nova.models, its optimizer, one random batch and the loss
    function (None when the model's forward returns the loss)."""
    torch.manual_seed(seed)
    loss_fn = None
    if model_name == "mlp":
        model: torch.nn.Module = MLP(32, 64, 10)
        inputs = (torch.randn(batch, 32), torch.randint(0, 10, (batch,)))
        loss_fn = torch.nn.functional.cross_entropy
    else:
        model = make_gpt(model_name)
        vocab, seq_len = model.wte.num_embeddings, model.seq_len
        inputs = (torch.randint(0, vocab, (batch, seq_len)), torch.randint(0, vocab, (batch, seq_len)))
    if optimizer_name == "sgd":
        optimizer: torch.optim.Optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    elif optimizer_name == "adamw":
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    else:
        raise ValueError(f"unknown optimizer '{optimizer_name}' (sgd, adamw)")
    return model, optimizer, inputs, loss_fn


def export_train_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    batch: tuple[torch.Tensor, ...],
    out_dir: Path,
    *,
    target: str = "cpu",
    loss_fn=None,
    autocast_dtype: torch.dtype | None = None,
    write_inputs: bool = True,
) -> Path:
    """Writes step.vmfb, step.json, inputs/*.npy and step.flags to `out_dir`;
    `nova.load_exported_step` runs it again from Python without the compiler."""
    captured = capture.capture_train_step(model, optimizer, loss_fn, batch, autocast_dtype=autocast_dtype)
    _compile_and_write(captured, target, out_dir, "step", type(model).__name__)
    if not write_inputs:
        return out_dir
    inputs_dir = out_dir / "inputs"
    inputs_dir.mkdir(exist_ok=True)
    flags = [f"--module={out_dir / 'step.vmfb'}", "--function=main", f"--device={runtime_device(target)}"]
    for i, tensor in enumerate(capture.train_step_inputs(captured, model, optimizer, list(batch))):
        path = inputs_dir / f"{i:03d}.npy"
        np.save(path, tensor.detach().cpu().numpy())
        flags.append(f"--input=@{path}")
    outputs_dir = out_dir / "outputs"
    outputs_dir.mkdir(exist_ok=True)
    flags += [f"--output=@{outputs_dir / f'{i:03d}.npy'}" for i in range(len(captured.output_specs))]
    (out_dir / "step.flags").write_text("\n".join(flags) + "\n")
    log.info("exported %s to %s", type(model).__name__, out_dir)
    return out_dir


def export_function(fn, example_args: tuple[torch.Tensor, ...], out_dir: Path, *, target: str = "cpu") -> Path:
    """Writes a forward-only function as function.vmfb + function.json."""
    captured = capture.capture_function(fn, example_args)
    _compile_and_write(captured, target, out_dir, "function", getattr(fn, "__name__", "function"))
    return out_dir
