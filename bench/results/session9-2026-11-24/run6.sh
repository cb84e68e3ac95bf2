#!/usr/bin/env bash
# Device run 6: warp stall reasons (ncu) of run 5's `tensor-f32` RGB kernel at 8192² k=3, beside
# the previous commit's and gray.
set -u
source bench/results/session9-2026-11-24/common.sh gpu43
cd /tmp
for spec in "host c3" "host-old c3" "host f32_r1"; do
  set -- $spec
  ch=3; [ $2 = f32_r1 ] && ch=1
  timeout 120 ncu --kernel-name regex:conv_tensor_split_$2 --launch-count 1 --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,gpu__time_duration.sum" \
    /tmp/bin/$1 bench --sizes 8192x8192 --filters 3 --dtypes f32 --channels $ch --variants tensor-f32 --runs 1 > /tmp/r/stall-$1-$2.txt 2>&1
  echo "== $spec exit $?"; grep -E "ratio|inst_executed|duration" /tmp/r/stall-$1-$2.txt | awk '$NF+0 > 0.3 || /inst|duration/' | sed 's/smsp__average_warps_issue_stalled_//'
done; el
tar czf $OUT/results.tgz -C /tmp r
