#!/usr/bin/env bash
# Device run 3 (session 11): register limits for the RGBA `fast` entries that spill at 32 —
# host-x (none: 44 registers, 5 blocks per SM), host-l (36, 7 blocks), host-m (40, 6 blocks),
# alternating, three rounds; host-o (671cb57) once; the per-sample table of host-l; ncu of
# conv_fast_c4_f32_r4 and conv_fast_f32_r4 (8192², k=9) with each limit.
set -u
source bench/results/session10-2026-11-24/common.sh gpu62  # the preamble: log, unpack target/gpu62
H=/tmp/bin/host-l; cd /tmp
RGBA="--sizes 2048x2048,8192x8192 --filters 3,9 --dtypes f32,u8,u16 --channels 4 --variants fast,fast-4x2 --runs 20"
for round in 1 2 3; do
  for b in host-x host-l host-m $([ $round = 1 ] && echo host-o); do
    timeout 100 /tmp/bin/$b bench $RGBA --out /tmp/r/RGBA-$b-$round > /tmp/r/RGBA-$b-$round.txt 2>&1; echo "RGBA $b round $round exit $?"
  done
done; el
timeout 150 $H bench --sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --channels 1,3,4 \
  --variants fast,fast-4x2,tensor-f32 --runs 20 --out /tmp/r/colour > /tmp/r/colour.txt 2>&1; echo "colour exit $?"; el
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats"
for b in host-x host-l host-m; do
  timeout 90 ncu $S -k regex:conv_fast_c4_f32_r4 -c 1 /tmp/bin/$b bench --sizes 8192x8192 --filters 9 --dtypes f32 --channels 4 --variants fast --runs 1 > /tmp/r/ncu-c4-$b.txt 2>&1; echo "ncu $b exit $?"
done
timeout 90 ncu $S -k regex:conv_fast_f32_r4 -c 1 $H bench --sizes 8192x8192 --filters 9 --dtypes f32 --variants fast --runs 1 > /tmp/r/ncu-gray.txt 2>&1; echo "ncu gray exit $?"; el
tar czf $OUT/results.tgz -C /tmp r
