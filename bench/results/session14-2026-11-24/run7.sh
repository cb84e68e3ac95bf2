#!/usr/bin/env bash
# Device run 7 (session 14): does the number of back-to-back launches change 1024²'s ratios? The
# peers time max(min-reps, min(max-reps, 150 ms / kernel)) launches, 100 at these sizes; `host
# bench --runs 30` times 30. Four rounds, main's binary (963e2eb): the peers as in every run
# (100 launches) and with 30, and `host bench --peers` with --runs 30 and --runs 100 against each.
set -u
source bench/results/session10-2026-11-24/common.sh gpu87  # the preamble: log, unpack target/gpu87
cd /tmp
B="--sizes 1024x1024,2048x2048 --filters 3,5,7,9,17 --dtypes f32 --variants fast,fast-4x2,tensor-f32"
for round in 1 2 3 4; do
  timeout 100 /tmp/bin/peers --sizes 1024,2048 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/p100-$round.csv > /tmp/r/p100-$round.txt 2>&1; echo "peers 100 $round exit $?"
  timeout 100 /tmp/bin/peers --sizes 1024,2048 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --min-reps 30 --max-reps 30 --csv /tmp/r/p30-$round.csv > /tmp/r/p30-$round.txt 2>&1; echo "peers 30 $round exit $?"
  for runs in 30 100; do for p in 100 30; do
    timeout 100 $H bench $B --runs $runs --peers /tmp/r/p$p-$round.csv --out /tmp/r/b$runs-p$p-$round > /tmp/r/b$runs-p$p-$round.txt 2>&1; echo "bench runs $runs vs peers $p, round $round: exit $?"
    grep -E "^1024x1024 +(7|9) " /tmp/r/b$runs-p$p-$round.txt
  done; done
done; el
tar czf $OUT/results.tgz -C /tmp r
