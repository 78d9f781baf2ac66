"""`nova.jit`: compile a whole training step (or a forward function) once per
structure and run it on IREE with the state kept on the device.

State semantics: parameters and optimizer state live in the IREE runtime
between steps. `model.state_dict()` / `optimizer.state_dict()` reflect Nova's
state after an explicit `step.sync()`; after changing the model or optimizer
state outside Nova (e.g. `load_state_dict`), call `step.load()` so the next
step starts from it. Hyperparameters (learning rate, betas, ...) are read from
`optimizer.param_groups` on every step, so changing them needs no recompile.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

import nova
from nova import capture
from nova.progress import announce
from nova.runtime import Session, default_cache, structural_hash, toolchain_version

log = logging.getLogger(__name__)


# Element type names used in exported signatures (see nova.export).
DTYPE_NAMES = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16", torch.int64: "i64", torch.int32: "i32"}
_TORCH_DTYPES = {name: dtype for dtype, name in DTYPE_NAMES.items()}


def default_target(device: torch.device) -> str:
    """The compile target for tensors on `device` ("cpu" or "cuda:sm_XY")."""
    if device.type == "cuda":
        major, minor = torch.cuda.get_device_capability(device)
        return f"cuda:sm_{major}{minor}"
    if device.type == "cpu":
        return "cpu"
    raise NotImplementedError(f"nova.jit: no target for device type '{device.type}'")


@functools.cache
def compiler_fingerprint() -> str:
    """Identifies the nova compiler build (its extension holds every pass), so
    a changed lowering never reuses executables cached by an older one."""
    spec = importlib.util.find_spec("nova._compiler")
    if spec is None or spec.origin is None:
        return "no-compiler"
    return hashlib.sha256(Path(spec.origin).read_bytes()).hexdigest()[:16]


def runtime_device(target: str) -> str:
    """The IREE HAL driver that runs code compiled for `target`."""
    return "cuda" if target.startswith("cuda") else "local-task"


@dataclass
class Program:
    """One compiled structure: how it maps onto the model (None for plain
    functions) and a loaded session."""

    layout: capture.TrainLayout | None
    session: Session
    key: str


def batch_signature(tensors: Sequence[Tensor]) -> tuple[Any, ...]:
    """What selects a compiled program: shapes, dtypes and device types."""
    return tuple((tuple(t.shape), t.dtype, t.device.type) for t in tensors)


def _check_tensors(args: Sequence[Any], what: str) -> None:
    for i, a in enumerate(args):
        if not isinstance(a, Tensor):
            raise TypeError(f"{what}: argument {i} is {type(a).__name__}, expected a torch.Tensor")


class _Compiler:
    """Shared by train steps and functions: structural key → cached vmfb → session."""

    def __init__(self, target: str | None, allow_fallback: bool) -> None:
        self.target = target
        self.allow_fallback = allow_fallback

    def load(self, captured: capture.CapturedGraph, device: torch.device, name: str) -> Program:
        target = self.target or default_target(device)
        extra = {
            "target": target,
            "nova": nova.__version__,
            "toolchain": toolchain_version(),
            "compiler": compiler_fingerprint(),
            "allow_fallback": self.allow_fallback,
        }
        key = structural_hash(captured.graph_module, extra)

        def compile_fn() -> bytes:
            from nova.pipeline import compile_captured  # compile side, imported on a miss only

            vmfb, _ = compile_captured(captured, target, name=f"{name}-{key[:12]}", allow_fallback=self.allow_fallback)
            return vmfb

        vmfb = default_cache().get_or_compile(key, compile_fn, metadata={"name": name, "target": target})
        return Program(captured.train_layout, Session(vmfb, runtime_device(target)), key)


class TrainStep:
    """`loss = step(*batch)`: one forward + backward + optimizer update."""

    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        loss_fn: Callable[[Any, Tensor], Tensor] | None,
        *,
        target: str | None,
        autocast_dtype: torch.dtype | None,
        allow_fallback: bool,
    ) -> None:
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.autocast_dtype = autocast_dtype
        self._compiler = _Compiler(target, allow_fallback)
        self._programs: dict[tuple[Any, ...], Program] = {}
        # Device-resident params + buffers + optimizer state, in graph order.
        self._state: list[Any] | None = None
        self._state_session: Session | None = None
        self._steps_on_device = 0

    def __call__(self, *batch: Tensor) -> Tensor:
        _check_tensors(batch, "nova.jit train step")
        program = self._program(batch)
        if self._state is None or self._state_session is not program.session:
            self._upload(program)
        assert self._state is not None
        hypers = capture.train_step_hypers(program.layout, self.optimizer, self._steps_on_device)
        outputs = program.session.invoke("main", *self._state, *hypers, *batch)
        layout = program.layout
        n_params, n_buffers = len(layout.param_names), len(layout.buffer_names)
        buffers = self._state[n_params : n_params + n_buffers]
        new_params = list(outputs[1 : 1 + n_params])
        self._state = new_params + buffers + list(outputs[1 + n_params :])
        self._steps_on_device += 1
        return program.session.to_torch(outputs[0])

    def sync(self) -> None:
        """Writes the device state into the model's parameters and the
        optimizer's state (torch's own layout), so state_dict() reflects it."""
        if self._state is None or self._steps_on_device == 0:
            return
        program = next(p for p in self._programs.values() if p.session is self._state_session)
        layout = program.layout
        n_params, n_buffers = len(layout.param_names), len(layout.buffer_names)
        session = program.session
        params = [session.to_torch(x) for x in self._state[:n_params]]
        states = [session.to_torch(x) for x in self._state[n_params + n_buffers :]]
        capture.apply_train_step_outputs(
            layout, self.model, self.optimizer, [None, *params, *states], steps=self._steps_on_device
        )
        self._steps_on_device = 0

    def load(self) -> None:
        """Drops the device state; the next step uploads the model's and
        optimizer's current state."""
        self._state = None
        self._state_session = None
        self._steps_on_device = 0

    def add_program(self, signature: tuple[Any, ...], program: Program) -> None:
        """Registers an already compiled program (an exported step) for batches
        of `signature` (see `batch_signature()`)."""
        self._programs[signature] = program

    def _program(self, batch: Sequence[Tensor]) -> Program:
        signature = batch_signature(batch)
        program = self._programs.get(signature)
        if program is not None:
            default_cache().record_reuse()
        else:
            log.info("nova.jit: new batch signature %s: capturing", signature)
            start = time.perf_counter()
            captured = capture.capture_train_step(
                self.model, self.optimizer, self.loss_fn, tuple(batch), autocast_dtype=self.autocast_dtype
            )
            announce(f"nova: {type(self.model).__name__}: capture {time.perf_counter() - start:.2f}s")
            device = next(self.model.parameters()).device
            program = self._compiler.load(captured, device, name=type(self.model).__name__)
            self._programs[signature] = program
        return program

    def _upload(self, program: Program) -> None:
        if self._state is not None and self._steps_on_device:
            # Moving between programs (a new batch shape) goes through torch.
            self.sync()
        inputs = capture.train_step_inputs(program.layout, self.model, self.optimizer, None)
        layout = program.layout
        n_state = len(layout.param_names) + len(layout.buffer_names) + len(layout.param_names) * len(layout.state_keys)
        self._state = [program.session.to_device(t) for t in inputs[:n_state]]
        self._state_session = program.session
        self._steps_on_device = 0


class CompiledFunction:
    """A forward-only function (or module) compiled per input signature."""

    def __init__(self, fn: Callable[..., Any], *, target: str | None, allow_fallback: bool) -> None:
        self.fn = fn
        self._compiler = _Compiler(target, allow_fallback)
        self._programs: dict[tuple[Any, ...], Program] = {}

    def __call__(self, *args: Tensor) -> Any:
        _check_tensors(args, "nova.jit function")
        signature = batch_signature(args)
        program = self._programs.get(signature)
        if program is not None:
            default_cache().record_reuse()
        else:
            captured = capture.capture_function(self.fn, args)
            device = args[0].device if args else torch.device("cpu")
            name = getattr(self.fn, "__name__", type(self.fn).__name__)
            program = self._compiler.load(captured, device, name=name)
            self._programs[signature] = program
        lifted = []
        if isinstance(self.fn, nn.Module):
            lifted = [t.detach() for t in capture.module_tensors(self.fn)]
        outputs = program.session.invoke("main", *lifted, *args)
        results = tuple(program.session.to_torch(o) for o in outputs)
        return results[0] if len(results) == 1 else results


def _layout_from_json(data: dict[str, Any]) -> capture.TrainLayout:
    def tuples(value: Any) -> Any:
        return tuple(tuples(v) for v in value) if isinstance(value, list) else value

    return capture.TrainLayout(**{k: tuples(v) for k, v in data.items()})


def load_exported_step(
    directory: str | Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[Any, Tensor], Tensor] | None = None,
) -> TrainStep:
    """A TrainStep that runs the step `nova export` wrote to `directory` (no
    compiler needed): the model and optimizer must have the structure it was
    exported from; its device must match the export's target."""
    directory = Path(directory)
    signature = json.loads((directory / "step.json").read_text())
    layout = _layout_from_json(signature["layout"])
    device = runtime_device(signature["target"])
    step = TrainStep(model, optimizer, loss_fn, target=signature["target"], autocast_dtype=None, allow_fallback=False)
    device_type = "cuda" if device == "cuda" else "cpu"
    batch = tuple(
        (tuple(spec["shape"]), _TORCH_DTYPES[spec["dtype"]], device_type)
        for spec in signature["inputs"]
        if spec["role"] == capture.ROLE_BATCH
    )
    session = Session((directory / "step.vmfb").read_bytes(), device)
    step.add_program(batch, Program(layout, session, signature.get("key", "")))
    return step


def jit(
    model_or_fn: nn.Module | Callable[..., Any],
    optimizer: torch.optim.Optimizer | None = None,
    loss_fn: Callable[[Any, Tensor], Tensor] | None = None,
    *,
    target: str | None = None,
    autocast_dtype: torch.dtype | None = None,
    allow_fallback: bool = False,
) -> TrainStep | CompiledFunction:
    """Compiles a training step (`model` + `optimizer`) or a forward function.

    - `nova.jit(model, optimizer)`: `loss = step(*batch)`, the model's forward
      returning the loss; with `loss_fn`, `loss = loss_fn(model(*inputs), target)`
      where the target is the last batch element.
    - `nova.jit(fn)`: a compiled forward-only function.
    `target` ("cpu", "cuda:sm_90", ...) defaults to the model's device.
    `allow_fallback` leaves aten ops Nova does not convert to IREE's own torch
    lowering instead of raising.
    """
    if optimizer is not None:
        if not isinstance(model_or_fn, nn.Module):
            raise TypeError("nova.jit(model, optimizer): model must be a torch.nn.Module")
        return TrainStep(
            model_or_fn,
            optimizer,
            loss_fn,
            target=target,
            autocast_dtype=autocast_dtype,
            allow_fallback=allow_fallback,
        )
    if loss_fn is not None:
        raise TypeError("nova.jit: loss_fn needs an optimizer (a training step)")
    return CompiledFunction(model_or_fn, target=target, allow_fallback=allow_fallback)
