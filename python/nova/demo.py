"""`make demo`: train a small GPT on CPU with nova.jit next to eager PyTorch.

Both start from the same weights and see the same byte-level batches of a
short text; the table shows their losses side by side and the throughput of
each after Nova's one-time compile.
"""

from __future__ import annotations

import argparse
import copy
import time

import torch

import nova
from nova.models import make_gpt

TEXT = (
    "Nova captures the whole training step, forward, backward and optimizer "
    "update, as one program, optimizes it as a whole and runs it on IREE. "
    "Each distinct step is compiled exactly once. "
) * 8


def batches(batch: int, seq_len: int, steps: int, seed: int = 0) -> list[tuple[torch.Tensor, torch.Tensor]]:
    data = torch.tensor(list(TEXT.encode()), dtype=torch.long)
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(steps):
        starts = torch.randint(0, len(data) - seq_len - 1, (batch,), generator=g)
        idx = torch.stack([data[s : s + seq_len] for s in starts])
        tgt = torch.stack([data[s + 1 : s + seq_len + 1] for s in starts])
        out.append((idx, tgt))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=8)
    args = parser.parse_args(argv)

    torch.manual_seed(0)
    eager_model = make_gpt("gpt-tiny")
    seq_len = eager_model.seq_len
    nova_model = copy.deepcopy(eager_model)
    eager_opt = torch.optim.AdamW(eager_model.parameters(), lr=3e-3)
    nova_opt = torch.optim.AdamW(nova_model.parameters(), lr=3e-3)
    step = nova.jit(nova_model, nova_opt)
    data = batches(args.batch, seq_len, args.steps)
    tokens = args.batch * seq_len

    print(f"{'step':>4}  {'eager loss':>10}  {'nova loss':>10}")
    eager_time = nova_time = 0.0
    for i, (idx, tgt) in enumerate(data):
        t0 = time.perf_counter()
        eager_loss = eager_model(idx, tgt)
        eager_loss.backward()
        eager_opt.step()
        eager_opt.zero_grad(set_to_none=True)
        t1 = time.perf_counter()
        nova_loss = step(idx, tgt)
        t2 = time.perf_counter()
        if i > 0:  # the first Nova step includes compilation
            eager_time += t1 - t0
            nova_time += t2 - t1
        if i % 5 == 0 or i == len(data) - 1:
            print(f"{i:>4}  {eager_loss.item():>10.4f}  {float(nova_loss):>10.4f}")
    measured = tokens * (len(data) - 1)
    info = nova.cache_info()
    print(f"eager: {measured / eager_time:,.0f} tokens/s")
    print(
        f"nova:  {measured / nova_time:,.0f} tokens/s  (first step compiled in {info.compile_seconds:.1f}s; "
        f"cache: {info.misses} miss, {info.hits} hits)"
    )


if __name__ == "__main__":
    main()
