#!/usr/bin/env bash
# Device run 2: interleaved entries with every output row computed before the stores (RGB
# unrolled too). A: no register limit on the interleaved entries; B: 32 registers where ptxas
# fits them without spilling. GPU tests of `fast*` (A), verify RGB/RGBA (A and B), bench A
# against B over 1, 3 and 4 channels, alternating.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host-A host-B gpu-tests; do gunzip -c target/gpu21/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
cd /tmp
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests fast --test-threads=8 > /tmp/r/gpu-tests-fast.log 2>&1; echo "gpu tests fast* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-fast.log | head -8; el
PIDS=""
for b in A B; do for d in f32 u8 u16; do
  timeout 200 /tmp/bin/host-$b verify --variants fast,fast-4x2 --dtypes $d --channels 3,4 --sizes 12x5,64x33,528x268,1024x260 \
    --filters 1,3,5,7,9 > /tmp/r/verify-$b-$d.log 2>&1 &
  PIDS="$PIDS $!"
done; done
for p in $PIDS; do wait $p; echo "verify exit $?"; done
for b in A B; do for d in f32 u8 u16; do echo "$b $d: $(tail -1 /tmp/r/verify-$b-$d.log)"; done; done; el
F32="--sizes 2048x2048,8192x8192 --filters 3,5,7,9 --dtypes f32 --channels 1,3,4 --variants fast,fast-4x2 --runs 20"
U8="--sizes 2048x2048,8192x8192 --filters 3,5,7,9 --dtypes u8 --channels 1,3,4 --variants fast,fast-4x2,tensor --runs 20"
for round in 1 2; do
  for b in A B; do
    timeout 150 /tmp/bin/host-$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
    timeout 150 /tmp/bin/host-$b bench $U8 --out /tmp/r/u8-$b-$round > /tmp/r/u8-$b-$round.txt 2>&1; echo "u8 $b round $round exit $?"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
