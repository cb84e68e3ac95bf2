#!/usr/bin/env bash
# Device run 8 (session 13), the final binary (6d4ec5c: a cropped autotune probe keeps the width
# modulo 256; run 7's 8192-wide probes were 4088 wide, which slowed `tensor`): what `--variant
# auto` picks for 8192² gray 8-bit PNGs (sharpen 3x3 and 5x5, zero border) and the 2048² RGB photo,
# then issue 12 goal 2's table again (`u8` 8192², k 3-9, gray/RGB/RGBA, two rounds).
set -u
source bench/results/session10-2026-11-24/common.sh gpu82  # the preamble: log, unpack target/gpu82
cd /tmp
python3 -c "import numpy as np, cv2; g=np.random.default_rng(2); cv2.imwrite('/tmp/photo.png', g.integers(0,256,(2048,2048,3),dtype=np.uint8)); cv2.imwrite('/tmp/gray8k.png', g.integers(0,256,(8192,8192),dtype=np.uint8))"
for k in 3 5; do
  CONV_CACHE_DIR=/tmp/cc-auto timeout 100 $H -i /tmp/gray8k.png -o /tmp/gray-out-$k.png --mask $k --filter sharpen --border zero > /tmp/r/auto-k$k.txt 2>&1
  echo "auto gray k=$k exit $?"; grep -i "variant auto" /tmp/r/auto-k$k.txt
done
CONV_CACHE_DIR=/tmp/cc-auto timeout 100 $H -i /tmp/photo.png -o /tmp/photo-out.png > /tmp/r/auto-photo.txt 2>&1
echo "auto photo exit $?"; grep -i "variant auto" /tmp/r/auto-photo.txt; el
for round in 1 2; do
  timeout 200 $H bench --sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --channels 1,3,4 \
    --variants stream,tensor,fast,fast-4x2 --runs 30 --out /tmp/r/u8-$round > /tmp/r/u8-$round.txt 2>&1; echo "u8 bench $round exit $?"
done
grep warm /tmp/r/u8-1.txt | awk '$1=="8192x8192" && $3==1'; el
tar czf $OUT/results.tgz -C /tmp r
