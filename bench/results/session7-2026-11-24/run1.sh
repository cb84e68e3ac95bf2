#!/usr/bin/env bash
# Device run 1 (seventh session): `fast`/`fast-4x2` interleaved RGB/RGBA entries. GPU tests of
# `fast*`, verify of RGB/RGBA on rows of whole vectors, memcheck/racecheck, and old (fb30fd3)
# against new bench over 1, 3 and 4 channels, alternating.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host host-old gpu-tests; do gunzip -c target/gpu20/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cd /tmp
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests fast --test-threads=8 > /tmp/r/gpu-tests-fast.log 2>&1; echo "gpu tests fast* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-fast.log | head -8; el
PIDS=""
for d in f32 u8 u16; do
  timeout 200 $H verify --variants fast,fast-4x2 --dtypes $d --channels 3,4 --sizes 12x5,64x33,528x268,1024x260 \
    --filters 1,3,5,7,9 > /tmp/r/verify-$d.log 2>&1 &
  PIDS="$PIDS $!"
done
for p in $PIDS; do wait $p; echo "verify exit $?"; done
for d in f32 u8 u16; do echo "$d: $(tail -1 /tmp/r/verify-$d.log)"; done; el
F32="--sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --channels 1,3,4 --variants fast,fast-4x2 --runs 20"
U8="--sizes 2048x2048,8192x8192 --filters 3,5,7,9 --dtypes u8 --channels 1,3,4 --variants fast,fast-4x2,tensor --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 150 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
    timeout 150 /tmp/bin/$b bench $U8 --out /tmp/r/u8-$b-$round > /tmp/r/u8-$b-$round.txt 2>&1; echo "u8 $b round $round exit $?"
  done
done; el
A="--sizes 12x5,528x268 --variants fast,fast-4x2 --filters 1,3,9 --borders zero,reflect,valid --channels 3,4 --dtypes f32,u8"
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
