"""`nova.jit`: compile a whole training step (or a forward function) once per
structure and run it on IREE with the state kept on the device.

State semantics: parameters, buffers and optimizer state are globals of the
compiled module, updated in place by each step. `model.state_dict()` /
`optimizer.state_dict()` reflect Nova's state after an explicit
`step.sync()`; after changing the model or optimizer state outside Nova (e.g.
`load_state_dict`), call `step.load()` so the next step starts from it.
Hyperparameters (learning rate, betas, ...) are read from
`optimizer.param_groups` on every step and passed as one small tensor, so
changing them needs no recompile.

Asynchrony: `loss = step(*batch)` enqueues the step and returns. On CUDA the
loss is a tensor ordered with torch's current stream (reading it waits for
the step, as in eager); consecutive steps chain on the device. On the CPU the
call returns once the step is done.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

import nova
from nova import capture, distributed, index_checks
from nova.capture_key import train_step_capture_key
from nova.progress import announce
from nova.released_storage import ReleasedStorage
from nova.runtime import (Session, TrainProgram, Zeros, compile_flags, default_cache, structural_hash,
                          toolchain_version)

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


# The train-step module ABI (convert-train-step-to-iree): part of cache keys.
TRAIN_STEP_ABI = "state-in-module-3"


@dataclass
class Program:
    """One compiled structure: how it maps onto the model (None for plain
    functions), a loaded session and, for a train step, its module state."""

    layout: capture.TrainLayout | None
    session: Session
    key: str
    train: TrainProgram | None = None
    # The inputs used as indices, checked before a call (index_checks); none
    # are known for an exported step.
    index_bounds: list[index_checks.IndexBound] = field(default_factory=list)
    # A train step's planned device memory in bytes (nova.pipeline.planned_memory).
    memory_plan: dict[str, int] | None = None

    def check_indices(self, inputs: Sequence[Tensor]) -> None:
        if self.index_bounds and index_checks.checks_enabled(inputs[0].device):
            index_checks.check_indices(self.index_bounds, inputs)


def num_state_tensors(layout: capture.TrainLayout) -> int:
    """Params, buffers and optimizer state: the globals of a train step."""
    return len(layout.param_names) * (1 + len(layout.state_keys)) + len(layout.buffer_names)


def train_program(
    layout: capture.TrainLayout,
    session: Session,
    loss_dtype: torch.dtype,
    key: str,
    memory_plan: dict[str, int] | None = None,
) -> Program:
    return Program(layout, session, key, TrainProgram(session, num_state_tensors(layout), loss_dtype),
                   memory_plan=memory_plan)


def batch_signature(tensors: Sequence[Tensor]) -> tuple[Any, ...]:
    """What selects a compiled program: shapes, dtypes and device types."""
    return tuple((tuple(t.shape), t.dtype, t.device.type) for t in tensors)


def training_modes(modules: Sequence[nn.Module]) -> tuple[bool, ...]:
    """The train/eval mode of each of `modules`: `model.eval()` selects a
    separately compiled program (BatchNorm then uses its running
    statistics, dropout is off)."""
    return tuple(m.training for m in modules)


def _check_tensors(args: Sequence[Any], what: str) -> None:
    for i, a in enumerate(args):
        if not isinstance(a, Tensor):
            raise TypeError(f"{what}: argument {i} is {type(a).__name__}, expected a torch.Tensor")


def compile_context(target: str, allow_fallback: bool, train: bool, world_size: int,
                    f32_matmul_precision: str) -> dict[str, Any]:
    """Everything but the graph that a compiled program depends on (part of
    its cache key and of a train step's capture key)."""
    context: dict[str, Any] = {
        "target": target,
        "nova": nova.__version__,
        "toolchain": toolchain_version(),
        "iree_flags": compile_flags(target),
        "compiler": compiler_fingerprint(),
        "allow_fallback": allow_fallback,
        "abi": TRAIN_STEP_ABI if train else "function",
        "world_size": world_size,
    }
    if train:
        from nova.pipeline import head_chunk_bytes, memory_limit_bytes, pack_state_enabled, step_transients_enabled

        context["step_transients"] = step_transients_enabled(target)  # changes @step's arguments
        context["pack_state"] = pack_state_enabled()
        context["head_chunk_bytes"] = head_chunk_bytes()
        context["memory_limit_bytes"] = memory_limit_bytes()
    if target.startswith("cuda"):  # CPU matmuls are exact f32 either way
        from nova.pipeline import (
            attention_head_groups_enabled,
            compiling_gpu,
            epilogue_staged_inputs_enabled,
            gemm_stmatrix_enabled,
        )

        context["f32_matmul_precision"] = f32_matmul_precision
        context["gemm_stmatrix"] = gemm_stmatrix_enabled()
        context["epilogue_staged_inputs"] = epilogue_staged_inputs_enabled()
        context["attention_head_groups"] = attention_head_groups_enabled()
        context["gpu"] = compiling_gpu(target)  # the configurator plans for it
    return context


def cache_key(captured: capture.CapturedGraph, target: str, allow_fallback: bool) -> str:
    """The executable cache key of `captured` compiled for `target`: the
    graph's structure and everything else the compiled code depends on."""
    return structural_hash(captured.graph_module, compile_context(
        target, allow_fallback, captured.train_layout is not None, captured.world_size,
        captured.f32_matmul_precision))


def _is_compile_error(e: BaseException) -> bool:
    """Whether `e` is Nova's or iree-compile's diagnostic of a graph that
    does not compile (the compiler module is loaded if it raised one)."""
    from nova.runtime import NovaCompileError

    compiler = sys.modules.get("nova.compiler")
    return isinstance(e, NovaCompileError) or (compiler is not None and isinstance(e, compiler.CompilerError))


class _Compiler:
    """Shared by train steps and functions: structural key → cached vmfb → session."""

    def __init__(self, target: str | None, allow_fallback: bool) -> None:
        self.target = target
        self.allow_fallback = allow_fallback

    def load(self, captured: capture.CapturedGraph, device: torch.device, name: str) -> Program:
        target = self.target or default_target(device)
        key = cache_key(captured, target, self.allow_fallback)

        metadata: dict[str, Any] = {"name": name, "target": target}

        def compile_fn() -> bytes:
            from nova.pipeline import compile_captured  # compile side, imported on a miss only

            vmfb, report = compile_captured(
                captured, target, name=f"{name}-{key[:12]}", allow_fallback=self.allow_fallback
            )
            metadata["memory_plan"] = report.memory  # stored with the entry
            return vmfb

        cache = default_cache()
        vmfb = cache.get_or_compile(key, compile_fn, metadata=metadata)
        session = Session(vmfb, runtime_device(target))
        if captured.train_layout is None:
            program = Program(None, session, key)
        else:
            plan = cache.metadata(key).get("memory_plan")
            program = train_program(captured.train_layout, session, captured.output_specs[0].dtype, key, plan)
        program.index_bounds = index_checks.index_bounds(captured)
        return program

    def load_cached(self, key: str, info: dict[str, Any], device: torch.device) -> Program | None:
        """The train step cached under `key` (found by its capture key), from
        the `info` recorded with it (`cached_step_info`); None if its entry
        went missing meanwhile."""
        target = self.target or default_target(device)
        cache = default_cache()
        vmfb = cache.lookup(key)
        if vmfb is None:
            return None
        session = Session(vmfb, runtime_device(target))
        program = train_program(_layout_from_json(info["layout"]), session, _TORCH_DTYPES[info["loss_dtype"]], key,
                                cache.metadata(key).get("memory_plan"))
        program.index_bounds = [index_checks.IndexBound(**b) for b in info["index_bounds"]]
        return program


def cached_step_info(captured: capture.CapturedGraph, program: Program) -> dict[str, Any]:
    """What `_Compiler.load_cached` needs of a capture, as JSON."""
    assert captured.train_layout is not None
    return {
        "layout": asdict(captured.train_layout),
        "loss_dtype": DTYPE_NAMES[captured.output_specs[0].dtype],
        "index_bounds": [asdict(b) for b in program.index_bounds],
    }


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
        max_grad_norm: float | None = None,
        gradient_accumulation_steps: int = 1,
        release_torch_state: bool = False,
    ) -> None:
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.autocast_dtype = autocast_dtype
        self.max_grad_norm = max_grad_norm
        self.gradient_accumulation_steps = gradient_accumulation_steps
        # The data-parallel group (from the launcher's environment).
        self.world = distributed.world()
        # Listed once: walking the module tree costs ~80 us a step.
        self._submodules = list(model.modules())
        self._compiler = _Compiler(target, allow_fallback)
        self._programs: dict[tuple[Any, ...], Program] = {}
        # The program whose module globals hold the current state, and how
        # many steps it ran since the model and optimizer were last written.
        self._active: Program | None = None
        self._steps_on_device = 0
        # What the hyperparameters read from optimizer.state as last written
        # (read again after each upload and sync).
        self._state_summary: list[Any] | None = None
        # release_torch_state: torch's copy of the params and optimizer state
        # is freed while the module holds them (None: not freed now); running
        # the model or reading a state_dict syncs first.
        self.release_torch_state = release_torch_state
        self._released: ReleasedStorage | None = None
        if release_torch_state:
            model.register_forward_pre_hook(lambda *_: self._sync_released())
            model.register_state_dict_pre_hook(lambda *_: self._sync_released())
            optimizer.register_state_dict_pre_hook(lambda *_: self._sync_released())

    def __call__(self, *batch: Tensor) -> Tensor:
        _check_tensors(batch, "nova.jit train step")
        first = next(iter(self.model.parameters()), None)  # none: capture says so
        device = first.device if first is not None else None
        for i, b in enumerate(batch):
            if device is not None and b.device != device:
                raise ValueError(
                    f"nova.jit train step: batch input {i} is on {b.device} but the model's parameters are on "
                    f"{device}; move the batch to {device} first"
                )
        program = self._program(batch)
        program.check_indices(batch)
        if self._active is not program:
            self._upload(program)
        assert program.train is not None
        if self.release_torch_state and self._released is None:
            self._release(program)
        if self._state_summary is None:
            self._state_summary = capture.optimizer_state_summary(self.optimizer)
        hypers = capture.train_step_hyper_values(
            program.layout, self.optimizer, self._steps_on_device, self._state_summary
        )
        if program.layout is not None and program.layout.random:
            batch = (*batch, capture.draw_seed(torch.device("cpu")))  # copied in like the batch
        loss = program.train.step(hypers, batch)
        self._steps_on_device += 1
        return loss

    def sync(self) -> None:
        """Waits for the enqueued steps, then writes the module's state into
        the model's parameters and the optimizer's state (torch's own
        layout), so state_dict() reflects it."""
        program = self._active
        if program is None or (self._steps_on_device == 0 and self._released is None):
            return
        assert program.train is not None and program.layout is not None
        layout = program.layout
        n_params, n_buffers = len(layout.param_names), len(layout.buffer_names)
        state = program.train.read_state()
        if self._released is not None:
            self._released.restore()  # every restored tensor is written below
            self._released = None
        buffers = dict(zip(layout.buffer_names, state[n_params : n_params + n_buffers]))
        capture.apply_train_step_outputs(
            layout,
            self.model,
            self.optimizer,
            [None, *state[:n_params], *(buffers[n] for n in layout.updated_buffers), *state[n_params + n_buffers :]],
            steps=self._steps_on_device,
        )
        self._steps_on_device = 0
        self._state_summary = None

    @property
    def memory_plan(self) -> dict[str, int] | None:
        """The device memory, in bytes, that the program of the last step
        (None before the first) holds while it runs, as planned at compile
        time: "state" (params, buffers, optimizer state), "step_transients"
        (everything else the step computes, laid out by IREE so that values
        never alive together share bytes), "inputs_and_loss", and "peak",
        their sum."""
        return self._active.memory_plan if self._active is not None else None

    def wait(self) -> None:
        """Blocks until every enqueued step has completed on the device."""
        if self._active is not None and self._active.train is not None:
            self._active.train.wait()

    def load(self) -> None:
        """Drops the module's state; the next step uploads the model's and
        optimizer's current state."""
        self._sync_released()  # torch's copy is written back before the module's is dropped
        self.wait()
        self._active = None
        self._steps_on_device = 0
        self._state_summary = None

    def add_program(self, signature: tuple[Any, ...], program: Program) -> None:
        """Registers an already compiled program (an exported step) for batches
        of `signature` (see `batch_signature()`) in the model's current
        train/eval modes."""
        self._programs[(signature, training_modes(self._submodules))] = program

    def _program(self, batch: Sequence[Tensor]) -> Program:
        signature = (batch_signature(batch), training_modes(self._submodules))
        program = self._programs.get(signature)
        if program is not None:
            default_cache().record_reuse()
        else:
            self._check_world()
            self._sync_released()  # capture reads the model as torch holds it
            first = next(self.model.parameters(), None)  # none: capture says so
            device = first.device if first is not None else torch.device("cpu")
            name = type(self.model).__name__
            capture_key = self._capture_key(batch, device) if first is not None else None
            cached = default_cache().resolve_alias(capture_key) if capture_key else None
            if cached is not None:
                start = time.perf_counter()
                program = self._compiler.load_cached(*cached, device)
                if program is not None:
                    announce(f"nova: {name}: found by capture key, loaded in {time.perf_counter() - start:.2f}s")
                    self._programs[signature] = program
                    return program
            log.info("nova.jit: new batch signature %s: capturing", signature)

            def capture_step(stack_traces: bool) -> capture.CapturedGraph:
                return capture.capture_train_step(
                    self.model,
                    self.optimizer,
                    self.loss_fn,
                    tuple(batch),
                    autocast_dtype=self.autocast_dtype,
                    max_grad_norm=self.max_grad_norm,
                    gradient_accumulation_steps=self.gradient_accumulation_steps,
                    world_size=self.world.size,
                    stack_traces=stack_traces,
                )

            start = time.perf_counter()
            # Without source locations (faster); only a step that fails to
            # compile is captured again with them, so its error names the
            # user's line.
            captured = capture_step(stack_traces=False)
            announce(f"nova: {name}: capture {time.perf_counter() - start:.2f}s")
            try:
                program = self._compiler.load(captured, device, name=name)
            except Exception as e:
                if not _is_compile_error(e):
                    raise
                log.info("nova.jit: compiling failed; capturing again with source locations for the error")
                captured = capture_step(stack_traces=True)
                program = self._compiler.load(captured, device, name=name)
            if capture_key:
                default_cache().record_alias(capture_key, program.key, cached_step_info(captured, program))
            self._programs[signature] = program
        return program

    def _capture_key(self, batch: Sequence[Tensor], device: torch.device) -> str | None:
        """This step's capture key for `batch` (nova.capture_key)."""
        target = self._compiler.target or default_target(device)
        options = compile_context(target, self._compiler.allow_fallback, True, self.world.size,
                                  capture.f32_matmul_precision())
        options.update(autocast_dtype=str(self.autocast_dtype), max_grad_norm=self.max_grad_norm,
                       gradient_accumulation_steps=self.gradient_accumulation_steps)
        return train_step_capture_key(self.model, self.optimizer, self.loss_fn, tuple(batch), options)

    def _check_world(self) -> None:
        if self.world.size == 1:
            return
        first = next(self.model.parameters(), None)
        target = self._compiler.target or (default_target(first.device) if first is not None else "cpu")
        if not target.startswith("cuda"):
            raise NotImplementedError(
                f"nova.jit: data-parallel training over {self.world.size} ranks needs CUDA (IREE's CPU HAL has no "
                f"collectives); this step compiles for {target}"
            )

    def _sync_released(self) -> None:
        if self._released is not None:
            self.sync()

    def _release(self, program: Program) -> None:
        """Frees torch's copy of the params and the optimizer state
        (not the buffers: the step writes back only those it updates)."""
        assert program.train is not None and program.layout is not None
        program.train.wait()  # the module's copies of them have been made
        named = dict(self.model.named_parameters())
        params = [named[n] for n in program.layout.param_names]
        states = [s for p in params for s in self.optimizer.state.get(p, {}).values()
                  if isinstance(s, Tensor) and s.shape == p.shape]
        self._released = ReleasedStorage([*params, *states])

    def _upload(self, program: Program) -> None:
        if self._active is not None and self._steps_on_device:
            # Moving between programs (a new batch shape) goes through torch.
            self.sync()
        assert program.train is not None and program.layout is not None
        # Missing optimizer state is made as zeros on the device: no torch
        # allocation (whose cached blocks would stay reserved beside IREE's).
        inputs = capture.train_step_inputs(
            program.layout, self.model, self.optimizer, None, missing_state=lambda p: Zeros(tuple(p.shape), p.dtype)
        )
        program.train.load_state(inputs[: num_state_tensors(program.layout)])
        self._active = program
        self._steps_on_device = 0
        self._state_summary = None


class CompiledFunction:
    """A forward-only function (or module) compiled per input signature."""

    def __init__(self, fn: Callable[..., Any], *, target: str | None, allow_fallback: bool) -> None:
        self.fn = fn
        self._compiler = _Compiler(target, allow_fallback)
        self._programs: dict[tuple[Any, ...], Program] = {}
        self._submodules = list(fn.modules()) if isinstance(fn, nn.Module) else []

    def __call__(self, *args: Tensor) -> Any:
        _check_tensors(args, "nova.jit function")
        signature = (batch_signature(args), training_modes(self._submodules))
        program = self._programs.get(signature)
        if program is not None:
            default_cache().record_reuse()
        else:
            captured = capture.capture_function(self.fn, args)
            device = args[0].device if args else torch.device("cpu")
            name = getattr(self.fn, "__name__", type(self.fn).__name__)
            program = self._compiler.load(captured, device, name=name)
            self._programs[signature] = program
        if args:
            program.check_indices(args)
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
    *,
    release_torch_state: bool = False,
) -> TrainStep:
    """A TrainStep that runs the step `nova export` wrote to `directory` (no
    compiler needed): the model and optimizer must have the structure it was
    exported from; its device must match the export's target.
    `release_torch_state` as in `jit`."""
    start = time.perf_counter()
    directory = Path(directory)
    signature = json.loads((directory / "step.json").read_text())
    if signature.get("abi") != TRAIN_STEP_ABI:
        raise ValueError(
            f"{directory}: exported with train-step ABI {signature.get('abi')!r}, this Nova runs "
            f"{TRAIN_STEP_ABI!r}: export it again"
        )
    layout = _layout_from_json(signature["layout"])
    device = runtime_device(signature["target"])
    step = TrainStep(model, optimizer, loss_fn, target=signature["target"], autocast_dtype=None, allow_fallback=False,
                     release_torch_state=release_torch_state)
    device_type = "cuda" if device == "cuda" else "cpu"
    batch = tuple(
        (tuple(spec["shape"]), _TORCH_DTYPES[spec["dtype"]], device_type)
        for spec in signature["inputs"]
        if spec["role"] == capture.ROLE_BATCH
    )
    archive = signature.get("parameters")
    session = Session(
        (directory / "step.vmfb").read_bytes(),
        device,
        parameters=directory / archive["file"] if archive else None,
        parameter_scope=archive["scope"] if archive else "",
    )
    loss_dtype = _TORCH_DTYPES[signature["outputs"][0]["dtype"]]
    step.add_program(
        batch, train_program(layout, session, loss_dtype, signature.get("key", ""), signature.get("memory_plan"))
    )
    # With the session's own log line: how much of a warm start is not IREE's.
    log.info("nova: %s loaded in %.2fs", directory, time.perf_counter() - start)
    return step


def jit(
    model_or_fn: nn.Module | Callable[..., Any],
    optimizer: torch.optim.Optimizer | None = None,
    loss_fn: Callable[[Any, Tensor], Tensor] | None = None,
    *,
    target: str | None = None,
    autocast_dtype: torch.dtype | None = None,
    allow_fallback: bool = False,
    max_grad_norm: float | None = None,
    gradient_accumulation_steps: int = 1,
    release_torch_state: bool = False,
) -> TrainStep | CompiledFunction:
    """Compiles a training step (`model` + `optimizer`) or a forward function.

    - `nova.jit(model, optimizer)`: `loss = step(*batch)`, the model's forward
      returning the loss; with `loss_fn`, `loss = loss_fn(model(*inputs), target)`
      where the target is the last batch element.
    - `nova.jit(fn)`: a compiled forward-only function.
    `target` ("cpu", "cuda:sm_90", ...) defaults to the model's device.
    `allow_fallback` leaves aten ops Nova does not convert to IREE's own torch
    lowering instead of raising. `max_grad_norm` clips the gradients to that
    global L2 norm inside the step (as `torch.nn.utils.clip_grad_norm_` before
    `optimizer.step()`); changing it recompiles. `gradient_accumulation_steps`
    k splits each batch into k micro-batches along dim 0, run forward and
    backward one after the other inside the step, and updates once with the
    mean gradient (eager's `(loss / k).backward()` per micro-batch, then
    `optimizer.step()`); the returned loss is the mean.
    `release_torch_state` frees torch's copy of the parameters and the
    optimizer state while the step's module holds them (the tensors keep
    shape, dtype and device and read as NaN; see nova.released_storage);
    `step.sync()`, running the model, `state_dict()` of the model or the
    optimizer, `step.load()` and a new batch shape write the module's values
    back into them first.
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
            max_grad_norm=max_grad_norm,
            gradient_accumulation_steps=gradient_accumulation_steps,
            release_torch_state=release_torch_state,
        )
    if release_torch_state:
        raise TypeError("nova.jit: release_torch_state needs an optimizer (a training step)")
    if max_grad_norm is not None or gradient_accumulation_steps != 1:
        raise TypeError("nova.jit: max_grad_norm and gradient_accumulation_steps need an optimizer (a training step)")
    if loss_fn is not None:
        raise TypeError("nova.jit: loss_fn needs an optimizer (a training step)")
    return CompiledFunction(model_or_fn, target=target, allow_fallback=allow_fallback)
