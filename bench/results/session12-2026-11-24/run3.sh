#!/usr/bin/env bash
# Device run 3 (session 12): as run 2, and the colour blocks of three channels stage their
# outputs in shared memory and write whole 16-byte vectors (host) against 7f6ea4c (host-o).
set -u
source bench/results/session10-2026-11-24/common.sh gpu72  # the preamble: log, unpack target/gpu72
cd /tmp
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests tensor_f32 --test-threads=8 > /tmp/r/gpu-tests-tensor-f32.log 2>&1; echo "gpu tests tensor_f32* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-tensor-f32.log | head -5; el
timeout 200 $H verify --variants tensor-f32 --dtypes f32 > /tmp/r/verify.log 2>&1; echo "verify exit $? | $(grep -E ' passed' /tmp/r/verify.log | tail -1)"; el
A="--sizes 7x5,257x129,528x268 --variants tensor-f32 --filters 3,25,27 --channels 1,3,4 --dtypes f32 --borders zero,reflect,valid"
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed' /tmp/r/san-$tool.log | tail -1)"
done; el
for round in 1 2; do
  for b in host-o host; do
    timeout 120 /tmp/bin/$b bench --sizes 2048x2048,8192x8192 --filters 3,5,9,17,21,25,31 --dtypes f32 --channels 1,3,4 \
      --variants tensor-f32 --runs 20 --out /tmp/r/split-$b-$round > /tmp/r/split-$b-$round.txt 2>&1; echo "split $b $round exit $?"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
