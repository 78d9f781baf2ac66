"""`nova export`: a model's training step as a standalone IREE program.

A train step is written as
  step.vmfb    the module: params, buffers and optimizer state are its
               globals, `step(hypers, batch..., loss storage, transient
               storage)` runs one step
  state.irpa   the state as an IREE parameter archive (scope "nova", keys =
               the names in step.json), which initialises those globals
  step.json    the signature: state tensors, hyperparameter names, batch
               inputs, the loss; the layout nova.load_exported_step uses
  step.flags   an iree-run-module flag file running one step from those files:

    iree-run-module --flagfile=OUT/step.flags     # loss -> OUT/outputs/loss.npy

The hyperparameters and the batch are written to OUT/inputs/*.npy.
`write_inputs=False` (benchmark artifacts) writes only step.vmfb and
step.json; the globals are then initialised from the host (`load_state`).
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
from nova.compiled import DTYPE_NAMES, TRAIN_STEP_ABI, num_state_tensors, runtime_device
from nova.models import MLP, make_gpt
from nova.pipeline import CompileReport, compile_captured

log = logging.getLogger(__name__)

PARAMETER_SCOPE = "nova"
ARCHIVE_NAME = "state.irpa"
_STATE_ROLES = (capture.ROLE_PARAM, capture.ROLE_BUFFER, capture.ROLE_OPT_STATE)


def _spec_json(spec: capture.TensorSpec) -> dict[str, object]:
    return {"role": spec.role, "name": spec.name, "shape": list(spec.shape), "dtype": DTYPE_NAMES.get(spec.dtype, str(spec.dtype))}


def _write_signature(out_dir: Path, stem: str, signature: dict[str, object]) -> None:
    (out_dir / f"{stem}.json").write_text(json.dumps(signature, indent=2) + "\n")


def _train_step_signature(captured: capture.CapturedGraph, target: str, report: CompileReport) -> dict[str, object]:
    """step.json of a train step module (see the module doc)."""
    specs = captured.input_specs
    hypers = [s.name for s in specs if s.role == capture.ROLE_HYPER]
    loss = captured.output_specs[0]
    return {
        "function": "step",
        "abi": TRAIN_STEP_ABI,
        "target": target,
        "nova_version": nova.__version__,
        "state": [_spec_json(s) for s in specs if s.role in _STATE_ROLES],
        "hypers": hypers,
        "inputs": [{"role": capture.ROLE_HYPER, "name": "hypers", "shape": [len(hypers)], "dtype": "f32"}]
        + [_spec_json(s) for s in specs if s.role in (capture.ROLE_BATCH, capture.ROLE_SEED)],
        "outputs": [_spec_json(loss)],
        "layout": dataclasses.asdict(captured.train_layout),
        "compile_seconds": report.stage_seconds,
        "memory_plan": report.memory,
        "parameters": None,
    }


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
    elif optimizer_name == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    else:
        raise ValueError(f"unknown optimizer '{optimizer_name}' (sgd, adam, adamw)")
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
    """Writes the train step to `out_dir` (see the module doc);
    `nova.load_exported_step` runs it again from Python without the compiler."""
    import iree.runtime as rt

    captured = capture.capture_train_step(model, optimizer, loss_fn, batch, autocast_dtype=autocast_dtype)
    scope = PARAMETER_SCOPE if write_inputs else ""
    vmfb, report = compile_captured(captured, target, name=type(model).__name__, parameter_scope=scope)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "step.vmfb").write_bytes(vmfb)
    signature = _train_step_signature(captured, target, report)
    if not write_inputs:
        _write_signature(out_dir, "step", signature)
        return out_dir

    layout = captured.train_layout
    assert layout is not None
    inputs = capture.train_step_inputs(captured, model, optimizer, list(batch))
    n_state = num_state_tensors(layout)
    index = rt.ParameterIndex()
    for spec, tensor in zip(signature["state"], inputs[:n_state], strict=True):
        index.add_buffer(spec["name"], _to_numpy(tensor))
    index.create_archive_file(str(out_dir / ARCHIVE_NAME))
    signature["parameters"] = {"file": ARCHIVE_NAME, "scope": PARAMETER_SCOPE}
    _write_signature(out_dir, "step", signature)

    inputs_dir = out_dir / "inputs"
    inputs_dir.mkdir(exist_ok=True)
    hyper_values = capture.train_step_hyper_values(layout, optimizer, 0)
    np.save(inputs_dir / "hypers.npy", np.asarray(hyper_values, dtype=np.float32))
    flags = [
        f"--module={out_dir / 'step.vmfb'}",
        f"--parameters={PARAMETER_SCOPE}={out_dir / ARCHIVE_NAME}",
        "--function=step",
        f"--device={runtime_device(target)}",
        f"--input=@{inputs_dir / 'hypers.npy'}",
    ]
    for i, tensor in enumerate(batch):
        path = inputs_dir / f"batch{i}.npy"
        np.save(path, _to_numpy(tensor))
        flags.append(f"--input=@{path}")
    if layout.random:  # the step's random numbers are drawn from this seed
        path = inputs_dir / "seed.npy"
        np.save(path, _to_numpy(inputs[-1]))
        flags.append(f"--input=@{path}")
    from nova.runtime.train_program import transient_bytes

    reflection = _step_reflection(vmfb)
    if reflection.get("nova.step_gate") == "ready":
        flags.append("--input=1xi32=1")  # a gated step's go-ahead (the first step's number)
    loss = captured.output_specs[0]
    flags.append(f"--input=&{DTYPE_NAMES[loss.dtype]}")  # the loss's storage (0-d)
    transients = transient_bytes(reflection)
    if transients is not None:
        flags.append(f"--input=&{max(1, transients)}xi8")  # the step's transient storage
    outputs_dir = out_dir / "outputs"
    outputs_dir.mkdir(exist_ok=True)
    flags.append(f"--output=@{outputs_dir / 'loss.npy'}")
    (out_dir / "step.flags").write_text("\n".join(flags) + "\n")
    log.info("exported %s to %s", type(model).__name__, out_dir)
    return out_dir


def _step_reflection(vmfb: bytes) -> dict[str, str]:
    """The reflection metadata of the module's @step (the module is read,
    not loaded into a context)."""
    import iree.runtime as rt

    module = rt.VmModule.copy_buffer(rt.VmInstance(), vmfb)
    return dict(module.lookup_function("step").reflection)


def _to_numpy(tensor: torch.Tensor) -> np.ndarray:
    from nova.runtime.tensors import torch_to_numpy

    array = torch_to_numpy(tensor.detach().cpu())
    return np.ascontiguousarray(array).reshape(array.shape)  # ascontiguousarray makes 0-d arrays 1-d


def export_function(fn, example_args: tuple[torch.Tensor, ...], out_dir: Path, *, target: str = "cpu") -> Path:
    """Writes a forward-only function as function.vmfb + function.json."""
    captured = capture.capture_function(fn, example_args)
    vmfb, report = compile_captured(captured, target, name=getattr(fn, "__name__", "function"))
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "function.vmfb").write_bytes(vmfb)
    _write_signature(
        out_dir,
        "function",
        {
            "function": "main",
            "target": target,
            "nova_version": nova.__version__,
            "inputs": [_spec_json(s) for s in captured.input_specs],
            "outputs": [_spec_json(s) for s in captured.output_specs],
            "compile_seconds": report.stage_seconds,
        },
    )
    return out_dir
