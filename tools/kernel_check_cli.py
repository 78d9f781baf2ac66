"""The command line the kernel checks share: `prepare` (build box: compile
the cases into a folder) and `run` (GPU box: check and time them), and the
loop over the cases of a run."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def run_cases(
    cases: list[dict[str, Any]],
    first_row: Callable[[dict[str, Any]], dict[str, Any]],
    check: Callable[[dict[str, Any], dict[str, Any]], None],
) -> int:
    """Checks every case: `check(case, row)` fills the JSON line `first_row`
    starts, "ok" included. A case that raises is reported failed with its
    error and the others still run; the last line counts the failures, and
    the exit status is 1 if any."""
    failed = 0
    for case in cases:
        row = first_row(case)
        try:
            check(case, row)
        except Exception as e:  # a failed case is reported, the others still run
            row.update(ok=False, error=f"{type(e).__name__}: {e}"[:400])
        failed += not row["ok"]
        print(json.dumps(row), flush=True)
    print(json.dumps({"cases": len(cases), "failed": failed}))
    return 1 if failed else 0


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
