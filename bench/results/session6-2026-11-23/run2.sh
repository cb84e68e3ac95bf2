#!/usr/bin/env bash
# Device run 2 (sixth session): tile loads at the image's edges batched (`fast`, `fast-4x2`,
# `tensor-f32`); old (efdda40) against new, alternating, then the peers comparison.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host host-old; do gunzip -c target/gpu14/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cp -r target/peers /tmp/peers; chmod -R u+w /tmp/peers
(cd /tmp/peers && nvcc -O3 -arch=sm_90 -std=c++17 -Xcompiler -fopenmp -o peers peers.cu -lgomp > /tmp/r/nvcc.log 2>&1; echo "nvcc exit $?" >> /tmp/r/nvcc.log) &
NVCC=$!
cd /tmp
F32="--sizes 1024x1024,2048x2048,8192x8192 --filters 3,5,9,11,13,17 --dtypes f32 --variants fast,fast-4x2,tensor-f32 --runs 30"
U8="--sizes 8192x8192,2048x2048 --filters 3,9 --dtypes u8 --variants fast,fast-4x2,tensor --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 120 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
  done
done; el
for b in host-old host; do
  timeout 90 /tmp/bin/$b bench $U8 --out /tmp/r/u8-$b > /tmp/r/u8-$b.txt 2>&1; echo "u8 $b exit $?"
done; el
wait $NVCC; tail -1 /tmp/r/nvcc.log
timeout 150 /tmp/peers/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.txt 2>&1; echo "peers exit $?"; el
timeout 200 /tmp/bin/host bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 \
  --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers.csv --out /tmp/r/bench > /tmp/r/bench.txt 2>&1; echo "bench exit $?"
sed -n '/ours \/ g_fast/,/geometric/p' /tmp/r/bench.txt; el
tar czf $OUT/results.tgz -C /tmp r
