"""The CUDA driver calls Nova's runtime needs and torch does not expose
(through ctypes: libcuda is on every machine with an NVIDIA driver)."""

from __future__ import annotations

import ctypes

__all__ = ["CudaDriver"]

_CU_STREAM_WAIT_VALUE_GEQ = 0x0
_CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17
_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4
_CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5


class CudaDriver:
    """Stream memory operations and memory-pool attributes."""

    def __init__(self) -> None:
        lib = ctypes.CDLL("libcuda.so.1")
        self._wait = lib.cuStreamWaitValue32_v2
        self._wait.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
        self._write = lib.cuStreamWriteValue32_v2
        self._write.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
        self._get_pointer = lib.cuMemHostGetDevicePointer_v2
        self._get_pointer.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_void_p, ctypes.c_uint]
        self._pointer_attribute = lib.cuPointerGetAttribute
        self._pointer_attribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64]
        self._set_pool_attribute = lib.cuMemPoolSetAttribute
        self._set_pool_attribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        self._get_pool_attribute = lib.cuMemPoolGetAttribute
        self._get_pool_attribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]

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

    def memory_pool_of(self, address: int) -> int:
        """The CUmemoryPool that device `address` was allocated from (0 when
        it is not pool memory)."""
        pool = ctypes.c_void_p()
        self._check(self._pointer_attribute(ctypes.byref(pool), _CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, address),
                    "cuPointerGetAttribute(MEMPOOL_HANDLE)")
        return pool.value or 0

    def set_release_threshold(self, pool: int, threshold: int) -> None:
        """Bytes `pool` keeps reserved across synchronizations."""
        value = ctypes.c_uint64(threshold)
        self._check(self._set_pool_attribute(ctypes.c_void_p(pool), _CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                             ctypes.byref(value)), "cuMemPoolSetAttribute(RELEASE_THRESHOLD)")

    def reserved_bytes(self, pool: int) -> int:
        """Bytes of device memory `pool` holds now."""
        value = ctypes.c_uint64()
        self._check(self._get_pool_attribute(ctypes.c_void_p(pool), _CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
                                             ctypes.byref(value)), "cuMemPoolGetAttribute(RESERVED_MEM_CURRENT)")
        return value.value
