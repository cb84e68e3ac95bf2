#!/usr/bin/env bash
# Device run 8 (session 10): E (a027372) against I (f32 tiles load in batches of 6, u8/u16 keep 4:
# run 7's H without its u8/u16 register changes), alternating; the peers beside both; `fast*`
# GPU tests, verify and the four sanitizers on I.
set -u
source bench/results/session10-2026-11-24/common.sh gpu57
cd /tmp
F32="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --variants fast,fast-4x2 --runs 30"
RGB="--sizes 2048x2048,8192x8192 --filters 3,5,9 --dtypes f32 --channels 3,4 --variants fast,fast-4x2 --runs 20"
for round in 1 2 3; do
  for b in host-old host; do
    timeout 120 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
    [ $round = 3 ] || { timeout 90 /tmp/bin/$b bench $RGB --out /tmp/r/rgb-$b-$round > /tmp/r/rgb-$b-$round.txt 2>&1; echo "rgb $b round $round exit $?"; }
  done
done; el
timeout 150 /tmp/bin/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.txt 2>&1; echo "peers exit $?"
for b in host host-old; do
timeout 200 /tmp/bin/$b bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 \
  --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers.csv --out /tmp/r/bench-$b > /tmp/r/bench-$b.txt 2>&1; echo "bench $b exit $?"
sed -n '/ours \/ g_fast/,/geometric/p' /tmp/r/bench-$b.txt
done; el
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests fast --test-threads=8 > /tmp/r/gpu-tests-fast.log 2>&1; echo "gpu tests fast* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-fast.log | head -5; el
timeout 250 $H verify --variants fast,fast-4x2 --dtypes f32 > /tmp/r/verify-fast-f32.log 2>&1; echo "verify exit $? | $(tail -1 /tmp/r/verify-fast-f32.log)"; el
A="--sizes 1x1,7x5,257x129,528x268 --variants fast,fast-4x2 --filters 1,3,7,17 --borders zero,reflect,valid --channels 1,4 --dtypes f32"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
