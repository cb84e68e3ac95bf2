#!/usr/bin/env bash
# Device run 10 (sixth session): `fast`/`fast-4x2` tiles wholly inside load a fixed vector column per thread,
# rows a constant step apart (addresses advance by constants); old (d6c68b0) against new,
# alternating.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host host-old; do gunzip -c target/gpu18/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
cd /tmp
F32="--sizes 1024x1024,2048x2048,8192x8192 --filters 3,5,7,9,13,17 --dtypes f32 --variants fast,fast-4x2 --runs 30"
U8="--sizes 2048x2048,8192x8192 --filters 3,9 --dtypes u8 --variants fast,fast-4x2 --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 120 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
    timeout 60 /tmp/bin/$b bench $U8 --out /tmp/r/u8-$b-$round > /tmp/r/u8-$b-$round.txt 2>&1; echo "u8 $b round $round exit $?"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
