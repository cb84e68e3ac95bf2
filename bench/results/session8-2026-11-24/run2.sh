#!/usr/bin/env bash
# Device run 2: `tensor` window results returned as values (gray loop as before). Full GPU test
# suite, tensor verify, first run with empty caches, then old (0e9e7df) against new, alternating.
set -u
source bench/results/session8-2026-11-24/common.sh gpu28
cd /tmp
CONV_REQUIRE_GPU=1 timeout 330 /tmp/bin/gpu-tests --test-threads=8 > /tmp/r/gpu-tests.log 2>&1; echo "gpu tests exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests.log | head -8; el
timeout 100 $H verify --variants tensor --dtypes u8 --channels 3,4 --sizes 12x5,300x140,528x268,1031x517 --filters 1,3,5,7,9 \
  > /tmp/r/verify-tensor.log 2>&1; echo "verify exit $? | $(tail -1 /tmp/r/verify-tensor.log)"; el
python3 -c "import numpy as np, cv2; cv2.imwrite('/tmp/photo.png', np.random.default_rng(2).integers(0,256,(2048,2048,3),dtype=np.uint8))"
for i in 1 2; do
  rm -rf ~/.nv/ComputeCache /tmp/cc
  TIMEFORMAT="host info (empty caches): %R s wall"; time $H info > /tmp/r/info.txt 2>&1; grep -iE "fatbin|kernels" /tmp/r/info.txt | head -2
  rm -rf ~/.nv/ComputeCache /tmp/cc
  TIMEFORMAT="one image (empty caches): %R s wall"; time CONV_CACHE_DIR=/tmp/cc $H -i /tmp/photo.png -o /tmp/out-$i.png > /tmp/r/one.txt 2>&1; tail -2 /tmp/r/one.txt
done; el
tar czf $OUT/results.tgz -C /tmp r
U8="--sizes 2048x2048,8192x8192 --filters 3,5,7,9 --dtypes u8 --channels 1,3,4 --variants fast,fast-4x2,tensor --runs 20"
for round in 1 2 3; do
  for b in host-old host; do
    timeout 150 /tmp/bin/$b bench $U8 --out /tmp/r/u8-$b-$round > /tmp/r/u8-$b-$round.txt 2>&1; echo "u8 $b round $round exit $?"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
