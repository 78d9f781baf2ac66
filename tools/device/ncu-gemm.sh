#!/usr/bin/env bash
# Hardware counters (ncu) of GEMM kernels, Nova's and cuBLAS's, on the cases
# of a tools/gemm_check.py folder (trim its cases.json to the few wanted):
# speed of light (SM, L2, DRAM), memory workload (L2 and shared-memory
# traffic), compute workload (pipe use), and with STALLS=1 where warps wait
# (warp states, scheduler, instruction mix).
# Carry .whl and bench-artifacts (gemm-check prepared on the build box).
. tools/device/gpu-env.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
dir=${1:-bench-artifacts/gemm-check}
timeout 400 $NCU --clock-control none -k "regex:nova_gemm|nvjet|sm90|cutlass|gemm" --launch-count ${COUNT:-12} \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section LaunchStats \
  ${STALLS:+--section WarpStateStats --section SchedulerStats --section InstructionStats} \
  --csv --page details python3 tools/gemm_check.py run --dir "$dir" \
  > ${OUT:-/tmp}/ncu-gemm.csv 2> ${OUT:-/tmp}/ncu-gemm.err
echo "rc=$?"; tail -5 ${OUT:-/tmp}/ncu-gemm.err; grep -c . ${OUT:-/tmp}/ncu-gemm.csv
