"""The `nova` command line: export a training step (and, later, benchmarks)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import torch


def _export(args: argparse.Namespace) -> None:
    from nova.export import example_training_setup, export_train_step

    model, optimizer, batch, loss_fn = example_training_setup(args.model, args.optimizer, args.batch)
    autocast = torch.bfloat16 if args.dtype == "bf16" else None
    out = export_train_step(
        model, optimizer, batch, Path(args.out), target=args.target, loss_fn=loss_fn, autocast_dtype=autocast
    )
    print(f"wrote {out}/step.vmfb, state.irpa and step.json; run it with: iree-run-module --flagfile={out}/step.flags")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:
        from nova.bench import main as bench_main

        bench_main(argv[1:])
        return
    parser = argparse.ArgumentParser(prog="nova", description="Nova: whole-training-step compiler for PyTorch")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    commands = parser.add_subparsers(dest="command", required=True)

    export = commands.add_parser("export", help="write a model's training step: .vmfb, parameter archive, JSON signature, flag file")
    export.add_argument("--model", default="gpt-tiny", help="mlp or a GPT config name (gpt-tiny, gpt-42m, gpt-146m)")
    export.add_argument("--optimizer", default="adamw", choices=["sgd", "adam", "adamw"])
    export.add_argument("--batch", type=int, default=4)
    export.add_argument("--dtype", default="f32", choices=["f32", "bf16"])
    export.add_argument("--target", default="cpu", help="cpu, cuda:sm_80, cuda:sm_89, cuda:sm_90")
    export.add_argument("--out", required=True, help="output directory")
    export.set_defaults(run=_export)
    commands.add_parser("bench", help="benchmarks next to torch eager and torch.compile (see `nova bench -h`)")

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    args.run(args)


if __name__ == "__main__":
    main()
