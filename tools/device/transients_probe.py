"""GPU box: does a train step compiled with caller-provided transients
(NOVA_STEP_TRANSIENTS=1 at `nova bench prepare`) complete on IREE's CUDA HAL,
and where does it stop if not? Each probe runs in its own process under a
watchdog that prints the timeline's semaphores and every thread's stack.

  python3 tools/device/transients_probe.py ARTIFACT_DIR [direct|ordered]

direct:  one step through Session.invoke_async with an already reached wait
         fence (no torch ordering): is it IREE alone?
ordered-sync: the same, the host waiting for each step before the next.
ordered-side: "ordered" with torch's current stream a non-blocking stream.
direct-chain: five direct calls back to back (IREE chaining them through the
         globals' timepoints), no torch work in between.
ordered: three steps through nova.load_exported_step (torch's stream ordering
         of runtime/ordering.py), then float(loss).
ordered-read: "ordered", then 200 steps each read at once (float(loss)).
load:    where a warm start's time goes: torch's CUDA context, loading the
         module (IREE device, executables), the state upload, the first step.
loadprof: (any artifact) cProfile of nova.load_exported_step itself, by
         cumulative time (the session logs its module load apart), and the
         first step's seconds (state upload, step, loss read); with
         `release`, release_torch_state=True as `nova bench train` loads.
Any mode with a last word `nvml` samples NVML in a thread (bench.NvmlPeak,
as `nova bench train` does) from before the load on.
api:     (any artifact) where the host time between steps goes: steps through
         nova.load_exported_step under torch.profiler, the CUDA driver/runtime
         calls (CUPTI) summed per name and those overlapping the longest GPU
         gaps, and the host time of each piece of TrainProgram.step.
pyprof:  (any artifact) cProfile of 20 steps through nova.load_exported_step:
         the host's Python and torch calls between IREE calls, by own time.
sync-loop: (transients artifact) 30 direct calls, the host waiting for each
         (torch's stream synchronized before each call, no stream waits on
         either side): the step time without IREE's alloca/dealloca.
Extra word `trace` (api): the profiled steps' Chrome trace (every stream)
into $OUT/trace-ARTIFACT_SET.json.gz.
"""

from __future__ import annotations

import faulthandler
import json
import os
import sys
import threading
import time
from pathlib import Path


def _watchdog(seconds: float, describe) -> None:
    def run() -> None:
        time.sleep(seconds)
        print(f"PROBE TIMEOUT after {seconds}s: {describe()}", flush=True)
        faulthandler.dump_traceback(all_threads=True)
        os._exit(3)

    threading.Thread(target=run, daemon=True).start()


def main() -> None:
    faulthandler.enable()
    import iree.runtime as rt
    import torch

    from nova import bench
    import nova

    artifact, mode = Path(sys.argv[1]), sys.argv[2]
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    logging.getLogger("nova.runtime").setLevel(logging.INFO)  # the session's load seconds
    t0 = time.perf_counter()
    torch.zeros(1, device="cuda")
    torch_s = time.perf_counter() - t0
    signature = json.loads((artifact / "step.json").read_text())
    model_name = "gpt-42m" if "gpt-42m" in artifact.name else "gpt-146m"
    batch_size = int(artifact.name.rsplit("batch", 1)[1])
    model, example = bench.train_setup(model_name, batch_size, "cuda")
    optimizer = bench.make_optimizer(model, fused=False)
    profile = None
    extras = sys.argv[3:]
    if "nvml" in extras:
        sampler = bench.NvmlPeak()  # noqa: F841 (samples until the process ends)
    if mode == "loadprof":
        import cProfile

        profile = cProfile.Profile()
        profile.enable()
    t0 = time.perf_counter()
    step = nova.load_exported_step(artifact, model, optimizer, release_torch_state="release" in extras)
    load_s = time.perf_counter() - t0
    if profile is not None:
        import pstats

        profile.disable()
        # The first step too: the state upload, then one step, done.
        t0 = time.perf_counter()
        float(step(*example))
        first_step_s = time.perf_counter() - t0
        print(json.dumps({"probe": "loadprof", "artifact": artifact.name, "extras": extras,
                          "torch_cuda_s": torch_s, "load_exported_step_s": load_s,
                          "first_step_s": first_step_s}))
        pstats.Stats(profile).sort_stats("cumulative").print_stats(12)
        return
    program = next(iter(step._programs.values()))
    train = program.train
    reflection = train.session.function_reflection("step")
    print("reflection:", {k: v for k, v in reflection.items() if "transient" in k or "nova" in k}, flush=True)
    if mode == "load":
        t0 = time.perf_counter()
        step._upload(program)
        torch.cuda.synchronize()
        upload_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        float(step(*example))
        first_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        float(step(*example))
        second_s = time.perf_counter() - t0
        print(json.dumps({"probe": "load", "artifact": artifact.name, "torch_context_s": torch_s,
                          "load_exported_step_s": load_s, "state_upload_s": upload_s, "first_step_s": first_s,
                          "second_step_s": second_s}), flush=True)
    elif mode == "api":
        _api_probe(step, example, train,
                   artifact.parent.name if "trace" in extras else None)
    elif mode == "pyprof":
        _pyprof_probe(step, example)
    elif mode in ("direct", "direct-chain", "sync-loop"):
        step._upload(program)
        torch.cuda.synchronize()
        from nova.runtime.train_program import _StepIO, transient_bytes

        gated = reflection.get("nova.step_gate") == "ready,done"
        io = _StepIO(train.session, signature["inputs"][0]["shape"][0],
                     example, train.loss_dtype, transient_bytes(reflection), gated=gated)
        if gated:
            io.ready_word.fill_(1)
        io.batch[0].copy_(example[0])
        io.batch[1].copy_(example[1])
        io.hypers.fill_(0.0)
        torch.cuda.synchronize()
        device = train.session.hal_device
        wait_sem, done = device.create_semaphore(0), device.create_semaphore(0)
        _watchdog(90, lambda: f"done={done.query()}")
        faulthandler.dump_traceback_later(100, exit=True)
        # direct-chain: five calls back to back, no torch work in between
        # (the ready word is set once past them all), each signalling `done`.
        calls = {"direct": 1, "direct-chain": 20, "sync-loop": 30}[mode]
        if gated:
            io.ready_word.fill_(1 << 30 if mode == "sync-loop" else calls)
            torch.cuda.synchronize()
        if mode == "sync-loop":
            returned_s, waited_s = [], []
            start = time.perf_counter()
            for k in range(1, calls + 1):
                io.batch[0].copy_(example[0])
                io.batch[1].copy_(example[1])
                torch.cuda.current_stream().synchronize()
                t = time.perf_counter()
                train.session.invoke_async("step", io.views, rt.HalFence.create_at(wait_sem, 0),
                                           rt.HalFence.create_at(done, k))
                t1 = time.perf_counter()
                rt.HalFence.create_at(done, k).wait()
                returned_s.append(t1 - t)
                waited_s.append(time.perf_counter() - t1)
                if k == 5:  # after warmup
                    start = time.perf_counter()
            per_step = (time.perf_counter() - start) / (calls - 5)
            print(json.dumps({"probe": "sync-loop", "artifact": artifact.name, "step_ms": per_step * 1e3,
                              "call_return_ms": 1e3 * sum(returned_s[5:]) / (calls - 5),
                              "wait_ms": 1e3 * sum(waited_s[5:]) / (calls - 5), "loss": float(io.loss)}), flush=True)
            return
        start = time.perf_counter()
        for k in range(1, calls + 1):
            train.session.invoke_async("step", io.views, rt.HalFence.create_at(wait_sem, 0),
                                       rt.HalFence.create_at(done, k))
        returned = time.perf_counter() - start
        print(f"{mode}: {calls} calls returned after {returned * 1e3:.1f} ms, done={done.query()}", flush=True)
        rt.HalFence.create_at(done, calls).wait()
        print(f"{mode}: done after {(time.perf_counter() - start) * 1e3:.1f} ms; loss {float(io.loss)}", flush=True)
    else:
        def describe() -> str:
            t = train.timeline
            return (f"enqueued={t.enqueued} ready={t._ready.query()} done={t._done.query()} "
                    f"flag={int(t._flag_host[0])} blocking={t._blocking}")

        def describe_more() -> str:
            text = describe()
            io = train._io
            if io is not None and io.ready_word is not None:
                side = torch.cuda.Stream()
                with torch.cuda.stream(side):
                    text += f" ready_word={int(io.ready_word.to('cpu'))} done_word={int(io.done_word.to('cpu'))}"
            return text

        _watchdog(40, describe_more)
        faulthandler.dump_traceback_later(50, exit=True)
        sync = mode == "ordered-sync"  # the host waits for each step before the next
        if mode == "ordered-side":
            # torch's current stream a non-blocking one instead of the legacy
            # default stream (which other blocking work synchronizes with)
            side_stream = torch.cuda.Stream()
            side_stream.wait_stream(torch.cuda.current_stream())
            torch.cuda.set_stream(side_stream)
            example = tuple(t.clone() for t in example)
        for i in range(3):
            start = time.perf_counter()
            loss = step(*example)
            if sync:
                step.wait()
            print(f"ordered: step {i} returned after {(time.perf_counter() - start) * 1e3:.1f} ms; {describe()}",
                  flush=True)
        print(f"ordered: loss {float(loss)}; {describe()}", flush=True)
        start = time.perf_counter()
        for _ in range(20):
            loss = step(*example)
            if sync:
                step.wait()
        enqueue = time.perf_counter() - start
        float(loss)
        total = time.perf_counter() - start
        print(f"ordered: 20 steps enqueued in {enqueue * 1e3:.1f} ms, done in {total * 1e3:.1f} ms", flush=True)
        if mode == "ordered-read":
            # The caller reads each loss right after its step returns (a read
            # that blocks in the driver behind torch's wait for the step).
            start = time.perf_counter()
            losses = [float(step(*example)) for _ in range(200)]
            per_step = (time.perf_counter() - start) / 200
            print(json.dumps({"probe": "ordered-read", "artifact": artifact.name, "steps": 200,
                              "step_ms": per_step * 1e3, "first_loss": losses[0], "last_loss": losses[-1]}),
                  flush=True)


def _pyprof_probe(step, example) -> None:
    """See the module doc (mode pyprof)."""
    import cProfile
    import pstats

    import torch

    for _ in range(3):
        step(*example)
    torch.cuda.synchronize()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(20):
        step(*example)
    torch.cuda.synchronize()
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(45)


def _api_probe(step, example, train, trace: str | None = None) -> None:
    """See the module doc (mode api)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    for _ in range(3):
        step(*example)
    torch.cuda.synchronize()
    # Host time of each piece of TrainProgram.step (calls wrapped in timers).
    pieces: dict[str, float] = {}

    def timed(name, fn):
        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                pieces[name] = pieces.get(name, 0.0) + time.perf_counter() - t
        return wrapper

    session, timeline = train.session, train.timeline
    session.invoke_async = timed("invoke_async", session.invoke_async)
    timeline.begin = timed("timeline.begin", timeline.begin)
    timeline.commit = timed("timeline.commit", timeline.commit)
    train._io.write_hypers = timed("write_hypers", train._io.write_hypers)
    steps = 20
    t0 = time.perf_counter()
    for _ in range(steps):
        t = time.perf_counter()
        step(*example)
        pieces["step()"] = pieces.get("step()", 0.0) + time.perf_counter() - t
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t0) / steps
    print(json.dumps({"probe": "api-pieces", "step_ms": wall * 1e3,
                      **{k: v * 1e3 / steps for k, v in pieces.items()}}), flush=True)
    # Per profiled step: when its call starts and returns (record_function),
    # when IREE's thread launches its first and last kernel, and when the GPU
    # runs its first and last kernel, all on CUPTI's clock.
    from torch.profiler import record_function

    inner = session.invoke_async

    def marked(*a, **k):
        with record_function("nova_invoke"):
            return inner(*a, **k)

    session.invoke_async = marked
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        for _ in range(6):
            step(*example)
        torch.cuda.synchronize()
    if trace is not None:
        prof.export_chrome_trace(os.path.join(os.environ.get("OUT", "/tmp"), f"trace-{trace}.json.gz"))
    invokes, launches, kernels, api = [], [], [], []
    for e in prof.events():
        r = (e.time_range.start, e.time_range.end, e.name)
        if e.device_type == torch.autograd.DeviceType.CUDA:
            kernels.append(r)
        elif e.name == "nova_invoke":
            invokes.append(r)
        elif e.name.startswith(("cu", "cuda")):
            api.append(r)
            if e.name == "cuLaunchKernel":
                launches.append(r)
    # Every GPU gap over 100 us (steps 2..5, any kernel or copy): the kernels
    # either side and the driver calls the host made while the GPU waited.
    gpu, calls = sorted(kernels), sorted(invokes)
    start, end = (calls[1][0], calls[-1][0]) if len(calls) > 2 else (0, float("inf"))
    for a, b in zip(gpu, gpu[1:]):
        if b[0] - a[1] > 100 and start <= a[1] < end:
            during = {}
            for s0, s1, name in api:
                overlap = min(s1, b[0]) - max(s0, a[1])
                if overlap > 0:
                    during[name] = during.get(name, 0) + overlap
            print(json.dumps({"probe": "api-gap", "gap_us": round(b[0] - a[1]), "after": a[2][:60],
                              "before": b[2][:60], "in_call": any(s0 <= a[1] < s1 for s0, s1, _ in calls),
                              "host_calls_us": {k: round(v) for k, v in sorted(during.items(), key=lambda kv: -kv[1])[:6]}}),
                  flush=True)
    invokes.sort()
    kernels = sorted(k for k in kernels if not k[2].startswith("Memcpy"))
    for i, (s0, s1, _) in enumerate(invokes):
        nxt = invokes[i + 1][0] if i + 1 < len(invokes) else float("inf")
        ks = [k for k in kernels if s0 <= k[0] < nxt]
        ls = [l for l in launches if s0 <= l[0] < nxt]
        if not ks or not ls:
            continue
        busy = sum(k[1] - k[0] for k in ks)
        print(json.dumps({"probe": "api-step", "call_us": round(s1 - s0), "first_launch_us": round(ls[0][0] - s0),
                          "last_launch_us": round(ls[-1][1] - s0), "launches": len(ls),
                          "first_kernel_us": round(ks[0][0] - s0), "last_kernel_end_us": round(ks[-1][1] - s0),
                          "kernel_busy_us": round(busy), "kernels": len(ks),
                          "return_after_last_kernel_us": round(s1 - ks[-1][1]),
                          "next_call_after_return_us": round(nxt - s1) if nxt != float("inf") else None}),
              flush=True)


if __name__ == "__main__":
    main()
