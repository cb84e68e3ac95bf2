#!/usr/bin/env bash
# Device run 5 (session 14), an experiment: `fast-4x2` with blocks of 32 × 16 threads (a 128 × 32
# tile, as `fast`'s 4 × 4 over 32 × 8) instead of 32 × 8, as run 4's CUDA C++ px4py2b16 was 1-2%
# faster than px4py2 at 1024² k=7 and 9. The change (not kept): launch.rs `fast_block(rows)` =
# (32, 16) for rows 2 else (32, 8), `fast_tile` takes its height from it; fast.rs `threads` and
# shapes.rs `block` use it. Binaries: host (the experiment), host-old (963e2eb),
# gpu-tests (the experiment). Same call: the fast-4x2 GPU tests, then three rounds of the peers and
# both binaries' `host bench --peers`, their order alternating.
set -u
source bench/results/session10-2026-11-24/common.sh gpu89  # the preamble: log, unpack target/gpu89
O=/tmp/bin/host-old
cd /tmp
CONV_REQUIRE_GPU=1 timeout 300 /tmp/bin/gpu-tests --test-threads=8 fast_4x2 > /tmp/r/gpu-tests.log 2>&1; echo "gpu tests exit $?"
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
Q="--sizes 1024x1024,2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32,u8 --channels 1,3,4 --variants fast-4x2 --runs 20"
timeout 200 $H bench $Q --out /tmp/r/ab-new > /tmp/r/ab-new.txt 2>&1; echo "ab new exit $?"
timeout 200 $O bench $Q --out /tmp/r/ab-old > /tmp/r/ab-old.txt 2>&1; echo "ab old exit $?"; el
tar czf $OUT/results.tgz -C /tmp r
