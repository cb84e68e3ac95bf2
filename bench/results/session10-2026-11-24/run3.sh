#!/usr/bin/env bash
# Device run 3 (session 10): `fast` edge tiles under the zero and valid borders load in the inner
# tiles' batches (vectors outside the image zeroed). Old (671cb57) against new, alternating;
# the peers comparison; verify and memcheck on `fast`, `fast-4x2`; ncu of `fast` r2 at 2048² k=5.
set -u
source bench/results/session10-2026-11-24/common.sh gpu52
cd /tmp
F32="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --variants fast,fast-4x2 --runs 30"
U8="--sizes 2048x2048,8192x8192 --filters 3,5,9 --dtypes u8 --variants fast,fast-4x2 --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 120 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
    timeout 60 /tmp/bin/$b bench $U8 --out /tmp/r/int-$b-$round > /tmp/r/int-$b-$round.txt 2>&1; echo "u8 $b round $round exit $?"
  done
done; el
timeout 150 /tmp/bin/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.txt 2>&1; echo "peers exit $?"
timeout 200 $H bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 \
  --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers.csv --out /tmp/r/bench > /tmp/r/bench.txt 2>&1; echo "bench exit $?"
sed -n '/ours \/ g_fast/,/geometric/p' /tmp/r/bench.txt; el
timeout 200 $H verify --variants fast,fast-4x2 --dtypes f32,u8 --borders zero,valid,reflect > /tmp/r/verify.log 2>&1; echo "verify exit $? | $(tail -1 /tmp/r/verify.log)"; el
A="--sizes 1x1,7x5,257x129,528x268 --variants fast,fast-4x2 --filters 1,3,7,17 --borders zero,valid --channels 1,4 --dtypes f32,u8"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-memcheck.log 2>&1
echo "memcheck exit $? | $(grep -E 'SUMMARY' /tmp/r/san-memcheck.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-memcheck.log | tail -1)"; el
S="--metrics smsp__inst_executed.sum,sm__cycles_active.max,sm__cycles_active.avg,gpu__time_duration.sum"
for b in host-old host; do
timeout 60 ncu $S -k regex:conv_fast_f32_r2 --launch-skip 5 -c 1 /tmp/bin/$b bench --sizes 2048x2048 --filters 5 --dtypes f32 --variants fast --runs 5 --out /tmp/r/b > /tmp/r/ncu-$b.log 2>&1; echo "ncu $b $?"
grep -E "inst_executed|cycles_active|duration" /tmp/r/ncu-$b.log | sed 's/  */ /g'
done; el
rm -rf /tmp/r/b; tar czf $OUT/results.tgz -C /tmp r
