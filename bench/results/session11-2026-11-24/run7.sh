#!/usr/bin/env bash
# Device run 7 (session 11): the final kernels (host, 20a60ac): the `fast` GPU tests, racecheck,
# synccheck and initcheck on RGB/RGBA, and the per-sample tables (f32 and u8, 1/3/4 channels)
# beside host-o (671cb57), alternating, two rounds.
set -u
source bench/results/session10-2026-11-24/common.sh gpu66  # the preamble: log, unpack target/gpu66
cd /tmp
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests fast --test-threads=8 > /tmp/r/gpu-tests-fast.log 2>&1; echo "gpu tests fast* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-fast.log | head -5; el
A="--sizes 7x5,257x129,528x268 --variants fast,fast-4x2 --filters 3,7,9 --channels 3,4 --dtypes f32,u8,u16 --borders zero,reflect,valid"
for tool in racecheck synccheck initcheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
for round in 1 2; do
  for b in host-o host; do
    timeout 100 /tmp/bin/$b bench --sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --channels 1,3,4 \
      --variants fast,fast-4x2,tensor-f32 --runs 20 --out /tmp/r/colour-f32-$b-$round > /tmp/r/colour-f32-$b-$round.txt 2>&1; echo "colour f32 $b $round exit $?"
    timeout 100 /tmp/bin/$b bench --sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes u8 --channels 1,3,4 \
      --variants fast,fast-4x2,tensor --runs 20 --out /tmp/r/colour-u8-$b-$round > /tmp/r/colour-u8-$b-$round.txt 2>&1; echo "colour u8 $b $round exit $?"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
