#!/usr/bin/env bash
# Device run 5 (session 13), as run 3 on the fixed kernel: run 4's ncu showed run 3's kernel
# waiting on its loads (long scoreboard 4.7 of 10.7 cycles per instruction): the side word's
# register started as the lane's own low word, so the side load waited for the own load. Now it
# starts at 0 and replicated/reflected edges load their own first word. host-a is run 1's binary.
set -u
source bench/results/session10-2026-11-24/common.sh gpu79  # the preamble: log, unpack target/gpu79
cd /tmp
A="--variants stream --dtypes u8 --sizes 1x1,7x5,8x8,16x3,66x20,88x20,264x40,257x129,512x24,528x268,2056x9,1032x33 --filters 1,3,5 --channels 1,3,4"
timeout 150 $H verify $A --borders zero,replicate,reflect,wrap,valid > /tmp/r/verify.log 2>&1
echo "verify exit $?"; grep -E "FAIL|passed|failed" /tmp/r/verify.log | tail -5; el
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests stream --test-threads=8 > /tmp/r/gpu-tests-stream.log 2>&1; echo "gpu tests stream exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-stream.log | head -5; el
for round in 1 2 3; do
  for b in host-a host; do
    timeout 100 /tmp/bin/$b bench --sizes 8192x8192,2048x2048 --filters 3,5 --dtypes u8 --variants stream --runs 30 \
      --out /tmp/r/gray-$b-$round > /tmp/r/gray-$b-$round.txt 2>&1; echo "gray $b $round exit $?"
    grep warm /tmp/r/gray-$b-$round.txt | head -4
  done
done; el
for round in 1 2; do
  timeout 150 $H bench --sizes 8192x8192,2048x2048 --filters 3,5 --dtypes u8 --channels 1,3,4 \
    --variants stream,tensor,fast,fast-4x2 --runs 30 --out /tmp/r/u8-$round > /tmp/r/u8-$round.txt 2>&1; echo "u8 bench $round exit $?"
done; el
tar czf $OUT/results.tgz -C /tmp r
