#!/usr/bin/env bash
# Device run 3 (session 14): profiler evidence for goal 1's 1024² k=7 and k=9 gap, main's binary
# (963e2eb) against the peer's g_fast_px4py2 (peers.cu, nvcc 13.0). ncu sections launch,
# occupancy, speed of light, warp states and instruction counts, five launches each after five.
set -u
source bench/results/session10-2026-11-24/common.sh gpu87  # the preamble: log, unpack target/gpu87
cd /tmp
S="--section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis"
for k in 7 9; do
  for v in fast fast-4x2; do
    timeout 150 ncu --kernel-name regex:conv_fast --launch-skip 5 --launch-count 5 $S \
      $H bench --sizes 1024x1024 --filters $k --dtypes f32 --variants $v --runs 10 > /tmp/r/ncu-$v-k$k.txt 2>&1; echo "ncu $v k=$k exit $?"
  done
  timeout 150 ncu --kernel-name regex:k_fast --launch-skip 5 --launch-count 5 $S \
    /tmp/bin/peers --sizes 1024 --filters $k --variants g_fast_px4py2 --no-cold --min-reps 10 --max-reps 10 > /tmp/r/ncu-peer-k$k.txt 2>&1; echo "ncu peer k=$k exit $?"
done; el
for f in /tmp/r/ncu-*.txt; do
  echo "== $f"; grep -E "^ +(Duration|Elapsed Cycles|Executed Ipc Active|Issue Slots Busy|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Dynamic Shared|Static Shared|Executed Instructions |Warp Cycles Per Issued|No Eligible|Memory Throughput|L1/TEX Hit|L2 Hit|Block Limit Registers|Block Limit Shared|Waves Per SM)" $f | sort | uniq -c | sort -k2 | head -40
done
tar czf $OUT/results.tgz -C /tmp r
