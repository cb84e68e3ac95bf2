#!/usr/bin/env bash
# Device run 10 (session 10): the session's start (671cb57, host-old) against its final kernels
# (d50137d, host), alternating, three rounds: f32, u8, u16 through `fast` and `fast-4x2`.
set -u
source bench/results/session10-2026-11-24/common.sh gpu58
cd /tmp
F32="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --variants fast,fast-4x2 --runs 30"
INT="--sizes 2048x2048,8192x8192 --filters 3,5,9,17 --dtypes u8,u16 --variants fast,fast-4x2 --runs 20"
for round in 1 2 3; do
  for b in host-old host; do
    timeout 120 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
    timeout 90 /tmp/bin/$b bench $INT --out /tmp/r/int-$b-$round > /tmp/r/int-$b-$round.txt 2>&1; echo "int $b round $round exit $?"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
