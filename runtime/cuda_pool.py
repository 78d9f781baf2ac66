"""IREE's CUDA memory pool keeps its memory between calls.

IREE 3.13's CUDA HAL serves a call's transients (`queue_alloca`, one
allocation per train step) from a stream-ordered CUDA memory pool whose
release threshold it leaves at 0: at every synchronization the pool returns
the step's freed transients to the driver, and the next step maps them again
(gpt-146m: 7 GiB a step). torch's caching allocator and XLA keep such
memory. IREE exports no pointer of a pooled buffer, so a CUDA module that
Nova compiled carries `@nova_buffer_address` (nova-add-buffer-address): Nova's
kernel writes the device address of a buffer allocated here from that pool,
the driver names the pool (cuPointerGetAttribute), and its release threshold
is raised so it keeps what it has reserved. Experimental until measured on
the GPU: `NOVA_CUDA_POOL_RETAIN=1` turns it on.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Optional

import iree.runtime as rt

from .cuda_driver import CudaDriver

if TYPE_CHECKING:
    from .session import Session

_log = logging.getLogger(__name__)

__all__ = ["ADDRESS_BUFFER_BYTES", "ADDRESS_ELEMENT_TYPE", "ADDRESS_FUNCTION", "KEEP_ALL", "RETAIN_ENV",
           "retain_enabled", "retain_pool_memory"]

RETAIN_ENV = "NOVA_CUDA_POOL_RETAIN"
ADDRESS_FUNCTION = "nova_buffer_address"
# The argument of @nova_buffer_address: tensor<256xi8> (signless bytes).
ADDRESS_BUFFER_BYTES = 256
ADDRESS_ELEMENT_TYPE = rt.HalElementType.INT_8
# A release threshold under which the pool keeps everything it reserved.
KEEP_ALL = (1 << 64) - 1


def retain_enabled() -> bool:
    """Whether CUDA sessions keep IREE's pool memory (NOVA_CUDA_POOL_RETAIN=1;
    off by default until measured on the GPU)."""
    return os.environ.get(RETAIN_ENV, "0") == "1"


def retain_pool_memory(session: "Session") -> Optional[int]:
    """Raises the release threshold of the pool IREE's queue allocations on
    `session`'s device come from, so it keeps its memory across calls.
    Returns the pool's handle, or None where the module has no
    `@nova_buffer_address` or the driver refuses (logged: the calls still
    run, only slower)."""
    if ADDRESS_FUNCTION not in session.function_names:
        return None
    device = session.hal_device
    try:
        buffer = device.queue_alloca(ADDRESS_BUFFER_BYTES, [], [])
    except Exception as e:  # an optimization: the calls run without it
        _log.warning("nova: no pooled buffer to find IREE's CUDA memory pool by (%s)", e)
        return None
    try:
        view = rt.HalBufferView(buffer, [ADDRESS_BUFFER_BYTES], ADDRESS_ELEMENT_TYPE)
        (address,) = session.invoke(ADDRESS_FUNCTION, view)
        pointer = int(session.to_host(address)[0])
        driver = CudaDriver()
        pool = driver.memory_pool_of(pointer)
        if not pool:
            _log.warning("nova: IREE's queue allocation at 0x%x is not pool memory", pointer)
            return None
        driver.set_release_threshold(pool, KEEP_ALL)
    except Exception as e:  # an optimization: the calls run without it
        _log.warning("nova: could not keep IREE's CUDA memory pool (%s); each call maps its transients", e)
        return None
    finally:
        device.queue_dealloca(buffer, [], [])
    _log.info("nova: IREE's CUDA memory pool 0x%x keeps its memory between calls", pool)
    return pool
