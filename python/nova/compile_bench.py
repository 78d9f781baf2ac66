"""`nova bench compile` (build box): how long a train step takes to become a
vmfb, per stage, for a first process and for a second one.

Each (model, dtype) compiles twice, each time in a new process sharing one
fresh cache directory: the first finds no kernels there (a first compile:
every Nova kernel built), the second finds the first one's kernels
(`nova.pipeline.kernel_cache_dir`) but compiles the step again. A process
times nova.jit's capture (no source locations, as nova.jit captures) and
each compile stage (`nova.pipeline.compile_captured`), and the capture key
a warm process computes instead of capturing (`nova.capture_key`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any

import torch


def _worker(model_name: str, dtype: str, batch: int, target: str) -> dict[str, Any]:
    from nova import bench, capture, capture_key
    from nova.pipeline import compile_captured, kernel_cache_dir

    torch.set_float32_matmul_precision("high" if dtype == "tf32" else "highest")
    model, example = bench.train_setup(model_name, batch, "cpu")
    optimizer = bench.make_optimizer(model, fused=False)
    kernels_before = len(list(kernel_cache_dir(target).glob("*.ptx")))
    start = time.perf_counter()
    captured = capture.capture_train_step(
        model, optimizer, None, tuple(example),
        autocast_dtype=torch.bfloat16 if dtype == "bf16" else None, stack_traces=False,
    )  # fmt: skip
    capture_s = time.perf_counter() - start
    # What a warm nova.jit computes instead of capturing (nova.capture_key).
    start = time.perf_counter()
    capture_key.train_step_capture_key(model, optimizer, None, tuple(example), {"target": target, "dtype": dtype})
    capture_key_s = time.perf_counter() - start
    _, report = compile_captured(captured, target, name=type(model).__name__)
    return {
        "bench": "compile", "model": model_name, "dtype": dtype, "batch": batch, "target": target,
        "kernels_cached_before": kernels_before,
        "kernels_cached_after": len(list(kernel_cache_dir(target).glob("*.ptx"))),
        "capture_s": round(capture_s, 3),
        "capture_key_s": round(capture_key_s, 4),
        "stage_seconds": {k: round(v, 3) for k, v in report.stage_seconds.items()},
        "compile_s": round(report.total_seconds, 3),
        "cpu_count": os.cpu_count(),
    }  # fmt: skip


def bench(models: list[str], dtypes: list[str], target: str, batch: int = 0) -> list[dict[str, Any]]:
    """Rows of both compiles of every (model, dtype); see the module doc."""
    from nova.bench import default_batch, run_worker

    rows = []
    for model in models:
        for dtype in dtypes:
            size = batch or default_batch(model)
            with tempfile.TemporaryDirectory(prefix="nova-compile-bench-") as cache:
                for process in ("first", "second"):
                    cmd = [sys.executable, "-m", "nova.compile_bench", "--model", model, "--dtype", dtype,
                           "--batch", str(size), "--target", target]  # fmt: skip
                    env = {**os.environ, "NOVA_CACHE_DIR": cache, "NOVA_PROGRESS": "0"}
                    identity = {"bench": "compile", "model": model, "dtype": dtype, "batch": size, "target": target}
                    row = {**run_worker(cmd, identity, env), "process": process}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="one compile of `nova bench compile` (a worker process)")
    parser.add_argument("--model", required=True)
    parser.add_argument("--dtype", required=True)
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--target", required=True)
    args = parser.parse_args()
    from nova.bench import RESULT_PREFIX

    print(RESULT_PREFIX + json.dumps(_worker(args.model, args.dtype, args.batch, args.target)), flush=True)


if __name__ == "__main__":
    main()
