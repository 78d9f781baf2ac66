"""Order asynchronous IREE calls with the caller: fences on IREE's side, and
on CUDA with torch's current stream.

A `Timeline` numbers the calls run on one IREE device: `run(call)` passes
call k the fences (wait, signal): it waits on `(done, k - 1)` and signals
`(done, k)`. On the CPU (`HostTimeline`) results are read by the host, so
`run` returns once the call is done.

CUDA (`CudaStreamTimeline`): IREE 3.13's CUDA HAL returns from a step call
only once the step has run: its `queue_alloca` (the transients) host-waits
for the call's wait fence, its `queue_dealloca` for the call's work (both on
their semaphore lists: iree/hal/drivers/cuda/cuda_device.c); the call
returns 0.2-0.4 ms after its last kernel (H100, transients_probe.py api).
Nor does it import or export semaphore timepoints as CUDA events. So the
calls are made on a worker thread, in order, and the calling thread returns
while its step runs: the host's work between steps (the next hyperparameters
and batch, the loss's copy, the user's Python) overlaps the step on the GPU
(transients_probe.py worker: a gpt-42m bf16 step 14.71 -> 14.11 ms on an
H100). For call k:

- torch -> IREE: the calling thread records a torch event on the current
  stream (after torch's copies into the call's inputs); the worker waits for
  it before it calls, so call k never reads an input torch has not finished
  writing. The worker starts call k only once call k - 1 is done, so its
  wait fence is already reached.
- The calling thread waits until the worker has started call k: the host
  runs at most one step ahead, and the worker gets the GIL when it needs it.
- IREE -> torch: the calling thread then makes torch's current stream wait
  (`cuStreamWaitValue32`, no host wait) until a pinned host word reaches k;
  the worker writes k there once `(done, k)` is reached. Work enqueued on
  torch's stream after the call (copying the loss out, writing the next
  inputs) therefore runs after the step, as in eager. Reading a result on
  the host (`float(loss)`) waits on torch's stream, as in eager. IREE's
  dispatch stream is CU_STREAM_NON_BLOCKING: it never waits on torch's
  legacy default stream.

Gated steps (NOVA_STEP_TRANSIENTS=1 on CUDA: caller-provided transients, so
no alloca/dealloca, and `nova-train-step-to-iree{gate}`): no call waits on
anything not yet reached, which IREE 3.13's CUDA HAL did not survive on the
H200 (2026-12-02: a transients call waiting on the host-signalled `ready`
was never issued; a gated call waiting, through the globals' timepoints, on
the previous call's signal fence ended the process). So torch -> IREE is on
the device: torch's stream writes call k's number into the step's `ready`
word after its copies (cuStreamWriteValue32), and the step's first kernel
waits for it. The call's wait fence is already reached and its signal fence
is empty (the globals then carry no timepoint into the next call); an empty
command buffer the worker enqueues right after it signals `(done, k)`: the
device's queue runs in order on one CUDA stream, so that is when the step is
done. IREE -> torch stays as above.

A failure of call k (raised by the call, or by the device at `(done, k)`)
is raised by the next `run` or `wait()`; calls already queued behind it are
skipped. Torch's stream is released past each of them so it cannot hang,
after the caller's `on_failure` (e.g. marking the outputs torch will copy as
invalid), and `done` is brought to k where it is not failed, so that later
calls do not wait for it.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import queue
import threading
from typing import Any, Callable

import iree.runtime as rt
import torch

from .cuda_driver import CudaDriver

_log = logging.getLogger(__name__)

__all__ = ["Call", "Timeline", "HostTimeline", "CudaStreamTimeline", "timeline_for"]

# An asynchronous IREE call, given its (wait, signal) fences.
Call = Callable[[rt.HalFence, rt.HalFence], None]


class Timeline:
    """Call numbering and fences for asynchronous calls on one device."""

    def __init__(self, device: rt.HalDevice) -> None:
        self._device = device
        self._done = device.create_semaphore(0)
        self.enqueued = 0  # calls enqueued so far; call k is the k-th (1-based)

    def run(self, call: Call, gate_address: int | None = None, on_failure: Callable[[], None] | None = None) -> None:
        """Enqueues call(wait_fence, signal_fence) after the calls before it.

        `gate_address`: the device address of a gated step's `ready` word
        (CUDA only). `on_failure`: called on CUDA when the call fails or is
        skipped, before torch's stream runs past it; here a failure is
        raised by the call itself or by `wait()`."""
        if gate_address is not None:
            raise ValueError("nova: a gated step runs on CUDA only")
        self.check()
        k = self.enqueued + 1
        call(self._at(k - 1), self._at(k))
        self.enqueued = k

    def wait(self) -> None:
        """Blocks until every enqueued call has completed; raises a device error."""
        if self.enqueued:
            self._at(self.enqueued).wait()
        self.check()

    def check(self) -> None:
        """Raises the error of a failed call, if any."""

    def _at(self, k: int) -> rt.HalFence:
        """The fence of `done` at k: call k has completed (at 0: reached)."""
        return rt.HalFence.create_at(self._done, k)


class HostTimeline(Timeline):
    """CPU: no streams to order with. Results are read by the host, so `run`
    returns once the call has completed."""

    def run(self, call: Call, gate_address: int | None = None, on_failure: Callable[[], None] | None = None) -> None:
        super().run(call, gate_address, on_failure)
        self.wait()


@dataclasses.dataclass(frozen=True)
class _Job:
    """Call k, as the worker runs it."""

    k: int
    call: Call
    inputs_ready: Any  # a torch.cuda.Event recorded after torch's writes of the inputs
    gated: bool
    on_failure: Callable[[], None] | None


class CudaStreamTimeline(Timeline):
    """Runs calls on a worker thread, ordered with torch's current CUDA
    stream (see the module doc). `driver` is the CUDA driver's stream memory
    operations (tests pass a fake)."""

    def __init__(self, device: rt.HalDevice, driver: CudaDriver | None = None) -> None:
        super().__init__(device)
        self._cuda = driver if driver is not None else CudaDriver()
        # Gated calls signal nothing themselves: an empty command buffer
        # enqueued after each signals `done` (see the module doc).
        self._barrier: rt.HalCommandBuffer | None = None
        # Pinned, device-mapped word torch's stream waits on (the worker writes it).
        self._flag = self._host_word()
        self._flag_host = self._flag.numpy()
        self._flag_device = self._cuda.host_device_pointer(self._flag.data_ptr())
        self._entered = threading.Semaphore(0)  # released once per call, as the worker starts it
        self._error: BaseException | None = None  # the first failure not yet raised
        self._error_lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._worker = threading.Thread(target=self._run, name="nova-cuda-order", daemon=True)
        self._worker.start()

    def run(self, call: Call, gate_address: int | None = None, on_failure: Callable[[], None] | None = None) -> None:
        self.check()
        k = self.enqueued + 1
        stream = self._current_stream()
        gated = gate_address is not None
        if gated:
            # The step waits on the device for this word, written after torch's copies.
            self._cuda.stream_write_value(stream.cuda_stream, gate_address, k)
        # Recorded for gated calls too: a failed call's `on_failure` waits for
        # it, so it never overwrites an output torch is still copying.
        job = _Job(k, call, self._record_inputs(stream), gated, on_failure)
        self._jobs.put(functools.partial(self._execute, job))
        self.enqueued = k  # queued: it runs (or is skipped) whatever happens here
        # Until the worker starts call k (once call k - 1 is done): the host
        # stays at most one step ahead, and the worker has the GIL to call.
        self._entered.acquire()
        self._cuda.stream_wait_value(stream.cuda_stream, self._flag_device, k)

    def wait(self) -> None:
        # Each call's job ends once its call is done (or failed): the last one
        # done means all are. Not `done` at `enqueued`: a failed call never reaches it.
        barrier = threading.Event()
        self._jobs.put(barrier.set)
        barrier.wait()
        self.check()

    def check(self) -> None:
        with self._error_lock:
            error, self._error = self._error, None
        if error is not None:
            raise RuntimeError(f"nova: an asynchronous step failed: {error}") from error

    # -- the calling thread's CUDA pieces (tests without CUDA replace them) ----

    def _host_word(self) -> torch.Tensor:
        return torch.zeros(1, dtype=torch.int32, pin_memory=True)

    def _current_stream(self) -> Any:
        return torch.cuda.current_stream()

    def _record_inputs(self, stream: Any) -> Any:
        event = torch.cuda.Event()
        event.record(stream)
        return event

    # -- the worker -------------------------------------------------------------

    def _execute(self, job: _Job) -> None:
        """Runs call k once torch has written its inputs and waits until it is
        done; then, whatever happened, lets torch's stream run past it."""
        entered = completed = False
        try:
            with self._error_lock:
                skip = self._error is not None
            if skip:
                _log.warning("nova: call %d skipped: an earlier call failed", job.k)
            else:
                if not job.gated:
                    job.inputs_ready.synchronize()  # gated: the step waits on the device
                self._entered.release()
                entered = True
                self._invoke(job)
                self._at(job.k).wait()  # at once where IREE's call blocked until done
                completed = True
        except BaseException as e:  # raised by the next run or wait(); torch must not hang
            _log.error("nova: call %d failed: %s", job.k, e)
            with self._error_lock:
                if self._error is None:
                    self._error = e
        finally:
            if not entered:
                self._entered.release()
            try:
                if not completed:
                    self._recover(job)
            finally:
                self._release(job.k)

    def _invoke(self, job: _Job) -> None:
        if not job.gated:
            # Call k - 1 is done: the worker waited for it before this job.
            job.call(self._at(job.k - 1), self._at(job.k))
            return
        # The call's own wait is already reached and it signals nothing (an
        # empty fence), so IREE keeps no timepoint of it that the next call
        # would wait on. `done` reaches k after an empty command buffer queued
        # behind it: IREE's CUDA HAL runs a device's queue in order, on one stream.
        job.call(self._at(0), rt.HalFence(0))
        if self._barrier is None:
            self._barrier = rt.HalCommandBuffer(self._device)
            self._barrier.end()
        self._device.queue_execute(self._barrier, self._at(0), self._at(job.k))

    def _recover(self, job: _Job) -> None:
        """After call k failed or was skipped: the caller's `on_failure`, once
        torch's work before the call (the last loss's copy) is done; then
        `done` to k, so that later calls do not wait for this one."""
        try:
            job.inputs_ready.synchronize()
            if job.on_failure is not None:
                job.on_failure()
        except Exception as e:
            _log.error("nova: on_failure of call %d: %s", job.k, e)
        try:
            if self._done.query() < job.k:
                self._done.signal(job.k)
        except Exception as e:  # a failed semaphore: later calls fail on it rather than hang
            _log.debug("nova: done stays failed after call %d: %s", job.k, e)

    def _release(self, k: int) -> None:
        """Lets torch's stream run past its wait for call k (jobs run in order,
        so the word only grows)."""
        self._flag_host[0] = k

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job()
            except BaseException as e:  # _execute catches its own; a barrier cannot fail
                _log.error("nova: ordering worker: %s", e)

    def __del__(self) -> None:
        jobs = getattr(self, "_jobs", None)
        if jobs is not None:
            jobs.put(None)


def timeline_for(device_kind: str, device: rt.HalDevice) -> Timeline:
    """The timeline for a session's device kind ('cpu' or 'cuda')."""
    return CudaStreamTimeline(device) if device_kind == "cuda" else HostTimeline(device)
