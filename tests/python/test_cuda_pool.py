"""runtime/cuda_pool.py: a CUDA session finds IREE's memory pool through the
module's @nova_buffer_address and raises the pool's release threshold (the
driver calls faked here: the build box has no GPU; tools/device/
transients_probe.py `pool` runs them on the GPU box)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from nova.runtime import cuda_pool


class _Device:
    def __init__(self) -> None:
        self.events: list[str] = []

    def queue_alloca(self, size: int, wait, signal) -> str:
        self.events.append(f"alloca {size}")
        return "pooled-buffer"

    def queue_dealloca(self, buffer: str, wait, signal) -> None:
        self.events.append(f"dealloca {buffer}")


class _Session:
    def __init__(self, functions: list[str], address: int = 0x7F0012340000, fail: bool = False) -> None:
        self.function_names = functions
        self.hal_device = _Device()
        self.address, self.fail = address, fail
        self.arguments: list[object] = []

    def invoke(self, name: str, *args: object) -> tuple[np.ndarray]:
        self.hal_device.events.append(f"invoke {name}")
        self.arguments.extend(args)
        if self.fail:
            raise RuntimeError("dispatch failed")
        return (np.array([self.address], dtype=np.int64),)

    def to_host(self, x: np.ndarray) -> np.ndarray:
        return x


class _Driver:
    pools = {0x7F0012340000: 0xABC}
    thresholds: dict[int, int] = {}

    def memory_pool_of(self, address: int) -> int:
        return self.pools.get(address, 0)

    def set_release_threshold(self, pool: int, threshold: int) -> None:
        self.thresholds[pool] = threshold


@pytest.fixture
def driver(monkeypatch: pytest.MonkeyPatch) -> type[_Driver]:
    _Driver.thresholds = {}
    monkeypatch.setattr(cuda_pool, "CudaDriver", _Driver)
    monkeypatch.setattr(cuda_pool.rt, "HalBufferView", lambda buffer, shape, element_type: (buffer, tuple(shape)))
    return _Driver


def test_pool_of_the_pooled_buffer_keeps_everything(driver: type[_Driver]) -> None:
    session = _Session(["step", cuda_pool.ADDRESS_FUNCTION])
    assert cuda_pool.retain_pool_memory(session) == 0xABC
    assert driver.thresholds == {0xABC: 2**64 - 1}
    # The kernel reads a 256-byte view of the buffer IREE's pool allocated,
    # which goes back to the pool afterwards.
    assert session.arguments == [("pooled-buffer", (256,))]
    assert session.hal_device.events == ["alloca 256", f"invoke {cuda_pool.ADDRESS_FUNCTION}", "dealloca pooled-buffer"]


def test_module_without_the_function_is_left_alone(driver: type[_Driver]) -> None:
    session = _Session(["step"])
    assert cuda_pool.retain_pool_memory(session) is None
    assert session.hal_device.events == [] and driver.thresholds == {}


@pytest.mark.parametrize("session", [_Session([cuda_pool.ADDRESS_FUNCTION], fail=True),
                                     _Session([cuda_pool.ADDRESS_FUNCTION], address=0x1000)],
                         ids=["call-fails", "not-pool-memory"])
def test_failure_is_logged_and_the_buffer_freed(driver: type[_Driver], session: _Session,
                                                caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=cuda_pool.__name__):
        assert cuda_pool.retain_pool_memory(session) is None
    assert driver.thresholds == {}
    assert session.hal_device.events[-1] == "dealloca pooled-buffer"
    assert "nova:" in caplog.text


def test_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cuda_pool.RETAIN_ENV, raising=False)
    assert not cuda_pool.retain_enabled()
    monkeypatch.setenv(cuda_pool.RETAIN_ENV, "1")
    assert cuda_pool.retain_enabled()
