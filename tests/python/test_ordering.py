"""CudaStreamTimeline's worker logic, on the CPU: a real IREE local-task
device for the semaphores, fakes for the CUDA pieces (the driver's stream
memory operations, torch's stream and events, the pinned word)."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace
from typing import Callable

import iree.runtime as rt
import pytest
import torch

from nova.runtime.ordering import CudaStreamTimeline, HostTimeline

_STREAM = 0x5EA  # the fake torch stream's handle
_FLAG = 0xF1A6  # the fake device address of the timeline's word
_TIMEOUT = 10.0


class _FakeDriver:
    """Records the stream memory operations the calling thread issues."""

    def __init__(self) -> None:
        self.waits: list[tuple[int, int, int]] = []
        self.writes: list[tuple[int, int, int]] = []

    def host_device_pointer(self, host_pointer: int) -> int:
        return _FLAG

    def stream_wait_value(self, stream: int, address: int, value: int) -> None:
        self.waits.append((stream, address, value))

    def stream_write_value(self, stream: int, address: int, value: int) -> None:
        self.writes.append((stream, address, value))


class _FakeEvent:
    """torch's copies into the inputs: done once `copied` is set."""

    def __init__(self, copied: threading.Event) -> None:
        self.copied = copied

    def synchronize(self) -> None:
        assert self.copied.wait(_TIMEOUT), "the fake copies never finished"


class _Timeline(CudaStreamTimeline):
    """A CudaStreamTimeline without CUDA. `copied` gates the next calls'
    inputs-ready events; `on_record` runs as a call's event is recorded."""

    def __init__(self, device: rt.HalDevice) -> None:
        self.driver = _FakeDriver()
        self.copied = threading.Event()
        self.copied.set()
        self.on_record: Callable[[], None] | None = None
        self.fence_values: dict[int, int] = {}  # id(fence) -> its value of `done`
        super().__init__(device, driver=self.driver)

    def _host_word(self) -> torch.Tensor:
        return torch.zeros(1, dtype=torch.int32)

    def _current_stream(self) -> SimpleNamespace:
        return SimpleNamespace(cuda_stream=_STREAM)

    def _record_inputs(self, stream: SimpleNamespace) -> _FakeEvent:
        assert stream.cuda_stream == _STREAM
        if self.on_record is not None:
            self.on_record()
        return _FakeEvent(self.copied)

    def _at(self, k: int) -> rt.HalFence:
        fence = super()._at(k)
        self.fence_values[id(fence)] = k
        return fence

    @property
    def released(self) -> int:
        """How far torch's stream may run: the word its waits compare with."""
        return int(self._flag_host[0])


@pytest.fixture(scope="module")
def device() -> rt.HalDevice:
    return rt.Config(driver_name="local-task").device


@pytest.fixture
def timeline(device: rt.HalDevice) -> _Timeline:
    timeline = _Timeline(device)
    yield timeline
    timeline._jobs.put(None)
    timeline._worker.join(_TIMEOUT)


def _signalling(timeline: _Timeline, log: list, k: int) -> Callable[[rt.HalFence, rt.HalFence], None]:
    """A call that records what it was given and signals its fence, as an
    IREE call on a blocking HAL returns once done."""

    def call(wait: rt.HalFence, signal: rt.HalFence) -> None:
        log.append({
            "k": k,
            "thread": threading.current_thread().name,
            "wait": timeline.fence_values.get(id(wait)),
            "signal": timeline.fence_values.get(id(signal)),
            "wait_reached": wait.wait(timeout=0),
            "done_before": timeline._done.query(),
        })
        signal.signal()

    return call


def test_calls_run_in_order_on_the_worker(timeline: _Timeline):
    log: list[dict] = []
    for k in range(1, 6):
        timeline.run(_signalling(timeline, log, k))
    timeline.wait()
    assert [entry["k"] for entry in log] == [1, 2, 3, 4, 5]
    for k, entry in enumerate(log, start=1):
        assert entry["thread"] == "nova-cuda-order"
        assert (entry["wait"], entry["signal"]) == (k - 1, k)
        assert entry["wait_reached"] and entry["done_before"] == k - 1
    assert timeline.enqueued == 5
    assert timeline._done.query() == 5
    assert timeline.released == 5
    assert timeline.driver.waits == [(_STREAM, _FLAG, k) for k in range(1, 6)]
    assert timeline.driver.writes == []


def test_gated_calls_signal_done_through_a_barrier(timeline: _Timeline):
    log: list[dict] = []
    gate = 0xCAFE

    def call(wait: rt.HalFence, signal: rt.HalFence) -> None:
        log.append((timeline.fence_values.get(id(wait)), signal.timepoint_count))

    for _ in range(3):
        timeline.run(call, gate_address=gate)
    timeline.wait()
    # The call's wait is reached already and it signals nothing; the barrier does.
    assert log == [(0, 0)] * 3
    assert timeline._done.query() == 3
    assert timeline.released == 3
    assert timeline.driver.writes == [(_STREAM, gate, k) for k in (1, 2, 3)]
    assert timeline.driver.waits == [(_STREAM, _FLAG, k) for k in (1, 2, 3)]


def test_run_returns_once_the_worker_has_started_the_call(timeline: _Timeline):
    started, finish = threading.Event(), threading.Event()

    def call(wait: rt.HalFence, signal: rt.HalFence) -> None:
        started.set()
        assert finish.wait(_TIMEOUT)
        signal.signal()

    # Not before torch's copies into the inputs are done: the worker waits
    # for them before it starts the call.
    timeline.copied.clear()
    returned = threading.Event()
    caller = threading.Thread(target=lambda: (timeline.run(call), returned.set()))
    caller.start()
    assert not returned.wait(0.2)
    assert not started.is_set() and timeline.driver.waits == []
    timeline.copied.set()
    # Then while the call is still running: the host overlaps it.
    assert returned.wait(_TIMEOUT)
    caller.join(_TIMEOUT)
    assert started.wait(_TIMEOUT)
    assert timeline.driver.waits == [(_STREAM, _FLAG, 1)]
    assert timeline.released == 0 and timeline._done.query() == 0
    finish.set()
    timeline.wait()
    assert timeline.released == 1 and timeline._done.query() == 1


def test_a_failed_call_releases_the_stream_and_is_raised(timeline: _Timeline):
    log: list[dict] = []
    failures: list[int] = []
    started, fail = threading.Event(), threading.Event()

    def failing(wait: rt.HalFence, signal: rt.HalFence) -> None:
        started.set()
        assert fail.wait(_TIMEOUT)
        raise ValueError("boom")

    timeline.run(_signalling(timeline, log, 1), on_failure=lambda: failures.append(1))
    timeline.run(failing, on_failure=lambda: failures.append(2))
    assert started.wait(_TIMEOUT)
    # Call 3 is queued (its check passed) before call 2 fails: it is skipped.
    timeline.on_record = fail.set
    timeline.run(_signalling(timeline, log, 3), on_failure=lambda: failures.append(3))
    timeline.on_record = None
    assert timeline.enqueued == 3
    with pytest.raises(RuntimeError, match="boom"):
        timeline.wait()
    assert [entry["k"] for entry in log] == [1]
    assert failures == [2, 3]
    assert timeline.released == 3
    assert timeline.driver.waits == [(_STREAM, _FLAG, k) for k in (1, 2, 3)]
    # Each call released the calling thread once: none left over.
    assert not timeline._entered.acquire(blocking=False)
    # Raised once; later calls no longer wait for the failed ones.
    timeline.wait()
    timeline.run(_signalling(timeline, log, 4))
    timeline.wait()
    assert [(entry["k"], entry["wait"], entry["wait_reached"]) for entry in log] == [(1, 0, True), (4, 3, True)]
    assert timeline.released == 4 and timeline._done.query() == 4


def test_a_failure_is_raised_by_the_next_run(timeline: _Timeline):
    log: list[dict] = []

    def failing(wait: rt.HalFence, signal: rt.HalFence) -> None:
        raise ValueError("boom")

    timeline.run(failing)
    deadline = time.monotonic() + _TIMEOUT
    while timeline.released < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert timeline.released == 1
    with pytest.raises(RuntimeError, match="boom"):
        timeline.run(_signalling(timeline, log, 2))
    assert timeline.enqueued == 1 and log == []


def test_a_device_failure_is_raised_and_later_calls_fail_rather_than_hang(timeline: _Timeline):
    failures: list[int] = []

    def failing_on_device(wait: rt.HalFence, signal: rt.HalFence) -> None:
        signal.fail("device lost")

    timeline.run(failing_on_device, on_failure=lambda: failures.append(1))
    with pytest.raises(RuntimeError, match="device lost"):
        timeline.wait()
    assert failures == [1] and timeline.released == 1
    # `done` stays failed: the next call's wait fails instead of blocking.
    log: list[dict] = []
    timeline.run(_signalling(timeline, log, 2), on_failure=lambda: failures.append(2))
    with pytest.raises(RuntimeError):
        timeline.wait()
    assert timeline.released == 2 and failures == [1, 2]


def test_host_timeline_runs_each_call_to_completion(device: rt.HalDevice):
    timeline = HostTimeline(device)
    seen: list[tuple[bool, bool]] = []

    def call(wait: rt.HalFence, signal: rt.HalFence) -> None:
        seen.append((wait.wait(timeout=0), signal.wait(timeout=0)))
        # Done a little later, as a device would be: run waits for it.
        threading.Timer(0.05, signal.signal).start()

    for k in (1, 2):
        timeline.run(call)
        assert timeline._done.query() == k
    assert seen == [(True, False), (True, False)]
    with pytest.raises(ValueError, match="CUDA"):
        timeline.run(call, gate_address=0x10)
