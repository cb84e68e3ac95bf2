#!/usr/bin/env bash
# Device run 2 (session 11): host-x (8- and 16-bit entries load as at 671cb57; gray f32 entries of
# radius < 5 give inner tiles a loop of their own; other f32 entries as at d50137d) against
# host-o (671cb57) and host-h (d50137d), alternating, two rounds; the peers beside host-x; the
# `fast` GPU tests, verify and the four sanitizers on host-x.
set -u
source bench/results/session10-2026-11-24/common.sh gpu61  # the preamble: log, unpack target/gpu61
H=/tmp/bin/host-x; cd /tmp
F32="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,11,13,17 --dtypes f32 --variants fast,fast-4x2 --runs 30"
INT="--sizes 2048x2048,8192x8192 --filters 3,5,7,9,13,19,31 --dtypes u8,u16 --variants fast,fast-4x2 --runs 20"
COL="--sizes 2048x2048,8192x8192 --filters 3,5,9 --dtypes f32,u8 --channels 3,4 --variants fast,fast-4x2 --runs 20"
for round in 1 2; do
  for b in host-o host-h host-x; do
    for s in F32 INT COL; do
      timeout 150 /tmp/bin/$b bench ${!s} --out /tmp/r/$s-$b-$round > /tmp/r/$s-$b-$round.txt 2>&1; echo "$s $b round $round exit $?"
    done
  done
done; el
timeout 150 /tmp/bin/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.txt 2>&1; echo "peers exit $?"
timeout 200 $H bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 \
  --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers.csv --out /tmp/r/bench-peers > /tmp/r/bench-peers.txt 2>&1; echo "bench exit $?"
sed -n '/ours \/ g_fast/,/geometric/p' /tmp/r/bench-peers.txt; el
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests fast --test-threads=8 > /tmp/r/gpu-tests-fast.log 2>&1; echo "gpu tests fast* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-fast.log | head -5; el
for t in f32 u8 u16; do
  timeout 200 $H verify --variants fast,fast-4x2 --dtypes $t > /tmp/r/verify-fast-$t.log 2>&1; echo "verify $t exit $? | $(tail -1 /tmp/r/verify-fast-$t.log)"
done; el
A="--sizes 1x1,7x5,257x129,528x268 --variants fast,fast-4x2 --filters 1,3,7,17 --borders zero,reflect,valid --channels 1,4 --dtypes f32,u8"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
