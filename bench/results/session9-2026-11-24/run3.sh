#!/usr/bin/env bash
# Device run 3: as run 2, and the RGB/RGBA results staged interleaved in the cluster's shared memory
# (tile row y in block y % CH), each block storing its rows as runs of consecutive samples.
# previous commit (56bd27c, host-old) against this, alternating.
set -u
source bench/results/session9-2026-11-24/common.sh gpu42
cd /tmp
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests tensor_f32 --test-threads=8 > /tmp/r/gpu-tests-split.log 2>&1; echo "gpu tests tensor_f32* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-split.log | head -8; el
timeout 100 $H verify --variants tensor-f32 --dtypes f32 --channels 3,4 --sizes 12x5,300x140,528x268,1031x517 --filters 3,9,17 \
  > /tmp/r/verify-split.log 2>&1; echo "verify exit $? | $(tail -1 /tmp/r/verify-split.log)"; el
F32="--sizes 2048x2048,8192x8192 --filters 3,9,17 --dtypes f32 --channels 1,3,4 --variants tensor-f32 --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 150 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
  done
done; el
grep warm /tmp/r/f32-host-old-1.txt /tmp/r/f32-host-1.txt | awk '{print $1,$4,$5,$6,$8}' | head -40
tar czf $OUT/results.tgz -C /tmp r
A="--sizes 300x140,528x268 --variants tensor-f32 --filters 3,17 --borders zero,reflect,valid --channels 3,4 --dtypes f32"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
