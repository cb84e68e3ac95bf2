#!/usr/bin/env bash
# Device run 11: ncu of run 10's `stream` kernel at 8192² k=3 (stall reasons, instructions,
# memory throughput).
set -u
source bench/results/session9-2026-11-24/common.sh gpu46
cd /tmp
timeout 120 ncu --kernel-name regex:conv_stream --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
  --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum" \
  $H bench --sizes 8192x8192 --filters 3 --dtypes u8 --variants stream --runs 1 > /tmp/r/ncu-stream.txt 2>&1
echo "ncu exit $?"; grep -E "Duration|Throughput|Registers|Achieved|Theoretical Occ|inst_executed|dram__|Block Limit" /tmp/r/ncu-stream.txt
grep -E "ratio" /tmp/r/ncu-stream.txt | awk '$NF+0 > 0.3' | sed 's/smsp__average_warps_issue_stalled_//'
tar czf $OUT/results.tgz -C /tmp r
