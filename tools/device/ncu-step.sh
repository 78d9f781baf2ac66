#!/usr/bin/env bash
# Hardware counters (ncu) of the gpt-146m bf16 step's largest GEMM and
# attention kernels next to the peers' kernels for the same work: speed of
# light, pipes, shared memory, occupancy and where warps stall.
#   1. Nova: the step's input-gradient GEMM (kn 128x256), a stream-K weight
#      gradient, the attention forward and backward, as they run in the step
#      (26 launches: the forward's 17 attention kernels come first).
#   2. cuDNN's attention forward and backward at the step's shape (B16 H12
#      T1024 d64, through `nova bench attention` on that case alone).
#   3. cuBLAS at 16384x768x3072, nt then nn (torch.matmul, bf16).
# Carry .whl and bench-artifacts (train-modelgpt-146m-dtypebf16-batch16, the
# attention and matmul cases). Results: $OUT/ncu-{step,cudnn,cublas}.csv.
. tools/device/gpu-env.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
out=${OUT:-/tmp}
sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
  --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats"
trimmed=/tmp/ncu-artifacts
rm -rf $trimmed && mkdir -p $trimmed
cp bench-artifacts/attention-b16-h12-t1024-d64-causal.vmfb $trimmed/
run() { # name, kernel regex, launches, command...
  local name=$1 regex=$2 count=$3
  shift 3
  timeout 200 $NCU --clock-control none -k "regex:$regex" --launch-count "$count" $sections --csv --page details \
    "$@" > $out/ncu-$name.csv 2> $out/ncu-$name.err
  echo "$name rc=$? rows=$(grep -c . $out/ncu-$name.csv)"; tail -3 $out/ncu-$name.err
}
run step 'nova_gemm_bf16_kn_bf16_128x256|nova_gemm_bf16_mn_bf16_128x192x64_s4_c2_g8_k1_tma_sk|nova_attention_(bwd|fwd)' 26 \
  python3 -m nova.cli bench profile --artifacts bench-artifacts --model gpt-146m --dtype bf16 --batch 16 --steps 1 --top 3
run cudnn 'sdpa|fmha|cudnn' 6 python3 -m nova.cli bench attention --artifacts $trimmed --iters 1
run cublas 'nvjet|sm90|cutlass|gemm' 4 python3 -c '
import torch
x = torch.randn(16384, 3072, device="cuda", dtype=torch.bfloat16)
w = torch.randn(768, 3072, device="cuda", dtype=torch.bfloat16)
for _ in range(2):
    x @ w.t()  # nt: the forward, K-major B
b = w.t().contiguous()  # the same B stored [K, N]
for _ in range(2):
    x @ b  # nn
torch.cuda.synchronize()'
