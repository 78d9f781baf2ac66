"""Order asynchronous IREE calls with the caller: fences on IREE's side, and
on CUDA with torch's current stream.

A `Timeline` numbers the calls enqueued on one IREE device: call k waits on
the fence `wait_fence(k)` and signals `(done, k)`. Calls on the same module
globals are also ordered by IREE itself, so consecutive train steps chain on
the device without the host waiting.

CUDA (`CudaStreamTimeline`): IREE 3.13's CUDA HAL implements neither import
nor export of semaphore timepoints as CUDA events, so the two directions are
bridged through a small worker thread, in order of the calls:

- torch -> IREE: at call k, a torch event is recorded on the current stream
  (after torch's copies into the call's input buffers); call k waits on
  `(ready, k)`, which the worker signals once that event has completed.
  Call k thus never reads an input torch has not finished writing.
- IREE -> torch: right after call k is enqueued, torch's current stream is
  made to wait (`cuStreamWaitValue32`, no host wait) until a pinned host word
  reaches k; the worker writes k there once `(done, k)` is reached. Work
  enqueued on torch's stream after the call (copying the loss out, writing
  the next inputs) therefore runs after the step, as in eager.

Reading a result on the host (`float(loss)`) waits on torch's stream, as in
eager. The enqueue itself still waits in IREE 3.13's CUDA HAL: a call's
`queue_alloca` (its transients) blocks the host until the call's wait fence
is reached, and its `queue_dealloca` until the call's work is done (both
host-wait on their semaphore lists: iree/hal/drivers/cuda/cuda_device.c),
so on CUDA the call returns when the step has run, 0.2-0.4 ms after its
last kernel (H100, transients_probe.py api). IREE's dispatch stream is
CU_STREAM_NON_BLOCKING: it never waits on torch's legacy default stream. When a call has already run by
the time it returns, both directions are done on the calling thread instead:
torch's stream needs no wait for it, and the next call waits on the host for
torch's event before it is enqueued (the worker's two thread hand-offs cost
~1 ms a gpt-42m step on the H200: 863k -> 907k tokens/s). The worker takes
over again whenever a call returns before it has run.

Making the blocking call on a worker thread instead, so that the caller
returns while its step runs and torch's stream waits for the word the worker
sets afterwards, gained 3% on gpt-42m but stalled (697306b, reverted;
docs/benchmarks/2026-12-06-h100-697306b-chain.md): with torch's stream held
by that wait, IREE's call never returned. Native stacks (py-spy, 2026-12-06:
docs/benchmarks/2026-12-06-worker-stall.md) show the worker inside IREE's
call waiting on a semaphore, and the caller's thread blocked inside the CUDA
driver behind the wait: in a device-to-host copy, or (with a device-wide
synchronize first) enqueuing a device-to-device copy, on a driver lock. So a
thread blocked in the driver behind torch's wait holds up the host work that
would end it. Torch's stream therefore never waits for a call still running
here.

Gated steps (NOVA_STEP_TRANSIENTS, default on CUDA: caller-provided transients, so
no alloca/dealloca, and `nova-train-step-to-iree{gate}`): no call waits on
anything not yet reached, which IREE 3.13's CUDA HAL did not survive on the
H200 (2026-12-02: a transients call waiting on the host-signalled `ready`
was never issued; a gated call waiting, through the globals' timepoints, on
the previous call's signal fence ended the process). So torch -> IREE is on
the device: torch's stream writes call k's number into the step's `ready`
word after its copies (a fill kernel; cuStreamWriteValue32 until 76b3527),
and the step's first kernel waits for it. The call's wait fence is already
reached and its signal fence is empty (the globals then carry no timepoint
into the next call); an empty command buffer enqueued right after it
signals `(done, k)`: the device's queue runs in order on one CUDA stream, so
that is when the step is done. IREE -> torch is on the device too: the
step's last kernel copies the loss out and then writes k into the step's
`done` word, which torch's stream waits on (cuStreamWaitValue32); the worker
has nothing to do for gated calls.

IREE issues a call's work to the GPU from a thread of its own after the call
has returned (iree/hal/utils/deferred_work_queue.c). With torch's wait
enqueued right after the call, gated steps stopped (76b3527, 1139360; H200,
H100): the first step never completed, and the next enqueue on torch's
stream and a stream creation on another thread blocked in the driver, with
CUDA_DEVICE_MAX_CONNECTIONS=32, with the ready word written by a kernel and
with torch's current stream non-blocking alike. The stream waits that did
complete in any probe had their releasing work enqueued first
(stream_wait_probe.py's `device-preissued`), as CUDA's documentation of
stream memory operations asks (the order they set up is not visible to its
scheduler). So call k enqueues torch's wait only once call k - 1 is done
(the first call once it is done whole), by when IREE has long issued call k;
the host runs at most one step ahead. So ordered, gated steps complete
(H100, c398e9e: 200 steps each read at once, checks vs eager) and, with the
step's slab 256-byte aligned (f272160), are the default on CUDA: gpt-42m
bf16 13.8 ms a step against 14.3 blocking, gpt-146m 44.7 against 46.0.

A device-side failure of call k is raised by the next `enqueue` or `wait()`
(torch's stream is released so it cannot hang).
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Callable

import iree.runtime as rt
import torch

from .cuda_driver import CudaDriver

_log = logging.getLogger(__name__)

__all__ = ["Timeline", "HostTimeline", "CudaStreamTimeline", "timeline_for"]


class Timeline:
    """Call numbering and fences for asynchronous calls on one device."""

    def __init__(self, device: rt.HalDevice) -> None:
        self._device = device
        self._done = device.create_semaphore(0)
        self.enqueued = 0  # calls enqueued so far; call k is the k-th (1-based)

    def begin(self, ready_word: torch.Tensor | None = None) -> tuple[rt.HalFence, rt.HalFence]:
        """(wait, signal) fences for the next call. `ready_word`: a gated
        step's `ready` word (CUDA only)."""
        if ready_word is not None:
            raise ValueError("nova: a gated step runs on CUDA only")
        self.check()
        k = self.enqueued + 1
        return self._wait_fence(k), rt.HalFence.create_at(self._done, k)

    def commit(self, done_address: int | None = None) -> None:
        """The call whose fences `begin` made has been enqueued. `done_address`:
        the device address of a gated step's `done` word (CUDA only)."""
        self.enqueued += 1

    def wait(self) -> None:
        """Blocks until every enqueued call has completed; raises a device error."""
        if self.enqueued:
            rt.HalFence.create_at(self._done, self.enqueued).wait()
        self.check()

    def check(self) -> None:
        """Raises the error of a failed call, if any."""

    def _wait_fence(self, k: int) -> rt.HalFence:
        # Ordered after the previous call; a fence at 0 is already reached.
        return rt.HalFence.create_at(self._done, k - 1)


class HostTimeline(Timeline):
    """CPU: no streams to order with. Results are read by the host, so the
    caller waits for a call's fence before it hands results out."""


class CudaStreamTimeline(Timeline):
    """Orders calls with torch's current CUDA stream (see the module doc)."""

    def __init__(self, device: rt.HalDevice) -> None:
        super().__init__(device)
        self._ready = device.create_semaphore(0)
        self._begun = 0
        # Gated calls signal nothing themselves: an empty command buffer
        # enqueued after each signals `done` (see the module doc).
        self._barrier: rt.HalCommandBuffer | None = None
        self._gated = False
        # Whether the last call had run when it returned (IREE 3.13's CUDA HAL
        # blocks): then the next one is ordered after torch's stream here.
        self._blocking = False
        self._release_lock = threading.Lock()
        self._cuda = CudaDriver()
        # Pinned, device-mapped word torch's stream waits on (host writes only).
        self._flag = torch.zeros(1, dtype=torch.int32, pin_memory=True)
        self._flag_host = self._flag.numpy()
        self._flag_device = self._cuda.host_device_pointer(self._flag.data_ptr())
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._error: BaseException | None = None
        self._worker = threading.Thread(target=self._run, name="nova-cuda-order", daemon=True)
        self._worker.start()

    def begin(self, ready_word: torch.Tensor | None = None) -> tuple[rt.HalFence, rt.HalFence]:
        self.check()
        k = self.enqueued + 1
        self._gated = ready_word is not None
        if self._gated:
            # The step waits on the device for this word: written by a
            # kernel on torch's stream after its copies; the call's own wait
            # is already reached, and it signals nothing (an empty fence), so
            # IREE keeps no timepoint of it that the next call would wait on.
            ready_word.fill_(k)
            return rt.HalFence.create_at(self._done, 0), rt.HalFence(0)
        # `ready` counts begun calls: one that fails to enqueue leaves a gap.
        self._begun += 1
        event = torch.cuda.Event()
        event.record(torch.cuda.current_stream())
        if self._blocking:
            # The call will not return before it has run anyway: wait for
            # torch's copies here rather than through the worker (two thread
            # hand-offs on the path between steps).
            event.synchronize()
            self._ready.signal(self._begun)
        else:
            self._jobs.put(lambda r=self._begun: self._after_torch(event, r))
        return rt.HalFence.create_at(self._ready, self._begun), rt.HalFence.create_at(self._done, k)

    def commit(self, done_address: int | None = None) -> None:
        super().commit()
        k = self.enqueued
        if self._gated:
            if done_address is None:
                raise ValueError("nova: a gated step needs its done word")
            # The semaphore `done` reaches k after the call's work (for
            # `wait`): IREE's CUDA HAL runs a device's queue in order, on one
            # stream.
            if self._barrier is None:
                self._barrier = rt.HalCommandBuffer(self._device)
                self._barrier.end()
            self._device.queue_execute(
                self._barrier, rt.HalFence.create_at(self._done, 0), rt.HalFence.create_at(self._done, k)
            )
            # Torch's wait only once IREE has issued this step (see the
            # module doc): after step k - 1 is done, the first step whole.
            rt.HalFence.create_at(self._done, max(k - 1, 1)).wait()
            # Torch's stream runs on once the step's close has written k.
            self._cuda.stream_wait_value(torch.cuda.current_stream().cuda_stream, done_address, k)
            return
        # IREE 3.13's CUDA HAL returns from a call only once it has run (see
        # the module doc): then torch's stream needs no wait for it.
        try:
            self._blocking = self._done.query() >= k
        except Exception:  # a failed call: the worker surfaces its error
            self._blocking = False
        if self._blocking:
            # Done: work torch enqueues from now on runs after it anyway.
            self._release(k)
            return
        self._jobs.put(lambda: self._after_iree(k))
        self._cuda.stream_wait_value(torch.cuda.current_stream().cuda_stream, self._flag_device, k)

    def wait(self) -> None:
        super().wait()
        # The worker releases torch's stream right after `done`; let it finish.
        barrier = threading.Event()
        self._jobs.put(barrier.set)
        barrier.wait()
        self.check()

    def check(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise RuntimeError(f"nova: an asynchronous step failed on the device: {error}") from error

    def _after_torch(self, event: torch.cuda.Event, k: int) -> None:
        event.synchronize()
        self._ready.signal(k)

    def _after_iree(self, k: int) -> None:
        try:
            rt.HalFence.create_at(self._done, k).wait()
        except BaseException as e:  # surfaced by the next call; never hang torch
            self._error = e
        self._release(k)

    def _release(self, k: int) -> None:
        """Lets torch's stream run past its wait for call k (never back: the
        worker may release an earlier call after the calling thread did)."""
        with self._release_lock:
            self._flag_host[0] = max(int(self._flag_host[0]), k)

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job()
            except BaseException as e:
                _log.error("nova: ordering worker: %s", e)
                self._error = e

    def __del__(self) -> None:
        jobs = getattr(self, "_jobs", None)
        if jobs is not None:
            jobs.put(None)


def timeline_for(device_kind: str, device: rt.HalDevice) -> Timeline:
    """The timeline for a session's device kind ('cpu' or 'cuda')."""
    return CudaStreamTimeline(device) if device_kind == "cuda" else HostTimeline(device)

