"""Run a compiled vmfb with device-resident inputs and outputs.

Device residency
----------------
`Session.invoke` packs arguments into an `iree.runtime.VmVariantList` as
`HalBufferView` refs and calls the function with `VmContext.invoke`. Results
come back as `HalBufferView`s that live in device memory; we wrap each one in
an `iree.runtime.DeviceArray` with ``implicit_host_transfer=False``, so any
accidental numpy conversion raises instead of silently copying. Passing such a
DeviceArray (or a bare HalBufferView) to the next `invoke` pushes the same
buffer view again: no host copy, no device copy. That is how parameters and
optimizer state stay on the device between training steps. Host copies happen
only in `Session.to_host` / `Session.to_torch`.

We do not use `iree.runtime.FunctionInvoker`: it maps results through the ABI
reflection, which (in 3.13) has no entry for bf16 results, and it returns
arrays that transfer to the host implicitly.

Inputs from the host
--------------------
- torch tensors on the session's device kind (CPU tensors for ``local-*``,
  CUDA tensors for ``cuda``) are imported without a copy through DLPack
  (`HalDevice.from_dlpack_capsule`, present in iree.runtime 3.13; it handles
  bf16 and 0-d tensors). The IREE buffer then aliases the tensor's storage;
  the DLPack deleter keeps the tensor alive as long as IREE needs it. If an
  output *is* an imported input buffer (a function returning an argument
  unchanged), we copy it on the device so results never alias caller memory.
  Do not mutate an input tensor in place while the call is running (CUDA:
  we synchronize torch's current stream before the call so pending torch
  writes land first).
- Imports that IREE refuses (strided tensors are made contiguous first; the
  CPU HAL needs 64-byte aligned storage, so e.g. a tensor slice at an odd
  offset is refused) fall back to a copy. ``zero_copy=False`` always copies.
- numpy arrays, and torch tensors on another device kind, are copied into a
  new device buffer (`HalAllocator.allocate_buffer_copy`); torch CPU tensors
  get there through a numpy view, bf16/fp8 through ml_dtypes.
- Python int/float are passed as VM scalars (i64/f32 function arguments); a
  0-d tensor argument needs a 0-d array or tensor.

DLPack on CUDA (checked on the H200, iree-base-runtime 3.13, torch 2.11):
import of CUDA torch tensors works zero-copy (fp32, bf16, 0-d). Export of
function results fails ("CUDA buffer type is not supported for export": they
are sub-allocations of IREE's pooled memory), so `to_torch` first copies the
result on the device into a fresh `HalAllocator.allocate_buffer` allocation,
which exports fine (about 55 us per tensor, no host round trip). If an import
raises, we log and fall back to a host copy.

Calls: `invoke` uses the default (synchronous) IREE ABI, which waits for
the device before it returns, so results are complete when you get them.
`invoke_async` calls a coarse-fences function (`iree.abi.model =
"coarse-fences"`): the work is enqueued after its wait fence and signals its
signal fence; the call returns at once and the results (and any output
storage passed in) are valid only once the signal fence is reached.

Parameters: `parameters=` (an `iree.runtime.ParameterIndex` or the path of a
`.irpa` archive) provides the module's `#flow.parameter.named<scope::key>`
globals through IREE's io-parameters module, as `iree-run-module
--parameters=scope=file.irpa` does.
"""

from __future__ import annotations

import logging
import math
import os
import re
import shlex
import time
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
import torch

import iree.runtime as rt

from .tensors import numpy_to_torch, torch_to_numpy

_log = logging.getLogger(__name__)

__all__ = ["Session", "DeviceArray", "to_host"]

DeviceArray = rt.DeviceArray

# DLPack device type codes.
_KDL_CPU = 1
_KDL_CUDA = 2

ArgType = Union[rt.DeviceArray, rt.HalBufferView, torch.Tensor, np.ndarray, np.generic, int, float]


def _element_type(dtype: torch.dtype) -> Any:
    """IREE's element type of a torch dtype."""
    element_type = rt.array_interop.map_dtype_to_element_type(torch_to_numpy(torch.empty(0, dtype=dtype)).dtype)
    if element_type is None:
        raise TypeError(f"dtype {dtype} has no IREE element type")
    return element_type


def to_host(x: Union[rt.DeviceArray, np.ndarray], copy: bool = True) -> np.ndarray:
    """Device array -> numpy (bf16 as ml_dtypes.bfloat16). Explicit host copy.

    With copy=False on a host-visible buffer the result is a mapped view of
    the device memory; do not write to it.
    """
    if isinstance(x, np.ndarray):
        return x.copy() if copy else x
    if not isinstance(x, rt.DeviceArray):
        raise TypeError(f"to_host expects a DeviceArray, got {type(x).__name__}")
    host = x.to_host()
    # A mapped (host-visible) buffer comes back as a view of device memory;
    # an unmappable one was already copied by DeviceArray.
    if copy and x.is_host_accessible:
        host = host.copy()
    return host


RUNTIME_FLAGS_ENV = "NOVA_IREE_RUNTIME_FLAGS"


def _parse_runtime_flags() -> None:
    """IREE runtime flags from $NOVA_IREE_RUNTIME_FLAGS (e.g.
    `--cuda_use_streams=false`), as iree-run-module takes them. They set
    process-wide defaults, read when a driver creates its device: set them
    before the first session of the process."""
    value = os.environ.get(RUNTIME_FLAGS_ENV, "").strip()
    if not value:
        return
    try:
        rt.flags.parse_flags(*shlex.split(value))
    except ValueError as e:
        raise ValueError(f"nova: ${RUNTIME_FLAGS_ENV}={value!r}: {e}") from None


def _cuda_index(uri: str) -> Optional[int]:
    """The device index of a CUDA URI ("cuda" is 0), None for other URIs."""
    m = re.fullmatch(r"cuda(?:://(\d+))?", uri)
    return None if m is None else int(m.group(1) or 0)


class Session:
    """A loaded vmfb on one IREE device.

    `device` is an IREE device URI ("local-task", "local-sync", "cuda",
    "cuda://<n>") or an existing `HalDevice`. Devices are created through
    `iree.runtime.Config`, which caches them per URI, so sessions on the
    same URI share one device and can exchange DeviceArrays.
    """

    def __init__(
        self,
        vmfb: bytes,
        device: Union[str, rt.HalDevice] = "local-task",
        *,
        zero_copy: bool = True,
        parameters: Union[None, str, "os.PathLike[str]", rt.ParameterIndex] = None,
        parameter_scope: str = "",
    ):
        _parse_runtime_flags()
        start = time.perf_counter()
        if isinstance(device, str):
            self._uri = device
            self._config = rt.Config(driver_name=device)
        else:
            self._uri = "<device>"
            self._config = rt.Config(device=device)
        self._device: rt.HalDevice = self._config.device
        device_s = time.perf_counter() - start  # the first session on a URI makes the device
        self._kind = "cuda" if self._uri.startswith("cuda") else "cpu"
        self._cuda_index = _cuda_index(self._uri) or 0
        self._zero_copy = zero_copy
        start = time.perf_counter()
        self._context = rt.SystemContext(config=self._config)
        if parameters is not None:
            index = parameters
            if not isinstance(index, rt.ParameterIndex):
                index = rt.ParameterIndex()
                index.load(os.fspath(parameters))
            self._parameter_index = index  # the provider reads from it
            self._context.add_vm_module(
                rt.create_io_parameters_module(
                    self._config.vm_instance, index.create_provider(scope=parameter_scope)
                )
            )
        context_s = time.perf_counter() - start  # the VM context, its HAL module and the parameters
        # copy_buffer: the bytes object need not be aligned or outlive us.
        start = time.perf_counter()
        self._module = rt.VmModule.copy_buffer(self._config.vm_instance, vmfb)
        self._context.add_vm_module(self._module)
        # The module's initializers: its executables (the driver compiles CUDA
        # PTX here unless its cache has it), globals and recorded commands.
        load_s = time.perf_counter() - start
        self._functions: dict[str, rt.VmFunction] = {}
        self._warned_import = False
        _log.info(
            "nova session on %s: module %s, functions %s; device %.2fs, context %.2fs, module load %.2fs",
            self._uri, self._module.name, self.function_names, device_s, context_s, load_s,
        )

    # -- introspection --------------------------------------------------------

    @property
    def hal_device(self) -> rt.HalDevice:
        return self._device

    @property
    def device_kind(self) -> str:
        """'cpu' or 'cuda'."""
        return self._kind

    @property
    def function_names(self) -> list[str]:
        return [n for n in self._module.function_names if not n.startswith("__")]

    # -- calls ----------------------------------------------------------------

    def invoke(self, name: str, *args: ArgType) -> tuple[Any, ...]:
        """Calls function `name`; returns all results as a tuple.

        Tensor results are device-resident DeviceArrays; scalar results are
        Python numbers.
        """
        fn = self._function(name)
        arg_list = rt.VmVariantList(len(args))
        imported: list[rt.HalBuffer] = []
        if self._kind == "cuda" and any(
            isinstance(a, torch.Tensor) and a.is_cuda for a in args
        ):
            # IREE runs on its own stream: let pending torch writes land.
            torch.cuda.current_stream().synchronize()
        for i, a in enumerate(args):
            try:
                self._push(arg_list, a, imported)
            except (TypeError, ValueError) as e:
                raise type(e)(f"{name}: argument {i}: {e}") from e
        results = rt.VmVariantList(8)  # grows as needed
        self._context.vm_context.invoke(fn, arg_list, results)
        return tuple(self._result(results, i, imported) for i in range(len(results)))

    def invoke_async(
        self, name: str, args: Sequence[ArgType], wait: rt.HalFence, signal: rt.HalFence
    ) -> tuple[Any, ...]:
        """Enqueues coarse-fences function `name` after `wait`; it signals
        `signal`. Returns at once: results are valid once `signal` is reached.
        Torch tensors are imported without a copy and must not be written
        before then (nor, on CUDA, before `wait`: order torch's stream first)."""
        fn = self._function(name)
        arg_list = rt.VmVariantList(len(args) + 2)
        imported: list[rt.HalBuffer] = []
        for i, a in enumerate(args):
            try:
                self._push(arg_list, a, imported)
            except (TypeError, ValueError) as e:
                raise type(e)(f"{name}: argument {i}: {e}") from e
        arg_list.push_ref(wait)
        arg_list.push_ref(signal)
        results = rt.VmVariantList(2)
        self._context.vm_context.invoke(fn, arg_list, results)
        return tuple(self._result(results, i, ()) for i in range(len(results)))

    def function_reflection(self, name: str) -> dict[str, str]:
        """The reflection metadata IREE attached to function `name`."""
        return dict(self._function(name).reflection)

    def zeros(self, shape: Sequence[int], dtype: torch.dtype) -> rt.DeviceArray:
        """A fresh device buffer of zeros, filled by the device (no host or
        torch allocation: e.g. optimizer state before its first step)."""
        bv = rt.HalBufferView(self.allocate(max(1, math.prod(shape) * dtype.itemsize)), list(shape),
                              _element_type(dtype))
        fill = rt.HalCommandBuffer(self._device)
        fill.fill(bv.get_buffer(), np.zeros(1, dtype=np.uint8), end=True)
        self._run_queued(lambda wait, signal: self._device.queue_execute(fill, wait, signal))
        return rt.DeviceArray(self._device, bv, implicit_host_transfer=False)

    def shared_tensor(self, shape: Sequence[int], dtype: torch.dtype) -> tuple[rt.HalBufferView, torch.Tensor]:
        """A fresh IREE buffer and a torch tensor over the same memory.

        For a function's inputs and output storage that torch fills or reads
        on its own stream: IREE owns the memory, so an asynchronous call holds
        no torch allocation and imports nothing per call.
        """
        size = math.prod(shape) * dtype.itemsize
        bv = rt.HalBufferView(self.allocate(max(1, size)), list(shape), _element_type(dtype))
        device_type, device_id = (_KDL_CUDA, self._cuda_index) if self._kind == "cuda" else (_KDL_CPU, 0)
        t = self._export_dlpack(bv, device_type, device_id)
        if t is None:
            raise RuntimeError(f"nova: cannot share a {dtype} buffer of shape {tuple(shape)} with torch")
        return bv, t

    def to_device(self, x: ArgType) -> rt.DeviceArray:
        """Uploads a host tensor/array (e.g. initial parameters) once.

        Always copies, so later in-place changes to `x` (torch init, optimizer
        code) never reach the device-resident value. A CUDA tensor on a CUDA
        session is copied on the device (no host round trip).
        """
        if isinstance(x, rt.DeviceArray):
            return x
        if isinstance(x, torch.Tensor) and x.is_cuda and self._kind == "cuda" and self._zero_copy:
            torch.cuda.current_stream().synchronize()  # pending torch writes land first
            bv = self._import_torch(x, [])
            if bv is not None:
                return rt.DeviceArray(self._device, self._device_copy(bv), implicit_host_transfer=False)
        return rt.DeviceArray(self._device, self._copy_in(x), implicit_host_transfer=False)

    def to_host(self, x: Union[rt.DeviceArray, np.ndarray], copy: bool = True) -> np.ndarray:
        return to_host(x, copy)

    def to_torch(
        self,
        x: rt.DeviceArray,
        copy: bool = True,
        device: Optional[Union[str, torch.device]] = None,
    ) -> torch.Tensor:
        """Device array -> torch tensor, on the session's device by default.

        CUDA: no host round trip. Function results live in IREE's pooled
        allocations, which the CUDA HAL refuses to export ("CUDA buffer type
        is not supported for export"), so we copy the result on the device
        into a fresh allocation and hand that to torch through DLPack. The
        tensor then owns its memory alone; copy=False still needs this copy
        unless the buffer happens to be exportable.
        CPU: copy=True copies through numpy; copy=False aliases IREE's buffer
        through DLPack (do not write to it).
        """
        target = torch.device(device) if device is not None else None
        want_cuda = target.type == "cuda" if target is not None else self._kind == "cuda"
        if want_cuda and self._kind == "cuda" and torch.cuda.is_available():
            t = self._cuda_to_torch(x, copy)
            if t is not None:
                return t if target is None else t.to(target)
        if not want_cuda and self._kind == "cpu" and not copy:
            t = self._export_dlpack(x._buffer_view, _KDL_CPU, 0)
            if t is not None:
                return t
        t = numpy_to_torch(to_host(x, copy=True))
        if target is not None and target.type != "cpu":
            t = t.to(target)
        elif target is None and want_cuda and torch.cuda.is_available():
            t = t.to(f"cuda:{self._cuda_index}")
        return t

    def _cuda_to_torch(self, x: rt.DeviceArray, copy: bool) -> Optional[torch.Tensor]:
        if not copy:
            t = self._export_dlpack(x._buffer_view, _KDL_CUDA, self._cuda_index, quiet=True)
            if t is not None:
                return t
        return self._export_dlpack(self._device_copy(x._buffer_view), _KDL_CUDA, self._cuda_index)

    # -- argument packing -----------------------------------------------------

    def _function(self, name: str) -> rt.VmFunction:
        fn = self._functions.get(name)
        if fn is None:
            fn = self._module.lookup_function(name)
            if fn is None:
                raise KeyError(f"no function {name!r} in module; have {self.function_names}")
            self._functions[name] = fn
        return fn

    def _push(self, arg_list: rt.VmVariantList, a: Any, imported: list) -> None:
        if isinstance(a, rt.DeviceArray):
            # DeviceArray has no public accessor for its buffer view.
            arg_list.push_ref(a._buffer_view.ref)
        elif isinstance(a, (rt.HalBufferView, rt.HalBuffer)):
            arg_list.push_ref(a.ref)
        elif isinstance(a, torch.Tensor):
            bv = self._import_torch(a, imported) if self._zero_copy else None
            arg_list.push_ref((bv if bv is not None else self._copy_in(a)).ref)
        elif isinstance(a, (np.ndarray, np.generic)):
            arg_list.push_ref(self._copy_in(a).ref)
        elif isinstance(a, (bool, int)):
            arg_list.push_int(int(a))
        elif isinstance(a, float):
            arg_list.push_float(a)
        else:
            raise TypeError(f"unsupported argument type {type(a).__name__}")

    def _import_torch(self, t: torch.Tensor, imported: list) -> Optional[rt.HalBufferView]:
        """Zero-copy DLPack import, or None when it does not apply/fails."""
        if (t.device.type == "cuda") != (self._kind == "cuda"):
            return None
        if t.device.type not in ("cpu", "cuda"):
            return None
        t = t.detach().resolve_conj().resolve_neg().contiguous()
        try:
            bv = self._device.from_dlpack_capsule(torch.utils.dlpack.to_dlpack(t))
        except (ValueError, IndexError, RuntimeError) as e:
            # Typically: storage not 64-byte aligned (tensor views at offsets).
            log = _log.info if self._warned_import else _log.warning
            self._warned_import = True
            log("nova: DLPack import of %s %s tensor failed (%s); copying", t.device, t.dtype, e)
            return None
        imported.append(bv.get_buffer())
        return bv

    def _copy_in(self, a: Any) -> rt.HalBufferView:
        """A new device buffer holding a copy of a host array/tensor."""
        if isinstance(a, torch.Tensor):
            host = torch_to_numpy(a.detach().cpu())
        else:
            # Not np.ascontiguousarray: it turns 0-d arrays into 1-d.
            host = np.asarray(a, order="C")
        element_type = rt.array_interop.map_dtype_to_element_type(host.dtype)
        if element_type is None:
            raise TypeError(f"dtype {host.dtype} has no IREE element type")
        bv = self._device.allocator.allocate_buffer_copy(
            memory_type=rt.MemoryType.DEVICE_LOCAL,
            allowed_usage=rt.BufferUsage.DEFAULT,
            device=self._device,
            buffer=host,
            element_type=element_type,
        )
        assert isinstance(bv, rt.HalBufferView)
        return bv

    # -- results --------------------------------------------------------------

    def _result(self, results: rt.VmVariantList, i: int, imported: Sequence[rt.HalBuffer]) -> Any:
        value = results.get_variant(i)
        if not isinstance(value, rt.VmRef):
            return value  # scalar result
        bv = value.deref(rt.HalBufferView, True)
        if bv is None:
            raise TypeError(f"result {i} is a {value}, not a buffer view")
        if imported and any(bv.get_buffer() == b for b in imported):
            bv = self._device_copy(bv)
        return rt.DeviceArray(self._device, bv, implicit_host_transfer=False)

    def _device_copy(self, src: rt.HalBufferView) -> rt.HalBufferView:
        """Copies a buffer view into a fresh device buffer (device-side DMA)."""
        # queue_copy copies the whole source buffer; imported buffers are
        # whole allocations, so the view starts at offset 0.
        dst = self.allocate(src.get_buffer().byte_length())
        self._run_queued(
            lambda wait, signal: self._device.queue_copy(
                src.get_buffer(), dst, wait_semaphores=wait, signal_semaphores=signal
            )
        )
        return rt.HalBufferView(dst, src.shape, src.element_type)

    def _run_queued(self, submit: Callable[[rt.HalFence, rt.HalFence], None]) -> None:
        """Enqueues `submit(wait, signal)` on the device (its wait already
        reached) and waits until it has run."""
        sem = self._device.create_semaphore(0)
        submit(rt.HalFence.create_at(sem, 0), rt.HalFence.create_at(sem, 1))
        rt.HalFence.create_at(sem, 1).wait()

    def allocate(self, size: int) -> rt.HalBuffer:
        """A fresh (unpooled, so exportable) device buffer of `size` bytes."""
        return self._device.allocator.allocate_buffer(
            memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT, allocation_size=size
        )

    def _export_dlpack(
        self, bv: rt.HalBufferView, device_type: int, device_id: int, quiet: bool = False
    ) -> Optional[torch.Tensor]:
        try:
            capsule = self._device.create_dlpack_capsule(bv, device_type, device_id)
            return torch.utils.dlpack.from_dlpack(capsule)
        except (ValueError, RuntimeError, TypeError) as e:
            (_log.debug if quiet else _log.warning)("nova: DLPack export failed (%s)", e)
            return None
