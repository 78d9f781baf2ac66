"""A compiled train step with its state in the module (the ABI of
`convert-train-step-to-iree`): `load_state`, `read_state` and the
asynchronous `step(hypers, batch..., loss storage)`.

The params, buffers and optimizer state are globals of the module, updated in
place by each step; Python holds none of them. `step()` enqueues and returns
the loss as a torch tensor written by the step: on CUDA it is ordered with
torch's current stream (see `ordering`), so reading it waits as in eager; on
the CPU the call waits for the step before it returns.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import torch

from .ordering import CudaStreamTimeline, Timeline, timeline_for
from .session import Session

_log = logging.getLogger(__name__)

__all__ = ["TrainProgram"]


class TrainProgram:
    """One loaded train-step module. `num_state` tensors (params, buffers,
    optimizer state, in signature order) live in its globals."""

    def __init__(self, session: Session, num_state: int, loss_dtype: torch.dtype = torch.float32) -> None:
        self.session = session
        self.num_state = num_state
        self.loss_dtype = loss_dtype
        self.timeline: Timeline = timeline_for(session.device_kind, session.hal_device)
        self._cuda = session.device_kind == "cuda"
        self._device = torch.device("cuda", torch.cuda.current_device()) if self._cuda else torch.device("cpu")

    def load_state(self, tensors: Sequence[torch.Tensor]) -> None:
        """Copies `tensors` into the module's globals (after pending steps)."""
        if len(tensors) != self.num_state:
            raise ValueError(f"load_state: expected {self.num_state} tensors, got {len(tensors)}")
        self.timeline.wait()
        self.session.invoke("load_state", *[self.session.to_device(t) for t in tensors])

    def read_state(self) -> list[torch.Tensor]:
        """Copies of the globals as torch tensors, after pending steps."""
        self.timeline.wait()
        return [self.session.to_torch(x) for x in self.session.invoke("read_state")]

    def step(self, hypers: Sequence[float], batch: Sequence[torch.Tensor]) -> torch.Tensor:
        """Enqueues one step; returns its loss (see the module doc)."""
        hyper_host = torch.tensor(list(hypers), dtype=torch.float32)
        if self._cuda:
            # Through torch's stream, so the step's wait on it covers the copy.
            hyper_tensor = hyper_host.pin_memory().to(self._device, non_blocking=True)
            batch = [b if b.is_cuda else b.to(self._device, non_blocking=True) for b in batch]
        else:
            hyper_tensor = hyper_host
        loss = torch.empty((), dtype=self.loss_dtype, device=self._device)
        wait, signal = self.timeline.begin()
        self.session.invoke_async(
            "step", [hyper_tensor, *batch, self.session.storage_buffer(loss)], wait, signal
        )
        self.timeline.commit()
        if not isinstance(self.timeline, CudaStreamTimeline):
            self.timeline.wait()
        return loss

    def wait(self) -> None:
        """Blocks until every enqueued step has completed."""
        self.timeline.wait()
