#!/usr/bin/env bash
# Device run 1 (session 11): the goal-5 regressions. host-o (671cb57, session 10's start),
# host-h (d50137d, HEAD's kernels), host-b (inner tiles call the batched loader with the whole
# range as constants) and host-c (inner tiles keep 671cb57's loop), alternating, three rounds;
# then the peers beside host-b and host-c.
set -u
source bench/results/session10-2026-11-24/common.sh gpu60  # the preamble: log, unpack target/gpu60
cd /tmp
F32="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,11,13,17 --dtypes f32 --variants fast,fast-4x2 --runs 30"
INT="--sizes 2048x2048,8192x8192 --filters 3,5,7,9,13,19,31 --dtypes u8,u16 --variants fast,fast-4x2 --runs 20"
COL="--sizes 2048x2048,8192x8192 --filters 3,5,9 --dtypes f32,u8 --channels 3,4 --variants fast,fast-4x2 --runs 20"
for round in 1 2 3; do
  for b in host-o host-h host-b host-c; do
    for s in F32 INT COL; do
      timeout 150 /tmp/bin/$b bench ${!s} --out /tmp/r/$s-$b-$round > /tmp/r/$s-$b-$round.txt 2>&1; echo "$s $b round $round exit $?"
    done
  done
done; el
timeout 150 /tmp/bin/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.txt 2>&1; echo "peers exit $?"
for b in host-b host-c host-h; do
timeout 200 /tmp/bin/$b bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 \
  --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers.csv --out /tmp/r/bench-$b > /tmp/r/bench-$b.txt 2>&1; echo "bench $b exit $?"
sed -n '/ours \/ g_fast/,/geometric/p' /tmp/r/bench-$b.txt
done; el
tar czf $OUT/results.tgz -C /tmp r
