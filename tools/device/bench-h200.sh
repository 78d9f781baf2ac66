#!/usr/bin/env bash
# The H200 runs of one session, in phases that each fit one device call:
#   kernels Nova's GEMM kernel check (tools/gemm_check.py: every config class
#           vs f64, poisoned outputs) and the matmul sweep vs cuBLAS, bf16 and tf32
#   smoke   ordering/correctness checks (gpt-42m tf32 and bf16 vs eager CUDA),
#           the fused-rows kernel check, Nova's rows and the gpt-42m bf16
#           profile (host overhead, idle gaps), also with CUDA graphs
#           (--cuda_use_streams=false) and inline execution
#   42m     gpt-42m B32 bf16 and tf32, every mode (Nova and all peers)
#   146m    gpt-146m B16 bf16, every mode, and Nova's profile
#   clusters  the GEMM check's 2-CTA cluster cases (bench-artifacts), then
#           if they pass the gpt-146m and gpt-42m bf16 checks vs eager CUDA,
#           Nova's bf16 rows from bench-artifacts and bench-artifacts-old (an
#           earlier commit's steps) and the bf16 matmul sweep
#   table   where a gpt-146m step's host time goes (transients_probe.py api:
#           GPU gaps over 100 us and the driver calls during them), then
#           gpt-146m B16 bf16 every mode (under 420 s)
#   probe   warm-start time (two processes), the gpt-42m tf32 profile, and a
#           step with caller transients (bench-artifacts-tr, prepared with
#           NOVA_STEP_TRANSIENTS=1): direct, ordered, then Nova's train row
#   nova    every kernel check (attention, GEMM, AdamW, cross-entropy, fused
#           rows), gpt-42m bf16/tf32 checks vs
#           eager CUDA, Nova's rows (gpt-42m bf16/tf32, gpt-146m bf16) and
#           the gpt-42m tf32 and bf16 profiles (peers: phases 42m, 146m)
#   ab      gpt-42m bf16 and tf32 profiled from bench-artifacts-old (an
#           earlier commit's artifacts) and bench-artifacts, then where the
#           host time of a step goes (transients_probe.py api)
#   checked the attention, AdamW and cross-entropy kernel checks and the gpt-42m bf16/tf32 checks vs
#           eager CUDA on bench-artifacts; if any fails, again on
#           bench-artifacts-fallback (an earlier commit's, its commit in
#           .commit); then phase 42m and the gpt-42m tf32 profile on the
#           artifacts that passed (none: nothing more)
#   preload the GEMM epilogue's bias loaded as a tile starts (bench-artifacts)
#           and, on top, the GELU backward in fc2's input-gradient epilogue
#           with its pre-activation staged in shared memory
#           (bench-artifacts-staged: the two bf16 steps and the fused-rows
#           check; prepare.sh staged, NOVA_EPILOGUE_STAGED=1): the fused-rows
#           check and gpt-146m/gpt-42m bf16 checks vs eager CUDA of each set
#           of $check_sets (default both); if all pass, Nova's bf16 rows from
#           each set of $ab_sets (default both and bench-artifacts-old if
#           carried), alternating. A row-kernel change at HEAD against an
#           earlier commit's steps: check_sets=bench-artifacts-rows
#           ab_sets="bench-artifacts bench-artifacts-rows" (prepare.sh rows)
#   preload-peers  compile-sdpa's gpt-42m and gpt-146m bf16 rows, then
#           Nova's gpt-146m and (unless profile42=0) gpt-42m bf16 profiles
#           from each set of $sets (default bench-artifacts)
#   cap     gpt-146m bf16 under a 12 GiB cap (--mem-cap-gib 12): Nova at B16,
#           B24 and B32 (those of them bench-artifacts holds), then
#           compile-sdpa, eager-sdpa and jax-cudnn at B16, compile-sdpa and
#           jax-cudnn at B24, each under a time limit
#   gate    gated steps (bench-artifacts-gate, prepared with
#           NOVA_STEP_TRANSIENTS=1): direct and ordered probes, then the
#           gpt-42m bf16 check, Nova's rows and the gpt-42m bf16 profile
#   rows    the fused-rows kernel check, gpt-42m bf16/tf32 checks vs eager
#           CUDA, gpt-146m bf16 B16 every mode and Nova's profile
#   sm-kernels  A/B of bf16 C staged with stmatrix (bench-artifacts-sm,
#           prepared with NOVA_GEMM_STMATRIX=1) against 4-byte stores
#           (bench-artifacts): the attention check (setmaxnreg 24/240), both
#           GEMM checks, both bf16 matmul sweeps, the attention sweep
#   sm-rows the gpt-42m bf16 check vs eager CUDA on both, Nova's gpt-42m bf16
#           and gpt-146m bf16 rows from each, alternating, and compile-sdpa's
#   pack-rows  packed optimizer state (bench-artifacts, the default) against
#           per-param state (bench-artifacts-unpacked, prepared with
#           NOVA_PACK_STATE=0): the gpt-42m bf16/tf32 and gpt-146m bf16 checks
#           vs eager CUDA on the packed steps, Nova's rows from both,
#           alternating, the gpt-42m bf16 profile of each, and compile-sdpa's rows
#   host    one call for a session with little device time: the attention
#           check, the gpt-146m check vs eager CUDA, Nova's gpt-42m and gpt-146m bf16 rows,
#           gpt-146m from bench-artifacts-old (an earlier commit's step),
#           compile-sdpa's rows and the gpt-146m profile. Every command
#           under a time limit: one that hangs costs its limit, not the call
#   hg      attention's work in groups of heads, the default since
#           2026-12-06: the attention check (static kernels and "_hg" twins on
#           the same data), the gpt-146m bf16 and gpt-42m bf16/tf32 checks vs
#           eager CUDA, Nova's rows (gpt-42m bf16/tf32, gpt-146m bf16) with
#           gpt-42m's from bench-artifacts-static (NOVA_ATTENTION_HEAD_GROUPS=0)
#           beside them, compile-sdpa's rows, the attention sweep against
#           cuDNN and flash, the gpt-146m profile and where
#           load_exported_step's time goes (loadprof) and a step's host
#           time (api). Every command under a limit, the least needed last
#   diag    host-side diagnostics, no rows: gpt-146m's warm load and first
#           step as loaded plain, with NVML sampled meanwhile, with
#           release_torch_state, and with both (`nova bench train` loads
#           so), each a fresh process timed whole; pyprof; the api probe of
#           gpt-146m with NVML sampled and of gpt-42m bf16
#   final   the attention forward with its items chained: the
#           attention check, `nova bench attention` from bench-artifacts and
#           bench-artifacts-old (an earlier commit's), the gpt-146m bf16
#           and gpt-42m tf32 checks vs eager CUDA, Nova's rows (gpt-42m
#           bf16/tf32, gpt-146m bf16) and compile-sdpa's gpt-42m bf16 row
#   pingpong  the attention forward's consumers in ping-pong (bench-artifacts)
#           against main's kernels (bench-artifacts-old): the attention check,
#           `nova bench attention` from each set twice, alternating, the
#           gpt-146m and gpt-42m bf16 checks vs eager CUDA, Nova's bf16 rows
#           from each set (ab_rows), compile-sdpa's gpt-42m bf16 row and the
#           gpt-42m bf16 profile
#   stall   where the worker-thread step call (697306b, reverted) stalls:
#           tools/device/stream_wait_probe.py (torch's stream waiting on a
#           host word or a device word while the caller reads a result),
#           then with exp-worker-runtime/ (that branch's runtime/, untracked)
#           as nova.runtime the gpt-42m bf16 check vs eager CUDA with a
#           device-wide synchronize before its first host read, its stacks
#           dumped with py-spy --native (carried in .whl) if it stalls. (At
#           60aba72 this phase ran the check as it is, stacks dumped, then
#           with --cuda_async_allocations=false, then Nova's gpt-42m row.)
#   peers42 gpt-42m bf16 B32, every mode, each under its own limit, then
#           Nova's gpt-42m bf16 profile
#   tf32    gpt-42m tf32 B32: Nova and compile (the best TF32 peer), then the
#           gpt-146m bf16 profile (after phase peers, in the same call)
#   peers   gpt-146m bf16 B16, every mode, each under its own limit, the
#           least needed (compile without SDPA) last
#   rs      bf16 P (P^T) kept in registers as the wgmma's A (the default
#           since 03b7603): the attention check, `nova bench attention`
#           against cuDNN and flash, the gpt-146m bf16 check vs eager CUDA,
#           Nova's gpt-146m rows from bench-artifacts and bench-artifacts-old
#           (an earlier commit's steps) alternating, compile-sdpa's, then
#           gpt-42m bf16 likewise and the gpt-146m profile. Every command
#           under a limit, the least needed last
#   release gpt-42m bf16 check vs eager (the released torch state synced
#           back), gpt-146m bf16 under a 12 GiB cap at B24 and B16 (Nova), and
#           gpt-146m B16 profiles of Nova and of compile-sdpa
#   done    gated steps that end on the device (bench-artifacts-gate,
#           prepared with NOVA_STEP_TRANSIENTS=1: torch's stream waits for
#           the step's `done` word): the direct, ordered and ordered-read
#           probes, the gpt-42m bf16 check vs eager CUDA; if it passes, the
#           gpt-146m bf16 and gpt-42m tf32 checks, Nova's bf16 rows gated
#           and not (bench-artifacts) alternating with compile-sdpa's, the
#           tf32 rows, the gated gpt-42m bf16 profile; then gpt-146m under a
#           12 GiB cap at B24 and B16 (bench-artifacts)
#   connections  gpt-146m bf16 under a 12 GiB cap (Nova at B24 and B16,
#           compile-sdpa at B16), then phase done's ordered probes with
#           CUDA_DEVICE_MAX_CONNECTIONS=32 (do the gated steps' cross-stream
#           waits hang through streams sharing a hardware queue?) and, if
#           they pass, Nova's gpt-146m bf16 row gated and not
#   chunk   the head in chunks (bench-artifacts-chunk, prepared with
#           NOVA_HEAD_CHUNK_MIB=256) against it whole (bench-artifacts): the
#           gpt-146m bf16 check vs eager CUDA on the chunked step, gpt-146m
#           B24 under a 12 GiB cap from each, then Nova's gpt-146m B16 and
#           gpt-42m B32 bf16 rows from each
#   side    gated steps (bench-artifacts-gate) with torch's current stream a
#           non-blocking stream instead of the legacy default stream (probe
#           ordered-side)
#   issued  gated steps whose torch-side wait for step k is enqueued only once
#           step k - 1 is done (the first step waited for whole): the
#           ordered-read probe (bench-artifacts-gate); if it completes, the
#           gated gpt-42m bf16 check vs eager CUDA and, if that passes, Nova's
#           bf16 rows gated and not (bench-artifacts) alternating with
#           compile-sdpa's and the gated gpt-42m bf16 profile. Then gpt-146m B24
#           under a 12 GiB cap compiled with NOVA_MEMORY_LIMIT_GIB=10.4
#           (bench-artifacts-limit). prepare.sh gate limit
#   cefused the cross-entropy fused with its backward (bench-artifacts-ce, at
#           HEAD) against the pair (bench-artifacts, an earlier commit): the
#           cross-entropy check with kernel times, the gpt-42m bf16 check
#           vs eager, Nova's rows from both alternating and the fused gpt-42m
#           profile; then phase gatelab where bench-artifacts-gate is
#           carried. prepare.sh ce (NOVA_PREPARE_BASE=0 keeps the earlier
#           bench-artifacts)
#   aligned the steps compiled with resource offsets at 256 bytes, gated
#           (bench-artifacts-gate) and not (bench-artifacts-ce), both at HEAD
#           with the fused cross-entropy, against bench-artifacts (an earlier
#           commit): the cross-entropy check, the gpt-42m bf16 check vs eager
#           (default), the ordered-read probe (gated), Nova's bf16 rows gated
#           and not alternating, compile-sdpa's, then the earlier commit's.
#           prepare.sh gate ce (NOVA_PREPARE_BASE=0)
#   quick   phase aligned's essentials in ~3 minutes: the cross-entropy check,
#           the ordered-read probe (gated), the gpt-42m bf16 rows gated and
#           not, the gpt-42m bf16 check vs eager (default)
#   gatelab why gated gpt-42m steps ran slower than default ones (16.4 against
#           14.5 ms at c398e9e): direct calls with a host wait each, the
#           ordered-read probe, api probes with Chrome traces (default,
#           gated), NVML clocks and power throughout ($OUT/smi.csv). (A host
#           wait on a blocking torch event instead of IREE's semaphore made no
#           difference at 3b3256b: 16.80 against 16.77 ms; removed.)
#   fill    gated steps (bench-artifacts-gate) with each step's `ready` word
#           written by a torch fill kernel (cuStreamWriteValue32 until
#           76b3527): the ordered-read probe; if it completes, Nova's gated
#           gpt-42m bf16 row, the default one (bench-artifacts) and the gated
#           gpt-146m bf16 row
#   lab42   what a gated gpt-42m bf16 step spends next to compile-sdpa's:
#           Nova's and compile-sdpa's rows, then both profiles (every kernel of Nova's)
#   partials  column partials stored transposed (bench-artifacts, HEAD)
#           against the earlier commit's (bench-artifacts-old, steps only):
#           the fused-rows kernel check, the gpt-42m bf16 check vs eager,
#           Nova's gpt-42m and gpt-146m bf16 rows from each, compile-sdpa's
#           gpt-42m row, and both gpt-42m bf16 profiles (every kernel)
#   colsums column partials summed by Nova's column-sums kernel
#           (bench-artifacts-cs: the two bf16 steps and the fused-rows check
#           at HEAD) against IREE's reductions (bench-artifacts, an earlier
#           commit): the fused-rows check, the gpt-42m bf16 check vs eager,
#           Nova's gpt-42m and gpt-146m bf16 rows from each, the gpt-42m
#           profile (every kernel)
#   packed  a packed group's bf16/TF32 weights converted in one launch and
#           column-sums regions merged (bench-artifacts, HEAD) against the
#           earlier commit's steps (bench-artifacts-old): the fused-rows
#           check, the gpt-42m bf16 and tf32 checks vs eager; if they pass,
#           Nova's bf16 rows from each alternating, the tf32 rows from each,
#           the gpt-42m bf16 profile (short gaps by kernel) and compile-sdpa's
#           gpt-42m row
#   cap146  gpt-146m bf16 under a 12 GiB cap: Nova at B16 (bench-artifacts)
#           and B24 (bench-artifacts-limit: compiled with
#           NOVA_MEMORY_LIMIT_GIB=10.4), compile-sdpa, eager-sdpa and
#           jax-cudnn at B16, compile-sdpa and jax-cudnn at B24, each under a
#           time limit
# Carry .whl, bench-artifacts[, bench-artifacts-static|-sm|-unpacked|-old] and .nova-commit (tools/device/prepare.sh).
# Results: $OUT/<phase>.jsonl and $OUT/<phase>.log.
set -uo pipefail
phase=${1:?phase: preload, preload-peers, cap146, packed, colsums, partials, lab42, quick, aligned, cefused, gatelab, issued, side, fill, chunk, connections, done, pingpong, stall, peers42, tf32, final, peers, diag, rs, hg, kernels, smoke, clusters, table, nova, checked, rows, 42m, 146m, cap, probe, ab, gate, sm-kernels, sm-rows, pack-rows, host or release}
. tools/device/gpu-env.sh
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp}/$phase.jsonl
art=bench-artifacts
# With $limit set, under that time limit (a hang costs the limit, not the call).
bench() {
  ${limit:+timeout "$limit"} python3 -m nova.cli bench "$@" --artifacts $art --json-out "$out" ||
    echo "exit $? (limit ${limit:-none} s): bench $* ($art)"
}
# Nova's bf16 rows (gpt-42m B32, gpt-146m B16) from two artifact sets, twice,
# alternating, then compile-sdpa's (unless peers=0): an A/B in one run.
ab_rows() {
  for i in 1 2; do
    for a in "$@"; do
      local commit=$(cat $a/.commit 2>/dev/null || echo "$NOVA_COMMIT")
      art=$a NOVA_COMMIT=$commit bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
      art=$a NOVA_COMMIT=$commit bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
    done
  done
  [ "${peers:-1}" = 0 ] && return
  bench train --model gpt-42m --dtype bf16 --batch 32 --modes compile-sdpa
  bench train --model gpt-146m --dtype bf16 --batch 16 --modes compile-sdpa
}
# Each mode's train row of one model, dtype and batch, each under its own
# limit: each_mode MODEL DTYPE BATCH MODE:LIMIT...
each_mode() {
  local model=$1 dtype=$2 batch=$3 ml
  shift 3
  for ml in "$@"; do
    limit=${ml#*:} bench train --model $model --dtype $dtype --batch $batch --modes ${ml%%:*}
  done
}
every_mode="nova:40 eager-sdpa:40 eager:40 jax-cudnn:80 jax:80 compile-sdpa:100 compile:100"
# Whether $out holds check rows vs eager and every one passed (loss within 1e-3).
check_rows_pass() {
  python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
checks = [r for r in rows if r.get("bench") == "check"]
sys.exit(0 if checks and all(r["max_loss_rel_err"] < 1e-3 for r in checks) else 1)
PY
}
# Whether the kernel checks and both model checks of $out passed.
checks_pass() {
  python3 - "$out" "${OUT:-/tmp}/attention-check.jsonl" "${OUT:-/tmp}/adamw-check.jsonl" \
    "${OUT:-/tmp}/cross-entropy-check.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
ok = True
for kernel_check in sys.argv[2:]:
    summary = [json.loads(l) for l in open(kernel_check) if l.startswith('{"cases"')]
    ok = ok and bool(summary) and summary[-1]["failed"] == 0
ok = ok and all(r["max_loss_rel_err"] < 1e-3 and r["max_param_rel_err"] < 0.1 for r in rows if r.get("bench") == "check")
sys.exit(0 if ok else 1)
PY
}
{
  nvidia-smi --query-gpu=name,driver_version,memory.used,clocks.sm --format=csv
  case $phase in
    final)
      timeout 100 python3 tools/attention_check.py run --dir bench-artifacts/attention-check |
        tee "${OUT:-/tmp}/attention-check.jsonl"
      for set in bench-artifacts bench-artifacts-old; do
        art=$set limit=90 bench attention
      done
      limit=80 bench check --model gpt-146m --dtype bf16 --batch 16 --steps 6
      limit=50 bench check --model gpt-42m --dtype tf32 --batch 32 --steps 12
      limit=45 bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
      limit=45 bench train --model gpt-42m --dtype tf32 --batch 32 --modes nova
      limit=50 bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
      limit=90 bench train --model gpt-42m --dtype bf16 --batch 32 --modes compile-sdpa
      ;;
    pingpong)
      timeout 100 python3 tools/attention_check.py run --dir bench-artifacts/attention-check |
        tee "${OUT:-/tmp}/attention-check.jsonl"
      for i in 1 2; do
        for set in bench-artifacts bench-artifacts-old; do
          art=$set NOVA_COMMIT=$(cat $set/.commit) limit=90 bench attention
        done
      done
      limit=80 bench check --model gpt-146m --dtype bf16 --batch 16 --steps 6
      limit=50 bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      limit=50 peers=0 ab_rows bench-artifacts bench-artifacts-old
      limit=90 bench train --model gpt-42m --dtype bf16 --batch 32 --modes compile-sdpa
      limit=60 bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 30
      ;;
    stall)
      # Waits on a word behind a host read (tools/device/stream_wait_probe.py).
      for case in ${PROBE_CASES:-host-set host-launch-set device-write}; do
        timeout 30 python3 tools/device/stream_wait_probe.py $case || echo "$case: exit $? (124: hung)"
      done
      rm -rf /tmp/site2 && mkdir -p /tmp/site2 && cp -r python/nova /tmp/site2/nova &&
        rm -rf /tmp/site2/nova/runtime && cp -r exp-worker-runtime /tmp/site2/nova/runtime
      # The check's first host read after a device-wide synchronize instead.
      sed -i 's/    nova_losses = torch.stack(losses).tolist()/    torch.cuda.synchronize()\n&/' /tmp/site2/nova/bench.py
      grep -n -B1 "nova_losses = torch.stack" /tmp/site2/nova/bench.py
      # name, seconds, command...: in the background; if still running
      # after its limit, its native and Python stacks, then killed.
      probe() {
        local name=$1 secs=$2 pid
        shift 2
        PYTHONPATH=/tmp/site2:/tmp/site "$@" > "${OUT:-/tmp}/$name.out" 2>&1 &
        pid=$!
        for _ in $(seq "$secs"); do
          sleep 1
          kill -0 $pid 2>/dev/null || break
        done
        if kill -0 $pid 2>/dev/null; then
          echo "STALLED after $secs s: $name: $*"
          timeout 60 /tmp/site/bin/py-spy dump --native --subprocesses --pid $pid > "${OUT:-/tmp}/$name-stacks.txt" 2>&1
          echo "py-spy rc=$?"
          grep -v '^ *$' "${OUT:-/tmp}/$name-stacks.txt" | grep -v "c10::impl::wrap_kernel" | head -80
          pkill -9 -P $pid; kill -9 $pid
          return 1
        fi
        wait $pid
        echo "done rc=$?: $name"
        tail -4 "${OUT:-/tmp}/$name.out"
      }
      probe check42-synchronized 60 python3 -m nova.cli bench check --model gpt-42m --dtype bf16 --batch 32 \
        --steps 12 --artifacts bench-artifacts --json-out $out
      ;;
    preload)
      for set in ${check_sets:-bench-artifacts bench-artifacts-staged}; do
        timeout 120 python3 tools/fused_rows_check.py run --dir $set/fused-rows-check |
          tee "${OUT:-/tmp}/fused-check-${set#bench-artifacts}.jsonl"
        art=$set NOVA_COMMIT=$(cat $set/.commit) limit=90 bench check --model gpt-146m --dtype bf16 --batch 16 --steps 6
        art=$set NOVA_COMMIT=$(cat $set/.commit) limit=70 bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      done
      if check_rows_pass; then
        limit=45 peers=0 ab_rows ${ab_sets:-bench-artifacts bench-artifacts-staged $(ls -d bench-artifacts-old 2>/dev/null)}
      else echo "checks failed"; fi
      ;;
    preload-peers)
      each_mode gpt-42m bf16 32 compile-sdpa:110
      each_mode gpt-146m bf16 16 compile-sdpa:120
      for set in ${sets:-bench-artifacts}; do
        art=$set NOVA_COMMIT=$(cat $set/.commit) limit=60 bench profile --model gpt-146m --dtype bf16 --batch 16 --steps 2 --top 40
        [ "${profile42:-1}" = 0 ] ||
          art=$set NOVA_COMMIT=$(cat $set/.commit) limit=60 bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 60
      done
      ;;
    cap146)
      limit=90 bench train --model gpt-146m --dtype bf16 --batch 16 --mem-cap-gib 12 --modes nova
      art=bench-artifacts-limit NOVA_COMMIT=$(cat bench-artifacts-limit/.commit) limit=90 \
        bench train --model gpt-146m --dtype bf16 --batch 24 --mem-cap-gib 12 --modes nova
      each_mode gpt-146m bf16 "16 --mem-cap-gib 12" compile-sdpa:100 eager-sdpa:50 jax-cudnn:90
      each_mode gpt-146m bf16 "24 --mem-cap-gib 12" compile-sdpa:100 jax-cudnn:90
      ;;
    packed)
      timeout 120 python3 tools/fused_rows_check.py run --dir bench-artifacts/fused-rows-check |
        tee "${OUT:-/tmp}/fused-check.jsonl"
      limit=70 bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      limit=70 bench check --model gpt-42m --dtype tf32 --batch 32 --steps 12
      if check_rows_pass; then
        old=bench-artifacts-old
        limit=45 peers=0 ab_rows bench-artifacts $old
        for set in bench-artifacts $old; do
          art=$set NOVA_COMMIT=$(cat $set/.commit) limit=45 bench train --model gpt-42m --dtype tf32 --batch 32 --modes nova
        done
        limit=50 bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 60
        limit=100 bench train --model gpt-42m --dtype bf16 --batch 32 --modes compile-sdpa
      else echo "checks failed"; fi
      ;;
    colsums)
      timeout 100 python3 tools/fused_rows_check.py run --dir bench-artifacts-cs/fused-rows-check |
        tee "${OUT:-/tmp}/fused-check.jsonl"
      art=bench-artifacts-cs NOVA_COMMIT=$(cat bench-artifacts-cs/.commit) limit=70 \
        bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      if check_rows_pass; then
        for set in bench-artifacts-cs bench-artifacts; do
          art=$set NOVA_COMMIT=$(cat $set/.commit) limit=40 bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
          art=$set NOVA_COMMIT=$(cat $set/.commit) limit=50 bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
        done
        art=bench-artifacts-cs NOVA_COMMIT=$(cat bench-artifacts-cs/.commit) limit=50 \
          bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 120
      else echo "column-sums check failed"; fi
      ;;
    partials)
      timeout 150 python3 tools/fused_rows_check.py run --dir bench-artifacts/fused-rows-check |
        tee "${OUT:-/tmp}/fused-check.jsonl"
      limit=90 bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      for set in bench-artifacts bench-artifacts-old; do
        art=$set NOVA_COMMIT=$(cat $set/.commit) limit=45 bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
        art=$set NOVA_COMMIT=$(cat $set/.commit) limit=55 bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
      done
      limit=90 bench train --model gpt-42m --dtype bf16 --batch 32 --modes compile-sdpa
      for set in bench-artifacts bench-artifacts-old; do
        art=$set NOVA_COMMIT=$(cat $set/.commit) limit=60 bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 120
      done
      ;;
    lab42)
      each_mode gpt-42m bf16 32 nova:40 compile-sdpa:100
      limit=60 bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 120
      limit=120 bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 60 --mode compile-sdpa
      ;;
    peers42)
      each_mode gpt-42m bf16 32 $every_mode
      limit=60 bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 30
      ;;
    tf32)
      each_mode gpt-42m tf32 32 nova:40 compile:100
      limit=60 bench profile --model gpt-146m --dtype bf16 --batch 16 --steps 2 --top 30
      ;;
    peers)
      each_mode gpt-146m bf16 16 $every_mode
      ;;
    diag)
      a146=bench-artifacts/train-modelgpt-146m-dtypebf16-batch16
      for extras in "" nvml release "nvml release"; do
        start=$(date +%s%N)
        timeout 60 python3 tools/device/transients_probe.py $a146 loadprof $extras 2>&1 | grep -v '^reflection'
        echo "loadprof [$extras]: process wall $((($(date +%s%N) - start) / 1000000)) ms"
      done
      timeout 60 python3 tools/device/transients_probe.py $a146 pyprof 2>&1 | grep -v '^reflection' | head -60
      timeout 90 python3 tools/device/transients_probe.py $a146 api nvml 2>&1 | grep -v '^reflection'
      timeout 90 python3 tools/device/transients_probe.py \
        bench-artifacts/train-modelgpt-42m-dtypebf16-batch32 api 2>&1 | grep -v '^reflection'
      ;;
    rs)
      timeout 100 python3 tools/attention_check.py run --dir bench-artifacts/attention-check |
        tee "${OUT:-/tmp}/attention-check.jsonl"
      limit=90 bench attention
      limit=80 bench check --model gpt-146m --dtype bf16 --batch 16 --steps 6
      for i in 1 2; do
        for set in bench-artifacts bench-artifacts-old; do
          art=$set limit=50 bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
        done
      done
      limit=100 bench train --model gpt-146m --dtype bf16 --batch 16 --modes compile-sdpa
      for set in bench-artifacts bench-artifacts-old; do
        art=$set limit=45 bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
      done
      limit=50 bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      limit=90 bench train --model gpt-42m --dtype bf16 --batch 32 --modes compile-sdpa
      limit=60 bench profile --model gpt-146m --dtype bf16 --batch 16 --steps 3 --top 12
      ;;
    hg)
      timeout 100 python3 tools/attention_check.py run --dir bench-artifacts/attention-check |
        tee "${OUT:-/tmp}/attention-check.jsonl"
      limit=80 bench check --model gpt-146m --dtype bf16 --batch 16 --steps 6
      limit=50 bench check --model gpt-42m --dtype tf32 --batch 32 --steps 12
      limit=50 bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
      limit=100 bench train --model gpt-146m --dtype bf16 --batch 16 --modes compile-sdpa
      for set in bench-artifacts bench-artifacts-static; do
        art=$set limit=45 bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
      done
      timeout 30 python3 tools/device/transients_probe.py \
        bench-artifacts/train-modelgpt-146m-dtypebf16-batch16 loadprof 2>&1 | grep -v '^reflection'
      for set in bench-artifacts bench-artifacts-static; do
        art=$set limit=45 bench train --model gpt-42m --dtype tf32 --batch 32 --modes nova
      done
      limit=50 bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      limit=90 bench train --model gpt-42m --dtype bf16 --batch 32 --modes compile-sdpa
      limit=90 bench attention
      limit=60 bench profile --model gpt-146m --dtype bf16 --batch 16 --steps 3 --top 12
      timeout 90 python3 tools/device/transients_probe.py \
        bench-artifacts/train-modelgpt-146m-dtypebf16-batch16 api 2>&1 | grep -v '^reflection'
      ;;
    kernels)
      python3 tools/gemm_check.py run --dir bench-artifacts/gemm-check | tee "${OUT:-/tmp}/gemm-check.jsonl"
      bench matmul --dtype bf16
      bench matmul --dtype tf32
      ;;
    smoke)
      bench check --model gpt-42m --dtype tf32 --batch 32 --steps 12
      bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
      bench train --model gpt-42m --dtype tf32 --batch 32 --modes nova
      bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
      python3 tools/fused_rows_check.py run --dir bench-artifacts/fused-rows-check | tee "${OUT:-/tmp}/fused-check.jsonl"
      bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 40
      for flags in --cuda_use_streams=false --cuda_allow_inline_execution=true; do
        NOVA_IREE_RUNTIME_FLAGS=$flags bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 40
      done
      ;;
    nova)
      for k in attention gemm adamw cross_entropy fused_rows; do
        python3 tools/${k}_check.py run --dir bench-artifacts/${k//_/-}-check | tee "${OUT:-/tmp}/${k//_/-}-check.jsonl"
      done
      bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      bench check --model gpt-42m --dtype tf32 --batch 32 --steps 12
      bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
      bench train --model gpt-42m --dtype tf32 --batch 32 --modes nova
      bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
      bench profile --model gpt-42m --dtype tf32 --batch 32 --steps 2 --top 30
      bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 30
      [ -d bench-artifacts-gate ] && timeout 70 python3 tools/device/transients_probe.py \
        bench-artifacts-gate/train-modelgpt-42m-dtypebf16-batch32 ordered-side
      ;;
    checked)
      passed=
      for a in bench-artifacts bench-artifacts-fallback; do
        [ -d $a ] || continue
        art=$a
        [ $a = bench-artifacts-fallback ] && export NOVA_COMMIT=$(cat $a/.commit)
        : > "$out"
        python3 tools/attention_check.py run --dir $art/attention-check | tee "${OUT:-/tmp}/attention-check.jsonl"
        python3 tools/adamw_check.py run --dir $art/adamw-check | tee "${OUT:-/tmp}/adamw-check.jsonl"
        python3 tools/cross_entropy_check.py run --dir $art/cross-entropy-check | tee "${OUT:-/tmp}/cross-entropy-check.jsonl"
        bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
        bench check --model gpt-42m --dtype tf32 --batch 32 --steps 12
        if checks_pass; then echo "checks passed on $art"; passed=$a; break; fi
        echo "checks failed on $art"; cp "$out" "${OUT:-/tmp}/failed-checks-$a.jsonl"
      done
      if [ -n "$passed" ]; then
        bench train --model gpt-42m --dtype bf16 --batch 32
        bench train --model gpt-42m --dtype tf32 --batch 32
        bench profile --model gpt-42m --dtype tf32 --batch 32 --steps 2 --top 30
      fi
      ;;
    rows)
      python3 tools/fused_rows_check.py run --dir bench-artifacts/fused-rows-check | tee "${OUT:-/tmp}/fused-check.jsonl"
      bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      bench check --model gpt-42m --dtype tf32 --batch 32 --steps 12
      bench train --model gpt-146m --dtype bf16 --batch 16
      bench profile --model gpt-146m --dtype bf16 --batch 16 --steps 2 --top 60
      ;;
    release)
      bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      bench train --model gpt-146m --dtype bf16 --batch 24 --modes nova --mem-cap-gib 12
      bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova --mem-cap-gib 12
      bench profile --model gpt-146m --dtype bf16 --batch 16 --steps 2 --top 60
      bench profile --model gpt-146m --dtype bf16 --batch 16 --steps 2 --top 60 --mode compile-sdpa
      ;;
    sm-kernels)
      python3 tools/attention_check.py run --dir bench-artifacts/attention-check | tee "${OUT:-/tmp}/attention-check.jsonl"
      for a in bench-artifacts bench-artifacts-sm; do
        python3 tools/gemm_check.py run --dir $a/gemm-check | tee "${OUT:-/tmp}/gemm-check-$a.jsonl"
      done
      for a in bench-artifacts bench-artifacts-sm; do
        art=$a NOVA_COMMIT=$(cat $a/.commit 2>/dev/null || cat .nova-commit) bench matmul --dtype bf16
      done
      bench attention
      ;;
    pack-rows)
      bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      bench check --model gpt-42m --dtype tf32 --batch 32 --steps 12
      bench check --model gpt-146m --dtype bf16 --batch 16 --steps 6
      for a in bench-artifacts bench-artifacts-unpacked; do
        art=$a bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 2 --top 40
      done
      ab_rows bench-artifacts bench-artifacts-unpacked
      ;;
    host)
      limit=100  # a hang (IREE's CUDA HAL) costs its limit, not the call
      timeout 200 python3 tools/attention_check.py run --dir bench-artifacts/attention-check |
        tee "${OUT:-/tmp}/attention-check.jsonl"
      limit=150 bench check --model gpt-146m --dtype bf16 --batch 16 --steps 6
      bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
      bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
      [ -d bench-artifacts-old ] && art=bench-artifacts-old NOVA_COMMIT=$(cat bench-artifacts-old/.commit) \
        bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
      bench train --model gpt-42m --dtype bf16 --batch 32 --modes compile-sdpa
      bench train --model gpt-146m --dtype bf16 --batch 16 --modes compile-sdpa
      bench profile --model gpt-146m --dtype bf16 --batch 16 --steps 2 --top 30
      ;;
    sm-rows)
      for a in bench-artifacts bench-artifacts-sm; do
        art=$a bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      done
      ab_rows bench-artifacts bench-artifacts-sm
      ;;
    42m)
      bench train --model gpt-42m --dtype bf16 --batch 32
      bench train --model gpt-42m --dtype tf32 --batch 32
      ;;
    probe)
      a=bench-artifacts/train-modelgpt-42m-dtypebf16-batch32
      tr=bench-artifacts-tr/train-modelgpt-42m-dtypebf16-batch32
      for i in 1 2; do timeout 120 python3 tools/device/transients_probe.py $a load | grep '^{' | tee -a "$out"; done
      timeout 150 python3 -m nova.cli bench profile --artifacts bench-artifacts --json-out "$out" --model gpt-42m --dtype tf32 --batch 32 --steps 2 --top 40
      timeout 110 python3 tools/device/transients_probe.py $tr direct
      echo "direct rc=$?"
      if timeout 150 python3 tools/device/transients_probe.py $tr ordered; then
        timeout 150 python3 -m nova.cli bench train --artifacts bench-artifacts-tr --json-out "$out" --model gpt-42m --dtype bf16 --batch 32 --modes nova
      else echo "ordered probe failed"; fi
      ;;
    gate)
      g=bench-artifacts-gate/train-modelgpt-42m-dtypebf16-batch32
      timeout 100 python3 tools/device/transients_probe.py $g direct; echo "direct rc=$?"
      timeout 110 python3 tools/device/transients_probe.py $g direct-chain; echo "direct-chain rc=$?"
      timeout 70 python3 tools/device/transients_probe.py $g ordered-sync; echo "ordered-sync rc=$?"
      if timeout 70 python3 tools/device/transients_probe.py $g ordered; then
        gb() { timeout 200 python3 -m nova.cli bench "$@" --artifacts bench-artifacts-gate --json-out "$out"; }
        gb check --model gpt-42m --dtype bf16 --batch 32 --steps 12
        gb train --model gpt-42m --dtype bf16 --batch 32 --modes nova
        gb train --model gpt-42m --dtype tf32 --batch 32 --modes nova
        gb train --model gpt-146m --dtype bf16 --batch 16 --modes nova
        gb profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 30
      else echo "ordered probe failed"; fi
      ;;
    ab)
      for d in bf16 tf32; do
        for a in bench-artifacts-old bench-artifacts; do
          [ -d $a/train-modelgpt-42m-dtype$d-batch32 ] && python3 -m nova.cli bench profile --artifacts $a \
            --json-out "$out" --model gpt-42m --dtype $d --batch 32 --steps 3 --top 40
        done
      done
      python3 tools/device/transients_probe.py bench-artifacts/train-modelgpt-42m-dtypebf16-batch32 api 2>&1 \
        | grep '^{' | tee -a "$out"
      ;;
    clusters)
      # The cluster GEMMs (kernel names ending _x2) against f64 first: a
      # deadlock costs its limit. Then, if all pass, the steps.
      python3 - <<'PY'
import json, os
from pathlib import Path
src, dst = Path("bench-artifacts/gemm-check"), Path("/tmp/gemm-check-x2")
dst.mkdir(exist_ok=True)
spec = json.loads((src / "cases.json").read_text())
spec["cases"] = [c for c in spec["cases"] if "_x2" in c["kernel"]]
for c in spec["cases"]:
    link = dst / f"{c['name']}.vmfb"
    if not link.exists():
        os.symlink((src / link.name).resolve(), link)
(dst / "cases.json").write_text(json.dumps(spec))
print(len(spec["cases"]), "cluster cases")
PY
      if timeout 300 python3 tools/gemm_check.py run --dir /tmp/gemm-check-x2 | tee "${OUT:-/tmp}/gemm-check-x2.jsonl"; then
        limit=150
        bench check --model gpt-146m --dtype bf16 --batch 16 --steps 6
        bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
        limit=100
        for a in bench-artifacts bench-artifacts-old; do
          NOVA_COMMIT=$(cat $a/.commit) art=$a bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
          NOVA_COMMIT=$(cat $a/.commit) art=$a bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
        done
        limit=200 bench matmul --dtype bf16
      else echo "cluster GEMM check failed"; fi
      ;;
    table)
      timeout 150 python3 tools/device/transients_probe.py bench-artifacts/train-modelgpt-146m-dtypebf16-batch16 api 2>&1 |
        grep '^{' | tee -a "$out"
      limit=420 bench train --model gpt-146m --dtype bf16 --batch 16
      ;;
    146m)
      bench train --model gpt-146m --dtype bf16 --batch 16
      bench profile --model gpt-146m --dtype bf16 --batch 16 --steps 2
      ;;
    done)
      g=bench-artifacts-gate/train-modelgpt-42m-dtypebf16-batch32
      for probe in direct ordered ordered-read; do
        timeout 70 python3 tools/device/transients_probe.py $g $probe; echo "$probe rc=$?"
      done
      art=bench-artifacts-gate limit=120 bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      if check_rows_pass; then
        art=bench-artifacts-gate limit=120 bench check --model gpt-146m --dtype bf16 --batch 16 --steps 12
        art=bench-artifacts-gate limit=120 bench check --model gpt-42m --dtype tf32 --batch 32 --steps 12
        limit=100 ab_rows bench-artifacts-gate bench-artifacts
        for a in bench-artifacts-gate bench-artifacts; do
          art=$a limit=60 bench train --model gpt-42m --dtype tf32 --batch 32 --modes nova
        done
        art=bench-artifacts-gate limit=90 bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 30
      else echo "gated check failed"; fi
      for b in 24 16; do
        limit=90 bench train --model gpt-146m --dtype bf16 --batch $b --mem-cap-gib 12 --modes nova
      done
      ;;
    side)
      timeout 70 python3 tools/device/transients_probe.py \
        bench-artifacts-gate/train-modelgpt-42m-dtypebf16-batch32 ordered-side
      echo "ordered-side rc=$?"
      ;;
    quick)
      timeout 100 python3 tools/cross_entropy_check.py run --dir bench-artifacts-ce/cross-entropy-check |
        tee "${OUT:-/tmp}/cross-entropy-check.jsonl"
      timeout 45 python3 tools/device/transients_probe.py \
        bench-artifacts-gate/train-modelgpt-42m-dtypebf16-batch32 ordered-read 2>&1 | grep '^{"probe'
      for a in bench-artifacts-gate bench-artifacts-ce; do
        art=$a limit=40 bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
      done
      art=bench-artifacts-ce limit=60 bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      ;;
    aligned)
      timeout 150 python3 tools/cross_entropy_check.py run --dir bench-artifacts-ce/cross-entropy-check |
        tee "${OUT:-/tmp}/cross-entropy-check.jsonl"
      art=bench-artifacts-ce limit=90 bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      timeout 60 python3 tools/device/transients_probe.py \
        bench-artifacts-gate/train-modelgpt-42m-dtypebf16-batch32 ordered-read 2>&1 | grep '^{"probe'
      peers=0 limit=60 ab_rows bench-artifacts-gate bench-artifacts-ce
      limit=100 bench train --model gpt-42m --dtype bf16 --batch 32 --modes compile-sdpa
      limit=100 bench train --model gpt-146m --dtype bf16 --batch 16 --modes compile-sdpa
      art=bench-artifacts limit=50 bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
      art=bench-artifacts limit=60 bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
      ;;
    cefused)
      timeout 150 python3 tools/cross_entropy_check.py run --dir bench-artifacts-ce/cross-entropy-check |
        tee "${OUT:-/tmp}/cross-entropy-check.jsonl"
      art=bench-artifacts-ce limit=90 bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
      peers=0 limit=60 ab_rows bench-artifacts-ce bench-artifacts
      art=bench-artifacts-ce limit=90 bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 30
      [ -d bench-artifacts-gate ] && "$0" gatelab
      ;;
    gatelab)
      g=bench-artifacts-gate/train-modelgpt-42m-dtypebf16-batch32
      d=bench-artifacts/train-modelgpt-42m-dtypebf16-batch32
      nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
        --format=csv -lms 100 > "${OUT:-/tmp}/smi.csv" &
      smi=$!
      for probe in "$g sync-loop" "$g ordered-read" "$d api trace" "$g api trace"; do
        echo "== probe $probe"
        timeout 70 python3 tools/device/transients_probe.py $probe 2>&1 | grep -v "leaked\|nanobind\|^ - "
      done
      kill $smi
      ;;
    issued)
      if timeout 75 python3 tools/device/transients_probe.py \
        bench-artifacts-gate/train-modelgpt-42m-dtypebf16-batch32 ordered-read; then
        art=bench-artifacts-gate limit=100 bench check --model gpt-42m --dtype bf16 --batch 32 --steps 12
        if check_rows_pass; then
          limit=100 ab_rows bench-artifacts-gate bench-artifacts
          art=bench-artifacts-gate limit=90 bench profile --model gpt-42m --dtype bf16 --batch 32 --steps 3 --top 30
        else echo "gated check failed"; fi
      else echo "ordered-read rc=$?"; fi
      art=bench-artifacts-limit limit=90 bench train --model gpt-146m --dtype bf16 --batch 24 --mem-cap-gib 12 --modes nova
      ;;
    fill)
      if timeout 70 python3 tools/device/transients_probe.py \
        bench-artifacts-gate/train-modelgpt-42m-dtypebf16-batch32 ordered-read; then
        art=bench-artifacts-gate limit=50 bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
        limit=40 bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
        art=bench-artifacts-gate limit=60 bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
      else echo "ordered-read rc=$?"; fi
      ;;
    chunk)
      art=bench-artifacts-chunk limit=100 bench check --model gpt-146m --dtype bf16 --batch 16 --steps 12
      for a in bench-artifacts-chunk bench-artifacts; do
        art=$a limit=70 bench train --model gpt-146m --dtype bf16 --batch 24 --mem-cap-gib 12 --modes nova
      done
      for a in bench-artifacts-chunk bench-artifacts; do
        art=$a limit=50 bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
        art=$a limit=40 bench train --model gpt-42m --dtype bf16 --batch 32 --modes nova
      done
      ;;
    connections)
      limit=90 bench train --model gpt-146m --dtype bf16 --batch 24 --mem-cap-gib 12 --modes nova
      limit=70 bench train --model gpt-146m --dtype bf16 --batch 16 --mem-cap-gib 12 --modes nova
      limit=100 bench train --model gpt-146m --dtype bf16 --batch 16 --mem-cap-gib 12 --modes compile-sdpa
      export CUDA_DEVICE_MAX_CONNECTIONS=32
      g=bench-artifacts-gate/train-modelgpt-42m-dtypebf16-batch32
      timeout 60 python3 tools/device/transients_probe.py $g ordered; echo "ordered rc=$?"
      if timeout 70 python3 tools/device/transients_probe.py $g ordered-read; then
        art=bench-artifacts-gate limit=70 bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
        limit=60 bench train --model gpt-146m --dtype bf16 --batch 16 --modes nova
      else echo "ordered-read rc=$?"; fi
      ;;
    cap)
      for b in 16 24 32; do
        [ -d $art/train-modelgpt-146m-dtypebf16-batch$b ] &&
          limit=90 bench train --model gpt-146m --dtype bf16 --batch $b --mem-cap-gib 12 --modes nova
      done
      each_mode gpt-146m bf16 "16 --mem-cap-gib 12" compile-sdpa:100 eager-sdpa:50 jax-cudnn:90
      each_mode gpt-146m bf16 "24 --mem-cap-gib 12" compile-sdpa:100 jax-cudnn:90
      ;;
  esac
  if [ -s "$out" ]; then python3 -m nova.cli bench report "$out"; fi
} 2>&1 | tee "${OUT:-/tmp}/$phase.log"
