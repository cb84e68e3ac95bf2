#!/usr/bin/env bash
# Device run 10 (session 13), the final kernels: a strip that holds the image's right edge on a
# lane other than 31 now runs unrolled under every border (its edge lane takes the border's bytes
# from its own word, as lane 31 does), not only under the zero border. `host verify` of stream
# over every border and layout, the stream GPU tests, the four sanitizers on stream, and stream
# gray `u8` 8192² and 2048² k=3,5 and RGB/RGBA k=3 (one round) to see nothing moved.
set -u
source bench/results/session10-2026-11-24/common.sh gpu84  # the preamble: log, unpack target/gpu84
cd /tmp
A="--variants stream --dtypes u8 --sizes 1x1,7x5,8x8,16x3,66x20,88x20,264x40,257x129,512x24,528x268,2056x9,1032x33,784x40 --filters 1,3,5 --channels 1,3,4"
timeout 150 $H verify $A --borders zero,replicate,reflect,wrap,valid > /tmp/r/verify.log 2>&1
echo "verify exit $?"; grep -E "FAIL|passed|failed" /tmp/r/verify.log | tail -3; el
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests stream --test-threads=8 > /tmp/r/gpu-tests-stream.log 2>&1; echo "gpu tests stream exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-stream.log | head -5; el
S="--variants stream --dtypes u8 --sizes 7x5,88x20,264x40,528x268 --filters 1,3,5 --channels 1,3,4 --borders zero,reflect,wrap,valid"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $S > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed' /tmp/r/san-$tool.log | tail -1)"
done; el
timeout 100 $H bench --sizes 8192x8192,2048x2048 --filters 3,5 --dtypes u8 --variants stream --runs 30 --out /tmp/r/gray > /tmp/r/gray.txt 2>&1; echo "gray exit $?"
timeout 100 $H bench --sizes 8192x8192,2048x2048 --filters 3 --dtypes u8 --channels 3,4 --variants stream --runs 30 --out /tmp/r/colour > /tmp/r/colour.txt 2>&1; echo "colour exit $?"
grep -h warm /tmp/r/gray.txt /tmp/r/colour.txt | head -8; el
tar czf $OUT/results.tgz -C /tmp r
