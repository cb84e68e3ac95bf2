#!/usr/bin/env bash
# Device run 12 (session 13): where goal 1's 1024² k=7 and k=9 gap comes from. ncu's kernel
# duration (gpu__time_duration, the kernel alone, no launch) of ours (`fast`, the variant the
# peer table takes there) and of the peer's g_fast_px4py2, 1024² k=7 and 9, against the
# event-timed medians of the same binaries in the same call.
set -u
source bench/results/session10-2026-11-24/common.sh gpu85  # the preamble: log, unpack target/gpu85
cd /tmp
M="--metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active"
for k in 7 9; do
  timeout 120 ncu --kernel-name regex:conv_fast --launch-skip 5 --launch-count 5 $M \
    $H bench --sizes 1024x1024 --filters $k --dtypes f32 --variants fast,fast-4x2 --runs 10 > /tmp/r/ncu-ours-k$k.txt 2>&1; echo "ncu ours k=$k exit $?"
  grep -E "conv_fast|gpu__time_duration|registers|grid_size" /tmp/r/ncu-ours-k$k.txt | head -12
  timeout 120 ncu --kernel-name regex:k_fast --launch-skip 5 --launch-count 5 $M \
    /tmp/bin/peers --sizes 1024 --filters $k --variants g_fast_px4py2 --no-cold --min-reps 10 --max-reps 10 > /tmp/r/ncu-peer-k$k.txt 2>&1; echo "ncu peer k=$k exit $?"
  grep -E "k_fast|gpu__time_duration|registers|grid_size" /tmp/r/ncu-peer-k$k.txt | head -12
done; el
for round in 1 2; do
  timeout 100 /tmp/bin/peers --sizes 1024 --filters 3,5,7,9 --variants g_fast,copy --no-cold --csv /tmp/r/peers-$round.csv > /tmp/r/peers-$round.txt 2>&1
  timeout 100 $H bench --sizes 1024x1024 --filters 3,5,7,9 --dtypes f32 --variants fast,fast-4x2 --runs 30 --peers /tmp/r/peers-$round.csv --out /tmp/r/b-$round > /tmp/r/b-$round.txt 2>&1
  grep -A8 "ours / g_fast" /tmp/r/b-$round.txt | head -8
done; el
tar czf $OUT/results.tgz -C /tmp r
