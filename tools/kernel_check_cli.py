"""The command line the kernel checks share: `prepare` (build box: compile
the cases into a folder) and `run` (GPU box: check and time them)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def main(
    doc: str,
    prepare: Callable[[Path, str], None],
    run: Callable[[Path, int], int],
    folder: str,
    iters: int,
) -> int:
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--out", type=Path, default=Path("bench-artifacts") / folder)
    p.add_argument("--target", default="cuda:sm_90")
    r = sub.add_parser("run")
    r.add_argument("--dir", type=Path, default=Path("bench-artifacts") / folder)
    r.add_argument("--iters", type=int, default=iters)
    args = parser.parse_args()
    if args.cmd == "prepare":
        prepare(args.out, args.target)
        return 0
    return run(args.dir, args.iters)
