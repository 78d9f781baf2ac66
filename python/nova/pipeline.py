"""Captured graph → vmfb: the compile stages, timed, with optional IR dumps.

Stages (each dumped as NN-<stage>.mlir under $NOVA_DUMP_IR/<key>/ when set):
  torch           torch-mlir's FX importer output (generic op form)
  nova            after convert-torch-to-nova
  nova-optimized  after nova-optimize (decompose, canonicalize, CSE, then fused
                  attention formed, canonicalize, CSE)
  linalg          after nova-lower-to-linalg (CUDA: matmuls and attention
                  configured by the analytic configurator, attention without
                  a Nova kernel decomposed, Nova's GEMM, attention and
                  scatter_add kernels as dispatches; CPU: attention decomposed)
  iree-program    train steps: after nova-train-step-to-iree (state in
                  globals updated in place, an asynchronous @step)
  iree-input      the generic-form text handed to iree-compile
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from nova import capture
from nova.capture import CapturedGraph
from nova.progress import announce
from nova.runtime import memory_plan

log = logging.getLogger(__name__)


@dataclass
class CompileReport:
    """Seconds per stage of one compilation, in order, and for a train step
    the device memory IREE planned (`planned_memory`)."""

    stage_seconds: dict[str, float] = field(default_factory=dict)
    memory: dict[str, int] | None = None

    @property
    def total_seconds(self) -> float:
        return sum(self.stage_seconds.values())


def _spec_bytes(specs: Iterable[capture.TensorSpec]) -> int:
    return sum(math.prod(s.shape) * s.dtype.itemsize for s in specs)


def planned_memory(captured: CapturedGraph, plan: memory_plan.MemoryPlan) -> dict[str, int]:
    """A train step's planned device memory in bytes: its state (params,
    buffers, optimizer state: the module's globals), @step's transients as
    IREE laid them out (values alive at once share bytes), and the batch,
    hyperparameters and loss Nova stages for each call. `peak` is their sum:
    what the step holds on the device while it runs."""
    state_roles = (capture.ROLE_PARAM, capture.ROLE_BUFFER, capture.ROLE_OPT_STATE)
    state = _spec_bytes(s for s in captured.input_specs if s.role in state_roles)
    io = _spec_bytes(s for s in captured.input_specs if s.role not in state_roles)
    io += _spec_bytes(captured.output_specs[:1])
    transients = plan.bytes("step", "transient")
    return {"state": state, "step_transients": transients, "inputs_and_loss": io, "peak": state + transients + io}


def _size(n: int) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.1f} MiB"


def describe_memory(memory: dict[str, int]) -> str:
    return (f"planned device memory {_size(memory['peak'])}: state {_size(memory['state'])}, step transients "
            f"{_size(memory['step_transients'])}, batch and loss {_size(memory['inputs_and_loss'])}")


class _Stages:
    def __init__(self, name: str, dump_dir: Path | None) -> None:
        self.name = name
        self.dump_dir = dump_dir
        self.report = CompileReport()
        self._dumps = 0
        if dump_dir is not None:
            dump_dir.mkdir(parents=True, exist_ok=True)

    @contextlib.contextmanager
    def stage(self, stage: str) -> Iterator[None]:
        start = time.perf_counter()
        yield
        seconds = time.perf_counter() - start
        self.report.stage_seconds[stage] = seconds
        announce(f"nova: {self.name}: {stage} {seconds:.2f}s")

    def dump(self, stage: str, text: str) -> None:
        if self.dump_dir is not None:
            self._dumps += 1
            (self.dump_dir / f"{self._dumps:02d}-{stage}.mlir").write_text(text)


def compiling_gpu(target: str) -> dict[str, int]:
    """What the configurator takes from the GPU this process runs on, when
    `target` ("cuda:sm_NN") is its architecture: its SM count and shared
    memory per SM (a part may have fewer SMs than the known target's, e.g.
    an H100 PCIe). Empty when compiling away from such a GPU."""
    import torch

    if not target.startswith("cuda:") or not torch.cuda.is_available():
        return {}
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    if f"sm_{props.major}{props.minor}" != target.removeprefix("cuda:").removesuffix("a"):
        return {}
    gpu = {"sm-count": props.multi_processor_count}
    shared = getattr(props, "shared_memory_per_multiprocessor", 0)
    if shared:
        gpu["shared-memory-per-sm"] = shared
    return gpu


def kernel_cache_dir(target: str) -> Path:
    """Where Nova's kernels for `target` keep their PTX across processes:
    beside the executable cache, one folder per compiler build and target
    (a kernel's name determines its code only for one build)."""
    from nova.compiled import compiler_fingerprint
    from nova.runtime.cache import default_cache_dir

    return default_cache_dir() / "kernels" / f"{compiler_fingerprint()}-{target.replace(':', '-')}"


def linalg_pipeline(target: str, f32_matmul_precision: str = "highest", world_size: int = 1,
                    state_in_place: bool = False, pack_state: bool = False, head_chunk: int = 0) -> str:
    """nova → linalg for `target` (a Nova target string: "cpu", "cuda:sm_NN"):
    the C++ pipeline `nova-lower-to-linalg` (CUDA: two-stage leading
    reductions, every matmul configured for the architecture, or for the GPU
    compiled on (`compiling_gpu`), with f32 ones at `f32_matmul_precision`;
    Nova's kernels, whose PTX persists in `kernel_cache_dir(target)`;
    gradient all-reduces over `world_size` ranks as
    IREE collectives, or none for one). `state_in_place`: the optimizer's
    params and state become module state updated in place (a train step's
    program pipeline follows), so CUDA optimizer updates may write them in
    place (Nova's multi-tensor AdamW kernel). `pack_state`: a train step's
    params and AdamW state are packed into flat tensors, one update per
    group of params that share their hyperparameters
    (nova-pack-optimizer-state). `head_chunk`: a language-model head and its
    cross-entropy in chunks of at most this many bytes of logits (0: whole;
    nova-chunk-cross-entropy)."""
    options = [f"target={target}", f"f32-matmul-precision={f32_matmul_precision}"]
    if world_size != 1:
        options.append(f"world-size={world_size}")
    if state_in_place:
        options.append("state-in-place=true")
    if pack_state:
        options.append("pack-optimizer-state=true")
    options += [f"{name}={value}" for name, value in compiling_gpu(target).items()]
    if head_chunk:
        options.append(f"head-chunk-bytes={head_chunk}")
    if target.startswith("cuda:"):
        if gemm_stmatrix_enabled():
            options.append("gemm-stmatrix=true")
        if epilogue_staged_inputs_enabled():
            options.append("epilogue-staged-inputs=true")
        if not attention_head_groups_enabled():
            options.append("attention-head-groups=false")
        kernels = str(kernel_cache_dir(target))
        if re.fullmatch(r"[^\s{}\"']+", kernels):  # what a pass option value may hold unquoted
            options.append(f"kernel-cache={kernels}")
        else:
            log.info("nova: kernel cache off: %r is not a plain path", kernels)
    return "nova-lower-to-linalg{" + " ".join(options) + "}"


def gemm_stmatrix_enabled() -> bool:
    """Whether bf16 GEMM results are staged for their TMA stores with
    stmatrix (NOVA_GEMM_STMATRIX=1; experimental until measured on the GPU)."""
    return os.environ.get("NOVA_GEMM_STMATRIX", "0") == "1"


def epilogue_staged_inputs_enabled() -> bool:
    """Whether GEMM epilogues may stage another element input in shared
    memory, which fuses an MLP's GELU backward into its input-gradient GEMM
    (NOVA_EPILOGUE_STAGED=1; experimental until measured on the GPU)."""
    return os.environ.get("NOVA_EPILOGUE_STAGED", "0") == "1"


def attention_head_groups_enabled() -> bool:
    """Whether Nova's attention kernels hand out their work dynamically in
    groups of heads (the default; NOVA_ATTENTION_HEAD_GROUPS=0: the static
    block-major order)."""
    return os.environ.get("NOVA_ATTENTION_HEAD_GROUPS", "1") != "0"


def _env_amount(name: str, unit: int) -> int | None:
    """Environment variable `name` as a number of `unit` bytes, in bytes;
    None when unset. Negative or non-numeric values are errors."""
    text = os.environ.get(name)
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a number") from None
    if value < 0:
        raise ValueError(f"{name}={text!r} is negative")
    return int(value * unit)


def head_chunk_bytes() -> int:
    """The most bytes of a language-model head's logits made at once
    (NOVA_HEAD_CHUNK_MIB; 0, the default: the head whole). Chunks lower a
    step's peak memory for a little speed (nova-chunk-cross-entropy)."""
    return _env_amount("NOVA_HEAD_CHUNK_MIB", 2**20) or 0


def memory_limit_bytes() -> int | None:
    """The device memory a train step may plan for (NOVA_MEMORY_LIMIT_GIB;
    unset: no limit). A step planned above it is compiled again with its
    head in chunks (`compile_captured`), as torch's activation memory budget
    trades recomputation for memory."""
    limit = _env_amount("NOVA_MEMORY_LIMIT_GIB", 2**30)
    if limit is not None and float(os.environ["NOVA_MEMORY_LIMIT_GIB"]) == 0:
        raise ValueError(f"NOVA_MEMORY_LIMIT_GIB={os.environ['NOVA_MEMORY_LIMIT_GIB']!r} is not positive")
    return limit


def head_logits_bytes(captured: CapturedGraph) -> int:
    """Bytes of the largest logits a captured cross-entropy reads (0: none)."""
    from nova import loss_ops

    sizes = [0]
    for node in captured.graph_module.graph.nodes:
        if node.target == loss_ops.CROSS_ENTROPY_OP:
            logits = node.args[0].meta.get("val")
            if logits is not None:
                sizes.append(logits.numel() * logits.element_size())
    return max(sizes)


def pack_state_enabled() -> bool:
    """Whether train steps keep their params and AdamW state packed in a few
    flat globals, one update per group (NOVA_PACK_STATE, default 1; 0 keeps
    three globals and an update per param)."""
    return os.environ.get("NOVA_PACK_STATE", "1") != "0"


def step_transients_enabled(target: str, gateable: bool = True) -> bool:
    """Whether @step takes its transient storage from the caller (no queue
    alloca/dealloca per call; on CUDA the step is then gated, see
    `train_step_pipeline`): NOVA_STEP_TRANSIENTS=1 or 0, by default on CUDA
    for a step that can be gated (`gateable`; H100, 2026-12-06: gpt-42m bf16
    13.8 against 14.3 ms a step, gpt-146m 44.7 against 46.0) and off on the
    CPU. An ungated CUDA step with caller transients was never issued by
    IREE 3.13 (H200, 2026-12-02), so the default never makes one."""
    value = os.environ.get("NOVA_STEP_TRANSIENTS")
    if value not in (None, "0", "1"):
        raise ValueError(f"NOVA_STEP_TRANSIENTS={value!r}: expected 0 or 1")
    return target.startswith("cuda") and gateable if value is None else value == "1"


def _whole_words(spec: capture.TensorSpec) -> bool:
    """Whether a step input is whole 32-bit words (what the step gate copies)."""
    return _spec_bytes([spec]) % 4 == 0


def train_step_pipeline(captured: CapturedGraph, parameter_scope: str = "", in_place: bool = True,
                        transients: bool | None = None, target: str = "cpu") -> str:
    """The C++ pipeline nova-train-step-to-iree (convert-train-step-to-iree,
    canonicalize, CSE) for `captured`'s signature: its params,
    buffers and optimizer state become module globals named after them
    (initialised from parameters of `parameter_scope` when given), updated
    in place (`in_place=False` only to measure what that saves), with the
    step's transient storage from the caller when `transients` (default:
    `step_transients_enabled(target)`); on CUDA such a step is also gated: it
    waits on the device for the caller's `ready` word and writes its
    `done` word (runtime/ordering.py), so no call waits on the host."""
    layout = captured.train_layout
    if layout is None:
        raise ValueError("not a captured train step")
    state_roles = (capture.ROLE_PARAM, capture.ROLE_BUFFER, capture.ROLE_OPT_STATE)
    names = [s.name for s in captured.input_specs if s.role in state_roles]
    hypers = sum(s.role == capture.ROLE_HYPER for s in captured.input_specs)
    options = [
        f"params={len(layout.param_names)}",
        f"buffers={len(layout.buffer_names)}",
        f"states-per-param={len(layout.state_keys)}",
        f"hypers={hypers}",
        f"state-names={','.join(names)}",
    ]
    if layout.updated_buffers:
        indices = [layout.buffer_names.index(n) for n in layout.updated_buffers]
        options.append(f"updated-buffers={','.join(map(str, indices))}")
    if parameter_scope:
        options.append(f"parameter-scope={parameter_scope}")
    if not in_place:
        options.append("in-place=false")
    batch = [s for s in captured.input_specs if s.role not in state_roles + (capture.ROLE_HYPER,)]
    # What the gate and the close copy: whole words in, a 16- or 32-bit loss out.
    gateable = (target.startswith("cuda") and all(_whole_words(s) for s in batch)
                and _spec_bytes(captured.output_specs[:1]) in (2, 4))
    if step_transients_enabled(target, gateable) if transients is None else transients:
        options.append("transients=true")
        if gateable:
            options.append("gate=true")
    return "nova-train-step-to-iree{" + " ".join(options) + "}"


def lower_to_iree_input(
    torch_text: str,
    *,
    target: str = "cpu",
    allow_fallback: bool = False,
    stages: _Stages | None = None,
    program_pipeline: str | None = None,
    f32_matmul_precision: str = "highest",
    world_size: int = 1,
    state_in_place: bool = False,
    pack_state: bool = False,
    head_chunk: int = 0,
) -> str:
    """torch-dialect text → linalg text (generic form) for iree-compile.

    `target` is the Nova target the text is for ("cpu", "cuda:sm_90", ...):
    the CUDA text carries Nova's scatter kernel and compiles for CUDA only.
    `program_pipeline` (a train step's `train_step_pipeline`) turns the pure
    function into IREE's stateful program last. `f32_matmul_precision` is
    torch's setting at capture (CUDA: "high"/"medium" allow TF32).
    `state_in_place`: `program_pipeline` makes the params and optimizer state
    module globals updated in place; `pack_state`: packed first;
    `head_chunk`: the head in chunks (see `linalg_pipeline`).
    """
    from nova import compiler  # the MLIR extension: compile side only

    stages = stages or _Stages("module", None)
    stages.dump("torch", torch_text)
    fallback = "{allow-fallback=true}" if allow_fallback else ""
    with stages.stage("convert-torch-to-nova"):
        text = compiler.run_pipeline(
            torch_text,
            f"convert-torch-to-nova{fallback}",
            allow_unregistered_dialects=True,
            print_locations=True,
        )
    stages.dump("nova", text)
    with stages.stage("nova-optimize"):
        text = compiler.run_pipeline(
            text, "nova-optimize", allow_unregistered_dialects=True, print_locations=True
        )
    stages.dump("nova-optimized", text)
    with stages.stage("nova-lower-to-linalg"):
        text = compiler.run_pipeline(
            text,
            linalg_pipeline(target, f32_matmul_precision, world_size, state_in_place, pack_state, head_chunk),
            allow_unregistered_dialects=True,
            print_locations=True,
        )
    stages.dump("linalg", text)
    if program_pipeline is not None:
        with stages.stage("nova-train-step-to-iree"):
            text = compiler.run_pipeline(
                text, program_pipeline, allow_unregistered_dialects=True, print_locations=True
            )
        stages.dump("iree-program", text)
    # IREE (LLVM 24) reads our MLIR 22 output most reliably in generic form.
    text = compiler.run_pipeline(
        text, "builtin.module()", allow_unregistered_dialects=True, generic_output=True, print_locations=True
    )
    stages.dump("iree-input", text)
    return text


def compile_captured(
    captured: CapturedGraph,
    target: str,
    *,
    name: str,
    allow_fallback: bool = False,
    parameter_scope: str = "",
    in_place: bool = True,
) -> tuple[bytes, CompileReport]:
    """Imports, converts, lowers and iree-compiles `captured` for `target`.
    A train step becomes a module with its state in globals (initialised by
    `load_state`, or from parameters of `parameter_scope` when given; packed
    per `pack_state_enabled()` unless from parameters, whose archive holds
    each tensor on its own), its head in chunks per `head_chunk_bytes()`;
    a step planned above `memory_limit_bytes()` with its head whole is
    compiled again with it in 4, 6, then 8 chunks until one fits, and the
    least peak is kept."""
    head_chunk = head_chunk_bytes() if captured.train_layout is not None else 0
    vmfb, report = _compile_once(captured, target, name=name, allow_fallback=allow_fallback,
                                 parameter_scope=parameter_scope, in_place=in_place, head_chunk=head_chunk)
    limit = memory_limit_bytes()
    if captured.train_layout is None or limit is None or head_chunk or report.memory["peak"] <= limit:
        return vmfb, report
    # Over the limit: the head's logits in 4, 6, then 8 chunks (IREE's packing
    # makes the peak uneven in the count), the least peak kept.
    logits = head_logits_bytes(captured)
    for chunks in (4, 6, 8) if logits else ():
        announce(f"nova: {name}: planned {_size(report.memory['peak'])} is over NOVA_MEMORY_LIMIT_GIB's "
                 f"{_size(limit)}: compiling with the head in {chunks} chunks")
        candidate = _compile_once(captured, target, name=f"{name}.head-{chunks}-chunks", allow_fallback=allow_fallback,
                                  parameter_scope=parameter_scope, in_place=in_place,
                                  head_chunk=-(-logits // chunks))
        if candidate[1].memory["peak"] < report.memory["peak"]:
            vmfb, report = candidate
        if report.memory["peak"] <= limit:
            break
    else:
        log.warning("nova: %s: planned %s is over the memory limit of %s", name,
                    _size(report.memory["peak"]), _size(limit))
    return vmfb, report


def _compile_once(captured: CapturedGraph, target: str, *, name: str, allow_fallback: bool,
                  parameter_scope: str, in_place: bool, head_chunk: int) -> tuple[bytes, CompileReport]:
    from nova.importer import import_to_torch_mlir
    from nova.runtime import compile_to_vmfb

    dump_root = os.environ.get("NOVA_DUMP_IR")
    stages = _Stages(name, Path(dump_root) / name if dump_root else None)
    with stages.stage("import"):
        torch_text = import_to_torch_mlir(captured)
    program = (
        train_step_pipeline(captured, parameter_scope, in_place, target=target)
        if captured.train_layout is not None
        else None
    )
    iree_input = lower_to_iree_input(
        torch_text,
        target=target,
        allow_fallback=allow_fallback,
        stages=stages,
        program_pipeline=program,
        f32_matmul_precision=captured.f32_matmul_precision,
        world_size=captured.world_size,
        state_in_place=program is not None and in_place,
        pack_state=program is not None and not parameter_scope and pack_state_enabled(),
        head_chunk=head_chunk,
    )
    with stages.stage("iree-compile"), tempfile.TemporaryDirectory(prefix="nova-plan-") as plan_dir:
        vmfb = compile_to_vmfb(
            iree_input,
            target,
            input_type="torch" if allow_fallback else "auto",
            extra_flags=memory_plan.iree_flags(Path(plan_dir)),
        )
        plan = memory_plan.read(Path(plan_dir))
    announce(f"nova: {name}: compiled in {stages.report.total_seconds:.2f}s")
    if captured.train_layout is not None:
        stages.report.memory = planned_memory(captured, plan)
        announce(f"nova: {name}: {describe_memory(stages.report.memory)}")
    return vmfb, stages.report
