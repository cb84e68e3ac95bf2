#!/usr/bin/env bash
# Device run 5 (session 10): old (671cb57), A (run 4's), E (edge tiles under the zero and valid
# borders in the inner tiles' batches, each vector read if its tile row is in one range, one
# comparison) alternating; the peers; `fast*` GPU tests, verify and the sanitizers on E.
set -u
source bench/results/session10-2026-11-24/common.sh gpu54
cd /tmp
F32="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --variants fast,fast-4x2 --runs 30"
U8="--sizes 2048x2048,8192x8192 --filters 3,5,9,17 --dtypes u8 --variants fast,fast-4x2 --runs 20"
for round in 1 2; do
  for b in host-old host-a host; do
    timeout 120 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
    timeout 60 /tmp/bin/$b bench $U8 --out /tmp/r/int-$b-$round > /tmp/r/int-$b-$round.txt 2>&1; echo "u8 $b round $round exit $?"
  done
done; el
timeout 150 /tmp/bin/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.txt 2>&1; echo "peers exit $?"
timeout 200 $H bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 \
  --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers.csv --out /tmp/r/bench > /tmp/r/bench.txt 2>&1; echo "bench exit $?"
sed -n '/ours \/ g_fast/,/geometric/p' /tmp/r/bench.txt; el
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests fast --test-threads=8 > /tmp/r/gpu-tests-fast.log 2>&1; echo "gpu tests fast* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-fast.log | head -5; el
PIDS=""
for d in f32 u8 u16; do
  timeout 250 $H verify --variants fast,fast-4x2 --dtypes $d > /tmp/r/verify-fast-$d.log 2>&1 &
  PIDS="$PIDS $!"
done
for p in $PIDS; do wait $p; echo "verify exit $?"; done
for d in f32 u8 u16; do echo "$d: $(tail -1 /tmp/r/verify-fast-$d.log)"; done; el
A="--sizes 1x1,7x5,257x129,528x268 --variants fast,fast-4x2 --filters 1,3,7,17 --borders zero,reflect,valid --channels 1,4 --dtypes f32,u8"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
