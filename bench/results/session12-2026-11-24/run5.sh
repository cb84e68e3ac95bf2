#!/usr/bin/env bash
# Device run 5 (session 12): the final kernels (host: run 4's, with the 64-register limit back on
# gray `tensor-f32` radius 2-4): memcheck, racecheck, synccheck and initcheck on tensor-f32, then
# gray `tensor-f32` against 7f6ea4c (host-o), alternating, three rounds.
set -u
source bench/results/session10-2026-11-24/common.sh gpu74  # the preamble: log, unpack target/gpu74
cd /tmp
A="--sizes 7x5,257x129,528x268 --variants tensor-f32 --filters 3,9,25,27 --channels 1,3,4 --dtypes f32 --borders zero,reflect,valid"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed' /tmp/r/san-$tool.log | tail -1)"
done; el
for round in 1 2 3; do
  for b in host-o host; do
    timeout 100 /tmp/bin/$b bench --sizes 2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17,25 --dtypes f32 --channels 1 \
      --variants tensor-f32 --runs 30 --out /tmp/r/gray-$b-$round > /tmp/r/gray-$b-$round.txt 2>&1; echo "gray $b $round exit $?"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
