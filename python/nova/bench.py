"""`nova bench`: Nova next to its peers, same run, same GPU.

Peers of `train`: torch eager and torch.compile, each with the model's naive
attention and with SDPA, and the same GPT in JAX/XLA (nova.jax_gpt) with naive
attention and with cuDNN flash attention. Compile here, run there: the GPU box
has no compiler, so `nova bench prepare` (on the build box) exports Nova's
steps/kernels for the target into a folder; `nova bench
train|matmul|attention --artifacts DIR` (on the GPU box) runs them next to the peers. Every training
measurement runs in its own process so that memory peaks do not mix; memory is
the device's used memory from NVML, sampled every few milliseconds, minus what
was used before the process touched the GPU (the same method for every mode;
the allocators' own peaks are extra fields).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import logging
import math
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch

log = logging.getLogger(__name__)

RESULT_PREFIX = "NOVA_BENCH_RESULT "

# `nova bench train --modes`: mode -> (framework, attention). torch modes whose
# name starts with "compile" run the step under torch.compile.
TRAIN_MODES: dict[str, tuple[str, str]] = {
    "nova": ("nova", "naive"),
    "eager": ("torch", "naive"),
    "eager-sdpa": ("torch", "sdpa"),
    "compile": ("torch", "naive"),
    "compile-sdpa": ("torch", "sdpa"),
    "jax": ("jax", "naive"),
    "jax-cudnn": ("jax", "cudnn"),
}


# ---------------------------------------------------------------------------
# Shapes and setups shared by prepare (build box) and run (GPU box).
# ---------------------------------------------------------------------------


def train_setup(model_name: str, batch: int, device: str, seed: int = 0, sdpa: bool = False):
    """The GPT (same weights whatever `sdpa`) and one batch, from `seed`."""
    from nova.models import make_gpt

    torch.manual_seed(seed)
    model = make_gpt(model_name, sdpa=sdpa)
    vocab, seq_len = model.wte.num_embeddings, model.seq_len
    g = torch.Generator().manual_seed(seed + 1)
    idx = torch.randint(0, vocab, (batch, seq_len), generator=g)
    tgt = torch.randint(0, vocab, (batch, seq_len), generator=g)
    return model.to(device), (idx.to(device), tgt.to(device))


def default_batch(model_name: str) -> int:
    """The batch a model is benchmarked at unless told otherwise."""
    return {"gpt-42m": 32, "gpt-146m": 16}.get(model_name, 8)


def make_optimizer(model: torch.nn.Module, fused: bool) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=1e-4, fused=fused)


# f32: exact f32 matmuls (torch's "highest"; Nova: three TF32 products, cuBLAS:
# SGEMM); tf32: TF32 matmuls ("high", allow_tf32); bf16: autocast.
BENCH_DTYPES = ["f32", "tf32", "bf16"]

# How each GEMM of a Linear reads its operands (torch's x @ W.t() and its
# gradients): "nt" = A[M, K] @ B[N, K]^T (forward), "nn" = A[M, K] @ B[K, N]
# (input gradient), "tn" = A[K, M]^T @ B[K, N] (weight gradient).
MATMUL_LAYOUTS = ("nt", "nn", "tn")


def matmul_shapes() -> list[tuple[int, int, int, str]]:
    """(M, N, K, layout) of every GEMM in gpt-42m (B32) and gpt-146m (B16)
    training: each Linear's forward, input-gradient and weight-gradient
    products (the tied head included), plus 4096^3 and 8192^3 (nn)."""
    from nova.models import GPT_CONFIGS

    shapes: list[tuple[int, int, int, str]] = []
    for name, batch in (("gpt-42m", 32), ("gpt-146m", 16)):
        cfg = GPT_CONFIGS[name]
        d, vocab, tokens = cfg["d_model"], cfg["vocab"], batch * cfg["seq_len"]
        for fan_in, fan_out in ((d, 3 * d), (d, d), (d, 4 * d), (4 * d, d), (d, vocab)):
            shapes += [
                (tokens, fan_out, fan_in, "nt"),
                (tokens, fan_in, fan_out, "nn"),
                (fan_out, fan_in, tokens, "tn"),
            ]
    shapes += [(4096, 4096, 4096, "nn"), (8192, 8192, 8192, "nn")]
    return list(dict.fromkeys(shapes))


def matmul_operands(m: int, n: int, k: int, layout: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The stored shapes of A and B for `layout`."""
    return ((k, m) if layout[0] == "t" else (m, k)), ((n, k) if layout[1] == "t" else (k, n))


def layout_matmul(layout: str):
    """C = op(A) @ op(B) for `layout`, as torch code (what Nova captures)."""

    def nn(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b

    def nt(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b.t()

    def tn(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a.t() @ b

    return {"nn": nn, "nt": nt, "tn": tn}[layout]


def _artifact_name(kind: str, **parts: Any) -> str:
    return kind + "".join(f"-{k}{v}" for k, v in parts.items())


# ---------------------------------------------------------------------------
# prepare (build box)
# ---------------------------------------------------------------------------


def prepare(args: argparse.Namespace) -> None:
    """Exports each (model, dtype) train step, and with --matmul the matmul
    sweep. tf32 captures with torch's matmul precision "high" (TF32 matmuls,
    as the peers run with allow_tf32), f32 and bf16 (under autocast) with
    "highest"."""
    from nova.export import export_function, export_train_step

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    previous = torch.get_float32_matmul_precision()
    try:
        for dtype in args.dtypes:
            torch.set_float32_matmul_precision("high" if dtype == "tf32" else "highest")
            for model_name in args.models:
                batch = args.batch or default_batch(model_name)
                model, example = train_setup(model_name, batch, "cpu")
                name = _artifact_name("train", model=model_name, dtype=dtype, batch=batch)
                export_train_step(
                    model,
                    make_optimizer(model, fused=False),
                    example,
                    out / name,
                    target=args.target,
                    autocast_dtype=torch.bfloat16 if dtype == "bf16" else None,
                    write_inputs=False,
                )
            if args.matmul:
                torch_dtype = torch.bfloat16 if dtype == "bf16" else torch.float32
                for m, n, k, layout in matmul_shapes():
                    a_shape, b_shape = matmul_operands(m, n, k, layout)
                    a, b = torch.empty(a_shape, dtype=torch_dtype), torch.empty(b_shape, dtype=torch_dtype)
                    name = _artifact_name("matmul", dtype=dtype, m=m, n=n, k=k, layout=layout)
                    export_function(layout_matmul(layout), (a, b), out / name, target=args.target)
    finally:
        torch.set_float32_matmul_precision(previous)
    if args.attention:
        from nova import attention_bench

        attention_bench.prepare(out, args.target)


# ---------------------------------------------------------------------------
# Measurement helpers (GPU box)
# ---------------------------------------------------------------------------


def _train_artifact(args: argparse.Namespace) -> Path:
    """The folder `prepare` exported this run's (model, dtype, batch) step to."""
    return Path(args.artifacts) / _artifact_name("train", model=args.model, dtype=args.dtype, batch=args.batch)


def _exported_step(args: argparse.Namespace, model: torch.nn.Module):
    """Nova's exported step for this run, over `model` and a fresh AdamW;
    torch's copy of the state is freed while the module holds it (the peers
    hold theirs once too)."""
    import nova

    return nova.load_exported_step(
        _train_artifact(args), model, make_optimizer(model, fused=False), release_torch_state=True
    )


class NvmlPeak:
    """Samples the device's used memory in a thread; `peak_bytes` is the
    highest reading minus the reading at construction."""

    def __init__(self, device_index: int = 0, period_s: float = 0.002) -> None:
        import pynvml

        pynvml.nvmlInit()
        self._nvml = pynvml
        self._handle = pynvml.nvmlDeviceGetHandleByIndex(device_index)
        self.total_bytes = int(pynvml.nvmlDeviceGetMemoryInfo(self._handle).total)
        self.baseline = self._used()
        self.peak = self.baseline
        self._period = period_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _used(self) -> int:
        return int(self._nvml.nvmlDeviceGetMemoryInfo(self._handle).used)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._used())
            time.sleep(self._period)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._used())
        return self.peak - self.baseline


@contextlib.contextmanager
def _memory_cap(cap_gib: float | None, mode: str) -> Iterator[int]:
    """Applies the memory cap; yields bytes of ballast to subtract from peaks.

    torch modes: the caching allocator's per-process memory fraction.
    nova: IREE's CUDA allocator has no limit switch, so a ballast allocation
    takes all free device memory but `cap` before Nova starts.
    (jax modes: XLA's memory fraction, see nova.jax_gpt.xla_environment.)
    """
    if not cap_gib:
        yield 0
        return
    cap = int(cap_gib * 2**30)
    total = torch.cuda.get_device_properties(0).total_memory
    if mode != "nova":
        torch.cuda.set_per_process_memory_fraction(cap / total)
        yield 0
        return
    free, _ = torch.cuda.mem_get_info()
    ballast_bytes = max(0, free - cap)
    ballast = torch.empty(ballast_bytes, dtype=torch.uint8, device="cuda")
    try:
        yield ballast_bytes
    finally:
        del ballast


def _scalar(loss: Any) -> float:
    return float(loss.detach()) if isinstance(loss, torch.Tensor) else float(loss)


def _measure(run_step, sync, tokens: int, args: argparse.Namespace, result: dict[str, Any]) -> float:
    """The protocol every mode shares: one first step (compiles where the mode
    compiles), `warmup - 1` more, then `steps` timed steps between two device
    synchronisations. Fills the timing fields; returns the first step's seconds."""
    t0 = time.perf_counter()
    loss = run_step()
    sync()
    first_step_s = time.perf_counter() - t0
    result["first_loss"] = _scalar(loss)
    for _ in range(args.warmup - 1):
        run_step()
    sync()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        loss = run_step()
    sync()
    elapsed = time.perf_counter() - t0
    result.update(
        step_ms=1e3 * elapsed / args.steps,
        tokens_per_s=tokens * args.steps / elapsed,
        final_loss=_scalar(loss),
        status="ok",
    )
    return first_step_s


def _is_oom(e: BaseException) -> bool:
    # torch's allocator, or XLA's (a JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory ...).
    return isinstance(e, torch.cuda.OutOfMemoryError) or "RESOURCE_EXHAUSTED" in str(e)


def _record_failure(result: dict[str, Any], e: Exception) -> None:
    if _is_oom(e):
        result.update(status="oom", error=str(e).strip().splitlines()[0][:2000])
    else:  # reported, not hidden: the row says what failed
        result.update(status="error", error=f"{type(e).__name__}: {e}"[:2000])


def train_worker(args: argparse.Namespace) -> dict[str, Any]:
    framework, attention = TRAIN_MODES[args.mode]
    memory = NvmlPeak()
    result: dict[str, Any] = {
        "bench": "train",
        "mode": args.mode,
        "model": args.model,
        "dtype": args.dtype,
        "batch": args.batch,
        "mem_cap_gib": args.mem_cap_gib,
        "attention": attention,
    }
    if framework == "jax":
        _train_jax(args, attention, memory, result)
    else:
        _train_torch(args, framework, attention, memory, result)
    return result


def _train_torch(
    args: argparse.Namespace, framework: str, attention: str, memory: NvmlPeak, result: dict[str, Any]
) -> None:
    torch.backends.cuda.matmul.allow_tf32 = args.dtype == "tf32"
    torch.backends.cudnn.allow_tf32 = args.dtype == "tf32"
    with _memory_cap(args.mem_cap_gib, args.mode) as ballast:
        try:
            model, (idx, tgt) = train_setup(args.model, args.batch, "cuda", sdpa=attention == "sdpa")
            if framework == "nova":
                t0 = time.perf_counter()
                step = _exported_step(args, model)
                load_s = time.perf_counter() - t0
                meta = json.loads((_train_artifact(args) / "step.json").read_text())
                result["first_compile_s"] = sum(meta["compile_seconds"].values())
                if meta.get("memory_plan"):
                    result["planned_peak_gib"] = meta["memory_plan"]["peak"] / 2**30
                result["load_s"] = load_s

                def run_step() -> torch.Tensor:
                    return step(idx, tgt)

            else:
                run_step = _torch_step(args, model, idx, tgt)
            first_step_s = _measure(run_step, torch.cuda.synchronize, idx.numel(), args, result)
            if framework != "nova":
                result["first_compile_s"] = first_step_s
        except Exception as e:
            _record_failure(result, e)
        result["peak_mem_gib"] = (memory.stop() - ballast) / 2**30
        if framework == "torch":
            with contextlib.suppress(Exception):
                result["torch_max_allocated_gib"] = torch.cuda.max_memory_allocated() / 2**30


def _torch_step(args: argparse.Namespace, model: torch.nn.Module, idx: torch.Tensor, tgt: torch.Tensor):
    """A torch peer's train step (eager, or under torch.compile for the
    "compile" modes) with fused AdamW, bf16 autocast for dtype bf16."""
    optimizer = make_optimizer(model, fused=True)

    def eager_step() -> torch.Tensor:
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.dtype == "bf16"):
            loss = model(idx, tgt)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss

    return torch.compile(eager_step) if args.mode.startswith("compile") else eager_step


def _train_jax(args: argparse.Namespace, attention: str, memory: NvmlPeak, result: dict[str, Any]) -> None:
    """The same GPT, weights and batch in JAX/XLA (nova.jax_gpt). torch stays
    on the CPU here (it only builds the weights), so this process's device
    memory is XLA's alone."""
    from nova import jax_gpt

    cap = int(args.mem_cap_gib * 2**30) if args.mem_cap_gib else None
    for key, value in jax_gpt.xla_environment(cap, memory.total_bytes, dict(os.environ)).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value  # read when jax creates its GPU client, below
    result["xla_env"] = {k: v for k, v in sorted(os.environ.items()) if k.startswith("XLA_")}
    result["matmul_precision"] = jax_gpt.matmul_precision(args.dtype)
    try:
        jax_gpt.check_supported(attention, args.dtype)
    except NotImplementedError as e:  # e.g. cuDNN attention at tf32: a row that says so
        result.update(status="unsupported", error=str(e), peak_mem_gib=memory.stop() / 2**30)
        return
    try:
        model, (idx, tgt) = train_setup(args.model, args.batch, "cpu")
        step = jax_gpt.BenchStep(model, idx, tgt, attention=attention, dtype=args.dtype)
        result["first_compile_s"] = _measure(step.run, step.sync, idx.numel(), args, result)
        result.update(step.info())
    except Exception as e:
        _record_failure(result, e)
    result["peak_mem_gib"] = memory.stop() / 2**30


def _time_cuda(fn, iters: int) -> float:
    """Seconds per call, measured with CUDA events after a warmup."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 1e3 / iters


def device_ms_per_kernel(fn, iters: int) -> dict[str, float]:
    """GPU time per call of `fn` for each kernel it runs, in ms: CUPTI
    (through torch.profiler) sees every kernel in the process, IREE's
    dispatches included; summed over `iters` calls after a warmup."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
    per_kernel: dict[str, float] = {}
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            per_kernel[event.name] = per_kernel.get(event.name, 0.0) + event.device_time / 1e3 / iters
    return per_kernel


def matmul_bench(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Nova's exported matmul of each shape and layout next to cuBLAS
    (torch.matmul on the same operands), both timed as GPU time per call
    (all of each side's kernels: Nova's layout glue counts), with the max
    error relative to an f64 product."""
    from nova.runtime import Session

    rows = []
    # Every module stays loaded until the sweep ends: CUPTI names kernels by
    # function handle, and a later module reusing an unloaded one's handle
    # was reported under the earlier kernel's name.
    sessions = []
    torch.backends.cuda.matmul.allow_tf32 = args.dtype == "tf32"
    torch_dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float32
    for m, n, k, layout in matmul_shapes():
        g = torch.Generator(device="cuda").manual_seed(0)
        a_shape, b_shape = matmul_operands(m, n, k, layout)
        a = torch.randn(a_shape, device="cuda", generator=g).to(torch_dtype)
        b = torch.randn(b_shape, device="cuda", generator=g).to(torch_dtype)
        fn = layout_matmul(layout)
        reference = fn(a.double(), b.double())
        scale = reference.abs().max()
        flops = 2.0 * m * n * k
        iters = max(3, min(50, int(4e12 / flops)))
        row: dict[str, Any] = {"bench": "matmul", "dtype": args.dtype, "m": m, "n": n, "k": k, "layout": layout}
        cublas_ms = sum(device_ms_per_kernel(lambda: fn(a, b), iters).values())
        row["cublas_tflops"] = flops / cublas_ms / 1e9
        row["cublas_max_rel_err"] = float((fn(a, b).double() - reference).abs().max() / scale)
        path = Path(args.artifacts) / _artifact_name("matmul", dtype=args.dtype, m=m, n=n, k=k, layout=layout)
        try:
            session = Session((path / "function.vmfb").read_bytes(), "cuda")
            sessions.append(session)
            out = session.to_torch(session.invoke("main", a, b)[0]).double()
            row["nova_max_rel_err"] = float((out - reference).abs().max() / scale)
            kernels = device_ms_per_kernel(lambda: session.invoke("main", a, b), iters)
            nova_ms = sum(kernels.values())
            row["nova_tflops"] = flops / nova_ms / 1e9
            row["nova_vs_cublas"] = row["nova_tflops"] / row["cublas_tflops"]
            row["nova_kernels"] = {name[:60]: round(ms * 1e3, 1) for name, ms in kernels.items()}  # us
        except Exception as e:
            row["nova_error"] = f"{type(e).__name__}: {e}"[:500]
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def check(args: argparse.Namespace) -> dict[str, Any]:
    """Nova's exported step vs eager CUDA from the same weights, a different
    batch each step: per-step loss and the parameters after `steps` steps.
    Both run TF32 matmuls for dtype tf32 (prepare captures it so), bf16
    autocast for bf16.

    It also checks the asynchronous ordering with torch's stream: each
    step's batch is copied into the same two device tensors on torch's
    stream right before the step (a step reading them early, or the copy
    overwriting them while the previous step still reads, gives a wrong
    loss), and the losses are stacked on torch's stream with no host read
    until all steps are enqueued."""
    from nova.models import GPT_CONFIGS

    # tf32: eager runs TF32 matmuls too, as Nova's step was captured to.
    torch.backends.cuda.matmul.allow_tf32 = args.dtype == "tf32"
    torch.backends.cudnn.allow_tf32 = False
    eager_model, (idx, tgt) = train_setup(args.model, args.batch, "cuda")
    nova_model, _ = train_setup(args.model, args.batch, "cuda")
    eager_opt = make_optimizer(eager_model, fused=False)
    vocab = eager_model.vocab
    g = torch.Generator(device="cuda").manual_seed(7)
    batches = [
        (torch.randint(0, vocab, idx.shape, device="cuda", generator=g),
         torch.randint(0, vocab, tgt.shape, device="cuda", generator=g))
        for _ in range(args.steps)
    ]  # fmt: skip
    eager_losses = []
    for b_idx, b_tgt in batches:
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.dtype == "bf16"):
            eager_loss = eager_model(b_idx, b_tgt)
        eager_loss.backward()
        eager_opt.step()
        eager_opt.zero_grad(set_to_none=True)
        eager_losses.append(float(eager_loss))
    step = _exported_step(args, nova_model)
    idx_buf, tgt_buf = torch.empty_like(idx), torch.empty_like(tgt)
    torch.cuda.synchronize()
    losses, enqueue_s = [], []
    t0 = time.perf_counter()
    for b_idx, b_tgt in batches:
        idx_buf.copy_(b_idx)
        tgt_buf.copy_(b_tgt)
        t = time.perf_counter()
        losses.append(step(idx_buf, tgt_buf))
        enqueue_s.append(time.perf_counter() - t)
    loop_s = time.perf_counter() - t0
    nova_losses = torch.stack(losses).tolist()  # the first host read
    total_s = time.perf_counter() - t0
    loss_errs = [abs(n - e) / abs(e) for n, e in zip(nova_losses, eager_losses)]
    step.sync()
    d = GPT_CONFIGS[args.model]["d_model"]
    param_errs = {}
    for (pname, p_eager), p_nova in zip(eager_model.named_parameters(), nova_model.parameters()):
        a, b = p_nova.detach().double(), p_eager.detach().double()
        if pname.endswith("attn.qkv.bias"):  # key bias: zero true gradient, AdamW amplifies noise
            a, b = torch.cat([a[:d], a[2 * d :]]), torch.cat([b[:d], b[2 * d :]])
        param_errs[pname] = float((a - b).norm() / b.norm().clamp_min(1e-12))
    worst = max(param_errs, key=param_errs.get)
    return {
        "bench": "check",
        "model": args.model,
        "dtype": args.dtype,
        "batch": args.batch,
        "steps": args.steps,
        "final_loss_eager": eager_losses[-1],
        "final_loss_nova": nova_losses[-1],
        "max_loss_rel_err": max(loss_errs),
        "max_param_rel_err": param_errs[worst],
        "worst_param": worst,
        # Host time to enqueue all steps vs until their losses were read.
        "enqueue_ms_per_step": 1e3 * sum(enqueue_s[1:]) / max(1, len(enqueue_s) - 1),
        "loop_ms": 1e3 * loop_s,
        "total_ms": 1e3 * total_s,
    }


def profile(args: argparse.Namespace) -> dict[str, Any]:
    """Where a step spends GPU time, Nova's (`--mode nova`) or a torch peer's
    (eager or compile, naive or SDPA attention): CUPTI (through
    torch.profiler) sees every kernel in the process, IREE's dispatches
    included; kernel time is summed per kernel name over `steps` profiled
    steps."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    framework, attention = TRAIN_MODES[args.mode]
    if framework == "jax":
        raise SystemExit("nova bench profile: jax modes are not profiled here (XLA's kernels are not torch's)")
    torch.backends.cuda.matmul.allow_tf32 = args.dtype == "tf32"
    torch.backends.cudnn.allow_tf32 = args.dtype == "tf32"
    model, (idx, tgt) = train_setup(args.model, args.batch, "cuda", sdpa=attention == "sdpa")
    if framework == "nova":
        exported = _exported_step(args, model)

        def step() -> torch.Tensor:
            return exported(idx, tgt)

    else:
        step = _torch_step(args, model, idx, tgt)
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    # Wall time per step without the profiler: host overhead = this - GPU time.
    timed = max(args.steps, 10)
    enqueue_s = 0.0
    t0 = time.perf_counter()
    for _ in range(timed):
        t = time.perf_counter()
        step()
        enqueue_s += time.perf_counter() - t
    torch.cuda.synchronize()
    step_ms = 1e3 * (time.perf_counter() - t0) / timed
    with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(args.steps):
            step()
        torch.cuda.synchronize()
    per_kernel: dict[str, list[float]] = {}
    spans: list[tuple[float, float, str]] = []
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            entry = per_kernel.setdefault(event.name, [0.0, 0])
            entry[0] += event.device_time / 1e3  # us -> ms
            entry[1] += 1
            spans.append((event.time_range.start, event.time_range.end, event.name))
    total = sum(ms for ms, _ in per_kernel.values())
    top = sorted(per_kernel.items(), key=lambda kv: -kv[1][0])[: args.top]
    return {
        "bench": "profile",
        "mode": args.mode,
        "runtime_flags": os.environ.get("NOVA_IREE_RUNTIME_FLAGS", ""),
        "model": args.model,
        "dtype": args.dtype,
        "batch": args.batch,
        "gpu_ms_per_step": total / args.steps,
        "step_ms": step_ms,
        "host_overhead_ms": step_ms - total / args.steps,
        "enqueue_ms_per_step": 1e3 * enqueue_s / timed,
        "kernels_per_step": sum(n for _, n in per_kernel.values()) / args.steps,
        "idle": idle_gaps(spans, args.steps, largest=max(8, 4 * args.steps)),
        "top": [
            {"kernel": k[:160], "ms_per_step": ms / args.steps, "share": ms / total, "calls_per_step": n / args.steps}
            for k, (ms, n) in top
        ],
    }


# Upper bounds (us) of the idle-gap classes `idle_gaps` reports.
_GAP_CLASSES = (2.0, 5.0, 10.0, 50.0, 200.0, float("inf"))
# Gaps up to this long (us) are counted by the kernel they precede.
_SHORT_GAP_US = 10.0


def idle_gaps(spans: list[tuple[float, float, str]], steps: int, largest: int = 8) -> dict[str, Any]:
    """Where the GPU waits: the gaps between kernels of a profiled window
    ((start us, end us, name) per kernel), per step, by gap length (a bubble
    between steps is one long gap, launches slower than the kernels they start
    are many short ones), with the longest gaps and their neighbours."""
    spans = sorted(spans)
    gaps: list[tuple[float, str, str]] = []
    busy_end, previous = (spans[0][1], spans[0][2]) if spans else (0.0, "")
    for start, end, name in spans[1:]:
        if start > busy_end:
            gaps.append((start - busy_end, previous, name))
        if end > busy_end:
            busy_end, previous = end, name
    classes = []
    low = 0.0
    for high in _GAP_CLASSES:
        inside = [g for g, _, _ in gaps if low < g <= high]
        classes.append({"up_to_us": None if math.isinf(high) else high, "count_per_step": len(inside) / steps,
                        "ms_per_step": sum(inside) / 1e3 / steps})
        low = high
    # Short gaps are launch latency: which kernels wait longest to start.
    starting: dict[str, list[float]] = {}
    for g, _, b in gaps:
        if g <= _SHORT_GAP_US:
            starting.setdefault(b, []).append(g)
    return {
        "ms_per_step": sum(g for g, _, _ in gaps) / 1e3 / steps,
        "classes": classes,
        "longest": [{"us": round(g, 1), "after": a[:80], "before": b[:80]}
                    for g, a, b in sorted(gaps, reverse=True)[:largest]],
        "short_before": [{"kernel": k[:80], "count_per_step": len(v) / steps, "mean_us": round(sum(v) / len(v), 2),
                          "ms_per_step": sum(v) / 1e3 / steps}
                         for k, v in sorted(starting.items(), key=lambda kv: -sum(kv[1]))[:largest]],
    }


def _peer_group(row: dict[str, Any]) -> tuple[Any, ...]:
    """Rows compared with each other: same model, dtype, batch and memory cap."""
    return (row.get("model"), row.get("dtype"), row.get("batch"), row.get("mem_cap_gib") or None)


def best_peers(rows: list[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, dict[str, Any] | None]]:
    """Per peer group (model, dtype, batch, cap) of train rows: the fastest
    peer ("speed": highest tokens/s) and the leanest ("memory": lowest peak),
    among the rows that are not Nova's and ran ok (None where there is none)."""
    out: dict[tuple[Any, ...], dict[str, dict[str, Any] | None]] = {}
    for row in rows:
        if row.get("bench") != "train":
            continue
        best = out.setdefault(_peer_group(row), {"speed": None, "memory": None})
        if row.get("mode") == "nova" or row.get("status") != "ok":
            continue
        if row.get("tokens_per_s") is not None and (
            best["speed"] is None or row["tokens_per_s"] > best["speed"]["tokens_per_s"]
        ):
            best["speed"] = row
        if row.get("peak_mem_gib") is not None and (
            best["memory"] is None or row["peak_mem_gib"] < best["memory"]["peak_mem_gib"]
        ):
            best["memory"] = row
    return out


def peer_ratios(row: dict[str, Any], best: dict[str, dict[str, Any] | None]) -> dict[str, Any]:
    """`row`'s tokens/s over the fastest peer's and its peak over the leanest
    peer's, with those peers' modes; ratios are None where either side is
    missing or the row did not run ok."""
    out: dict[str, Any] = {"speed_peer": None, "speed_ratio": None, "memory_peer": None, "memory_ratio": None}
    ok = row.get("status") == "ok"
    if best.get("speed") is not None:
        out["speed_peer"] = best["speed"]["mode"]
        if ok and row.get("tokens_per_s") is not None and best["speed"]["tokens_per_s"] > 0:
            out["speed_ratio"] = row["tokens_per_s"] / best["speed"]["tokens_per_s"]
    if best.get("memory") is not None:
        out["memory_peer"] = best["memory"]["mode"]
        if ok and row.get("peak_mem_gib") is not None and best["memory"]["peak_mem_gib"] > 0:
            out["memory_ratio"] = row["peak_mem_gib"] / best["memory"]["peak_mem_gib"]
    return out


def _ratio_cell(ratio: float | None, peer: str | None) -> str:
    if ratio is None:
        return "-" if peer is None else f"- ({peer})"
    return f"{ratio:.2f}x ({peer})"


# A matmul call's kernels that only prepare its operands: TF32 rounding (a
# row kernel) and K-major copies. In a train step the rounding runs in the
# kernels that make the operands.
_OPERAND_PREP_KERNELS = ("nova_fused_rows_", "nova_transpose_")


def matmul_operands_ready_tflops(row: dict[str, Any]) -> float | None:
    """TFLOP/s of a matmul row's Nova kernels (`nova_kernels`: microseconds
    per call by name) without those that only prepare the operands; split-K
    reductions and the like count. None without kernel times."""
    kernels = row.get("nova_kernels") or {}
    us = sum(t for name, t in kernels.items() if not name.startswith(_OPERAND_PREP_KERNELS))
    if not us:
        return None
    return 2 * row["m"] * row["n"] * row["k"] * row.get("batch", 1) / (us * 1e-6) / 1e12


def _num(value: Any, fmt: str, missing: str = "-") -> str:
    return missing if value is None else format(value, fmt)


def largest_batches(rows: list[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, dict[str, Any]]]:
    """Per (model, dtype, cap) of capped train rows, per mode: the largest
    batch that trained (`fits`, None if none did) and the smallest that ran
    out of memory above it (`oom`, None if none was tried)."""
    out: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    for r in rows:
        if r.get("bench") != "train" or not r.get("mem_cap_gib"):
            continue
        mode = out.setdefault((r.get("model"), r.get("dtype"), r["mem_cap_gib"]), {}).setdefault(
            r["mode"], {"fits": None, "oom": None}
        )
        if r.get("status") == "ok":
            mode["fits"] = max(mode["fits"] or 0, r["batch"])
        elif r.get("status") == "oom":
            mode["oom"] = min(mode["oom"] or r["batch"], r["batch"])
    for modes in out.values():
        for mode in modes.values():
            if mode["oom"] is not None and mode["fits"] is not None and mode["oom"] < mode["fits"]:
                mode["oom"] = None  # an out-of-memory below a batch that trained says nothing more
    return out


def report(rows: list[dict[str, Any]]) -> str:
    """Markdown tables of benchmark rows (as written by --json-out)."""
    out: list[str] = []
    env = next((r for r in rows if r.get("gpu")), rows[0] if rows else {})
    machine = env.get("gpu") or f"the build box ({env.get('cpu_count')} CPUs)"
    out.append(
        f"Measured {env.get('date')} on {machine}, commit {env.get('commit')}, "
        f"torch {env.get('torch')}, iree-base-runtime {env.get('iree_runtime')}.\n"
    )
    train_rows = [r for r in rows if r["bench"] == "train"]
    if train_rows:
        peers = best_peers(train_rows)
        out += [
            "Each row against the best peer (not Nova, status ok) of its model, dtype, batch and cap: "
            "tokens/s over the fastest peer's, peak memory (NVML) over the leanest peer's. "
            "Allocator peak: torch.cuda.max_memory_allocated, XLA's peak_bytes_in_use, or Nova's planned peak "
            "(state + step transients as IREE laid them out + batch and loss).\n",
            "| model | dtype | batch | cap GiB | mode | tokens/s | vs fastest peer | step ms | peak GiB "
            "| vs leanest peer | allocator peak GiB | first compile s | final loss | status |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in train_rows:
            ratios = peer_ratios(r, peers[_peer_group(r)])
            alloc = r.get("torch_max_allocated_gib", r.get("jax_peak_gib", r.get("planned_peak_gib")))
            out.append(
                f"| {r.get('model', '-')} | {r.get('dtype', '-')} | {r.get('batch', '-')} "
                f"| {r.get('mem_cap_gib') or '-'} | {r.get('mode')} "
                f"| {r.get('tokens_per_s', 0):,.0f} | {_ratio_cell(ratios['speed_ratio'], ratios['speed_peer'])} "
                f"| {r.get('step_ms', 0):.1f} | {r.get('peak_mem_gib', 0):.2f} "
                f"| {_ratio_cell(ratios['memory_ratio'], ratios['memory_peer'])} | {_num(alloc, '.2f')} "
                f"| {r.get('first_compile_s', 0):.1f} | {r.get('final_loss', float('nan')):.4f} | {r.get('status')} |"
            )
        out.append("")
        for (model, dtype, cap), modes in largest_batches(train_rows).items():
            cells = []
            for mode, b in modes.items():
                fits = f"batch {b['fits']}" if b["fits"] is not None else "no batch trained"
                cells.append(f"{mode} {fits}" + (f" (out of memory at {b['oom']})" if b["oom"] is not None else ""))
            out.append(f"Largest batch under {cap:g} GiB, {model} {dtype}: " + "; ".join(cells) + ".\n")
    compile_rows = [r for r in rows if r["bench"] == "compile" and "stage_seconds" in r]
    if compile_rows:
        stages = list(dict.fromkeys(k for r in compile_rows for k in r["stage_seconds"]))
        out += [
            "Compile seconds on the build box (each row a new process; the second one finds the first one's "
            "kernels in the kernel cache, but compiles the step again; capture key: what a warm nova.jit "
            "computes instead of capturing):\n",
            "| model | dtype | process | kernels cached | capture | capture key | " + " | ".join(stages)
            + " | compile total |",
            "|---|---|---|---|---|---|" + "---|" * len(stages) + "---|",
        ]
        for r in compile_rows:
            cells = " | ".join(_num(r["stage_seconds"].get(k), ".2f") for k in stages)
            out.append(
                f"| {r['model']} | {r['dtype']} | {r['process']} | {r['kernels_cached_before']} of "
                f"{r['kernels_cached_after']} | {r['capture_s']:.2f} | {_num(r.get('capture_key_s'), '.3f')} | "
                f"{cells} | {r['compile_s']:.2f} |"
            )
        out.append("")
    matmul_rows = [r for r in rows if r["bench"] == "matmul"]
    if matmul_rows:
        out += [
            "GPU time per call of all of each side's kernels (CUPTI); layout nt = A @ B^T (forward), "
            "nn = A @ B (input gradient), tn = A^T @ B (weight gradient). Operands ready: Nova's kernels "
            "without those of the call that only round TF32 operands and make them K-major (in a train step "
            "the rounding runs in the kernels that make the operands; split-K reductions still count).\n",
            "| dtype | M | N | K | layout | Nova TFLOP/s | cuBLAS TFLOP/s | Nova / cuBLAS | Nova, operands ready "
            "| ready / cuBLAS | Nova max rel err | cuBLAS max rel err |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in matmul_rows:
            kernel = matmul_operands_ready_tflops(r)
            out.append(
                f"| {r['dtype']} | {r['m']} | {r['n']} | {r['k']} | {r.get('layout', 'nn')} "
                f"| {r.get('nova_tflops', 0):.1f} | {r['cublas_tflops']:.1f} | {r.get('nova_vs_cublas', 0):.3f} "
                f"| {_num(kernel, '.1f')} | {_num(kernel and kernel / r['cublas_tflops'], '.3f')} "
                f"| {r.get('nova_max_rel_err', 0):.2e} | {r['cublas_max_rel_err']:.2e} |"
            )
        out.append("")
        for dtype in dict.fromkeys(r["dtype"] for r in matmul_rows):
            model = [r for r in matmul_rows if r["dtype"] == dtype and not (r["m"] == r["n"] == r["k"])]
            for what, ratios in (
                ("Nova / cuBLAS", [r["nova_vs_cublas"] for r in model if r.get("nova_vs_cublas")]),
                ("Nova with its operands ready / cuBLAS",
                 [matmul_operands_ready_tflops(r) / r["cublas_tflops"] for r in model if matmul_operands_ready_tflops(r)]),
            ):  # fmt: skip
                if ratios:
                    geomean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
                    out.append(
                        f"{dtype}: geomean {what} over the {len(ratios)} model shapes: {geomean:.3f} "
                        f"(min {min(ratios):.3f}, max {max(ratios):.3f}).\n"
                    )
    attention_rows = [r for r in rows if r["bench"] == "attention"]
    if attention_rows:
        from nova import attention_bench

        out += attention_bench.report(attention_rows)
    for r in rows:
        if r["bench"] == "check":
            ordering = " (batches written on torch's stream, losses read after all steps)" if "loop_ms" in r else ""
            out.append(
                f"Correctness, {r['model']} {r['dtype']} B{r['batch']}, {r['steps']} steps vs eager CUDA{ordering}: "
                f"max loss rel err {r['max_loss_rel_err']:.2e}, max param rel err {r['max_param_rel_err']:.2e} "
                f"({r['worst_param']}); final loss nova {r['final_loss_nova']:.5f} / eager {r['final_loss_eager']:.5f}.\n"
            )
        if r["bench"] == "profile":
            overhead = (
                f", {r['step_ms']:.2f} ms/step wall: host overhead {r['host_overhead_ms']:.2f} ms"
                if "step_ms" in r
                else ""
            )
            flags = f" (IREE runtime flags `{r['runtime_flags']}`)" if r.get("runtime_flags") else ""
            out.append(
                f"Profile, {r.get('mode', 'nova')}, {r['model']} {r['dtype']} B{r['batch']}{flags}: {r['gpu_ms_per_step']:.2f} GPU ms/step in "
                f"{r['kernels_per_step']:.0f} kernels{overhead}; top dispatches:\n"
            )
            out += ["| dispatch | ms/step | share | calls/step |", "|---|---|---|---|"]
            out += [
                f"| `{k['kernel']}` | {k['ms_per_step']:.1f} | {100 * k['share']:.1f}% | {k['calls_per_step']:g} |"
                for k in r["top"]
            ]
            out.append("")
            if "idle" in r:
                idle = r["idle"]
                enqueue = f"; a step call returns after {r['enqueue_ms_per_step']:.2f} ms" if "enqueue_ms_per_step" in r else ""
                out.append(f"GPU idle between kernels: {idle['ms_per_step']:.2f} ms/step{enqueue}. Gaps by length:\n")
                out += ["| gap up to (us) | gaps/step | ms/step |", "|---|---|---|"]
                out += [
                    f"| {_num(c['up_to_us'], 'g', 'longer')} | {c['count_per_step']:.1f} | {c['ms_per_step']:.3f} |"
                    for c in idle["classes"]
                ]
                out += ["", "| longest gaps (us) | after | before |", "|---|---|---|"]
                out += [f"| {g['us']} | `{g['after']}` | `{g['before']}` |" for g in idle["longest"]]
                if idle.get("short_before"):
                    out += ["", f"| kernel after gaps up to {_SHORT_GAP_US:g} us | gaps/step | mean us | ms/step |",
                            "|---|---|---|---|"]
                    out += [f"| `{k['kernel']}` | {k['count_per_step']:.1f} | {k['mean_us']} | {k['ms_per_step']:.3f} |"
                            for k in idle["short_before"]]
                out.append("")
    return "\n".join(out)


# NOVA_* variables that name things rather than switch behaviour.
_NOT_SWITCHES = ("NOVA_COMMIT", "NOVA_IREE_RUNTIME_FLAGS", "NOVA_CACHE_DIR", "NOVA_DUMP_IR", "NOVA_OPT")


def _environment() -> dict[str, Any]:
    env: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "commit": os.environ.get("NOVA_COMMIT"),
        "runtime_flags": os.environ.get("NOVA_IREE_RUNTIME_FLAGS", ""),
        # Nova's switches in effect (README), e.g. NOVA_ATTENTION_HEAD_GROUPS.
        "nova_env": {k: v for k, v in sorted(os.environ.items())
                     if k.startswith("NOVA_") and k not in _NOT_SWITCHES},
    }
    from importlib.metadata import version

    for key, package in (("iree_runtime", "iree-base-runtime"), ("jax", "jax")):
        try:
            env[key] = version(package)
        except Exception:
            env[key] = None
    return env


def run_worker(cmd: list[str], identity: dict[str, Any], env: dict[str, str] | None = None) -> dict[str, Any]:
    """The row a worker process prints (its last RESULT_PREFIX line), or
    `identity` with status "crashed" and the end of its stderr."""
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = [line for line in proc.stdout.splitlines() if line.startswith(RESULT_PREFIX)]
    if lines:
        return json.loads(lines[-1][len(RESULT_PREFIX) :])
    return {**identity, "status": "crashed", "error": proc.stderr[-2000:]}


def train(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for mode in args.modes:
        cmd = [
            sys.executable, "-m", "nova.bench", "_train-worker", "--mode", mode, "--model", args.model,
            "--dtype", args.dtype, "--batch", str(args.batch), "--steps", str(args.steps),
            "--warmup", str(args.warmup), "--artifacts", str(args.artifacts),
        ]  # fmt: skip
        if args.mem_cap_gib:
            cmd += ["--mem-cap-gib", str(args.mem_cap_gib)]
        row = run_worker(cmd, {
            "bench": "train", "mode": mode, "model": args.model, "dtype": args.dtype, "batch": args.batch,
            "mem_cap_gib": args.mem_cap_gib,
        })  # fmt: skip
        row.update(_environment())
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="nova bench", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("prepare", help="build box: export Nova's steps and matmuls for the GPU target")
    p.add_argument("--models", nargs="*", default=["gpt-42m"])
    p.add_argument("--dtypes", nargs="+", default=["tf32", "bf16"], choices=BENCH_DTYPES)
    p.add_argument("--batch", type=int, default=0, help="0: 32 for gpt-42m, 16 for gpt-146m")
    p.add_argument("--target", default="cuda:sm_90")
    p.add_argument("--matmul", action="store_true", help="also export the matmul sweep")
    p.add_argument("--attention", action="store_true", help="also compile the attention cases")
    p.add_argument("--out", required=True)

    def step_command(name: str, help: str, dtype: str, steps: int) -> argparse.ArgumentParser:
        """A subcommand that runs an exported step of one (model, dtype, batch)."""
        sub = commands.add_parser(name, help=help)
        sub.add_argument("--model", default="gpt-42m")
        sub.add_argument("--dtype", default=dtype, choices=BENCH_DTYPES)
        sub.add_argument("--batch", type=int, default=32)
        sub.add_argument("--steps", type=int, default=steps)
        sub.add_argument("--artifacts", default="bench-artifacts")
        sub.add_argument("--json-out", default=None, help="append the rows to this JSON-lines file")
        return sub

    t = step_command("train", "GPU box: tokens/s, step time, peak memory, loss", "bf16", 20)
    t.add_argument(
        "--mem-cap-gib", type=float, default=None,
        help="device memory cap: torch modes set the caching allocator's memory fraction, nova allocates "
        "ballast, jax modes set XLA_PYTHON_CLIENT_MEM_FRACTION=cap/total (preallocation off)",
    )  # fmt: skip
    t.add_argument("--warmup", type=int, default=5)
    t.add_argument(
        "--modes", nargs="+", default=list(TRAIN_MODES), choices=list(TRAIN_MODES),
        help="each measured in its own process: nova; torch eager/compile with naive or SDPA attention; "
        "the same GPT in JAX/XLA with naive or cuDNN attention",
    )  # fmt: skip

    c = commands.add_parser("compile", help="build box: seconds per compile stage, first and second process")
    c.add_argument("--models", nargs="+", default=["gpt-42m", "gpt-146m"])
    c.add_argument("--dtypes", nargs="+", default=["bf16"], choices=BENCH_DTYPES)
    c.add_argument("--batch", type=int, default=0, help="0: 32 for gpt-42m, 16 for gpt-146m")
    c.add_argument("--target", default="cuda:sm_90")
    c.add_argument("--json-out", default=None)

    m = commands.add_parser("matmul", help="GPU box: Nova's matmul vs cuBLAS over the model GEMM shapes")
    m.add_argument("--dtype", default="bf16", choices=BENCH_DTYPES)
    m.add_argument("--artifacts", default="bench-artifacts")
    m.add_argument("--json-out", default=None)

    a = commands.add_parser("attention", help="GPU box: Nova's fused attention vs SDPA (cuDNN, flash)")
    a.add_argument("--artifacts", default="bench-artifacts")
    a.add_argument("--iters", type=int, default=10)
    a.add_argument("--json-out", default=None)

    step_command("check", "GPU box: Nova's step vs eager CUDA (loss per step, final params)", "tf32", 20)
    pr = step_command("profile", "GPU box: GPU time of a step per kernel (Nova's or a torch peer's)", "bf16", 2)
    pr.add_argument("--top", type=int, default=12)
    pr.add_argument("--mode", default="nova", choices=[m for m, (fw, _) in TRAIN_MODES.items() if fw != "jax"])

    r = commands.add_parser("report", help="markdown tables from --json-out files")
    r.add_argument("jsonl", nargs="+")

    w = commands.add_parser("_train-worker")
    for flag, kind in (("--mode", str), ("--model", str), ("--dtype", str), ("--batch", int), ("--steps", int),
                       ("--warmup", int), ("--artifacts", str), ("--mem-cap-gib", float)):  # fmt: skip
        w.add_argument(flag, type=kind, default=None)

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    if args.command == "prepare":
        prepare(args)
        return
    if args.command == "report":
        rows = [json.loads(line) for path in args.jsonl for line in Path(path).read_text().splitlines() if line.strip()]
        print(report(rows))
        return
    if args.command == "_train-worker":
        print(RESULT_PREFIX + json.dumps(train_worker(args)), flush=True)
        return
    if args.command in ("check", "profile"):
        rows = [{**(check(args) if args.command == "check" else profile(args)), **_environment()}]
        print(json.dumps(rows[0], indent=1), flush=True)
    elif args.command == "compile":
        from nova import compile_bench

        rows = compile_bench.bench(args.models, args.dtypes, args.target, args.batch)
    elif args.command == "attention":
        from nova import attention_bench

        rows = attention_bench.bench(Path(args.artifacts), args.iters)
    else:
        rows = train(args) if args.command == "train" else matmul_bench(args)
    if args.json_out:
        # Which artifact set a row ran (A/B runs alternate sets of one commit).
        source = {"artifacts": Path(args.artifacts).name} if getattr(args, "artifacts", None) else {}
        with open(args.json_out, "a") as f:
            for row in rows:
                f.write(json.dumps({**row, **_environment(), **source}) + "\n")


if __name__ == "__main__":
    main()
