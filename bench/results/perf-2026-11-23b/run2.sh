#!/usr/bin/env bash
# Device run 2: GPU tests, u8 before/after, peers + bench (gray, color), cold start, sanitizers.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host host-before gpu-tests; do gunzip -c target/gpu3/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host; OLD=/tmp/bin/host-before
cp -r target/peers /tmp/peers-src; chmod -R u+w /tmp/peers-src
( cd /tmp/peers-src && timeout 200 nvcc -O3 -arch=sm_90 -std=c++17 -Xcompiler -fopenmp -o /tmp/peers peers.cu -lgomp > /tmp/nvcc.log 2>&1; echo "nvcc exit $?" >> /tmp/nvcc.log ) &
NV=$!
cd /tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== first run: host info with empty JIT and autotune caches"
rm -rf ~/.nv/ComputeCache ~/.cache/conv; /usr/bin/time -f "host info wall %e s" $H info 2>&1 | grep -E "wall|load|JIT|GPU" | head -5; el
echo "== GPU tests"
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests --test-threads=16 > /tmp/r/gpu-tests.log 2>&1; echo "exit $?"
grep -E "^test result|FAILED|panicked" /tmp/r/gpu-tests.log | head -12; el
wait $NV; tail -1 /tmp/nvcc.log
V=naive,constant,readonly,texture,tiled,tiled-output-16x16,tiled-output-32x16,tiled-output-32x32,tiled-cache,separable,separable-fused,fast,fast-4x2
A="--sizes 2048x2048,8192x8192 --filters 3,5,9,17 --dtypes u8,u16 --variants $V --runs 20"
echo "== u8/u16 before"; timeout 90 $OLD bench $A --out /tmp/r/int-before > /dev/null 2>&1; echo "exit $?"; el
echo "== u8/u16 after"; timeout 90 $H bench $A --out /tmp/r/int-after > /dev/null 2>&1; echo "exit $?"; el
echo "== peers"; timeout 100 /tmp/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.log 2>&1; echo "exit $?"; el
echo "== bench gray with peers"
timeout 100 $H bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32,u8 --variants fast,fast-4x2 --runs 30 --peers /tmp/r/peers.csv --out /tmp/r/gray > /tmp/r/gray.log 2>&1; echo "exit $?"
grep -A25 "Against the best" /tmp/r/gray.log; el
echo "== bench RGB/RGBA"
timeout 80 $H bench --sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32,u8 --channels 1,3,4 --variants fast,fast-4x2 --runs 20 --out /tmp/r/color > /dev/null 2>&1; echo "exit $?"; el
tar czf $OUT/results.tgz -C /tmp r
echo "== sanitize memcheck, synccheck, initcheck (default sizes)"
PATH=$PATH:/usr/local/cuda/bin timeout 100 $H sanitize --tools memcheck,synccheck,initcheck 2>&1 | tail -8; el
echo "== sanitize racecheck 1023x769"
PATH=$PATH:/usr/local/cuda/bin timeout 330 $H sanitize --tools racecheck --sizes 1023x769 2>&1 | tail -4; el
