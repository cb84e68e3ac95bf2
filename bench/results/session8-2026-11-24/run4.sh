#!/usr/bin/env bash
# Device run 4: `tensor-f32` RGB/RGBA entries (channel count a constant): the channels of a tile as
# neighbouring blocks along x,
# tiles inside loaded 4 pixels at a time. Tests, verify, sanitizers; then old (0e9e7df) against
# new, alternating.
set -u
source bench/results/session8-2026-11-24/common.sh gpu30
cd /tmp
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests tensor_f32 --test-threads=8 > /tmp/r/gpu-tests-split.log 2>&1; echo "gpu tests tensor_f32* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-split.log | head -8; el
timeout 100 $H verify --variants tensor-f32 --dtypes f32 --channels 3,4 --sizes 12x5,300x140,528x268,1031x517 --filters 3,9,17 \
  > /tmp/r/verify-split.log 2>&1; echo "verify exit $? | $(tail -1 /tmp/r/verify-split.log)"; el
python3 -c "import numpy as np, cv2; cv2.imwrite('/tmp/photo.png', np.random.default_rng(2).integers(0,256,(2048,2048,3),dtype=np.uint8))"
for i in 1 2; do
  rm -rf ~/.nv/ComputeCache /tmp/cc
  TIMEFORMAT="host info (empty caches): %R s wall"; time $H info > /tmp/r/info.txt 2>&1; grep -iE "fatbin|kernels" /tmp/r/info.txt | head -2
  rm -rf ~/.nv/ComputeCache /tmp/cc
  TIMEFORMAT="one image (empty caches): %R s wall"; time CONV_CACHE_DIR=/tmp/cc $H -i /tmp/photo.png -o /tmp/out-$i.png > /tmp/r/one.txt 2>&1; tail -2 /tmp/r/one.txt
done; el
tar czf $OUT/results.tgz -C /tmp r
F32="--sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --channels 1,3,4 --variants fast,fast-4x2,tensor-f32 --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 150 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
A="--sizes 300x140,528x268 --variants tensor-f32 --filters 3,17 --borders zero,reflect,valid --channels 3,4 --dtypes f32"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
