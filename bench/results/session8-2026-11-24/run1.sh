#!/usr/bin/env bash
# Device run 1: `tensor` RGB/RGBA, one block for every channel of a tile (planes in shared
# memory). Tests, verify and sanitizers first; then old (0e9e7df) against new, alternating.
set -u
source bench/results/session8-2026-11-24/common.sh gpu27
cd /tmp
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests tensor --test-threads=8 > /tmp/r/gpu-tests-tensor.log 2>&1; echo "gpu tests tensor* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-tensor.log | head -8; el
timeout 150 $H verify --variants tensor --dtypes u8 --channels 1,3,4 --sizes 12x5,300x140,528x268,1031x517,2048x2048 --filters 1,3,5,7,9 \
  > /tmp/r/verify-tensor.log 2>&1; echo "verify exit $? | $(tail -1 /tmp/r/verify-tensor.log)"; el
U8="--sizes 2048x2048,8192x8192 --filters 3,5,7,9 --dtypes u8 --channels 1,3,4 --variants fast,fast-4x2,tensor --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 150 /tmp/bin/$b bench $U8 --out /tmp/r/u8-$b-$round > /tmp/r/u8-$b-$round.txt 2>&1; echo "u8 $b round $round exit $?"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
A="--sizes 300x140,528x268 --variants tensor --filters 3,9 --borders zero,reflect,valid --channels 3,4 --dtypes u8"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
