"""A compiled train step with its state in the module (the ABI of
`convert-train-step-to-iree`): `load_state`, `read_state` (the globals,
with where each state tensor lies in them as reflection) and the
asynchronous `step(hypers, batch..., loss storage)`.

The params, buffers and optimizer state are globals of the module, updated in
place by each step; Python holds none of them. `step()` enqueues and returns
the loss as a torch tensor: on CUDA it is ordered with torch's current stream
(see `ordering`), so reading it waits as in eager; on the CPU the call waits
for the step before it returns.

The step's inputs and loss live in IREE buffers made once per program
(`Session.shared_tensor`): torch copies the batch in and the loss out on its
own stream, so a call imports no torch memory and IREE never holds a torch
allocation.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from collections.abc import Sequence

import torch

from .ordering import CudaStreamTimeline, Timeline, timeline_for
from .session import Session

_log = logging.getLogger(__name__)

__all__ = ["TrainProgram", "Zeros", "transient_bytes"]


@dataclasses.dataclass(frozen=True)
class Zeros:
    """A state tensor of zeros (optimizer state before its first step),
    made on the device by `load_state` instead of uploaded."""

    shape: tuple[int, ...]
    dtype: torch.dtype


def transient_bytes(reflection: dict[str, str]) -> int | None:
    """The size of @step's caller-provided transient storage from its IREE
    reflection; None when the step allocates its own (compiled with
    transients=false)."""
    size = reflection.get("iree.abi.transients.size.constant")
    if size is None:
        if any("transients" in key for key in reflection):
            raise ValueError("the step's transient storage has no constant size (static shapes are required)")
        return None
    return int(size)


class TrainProgram:
    """One loaded train-step module. `num_state` tensors (params, buffers,
    optimizer state, in signature order) live in its globals."""

    def __init__(self, session: Session, num_state: int, loss_dtype: torch.dtype = torch.float32) -> None:
        self.session = session
        self.num_state = num_state
        self.loss_dtype = loss_dtype
        self.timeline: Timeline = timeline_for(session.device_kind, session.hal_device)
        self._cuda = session.device_kind == "cuda"
        self._io: _StepIO | None = None  # made at the first step, from its batch
        self._state_layout: list | None = None  # read_state's reflection, read once

    def load_state(self, tensors: Sequence[torch.Tensor | Zeros]) -> None:
        """Copies `tensors` into the module's globals (after pending steps);
        `Zeros` entries are made on the device."""
        if len(tensors) != self.num_state:
            raise ValueError(f"load_state: expected {self.num_state} tensors, got {len(tensors)}")
        self.timeline.wait()
        self.session.invoke(
            "load_state",
            *[self.session.zeros(t.shape, t.dtype) if isinstance(t, Zeros) else self.session.to_device(t)
              for t in tensors],
        )

    def read_state(self) -> list[torch.Tensor]:
        """The state tensors (signature order) as torch tensors, after pending
        steps: copies of the globals, a packed one's tensors as views of it."""
        self.timeline.wait()
        if self._state_layout is None:
            self._state_layout = json.loads(self.session.function_reflection("read_state")["nova.state_layout"])
        state: list[torch.Tensor | None] = [None] * self.num_state
        for global_, held in zip(self.session.invoke("read_state"), self._state_layout, strict=True):
            value = self.session.to_torch(global_)
            if isinstance(held, int):
                state[held] = value
                continue
            for index, offset, shape in held:
                state[index] = value[offset : offset + math.prod(shape)].view(shape)
        if any(t is None for t in state):
            raise ValueError("read_state: the module's state layout does not cover every state tensor")
        return state  # type: ignore[return-value]

    def step(self, hypers: Sequence[float], batch: Sequence[torch.Tensor]) -> torch.Tensor:
        """Enqueues one step; returns its loss (see the module doc)."""
        if self._io is None:
            reflection = self.session.function_reflection("step")
            gate = reflection.get("nova.step_gate")
            if gate not in (None, "ready,done"):
                raise ValueError(f"nova: the step's gate {gate!r} is not this runtime's (ready,done): recompile it")
            self._io = _StepIO(self.session, len(hypers), batch, self.loss_dtype, transient_bytes(reflection),
                               gated=gate is not None)
        io = self._io
        io.write_hypers(hypers)
        for staged, b in zip(io.batch, batch):
            if staged.shape != b.shape or staged.dtype != b.dtype:
                raise ValueError(f"nova: batch input {tuple(b.shape)} {b.dtype} does not match the compiled "
                                 f"step's {tuple(staged.shape)} {staged.dtype}")
            staged.copy_(b, non_blocking=True)
        wait, signal = self.timeline.begin(io.ready_word)
        self.session.invoke_async("step", io.views, wait, signal)
        self.timeline.commit(io.done_address)
        if not isinstance(self.timeline, CudaStreamTimeline):
            self.timeline.wait()
        # Ordered after the step on torch's stream; the next step's copy-in is ordered after this.
        return io.loss.clone()

    def wait(self) -> None:
        """Blocks until every enqueued step has completed."""
        self.timeline.wait()


class _StepIO:
    """The step's hyperparameters, batch and loss storage: IREE buffers with
    torch views, reused by every step of one program."""

    # Pinned host slots the hyperparameters are copied from, in turn: made
    # once, because pinning memory while torch's stream waits for a step can
    # stall the host (cudaHostAlloc), and a slot is rewritten only after its
    # last copy has run.
    _HOST_SLOTS = 4

    def __init__(self, session: Session, num_hypers: int, batch: Sequence[torch.Tensor], loss_dtype: torch.dtype,
                 transients: int | None, gated: bool = False) -> None:
        hypers_bv, self.hypers = session.shared_tensor((num_hypers,), torch.float32)
        self._cuda = session.device_kind == "cuda"
        self._host = torch.empty((self._HOST_SLOTS, num_hypers), dtype=torch.float32, pin_memory=self._cuda)
        self._host_values = self._host.numpy()  # written by numpy: no torch op
        self._copied = [torch.cuda.Event() if self._cuda else None for _ in range(self._HOST_SLOTS)]
        self._slot = 0
        shared = [session.shared_tensor(tuple(b.shape), b.dtype) for b in batch]
        self.batch = [t for _, t in shared]
        loss_bv, self.loss = session.shared_tensor((), loss_dtype)
        # The step's arguments: hypers, batch...[, ready], loss storage[,
        # done storage][, transient storage: one buffer reused by every step,
        # as they run in order]. A gated step waits on the device until
        # torch's stream has written its number into `ready`, and writes it
        # into `done` once its loss is in (see `ordering`).
        self.views: list = [hypers_bv, *(bv for bv, _ in shared)]
        self.ready_word: torch.Tensor | None = None
        self.done_word: torch.Tensor | None = None
        if gated:
            (ready_bv, self.ready_word), (done_bv, self.done_word) = (
                session.shared_tensor((1,), torch.int32) for _ in range(2))
            self.ready_word.zero_()
            self.done_word.zero_()
            self.views.append(ready_bv)
        self.views.append(loss_bv.get_buffer())
        if gated:
            self.views.append(done_bv.get_buffer())
        if transients is not None:
            self.views.append(session.allocate(max(1, transients)))

    @property
    def done_address(self) -> int | None:
        return None if self.done_word is None else self.done_word.data_ptr()

    def write_hypers(self, values: Sequence[float]) -> None:
        """Copies `values` into the hyperparameter buffer, on torch's stream."""
        slot, self._slot = self._slot, (self._slot + 1) % self._HOST_SLOTS
        if self._cuda:
            self._copied[slot].synchronize()  # long done: the copy of HOST_SLOTS steps ago
        self._host_values[slot] = values
        self.hypers.copy_(self._host[slot], non_blocking=self._cuda)
        if self._cuda:
            self._copied[slot].record()
