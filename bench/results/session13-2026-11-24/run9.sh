#!/usr/bin/env bash
# Device run 9 (session 13), the final binary: autotune probes now keep the whole width and as
# many rows as 64 MiB of input hold (run 8's 4096² probes, L2-resident, put 8192² k=5 on
# `stream`, 15% slower there than `tensor`). What `--variant auto` picks for 8192² gray 8-bit
# PNGs (sharpen 3x3 and 5x5, zero border, with the whole run's wall time) and the 2048² RGB photo.
set -u
source bench/results/session10-2026-11-24/common.sh gpu83  # the preamble: log, unpack target/gpu83
cd /tmp
python3 -c "import numpy as np, cv2; g=np.random.default_rng(2); cv2.imwrite('/tmp/photo.png', g.integers(0,256,(2048,2048,3),dtype=np.uint8)); cv2.imwrite('/tmp/gray8k.png', g.integers(0,256,(8192,8192),dtype=np.uint8))"
for k in 3 5; do S=$(date +%s%N)
  CONV_CACHE_DIR=/tmp/cc-auto timeout 100 $H -i /tmp/gray8k.png -o /tmp/gray-out-$k.png --mask $k --filter sharpen --border zero > /tmp/r/auto-k$k.txt 2>&1
  echo "auto gray k=$k exit $? wall $(( ($(date +%s%N) - S) / 1000000 )) ms"; grep -i "variant auto" /tmp/r/auto-k$k.txt
done
CONV_CACHE_DIR=/tmp/cc-auto timeout 100 $H -i /tmp/photo.png -o /tmp/photo-out.png > /tmp/r/auto-photo.txt 2>&1
echo "auto photo exit $?"; grep -i "variant auto" /tmp/r/auto-photo.txt; el
tar czf $OUT/results.tgz -C /tmp r
