"""Whether torch's stream can wait on a word (cuStreamWaitValue32) while the
calling thread blocks in a host read and another thread makes CUDA calls
before the word is set: the pattern of a step call made on a worker thread
(697306b stalled: the caller in a pageable device-to-host copy, IREE's call
on the worker never returning).

    python3 tools/device/stream_wait_probe.py CASE

CASE is one of:
  host-set         a pinned host word, set by the other thread (no CUDA calls)
  host-launch-set  a pinned host word; the other thread launches a kernel on
                   its own stream and waits for it, then sets the word
  device-write     a device word; the other thread launches a kernel on its
                   own stream, then that stream writes the word
                   (cuStreamWriteValue32): no host write at all
  device-preissued a device word that another stream writes after a long
                   kernel, both enqueued by the calling thread before the
                   wait: once the caller blocks, no thread makes a CUDA call
  nowait           the control: no wait, no other thread
The host read is `.item()`, or `.tolist()` with a `-tolist` suffix (which
releases the GIL while it waits).

Prints one line `CASE ok <seconds>`; a case that hangs is killed by the
caller's time limit (tools/device/bench-h200.sh phase stall, which puts
nova.runtime on the path).
"""

from __future__ import annotations

import sys
import threading
import time

import torch

from nova.runtime.cuda_driver import CudaDriver


def main() -> None:
    case = sys.argv[1]
    base = case.removesuffix("-tolist")
    if base not in ("host-set", "host-launch-set", "device-write", "device-preissued", "nowait"):
        raise SystemExit(f"unknown case {case!r}")
    cuda = CudaDriver()
    torch.cuda.init()
    x = torch.randn(4096, 4096, device="cuda")
    torch.cuda.synchronize()
    if base.startswith("host"):
        word = torch.zeros(1, dtype=torch.int32).pin_memory()
        host_view = word.numpy()
    else:
        word = torch.zeros(1, dtype=torch.int32, device="cuda")
    torch.cuda.synchronize()
    other = torch.cuda.Stream()
    if base == "device-preissued":
        with torch.cuda.stream(other):
            for _ in range(50):
                x @ x
        cuda.stream_write_value(other.cuda_stream, word.data_ptr(), 1)
    # torch's current stream waits for word >= 1, then computes.
    if base != "nowait":
        cuda.stream_wait_value(torch.cuda.current_stream().cuda_stream, word.data_ptr(), 1)
    y = (x @ x).sum()

    def release() -> None:
        if base in ("device-preissued", "nowait"):
            return
        time.sleep(0.5)
        if base != "host-set":
            with torch.cuda.stream(other):
                x @ x
            if base == "host-launch-set":
                other.synchronize()
        if base.startswith("host"):
            host_view[0] = 1
        else:
            cuda.stream_write_value(other.cuda_stream, word.data_ptr(), 1)

    start = time.perf_counter()
    thread = threading.Thread(target=release)
    thread.start()
    # A pageable device-to-host copy behind the wait.
    value = y.reshape(1).tolist()[0] if case.endswith("-tolist") else y.item()
    thread.join()
    print(f"{case} ok {time.perf_counter() - start:.3f} s (sum {value:.3e})", flush=True)


if __name__ == "__main__":
    main()
