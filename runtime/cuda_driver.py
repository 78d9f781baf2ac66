"""The CUDA driver calls Nova's runtime needs and torch does not expose
(through ctypes: libcuda is on every machine with an NVIDIA driver)."""

from __future__ import annotations

import ctypes

__all__ = ["CudaDriver"]

_CU_STREAM_WAIT_VALUE_GEQ = 0x0


class CudaDriver:
    """Stream memory operations on host-mapped words."""

    def __init__(self) -> None:
        lib = ctypes.CDLL("libcuda.so.1")
        self._wait = lib.cuStreamWaitValue32_v2
        self._wait.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
        self._write = lib.cuStreamWriteValue32_v2
        self._write.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
        self._get_pointer = lib.cuMemHostGetDevicePointer_v2
        self._get_pointer.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_void_p, ctypes.c_uint]

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            raise RuntimeError(f"nova: {what} failed with CUDA driver error {status}")

    def host_device_pointer(self, host_pointer: int) -> int:
        pointer = ctypes.c_uint64()
        self._check(self._get_pointer(ctypes.byref(pointer), ctypes.c_void_p(host_pointer), 0),
                    "cuMemHostGetDevicePointer")
        return pointer.value

    def stream_wait_value(self, stream: int, address: int, value: int) -> None:
        self._check(self._wait(ctypes.c_void_p(stream), address, value & 0xFFFFFFFF, _CU_STREAM_WAIT_VALUE_GEQ),
                    "cuStreamWaitValue32")

    def stream_write_value(self, stream: int, address: int, value: int) -> None:
        # Default flags: a system-wide memory fence before the write.
        self._check(self._write(ctypes.c_void_p(stream), address, value & 0xFFFFFFFF, 0), "cuStreamWriteValue32")
