#!/usr/bin/env bash
# Device run 2 (session 13): `stream` with its RGB and RGBA entries (rows filtered as bytes whose
# taps lie 3 or 4 bytes apart): `host verify` over every border, layout and awkward size, the
# stream GPU tests, the four sanitizers on stream, then `u8` 8192² and 2048² k=3,5, gray, RGB and
# RGBA, for stream, tensor, fast and fast-4x2, two rounds (the per-sample table).
set -u
source bench/results/session10-2026-11-24/common.sh gpu77  # the preamble: log, unpack target/gpu77
cd /tmp
A="--variants stream --dtypes u8 --sizes 1x1,7x5,8x8,16x3,66x20,88x20,264x40,257x129,512x24,528x268,2056x9,1032x33 --filters 1,3,5 --channels 1,3,4"
timeout 150 $H verify $A --borders zero,replicate,reflect,wrap,valid > /tmp/r/verify.log 2>&1
echo "verify exit $?"; grep -E "FAIL|passed|failed" /tmp/r/verify.log | tail -5; el
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests stream --test-threads=8 > /tmp/r/gpu-tests-stream.log 2>&1; echo "gpu tests stream exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-stream.log | head -5; el
S="--variants stream --dtypes u8 --sizes 7x5,88x20,264x40,528x268 --filters 1,3,5 --channels 1,3,4 --borders zero,reflect,wrap,valid"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $S > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed' /tmp/r/san-$tool.log | tail -1)"
done; el
for round in 1 2; do
  timeout 150 $H bench --sizes 8192x8192,2048x2048 --filters 3,5 --dtypes u8 --channels 1,3,4 \
    --variants stream,tensor,fast,fast-4x2 --runs 30 --out /tmp/r/u8-$round > /tmp/r/u8-$round.txt 2>&1; echo "u8 bench $round exit $?"
done; el
tar czf $OUT/results.tgz -C /tmp r
