"""Data-parallel training (issue: gradient all-reduce placed by the
compiler). What the CPU can check: the world read from a launcher's
environment, the capture marking every gradient with nova::all_reduce, the
compiled IR (buckets where the gradients are made, IREE collectives on a
channel made once, none for a world of one), iree-compile accepting the
collectives for CPU and CUDA, and the launcher running a one-rank training
like eager. More ranks need GPUs (IREE's CPU HAL has no collectives).
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

import nova
from nova import capture, distributed
from nova.models import MLP
from nova.pipeline import lower_to_iree_input
from nova.runtime.iree_compile import compile_to_vmfb


@pytest.fixture(autouse=True)
def _fresh_cache(fresh_cache: None) -> None:
    """Every test here compiles into a cache of its own."""


def _mlp_step(world_size: int) -> capture.CapturedGraph:
    torch.manual_seed(0)
    model = MLP(32, 64, 10)
    batch = (torch.randn(8, 32), torch.randint(0, 10, (8,)))
    return capture.capture_train_step(
        model, torch.optim.AdamW(model.parameters()), F.cross_entropy, batch, world_size=world_size
    )


@pytest.mark.parametrize(
    "env,expected",
    [
        ({}, distributed.World(0, 1, 0)),
        ({"RANK": "2", "WORLD_SIZE": "4", "LOCAL_RANK": "0"}, distributed.World(2, 4, 0)),
        ({"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_RANK": "1"},
         distributed.World(1, 2, 1)),
        ({"PMI_RANK": "3", "PMI_SIZE": "8"}, distributed.World(3, 8, 3)),
    ],
    ids=["none", "torchrun", "openmpi", "pmi"],
)
def test_world_from_the_launchers_environment(monkeypatch, env, expected):
    for rank, size, local in distributed._LAUNCHER_VARIABLES:
        for var in (rank, size, local):
            monkeypatch.delenv(var, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert distributed.world() == expected


def test_bad_world_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "2")
    with pytest.raises(ValueError, match="RANK=2 is not a rank of WORLD_SIZE=2"):
        distributed.world()


def test_shard_gives_each_rank_its_part():
    x = torch.arange(12).reshape(6, 2)
    parts = [distributed.shard(x, of=distributed.World(r, 3, r))[0] for r in range(3)]
    assert torch.equal(torch.cat(parts), x)
    with pytest.raises(ValueError, match="does not split into 4 equal parts"):
        distributed.shard(x, of=distributed.World(0, 4, 0))


def test_capture_averages_every_gradient_over_the_world():
    single, dp = _mlp_step(1), _mlp_step(2)
    reduces = [n for n in dp.graph_module.graph.nodes if n.target is torch.ops.nova.all_reduce.default]
    assert len(reduces) == len(dp.train_layout.param_names) and all(n.args[1] == "mean" for n in reduces)
    assert not any(n.target is torch.ops.nova.all_reduce.default for n in single.graph_module.graph.nodes)
    # Run eagerly outside torch.distributed the all-reduce is a world of one:
    # the same step.
    torch.manual_seed(0)
    model = MLP(32, 64, 10)
    opt = torch.optim.AdamW(model.parameters())
    inputs = capture.train_step_inputs(dp, model, opt, (torch.randn(8, 32), torch.randint(0, 10, (8,))))
    for a, b in zip(dp.graph_module(*inputs), single.graph_module(*inputs)):
        torch.testing.assert_close(a, b)


def test_compiled_step_buckets_the_all_reduces():
    from nova.importer import import_to_torch_mlir

    captured = _mlp_step(2)
    torch_text = import_to_torch_mlir(captured)
    text = lower_to_iree_input(torch_text, target="cpu", world_size=2)
    # The four gradients (40 KiB together) fit one 25 MiB bucket: one
    # collective on the channel global the initializer makes.
    assert text.count('"flow.collective.all_reduce"') == 1
    assert text.count('"flow.channel.default"') == 1
    assert '"util.initializer"' in text
    assert compile_to_vmfb(text, "cpu")
    assert compile_to_vmfb(lower_to_iree_input(torch_text, target="cuda:sm_90", world_size=2), "cuda:sm_90")
    # A world of one has no collective.
    assert "flow.collective" not in lower_to_iree_input(torch_text, target="cpu", world_size=1)


def test_data_parallel_step_on_the_cpu_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "0")
    model = MLP(32, 64, 10)
    step = nova.jit(model, torch.optim.SGD(model.parameters(), lr=0.1), F.cross_entropy)
    with pytest.raises(NotImplementedError, match="over 2 ranks needs CUDA"):
        step(torch.randn(8, 32), torch.randint(0, 10, (8,)))


def test_launcher_runs_a_one_rank_training_like_eager(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import copy, sys
        import torch, torch.nn.functional as F
        import nova
        from nova.models import MLP

        world = nova.distributed.world()
        assert (world.rank, world.size) == (0, 1), world
        nova.distributed.seed(0)
        model = MLP(32, 64, 10)
        eager = copy.deepcopy(model)
        step = nova.jit(model, torch.optim.SGD(model.parameters(), lr=0.1), F.cross_entropy)
        eager_opt = torch.optim.SGD(eager.parameters(), lr=0.1)
        for _ in range(3):
            x, y = torch.randn(16, 32), torch.randint(0, 10, (16,))
            x, y = nova.distributed.shard(x, y)
            loss = F.cross_entropy(eager(x), y)
            loss.backward()
            eager_opt.step()
            eager_opt.zero_grad()
            assert abs(float(step(x, y)) - float(loss)) <= 1e-5 * float(loss)
        print("rank", world.rank, "ok")
    """))
    result = subprocess.run(
        [sys.executable, "-m", "nova.distributed", "--nproc", "1", str(script)],
        capture_output=True, text=True, env={**os.environ, "NOVA_PROGRESS": "0"}, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "rank 0 ok" in result.stdout


def test_launcher_starts_every_rank_and_reports_failures(tmp_path: Path):
    script = tmp_path / "ranks.py"
    script.write_text(textwrap.dedent("""
        import os, sys
        import nova
        world = nova.distributed.world()
        print(f"rank {world.rank} of {world.size} port {os.environ['MASTER_PORT']}")
        sys.exit(3 if world.rank == 1 else 0)
    """))
    result = subprocess.run(
        [sys.executable, "-m", "nova.distributed", "--nproc", "3", str(script)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 3
    lines = sorted(line for line in result.stdout.splitlines() if line.startswith("rank"))
    assert [line.split(" port")[0] for line in lines] == ["rank 0 of 3", "rank 1 of 3", "rank 2 of 3"], result.stderr
    assert len({line.split("port ")[1] for line in lines}) == 1
    assert "rank 1 exited with 3" in result.stderr
