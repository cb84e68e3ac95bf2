#!/usr/bin/env bash
# Device runs 2 and 6 (session 14): issue 12's goals 1-3 in one call, on the binary of 963e2eb (the
# kernels of main; run 1's constant-array taps were slower and are not kept). Goal 3: `host info`
# and a one-image run (2048² RGB 8-bit PNG) with empty JIT and autotune caches, twice. Goal 1:
# $ROUNDS rounds (6 in run 2, `ROUNDS=8` in run 6) of the peers (peers.cu, nvcc 13.0) and `host bench --peers` (gray f32), then RGB and
# RGBA f32 against gray, two rounds. Goal 2: u8 8192² and 2048², gray/RGB/RGBA, two rounds, and
# what `--variant auto` picks for 8192² gray 8-bit PNGs (sharpen 3x3, 5x5).
set -u
source bench/results/session10-2026-11-24/common.sh gpu87  # the preamble: log, unpack target/gpu87
cd /tmp
python3 -c "import numpy as np, cv2; g=np.random.default_rng(2); cv2.imwrite('/tmp/photo.png', g.integers(0,256,(2048,2048,3),dtype=np.uint8)); cv2.imwrite('/tmp/gray8k.png', g.integers(0,256,(8192,8192),dtype=np.uint8))"
for i in 1 2; do
  rm -rf ~/.nv/ComputeCache /tmp/cc
  TIMEFORMAT="host info (empty caches): %R s wall"; time $H info > /tmp/r/info-$i.txt 2>&1; grep -iE "fatbin" /tmp/r/info-$i.txt | head -2
  rm -rf ~/.nv/ComputeCache /tmp/cc
  TIMEFORMAT="one image (empty caches): %R s wall"; time CONV_CACHE_DIR=/tmp/cc $H -i /tmp/photo.png -o /tmp/out-$i.png > /tmp/r/one-$i.txt 2>&1; tail -2 /tmp/r/one-$i.txt
done; el
P="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --variants fast,fast-4x2,tensor-f32 --runs 30"
for round in $(seq ${ROUNDS:-6}); do
  timeout 200 /tmp/bin/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers-$round.csv > /tmp/r/peers-$round.txt 2>&1; echo "peers $round exit $?"
  timeout 200 $H bench $P --peers /tmp/r/peers-$round.csv --out /tmp/r/bench-peers-$round > /tmp/r/bench-peers-$round.txt 2>&1; echo "bench peers $round exit $?"
  grep -E "^1024x1024 +[0-9]|geometric" /tmp/r/bench-peers-$round.txt | tail -6
done; el
for round in 1 2; do
  timeout 200 $H bench --sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --channels 1,3,4 \
    --variants fast,fast-4x2,tensor-f32 --runs 20 --out /tmp/r/f32-colour-$round > /tmp/r/f32-colour-$round.txt 2>&1; echo "f32 colour $round exit $?"
done; el
for round in 1 2; do
  timeout 200 $H bench --sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --channels 1,3,4 \
    --variants stream,tensor,fast,fast-4x2 --runs 30 --out /tmp/r/u8-$round > /tmp/r/u8-$round.txt 2>&1; echo "u8 bench $round exit $?"
done
grep warm /tmp/r/u8-1.txt | awk '$1=="8192x8192" && $3==1'; el
for k in 3 5; do
  CONV_CACHE_DIR=/tmp/cc-auto timeout 100 $H -i /tmp/gray8k.png -o /tmp/gray-out-$k.png --mask $k --filter sharpen --border zero > /tmp/r/auto-k$k.txt 2>&1
  echo "auto gray k=$k exit $?"; grep -i "variant auto" /tmp/r/auto-k$k.txt
done; el
tar czf $OUT/results.tgz -C /tmp r
