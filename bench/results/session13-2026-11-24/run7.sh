#!/usr/bin/env bash
# Device run 7 (session 13), the final binary (autotune times `stream` only where it streams by
# words): goal 1 again, three rounds of the peers and `host bench --peers` (run 6 had 1024² k=7
# and 9 at 1.045 and 1.030, the f32 kernels unchanged since session 11); what `--variant auto`
# picks for 8192² gray 8-bit PNGs (sharpen 3x3, 5x5) and for the 2048² RGB photo; every GPU test;
# `host verify` of stream over every border and layout; the four sanitizers on stream.
set -u
source bench/results/session10-2026-11-24/common.sh gpu81  # the preamble: log, unpack target/gpu81
if ldd /tmp/bin/peers | grep -q "not found"; then
  echo "peers lacks a library here: building it"; nvcc -O3 -arch=sm_90 -std=c++17 -Xcompiler -fopenmp -o /tmp/bin/peers target/peers/peers.cu -lgomp
fi
cd /tmp
for round in 1 2 3; do
  timeout 200 /tmp/bin/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers-$round.csv > /tmp/r/peers-$round.txt 2>&1; echo "peers $round exit $?"
  timeout 200 $H bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 \
    --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers-$round.csv --out /tmp/r/bench-peers-$round > /tmp/r/bench-peers-$round.txt 2>&1; echo "bench peers $round exit $?"
  grep -E "^1024x1024|geometric" /tmp/r/bench-peers-$round.txt | tail -6
done; el
python3 -c "import numpy as np, cv2; g=np.random.default_rng(2); cv2.imwrite('/tmp/photo.png', g.integers(0,256,(2048,2048,3),dtype=np.uint8)); cv2.imwrite('/tmp/gray8k.png', g.integers(0,256,(8192,8192),dtype=np.uint8))"
for k in 3 5; do
  CONV_CACHE_DIR=/tmp/cc-auto timeout 100 $H -i /tmp/gray8k.png -o /tmp/gray-out-$k.png --mask $k --filter sharpen --border zero > /tmp/r/auto-k$k.txt 2>&1
  echo "auto gray k=$k exit $?"; grep -i "variant auto" /tmp/r/auto-k$k.txt
done
CONV_CACHE_DIR=/tmp/cc-auto timeout 100 $H -i /tmp/photo.png -o /tmp/photo-out.png > /tmp/r/auto-photo.txt 2>&1
echo "auto photo exit $?"; grep -i "variant auto" /tmp/r/auto-photo.txt; el
CONV_REQUIRE_GPU=1 timeout 420 /tmp/bin/gpu-tests --test-threads=8 > /tmp/r/gpu-tests.log 2>&1; echo "gpu tests exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests.log | head -8; el
A="--variants stream --dtypes u8 --sizes 1x1,7x5,8x8,16x3,66x20,88x20,264x40,257x129,512x24,528x268,2056x9,1032x33 --filters 1,3,5 --channels 1,3,4"
timeout 150 $H verify $A --borders zero,replicate,reflect,wrap,valid > /tmp/r/verify.log 2>&1
echo "verify exit $?"; grep -E "FAIL|passed|failed" /tmp/r/verify.log | tail -3; el
S="--variants stream --dtypes u8 --sizes 7x5,88x20,264x40,528x268 --filters 1,3,5 --channels 1,3,4 --borders zero,reflect,wrap,valid"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $S > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
