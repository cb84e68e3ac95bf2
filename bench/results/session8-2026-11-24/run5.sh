#!/usr/bin/env bash
# Device run 5: ncu of `tensor-f32` RGB (8192², k=3 and 17) beside gray, to see what limits the
# RGB entries.
set -u
source bench/results/session8-2026-11-24/common.sh gpu30
cd /tmp
for spec in "c3 3 3" "c3 17 3" "f32_r1 3 1"; do
  set -- $spec
  timeout 120 ncu --kernel-name regex:conv_tensor_split_$1 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section Occupancy --section WarpStateStats --section SchedulerStats \
    $H bench --sizes 8192x8192 --filters $2 --dtypes f32 --channels $3 --variants tensor-f32 --runs 1 > /tmp/r/ncu-$1-k$2.txt 2>&1
  echo "ncu $spec exit $?"
done; el
tar czf $OUT/results.tgz -C /tmp r
