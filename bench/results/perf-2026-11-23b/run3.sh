#!/usr/bin/env bash
# Device run 3: GPU tests; fast/fast-4x2 gray and colour against e79e975 and the original (before) binary; peers.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host host-before host-e79 gpu-tests; do gunzip -c target/gpu3/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host; OLD=/tmp/bin/host-before; E79=/tmp/bin/host-e79
cp -r target/peers /tmp/peers-src; chmod -R u+w /tmp/peers-src
( cd /tmp/peers-src && timeout 200 nvcc -O3 -arch=sm_90 -std=c++17 -Xcompiler -fopenmp -o /tmp/peers peers.cu -lgomp > /tmp/nvcc.log 2>&1; echo "nvcc exit $?" >> /tmp/nvcc.log ) &
NV=$!
cd /tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== first run: host info with empty JIT and autotune caches"
rm -rf ~/.nv/ComputeCache ~/.cache/rust-gpu-conv; S=$(date +%s%N); $H info > /tmp/r/info.txt 2>&1; E=$(date +%s%N); echo "host info wall $(( (E - S) / 1000000 )) ms"; head -3 /tmp/r/info.txt
echo "== GPU tests"
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests --test-threads=16 > /tmp/r/gpu-tests.log 2>&1; echo "exit $?"
grep -E "^test result|FAILED|panicked" /tmp/r/gpu-tests.log | head -12; el
wait $NV; tail -1 /tmp/nvcc.log
echo "== peers"; timeout 100 /tmp/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.log 2>&1; echo "exit $?"; el
G="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17,31 --dtypes f32,u8 --variants fast,fast-4x2 --runs 30"
C="--sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32,u8 --channels 1,3,4 --variants fast,fast-4x2 --runs 20"
echo "== gray: new with peers"; timeout 100 $H bench $G --peers /tmp/r/peers.csv --out /tmp/r/gray > /tmp/r/gray.log 2>&1; echo "exit $?"
grep -A25 "Against the best" /tmp/r/gray.log; el
echo "== gray: before"; timeout 100 $OLD bench $G --out /tmp/r/gray-before > /dev/null 2>&1; echo "exit $?"; el
echo "== colour: new"; timeout 100 $H bench $C --out /tmp/r/color > /dev/null 2>&1; echo "exit $?"; el
echo "== colour: e79e975"; timeout 100 $E79 bench $C --out /tmp/r/color-e79 > /dev/null 2>&1; echo "exit $?"; el
echo "== gray: new again"; timeout 100 $H bench $G --out /tmp/r/gray2 > /dev/null 2>&1; echo "exit $?"; el
tar czf $OUT/results.tgz -C /tmp r
el
