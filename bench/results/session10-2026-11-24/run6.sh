#!/usr/bin/env bash
# Device run 6 (session 10): E (a027372) against G (the patch's rows stored a pitch apart from one
# address; three RGBA `fast-4x2` entries off the 32-register limit), alternating; `separable-fused`
# shares the store; the peers; GPU tests, verify and memcheck on G.
set -u
source bench/results/session10-2026-11-24/common.sh gpu55
cd /tmp
F32="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --variants fast,fast-4x2,separable-fused --runs 30"
U8="--sizes 2048x2048,8192x8192 --filters 3,5,9,17 --dtypes u8,u16 --variants fast,fast-4x2,separable-fused --runs 20"
RGBA="--sizes 2048x2048,8192x8192 --filters 3,5,9 --dtypes f32,u16 --channels 4 --variants fast,fast-4x2 --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 120 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
    timeout 90 /tmp/bin/$b bench $U8 --out /tmp/r/int-$b-$round > /tmp/r/int-$b-$round.txt 2>&1; echo "int $b round $round exit $?"
    timeout 90 /tmp/bin/$b bench $RGBA --out /tmp/r/rgba-$b-$round > /tmp/r/rgba-$b-$round.txt 2>&1; echo "rgba $b round $round exit $?"
  done
done; el
timeout 150 /tmp/bin/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.txt 2>&1; echo "peers exit $?"
timeout 200 $H bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 \
  --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers.csv --out /tmp/r/bench > /tmp/r/bench.txt 2>&1; echo "bench exit $?"
sed -n '/ours \/ g_fast/,/geometric/p' /tmp/r/bench.txt; el
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests fast sep --test-threads=8 > /tmp/r/gpu-tests.log 2>&1; echo "gpu tests fast*, sep* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests.log | head -5; el
PIDS=""
for d in f32 u8 u16; do
  timeout 250 $H verify --variants fast,fast-4x2,separable-fused --dtypes $d > /tmp/r/verify-$d.log 2>&1 &
  PIDS="$PIDS $!"
done
for p in $PIDS; do wait $p; echo "verify exit $?"; done
for d in f32 u8 u16; do echo "$d: $(tail -1 /tmp/r/verify-$d.log)"; done; el
A="--sizes 1x1,7x5,257x129,528x268 --variants fast,fast-4x2,separable-fused --filters 1,3,7,17 --borders zero,reflect,valid --channels 1,4 --dtypes f32,u16"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-memcheck.log 2>&1
echo "memcheck exit $? | $(grep -E 'SUMMARY' /tmp/r/san-memcheck.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-memcheck.log | tail -1)"; el
tar czf $OUT/results.tgz -C /tmp r
