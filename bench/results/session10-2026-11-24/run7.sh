#!/usr/bin/env bash
# Device run 7 (session 10): E (a027372) against H (tile loads in batches of 6: one batch covers a
# `fast` thread's rows up to radius 5), alternating, f32; the peers beside H.
set -u
source bench/results/session10-2026-11-24/common.sh gpu56
cd /tmp
F32="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --variants fast,fast-4x2 --runs 30"
for round in 1 2 3; do
  for b in host-old host; do
    timeout 120 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
  done
done; el
timeout 150 /tmp/bin/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.txt 2>&1; echo "peers exit $?"
for b in host-old host; do
timeout 200 /tmp/bin/$b bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 \
  --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers.csv --out /tmp/r/bench-$b > /tmp/r/bench-$b.txt 2>&1; echo "bench $b exit $?"
sed -n '/ours \/ g_fast/,/geometric/p' /tmp/r/bench-$b.txt
done; el
tar czf $OUT/results.tgz -C /tmp r
