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
for part in "fwd:${FWD:-0x00b4c7dc|0x7c608562|0xbc5093e2}" "bwd:${BWD:-0x1f09a3bf|0x6b58e636|0xdf50b964}"; do
  name=${part%%:*}
  timeout 280 $NCU --clock-control none --launch-count 6 -k "regex:${part#*:}" --metrics $M --csv \
    python3 -m nova.cli bench profile --artifacts bench-artifacts --model gpt-146m --dtype bf16 --batch 16 \
    --steps 1 --top 3 > ${OUT:-/tmp}/ncu-$name.csv 2> ${OUT:-/tmp}/ncu-$name.err
  echo "$name rc=$?"; tail -3 ${OUT:-/tmp}/ncu-$name.err
done
