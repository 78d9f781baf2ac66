#!/usr/bin/env bash
# A/B of the recomputation folded into the backward kernels (bench-artifacts)
# against standalone recomputation launches (bench-artifacts-prev, cafcc84's
# compiler), same run: both checks against eager first, then Nova's rows from
# each, torch.compile + SDPA's gpt-42m bf16 row, and the gpt-42m tf32 profile.
# Results: $OUT/fold.jsonl and $OUT/fold.log.
set -uo pipefail
. tools/device/gpu-env.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp}/fold.jsonl
b() { python3 -m nova.cli bench "$@" --json-out "$out"; }
{
  b check --artifacts bench-artifacts --model gpt-42m --dtype bf16 --batch 32 --steps 12
  b check --artifacts bench-artifacts --model gpt-42m --dtype tf32 --batch 32 --steps 12
  for a in bench-artifacts bench-artifacts-prev; do
    # rows name the commit their artifacts were built at
    commit=$(cat $a/.commit 2>/dev/null || cat .nova-commit)
    for m in "gpt-42m bf16 32" "gpt-42m tf32 32" "gpt-146m bf16 16"; do
      set -- $m
      NOVA_COMMIT=$commit b train --artifacts $a --model $1 --dtype $2 --batch $3 --modes nova
    done
  done
  b train --artifacts bench-artifacts --model gpt-42m --dtype bf16 --batch 32 --modes compile-sdpa
  b profile --artifacts bench-artifacts --model gpt-42m --dtype tf32 --batch 32 --steps 2 --top 12
  python3 -m nova.cli bench report "$out"
} 2>&1 | tee "${OUT:-/tmp}/fold.log"
