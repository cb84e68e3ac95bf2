#!/usr/bin/env bash
# Device run 1 (session 10): where `fast` loses to the peer's g_fast at 1024² and 2048², k=5-9.
# A CUDA prototype (does a 400-byte parameter block cost launch time?), the peers beside
# `host bench` of main, and ncu source counters of `fast` r2 and the peer's 4×4 kernel at 2048² k=5.
set -u
source bench/results/session10-2026-11-24/common.sh gpu50
timeout 60 /tmp/bin/p10 > /tmp/r/p10.txt 2>&1; echo "p10 exit $?"; cat /tmp/r/p10.txt; el
cd /tmp/r
timeout 120 /tmp/bin/peers --sizes 1024,2048 --filters 5,7,9 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.txt 2>&1; echo "peers exit $?"; el
timeout 120 $H bench --sizes 1024x1024,2048x2048 --filters 5,7,9 --dtypes f32 --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers.csv > /tmp/r/bench.txt 2>&1; echo "bench exit $?"
grep -A30 -i "ratio\|peer" /tmp/r/bench.txt | tail -25; el
S="--section SourceCounters --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --metrics smsp__inst_executed.sum,sm__cycles_active.max,sm__cycles_active.avg,gpu__time_duration.sum"
timeout 120 ncu $S -k regex:conv_fast_f32_r2 --launch-skip 5 -c 1 -o /tmp/r/ours $H bench --sizes 2048x2048 --filters 5 --dtypes f32 --variants fast --runs 5 --out /tmp/r/b > /tmp/r/ncu-ours.log 2>&1; echo "ncu ours $?"
timeout 120 ncu $S -k regex:k_fast --launch-skip 5 -c 1 -o /tmp/r/peer /tmp/bin/peers --sizes 2048 --filters 5 --variants g_fast_px4py4 --no-cold > /tmp/r/ncu-peer.log 2>&1; echo "ncu peer $?"; el
for x in ours peer; do
  timeout 60 ncu --import /tmp/r/$x.ncu-rep --page details > /tmp/r/$x-details.txt 2>&1
  timeout 60 ncu --import /tmp/r/$x.ncu-rep --page source --print-source sass --csv > /tmp/r/$x-src.csv 2>&1
  echo "== $x"; grep -E "Duration|Elapsed Cycles|SM Active|Executed Ipc|Issue Slots|No Eligible|Warp Cycles Per Issued|Achieved Occ|Registers Per|inst_executed|sm__cycles_active|Waves" /tmp/r/$x-details.txt | sed 's/  */ /g'
done; el
rm -f /tmp/r/*.ncu-rep /tmp/r/b*; tar czf $OUT/results.tgz -C /tmp r
