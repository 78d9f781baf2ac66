"""Data-parallel training: the world a process belongs to, and a launcher.

    python -m nova.distributed --nproc N script.py [args...]

starts N copies of the script, one per GPU, with torchrun's environment
(RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT); `nova.jit` reads
the world from it (or from an MPI launcher's OMPI_COMM_WORLD_* / PMI_*
variables) and compiles a step that averages each gradient over the ranks:
the compiler buckets the all-reduces where the backward produces the
gradients and lowers them to IREE's collectives. A script calls
`nova.distributed.seed(s)` so every rank initializes the same model, and
trains on its own part of each global batch (`shard`).

IREE 3.13 sets up NCCL for its CUDA HAL through an MPI channel provider:
more than one rank needs an MPI runtime (libmpi) and a launcher that sets
its variables; IREE's CPU HAL has no collectives, so on the CPU the world
is one rank.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Sequence

import torch
from torch import Tensor

__all__ = ["World", "world", "seed", "shard", "main"]

log = logging.getLogger(__name__)

# (rank, size, local rank) variables of the launchers Nova understands.
_LAUNCHER_VARIABLES = (
    ("RANK", "WORLD_SIZE", "LOCAL_RANK"),  # torchrun, nova.distributed
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),  # Open MPI
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"),  # MPICH / Hydra
)


@dataclasses.dataclass(frozen=True)
class World:
    """This process's place in the data-parallel group."""

    rank: int = 0
    size: int = 1
    local_rank: int = 0


def world() -> World:
    """The world this process was launched into (one rank without a launcher)."""
    for rank_var, size_var, local_var in _LAUNCHER_VARIABLES:
        if size_var in os.environ:
            try:
                size = int(os.environ[size_var])
                rank = int(os.environ.get(rank_var, "0"))
                local = int(os.environ.get(local_var, str(rank)))
            except ValueError as e:
                raise ValueError(f"nova.distributed: malformed {rank_var}/{size_var}/{local_var}: {e}") from None
            if size < 1 or not 0 <= rank < size:
                raise ValueError(f"nova.distributed: {rank_var}={rank} is not a rank of {size_var}={size}")
            return World(rank, size, local)
    return World()


def seed(value: int) -> None:
    """Seeds torch identically on every rank (the same initial model)."""
    torch.manual_seed(value)


def shard(*tensors: Tensor, of: World | None = None) -> tuple[Tensor, ...]:
    """This rank's part of each global-batch tensor: equal slices along dim 0."""
    w = of or world()
    parts = []
    for i, t in enumerate(tensors):
        if t.dim() == 0 or t.shape[0] % w.size:
            raise ValueError(f"nova.distributed.shard: batch input {i} of shape {tuple(t.shape)} does not split "
                             f"into {w.size} equal parts along dim 0")  # fmt: skip
        n = t.shape[0] // w.size
        parts.append(t[w.rank * n : (w.rank + 1) * n])
    return tuple(parts)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nova.distributed", description="Run a training script on N ranks (one per GPU)."
    )
    parser.add_argument("--nproc", type=int, required=True, help="ranks (processes) to start")
    parser.add_argument("script", help="the training script")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    ns = parser.parse_args(argv)
    if ns.nproc < 1:
        parser.error("--nproc must be at least 1")
    port = str(_free_port())
    procs = []
    for rank in range(ns.nproc):
        env = {
            **os.environ,
            "RANK": str(rank),
            "LOCAL_RANK": str(rank),
            "WORLD_SIZE": str(ns.nproc),
            "LOCAL_WORLD_SIZE": str(ns.nproc),
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": port,
        }
        procs.append(subprocess.Popen([sys.executable, ns.script, *ns.args], env=env))
    codes = [p.wait() for p in procs]
    failed = [(rank, code) for rank, code in enumerate(codes) if code]
    for rank, code in failed:
        log.error("nova.distributed: rank %d exited with %d", rank, code)
    return failed[0][1] if failed else 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    sys.exit(main())
