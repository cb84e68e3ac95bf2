#!/usr/bin/env bash
# Device run 1 (session 14): the `fast` kernels read their taps from the module's constant array
# (`conv_taps`, CUDA's __constant__) instead of a by-value parameter. Binaries: host (new),
# host-old (963e2eb), gpu-tests (new), peers (peers.cu, nvcc 13.0). Goal 1: four rounds of the
# peers, then `host bench --peers` of both binaries, their order alternating. Goal 5: both binaries
# on fast/fast-4x2 for u8/u16/f32, gray/RGB/RGBA, twice each. ncu kernel time at 1024² k=7/9.
# Checks: the `fast` GPU tests (CONV_REQUIRE_GPU=1), `host verify` of fast and fast-4x2.
set -u
source bench/results/session10-2026-11-24/common.sh gpu86  # the preamble: log, unpack target/gpu86
O=/tmp/bin/host-old
cd /tmp
CONV_REQUIRE_GPU=1 timeout 300 /tmp/bin/gpu-tests --test-threads=8 fast > /tmp/r/gpu-tests.log 2>&1; echo "gpu tests exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests.log | head -8; el
P="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --variants fast,fast-4x2,tensor-f32 --runs 30"
for round in 1 2 3 4; do
  timeout 200 /tmp/bin/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers-$round.csv > /tmp/r/peers-$round.txt 2>&1; echo "peers $round exit $?"
  if [ $((round % 2)) = 1 ]; then order="new old"; else order="old new"; fi
  for which in $order; do
    if [ $which = new ]; then B=$H; else B=$O; fi
    timeout 200 $B bench $P --peers /tmp/r/peers-$round.csv --out /tmp/r/peers-$which-$round > /tmp/r/peers-$which-$round.txt 2>&1; echo "bench $which $round exit $?"
    grep -E "^1024x1024 +[0-9]|geometric" /tmp/r/peers-$which-$round.txt | tail -6
  done
done; el
Q="--sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes u8,u16,f32 --channels 1,3,4 --variants fast,fast-4x2 --runs 20"
for round in 1 2; do
  timeout 200 $H bench $Q --out /tmp/r/ab-new-$round > /tmp/r/ab-new-$round.txt 2>&1; echo "ab new $round exit $?"
  timeout 200 $O bench $Q --out /tmp/r/ab-old-$round > /tmp/r/ab-old-$round.txt 2>&1; echo "ab old $round exit $?"
done; el
M="--metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size"
for k in 7 9; do for which in new old; do
  if [ $which = new ]; then B=$H; else B=$O; fi
  for v in fast fast-4x2; do
    timeout 100 ncu --kernel-name regex:conv_fast --launch-skip 5 --launch-count 5 $M \
      $B bench --sizes 1024x1024 --filters $k --dtypes f32 --variants $v --runs 10 > /tmp/r/ncu-$which-$v-k$k.txt 2>&1
    echo "ncu $which $v k=$k: $(grep gpu__time_duration /tmp/r/ncu-$which-$v-k$k.txt | awk '{print $NF}' | tr '\n' ' ') regs $(grep registers_per /tmp/r/ncu-$which-$v-k$k.txt | head -1 | awk '{print $NF}')"
  done
done; done; el
A="--variants fast,fast-4x2 --sizes 1x1,7x5,31x17,66x20,257x129,528x268,1032x33 --filters 1,3,5,7,9,17,31 --channels 1,3,4"
timeout 200 $H verify $A --dtypes f32,u8,u16 --borders zero,replicate,reflect,wrap,valid > /tmp/r/verify.log 2>&1
echo "verify exit $?"; grep -E "FAIL|passed|failed" /tmp/r/verify.log | tail -3; el
tar czf $OUT/results.tgz -C /tmp r
