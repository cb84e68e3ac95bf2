#!/usr/bin/env bash
# Device run 10: `stream` with two paths: warps whose strip and rows lie inside the input (no
# border code, no branch between rows), and the rest (rows and, in edge lanes, pixels resolved by
# the border, the edge pixels loaded together from columns resolved once). Tests, verify,
# sanitizers, u8 benchmarks beside `tensor`, `fast`, `fast-4x2`.
set -u
source bench/results/session9-2026-11-24/common.sh gpu46
cd /tmp
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests stream --test-threads=8 > /tmp/r/gpu-tests.log 2>&1; echo "gpu tests exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests.log | head -8; el
timeout 100 $H verify --variants stream --dtypes u8 --channels 1,3,4 --sizes 12x5,264x40,528x268,2056x9,1031x517 --filters 1,3,5 \
  > /tmp/r/verify-stream.log 2>&1; echo "verify exit $? | $(tail -1 /tmp/r/verify-stream.log)"; el
U8="--sizes 8192x8192,4096x4096,2048x2048,1024x1024 --filters 3,5 --dtypes u8 --variants stream,tensor,fast,fast-4x2 --runs 20"
for round in 1 2; do
  timeout 150 $H bench $U8 --out /tmp/r/u8-$round > /tmp/r/u8-$round.txt 2>&1; echo "u8 round $round exit $?"
done; el
grep -h warm /tmp/r/u8-1.txt | awk '!s[$0]++' | awk '{print $1,$4,$5,$7}' | tr '\n' ';'; echo
tar czf $OUT/results.tgz -C /tmp r
A="--sizes 528x268,264x40 --variants stream --filters 1,3,5 --borders zero,reflect,valid --channels 1,3,4 --dtypes u8"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
