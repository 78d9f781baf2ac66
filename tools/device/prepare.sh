#!/usr/bin/env bash
# On the build box: compiles what the phases of tools/device/bench-h200.sh read.
#   bench-artifacts     gpt-42m bf16/tf32 (B32) and gpt-146m bf16 (B16) steps, the
#                       bf16 and tf32 matmul sweeps, the attention cases, and every
#                       kernel check (GEMM, attention, AdamW, cross-entropy, fused rows)
#   bench-artifacts-staged  (with `staged`) the two bf16 steps compiled with
#                       NOVA_EPILOGUE_STAGED=1 (the GELU backward in fc2's input-
#                       gradient epilogue) and the fused-rows check (phase preload)
#   bench-artifacts-rows  (with `rows`) the three steps and the fused-rows check
#                       at HEAD (an A/B of row-kernel changes against
#                       bench-artifacts from an earlier commit: phase preload)
#   bench-artifacts-sm  (with `sm`) the GEMM check, the bf16 matmul sweep and the bf16
#                       steps again, compiled with NOVA_GEMM_STMATRIX=1 (the A/B of
#                       phases sm-kernels and sm-rows)
#   bench-artifacts-unpacked  (with `unpacked`) the three steps again, compiled
#                       with NOVA_PACK_STATE=0 (the A/B of phase pack-rows)
#   bench-artifacts-static  (with `static`) the gpt-42m steps again, compiled
#                       with NOVA_ATTENTION_HEAD_GROUPS=0 (attention in its
#                       static block-major order: the A/B of phase hg)
#   bench-artifacts-gate  (with `gate`) the three steps again, compiled with
#                       NOVA_STEP_TRANSIENTS=1 (gated steps, the CUDA default
#                       since 144a82f: phases issued, quick)
#   bench-artifacts-blocking  (with `blocking`) the three steps again, compiled
#                       with NOVA_STEP_TRANSIENTS=0 (IREE's blocking calls)
#   bench-artifacts-limit  (with `limit`) gpt-146m bf16 B24 compiled with
#                       NOVA_MEMORY_LIMIT_GIB=10.4 (its head in chunks: phase issued)
#   bench-artifacts-ce  (with `ce`) the three steps and the cross-entropy check
#                       alone, at HEAD (phase cefused: against bench-artifacts
#                       from an earlier commit)
# Each set compiles with an empty kernel cache of its own. Then carry
# [".whl", "bench-artifacts", "bench-artifacts-<set>", ".nova-commit"] (64 MiB in all).
#   tools/device/prepare.sh [staged] [rows] [sm] [unpacked] [static] [gate] [blocking] [limit] [ce]
# With NOVA_PREPARE_BASE=0, bench-artifacts is left as it is (only the sets named).
set -euo pipefail
cd "$(dirname "$0")/../.."
nova=.venv/bin/nova
py=.venv/bin/python
target=cuda:sm_90
git rev-parse --short HEAD > .nova-commit
# The GPU box's runtime side (Python 3.12, no network): IREE's runtime and ml_dtypes.
ls .whl/iree_base_runtime-3.13.0-*.whl .whl/ml_dtypes-0.5.4-*.whl >/dev/null 2>&1 ||
  "$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 -d .whl \
    iree-base-runtime==3.13.0 ml_dtypes==0.5.4

prepare_steps() { # out: the three steps alone, under the caller's environment
  rm -rf "$1"
  "$nova" bench prepare --models gpt-42m --dtypes bf16 tf32 --batch 32 --target $target --out "$1"
  "$nova" bench prepare --models gpt-146m --dtypes bf16 --batch 16 --target $target --out "$1"
  cp .nova-commit "$1/.commit"
}

prepare_set() { # out, then the models' dtypes
  local out=$1
  shift
  rm -rf "$out"
  "$nova" bench prepare --models gpt-42m --dtypes "$@" --batch 32 --matmul --target $target --out "$out"
  "$nova" bench prepare --models gpt-146m --dtypes bf16 --batch 16 --target $target --out "$out"
  "$py" tools/gemm_check.py prepare --out "$out/gemm-check" --target $target
  cp .nova-commit "$out/.commit"
}

if [ "${NOVA_PREPARE_BASE:-1}" != 0 ]; then
  NOVA_CACHE_DIR=$(mktemp -d) prepare_set bench-artifacts bf16 tf32
  NOVA_CACHE_DIR=$(mktemp -d) "$nova" bench prepare --attention --models --target $target --out bench-artifacts
  for check in attention adamw cross_entropy fused_rows; do
    "$py" tools/${check}_check.py prepare --out "bench-artifacts/${check//_/-}-check" --target $target
  done
fi
for set in "$@"; do
  case $set in
    sm) NOVA_GEMM_STMATRIX=1 NOVA_CACHE_DIR=$(mktemp -d) prepare_set bench-artifacts-sm bf16 ;;
    staged)
      rm -rf bench-artifacts-staged
      (
        export NOVA_EPILOGUE_STAGED=1 NOVA_CACHE_DIR=$(mktemp -d)
        "$nova" bench prepare --models gpt-42m --dtypes bf16 --batch 32 --target $target --out bench-artifacts-staged
        "$nova" bench prepare --models gpt-146m --dtypes bf16 --batch 16 --target $target --out bench-artifacts-staged
        "$py" tools/fused_rows_check.py prepare --out bench-artifacts-staged/fused-rows-check --target $target
      )
      cp .nova-commit bench-artifacts-staged/.commit ;;
    rows)
      NOVA_CACHE_DIR=$(mktemp -d) prepare_steps bench-artifacts-rows
      "$py" tools/fused_rows_check.py prepare --out bench-artifacts-rows/fused-rows-check --target $target
      ;;
    unpacked)
      NOVA_PACK_STATE=0 NOVA_CACHE_DIR=$(mktemp -d) prepare_steps bench-artifacts-unpacked ;;
    static)
      rm -rf bench-artifacts-static
      (
        export NOVA_ATTENTION_HEAD_GROUPS=0 NOVA_CACHE_DIR=$(mktemp -d)
        "$nova" bench prepare --models gpt-42m --dtypes bf16 tf32 --batch 32 --target $target --out bench-artifacts-static
      )
      cp .nova-commit bench-artifacts-static/.commit
      ;;
    gate)
      NOVA_STEP_TRANSIENTS=1 NOVA_CACHE_DIR=$(mktemp -d) prepare_steps bench-artifacts-gate ;;
    blocking)
      NOVA_STEP_TRANSIENTS=0 NOVA_CACHE_DIR=$(mktemp -d) prepare_steps bench-artifacts-blocking ;;
    limit)
      rm -rf bench-artifacts-limit
      NOVA_MEMORY_LIMIT_GIB=10.4 NOVA_CACHE_DIR=$(mktemp -d) \
        "$nova" bench prepare --models gpt-146m --dtypes bf16 --batch 24 --target $target --out bench-artifacts-limit
      cp .nova-commit bench-artifacts-limit/.commit
      ;;
    ce)
      NOVA_CACHE_DIR=$(mktemp -d) prepare_steps bench-artifacts-ce
      "$py" tools/cross_entropy_check.py prepare --out bench-artifacts-ce/cross-entropy-check --target $target
      ;;
    *) echo "unknown set: $set (staged, rows, sm, unpacked, static, gate, blocking, limit, ce)" >&2; exit 2 ;;
  esac
done
du -shc .whl bench-artifacts* | sort -h
