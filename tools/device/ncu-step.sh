#!/usr/bin/env bash
# Hardware counters (ncu) of the gpt-146m bf16 step's largest GEMM and
# attention kernels next to the peers' kernels for the same work: speed of
# light, pipes, shared memory, occupancy and where warps stall.
#   1. Nova: the step's input-gradient GEMM (kn 128x256), a stream-K weight
#      gradient, the attention forward and backward, as they run in the step
#      (26 launches: the forward's 17 attention kernels come first).
#   2. cuDNN's attention forward and backward at the step's shape (B16 H12
#      T1024 d64, bf16, causal; torch's SDPA on its cuDNN backend).
#   3. cuBLAS at 16384x768x3072, nt then nn (torch.matmul, bf16).
# Carry .whl and bench-artifacts (or $ART: train-modelgpt-146m-dtypebf16-batch16).
# Results: $OUT/ncu-{step,cudnn,cublas}.csv. (torch's profiler and CUPTI timing
# fail under ncu; the kernels run all the same.)
. tools/device/gpu-env.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
out=${OUT:-/tmp}
sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
  --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats"
run() { # name, kernel regex, launches, command...
  local name=$1 regex=$2 count=$3
  shift 3
  timeout 200 $NCU --clock-control none -k "regex:$regex" --launch-count "$count" $sections --csv --page details \
    "$@" > $out/ncu-$name.csv 2> $out/ncu-$name.err
  echo "$name rc=$? rows=$(grep -c . $out/ncu-$name.csv)"; tail -3 $out/ncu-$name.err
}
run step 'nova_gemm_bf16_kn_bf16_128x256|nova_gemm_bf16_mn_bf16_128x192x64_s4_c2_g8_k1_tma_sk|nova_attention_(bwd|fwd)' 26 \
  python3 -m nova.cli bench profile --artifacts ${ART:-bench-artifacts} --model gpt-146m --dtype bf16 --batch 16 --steps 1 --top 3
run cudnn 'sdpa|fmha|cudnn' 6 python3 -c '
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa
q, k, v = (torch.randn(16, 12, 1024, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(2):
        out = sdpa(q, k, v, is_causal=True)
        out.backward(torch.randn_like(out))
torch.cuda.synchronize()'
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
