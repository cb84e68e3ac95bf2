#!/usr/bin/env bash
# Device run 3 (final kernels, as committed): first run (issue 12 goal 3) with the larger fatbin;
# old (fb30fd3) against new bench over 1, 3 and 4 channels, f32/u8/u16, alternating; then the
# whole GPU test suite, verify of `fast`/`fast-4x2` (standard ladder and RGB/RGBA rows of whole
# vectors) and the four sanitizers on the interleaved entries.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host host-old gpu-tests; do gunzip -c target/gpu22/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cd /tmp
python3 -c "import numpy as np, cv2; cv2.imwrite('/tmp/photo.png', np.random.default_rng(2).integers(0,256,(2048,2048,3),dtype=np.uint8))"
for i in 1 2; do
  rm -rf ~/.nv/ComputeCache /tmp/cc
  TIMEFORMAT="host info (empty caches): %R s wall"; time $H info > /tmp/r/info.txt 2>&1; grep -iE "fatbin|kernels" /tmp/r/info.txt | head -2
  rm -rf ~/.nv/ComputeCache /tmp/cc
  TIMEFORMAT="one image (empty caches): %R s wall"; time CONV_CACHE_DIR=/tmp/cc $H -i /tmp/photo.png -o /tmp/out-$i.png > /tmp/r/one.txt 2>&1; tail -2 /tmp/r/one.txt
done; el
F32="--sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --channels 1,3,4 --variants fast,fast-4x2,tensor-f32 --runs 20"
INT="--sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes u8,u16 --channels 1,3,4 --variants fast,fast-4x2 --runs 20"
U8T="--sizes 2048x2048,8192x8192 --filters 3,5,7,9 --dtypes u8 --channels 1 --variants tensor --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 150 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
    timeout 200 /tmp/bin/$b bench $INT --out /tmp/r/int-$b-$round > /tmp/r/int-$b-$round.txt 2>&1; echo "u8,u16 $b round $round exit $?"
  done
done
timeout 100 $H bench $U8T --out /tmp/r/u8t > /tmp/r/u8t.txt 2>&1; echo "u8 tensor exit $?"; el
CONV_REQUIRE_GPU=1 timeout 420 /tmp/bin/gpu-tests --test-threads=8 > /tmp/r/gpu-tests.log 2>&1; echo "gpu tests exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests.log | head -8; el
PIDS=""
for d in f32 u8 u16; do
  timeout 300 $H verify --variants fast,fast-4x2 --dtypes $d > /tmp/r/verify-std-$d.log 2>&1 &
  PIDS="$PIDS $!"
  timeout 300 $H verify --variants fast,fast-4x2 --dtypes $d --channels 3,4 --sizes 12x5,64x33,528x268,1024x260 \
    --filters 1,3,5,7,9 > /tmp/r/verify-rgb-$d.log 2>&1 &
  PIDS="$PIDS $!"
done
for p in $PIDS; do wait $p; echo "verify exit $?"; done
for d in f32 u8 u16; do echo "$d: standard $(tail -1 /tmp/r/verify-std-$d.log) | RGB/RGBA $(tail -1 /tmp/r/verify-rgb-$d.log)"; done; el
A="--sizes 12x5,528x268 --variants fast,fast-4x2 --filters 1,3,9 --borders zero,reflect,valid --channels 3,4 --dtypes f32,u8"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
