#!/usr/bin/env bash
# Hardware counters (ncu) of the gpt-146m bf16 step's largest fused-rows
# kernels, forward and backward: time, DRAM and L2 bytes, occupancy, stalls.
# Carry .whl and bench-artifacts (train-modelgpt-146m-dtypebf16-batch16).
. tools/device/gpu-env.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers
M=$M,launch__grid_size,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct
M=$M,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
# By name (the hashes change with every region or config change): layer
# norm, bias + GELU and the qkv bias forward; their backwards.
FWD_DEFAULT='16384x768_v4_w4_s1_row_|16384x3072_v8_w4_s1_|16384x2304_v8_w4_s1_'
BWD_DEFAULT='16384x768_v4_w4_s1_0x|16384x3072_v8_w4_s6_|16384x2304_v8_w4_s5_'
for part in "fwd:${FWD:-$FWD_DEFAULT}" "bwd:${BWD:-$BWD_DEFAULT}"; do
  name=${part%%:*}
  timeout 280 $NCU --clock-control none --launch-count 6 -k "regex:${part#*:}" --metrics $M --csv \
    python3 -m nova.cli bench profile --artifacts bench-artifacts --model gpt-146m --dtype bf16 --batch 16 \
    --steps 1 --top 3 > ${OUT:-/tmp}/ncu-$name.csv 2> ${OUT:-/tmp}/ncu-$name.err
  echo "$name rc=$?"; tail -3 ${OUT:-/tmp}/ncu-$name.err
done
