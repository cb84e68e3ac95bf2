#!/usr/bin/env bash
# Device run 4 (session 13): why run 3's `host` (gray entries generalized to a channel stride)
# is 9-12% slower than `host-a` (run 1's gray-only kernel) with near-identical interior SASS: ncu
# of conv_stream_u8_r1 on 8192² u8 k=3 for both binaries (launch stats, occupancy, instructions,
# warp states, memory).
set -u
source bench/results/session10-2026-11-24/common.sh gpu78  # the preamble: log, unpack target/gpu78
cd /tmp
for b in host-a host; do
  timeout 200 ncu --kernel-name regex:conv_stream --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section InstructionStats --section MemoryWorkloadAnalysis --section SchedulerStats \
    /tmp/bin/$b bench --sizes 8192x8192 --filters 3 --dtypes u8 --variants stream --runs 5 > /tmp/r/ncu-$b.txt 2>&1
  echo "ncu $b exit $?"
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Executed Instructions |Issue Slots Busy|No Eligible|Warp Cycles Per Issued|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Block Limit Reg|Grid Size|Waves Per SM" /tmp/r/ncu-$b.txt
done; el
tar czf $OUT/results.tgz -C /tmp r
