#!/usr/bin/env bash
# Device run 6 (session 11): RGB/RGBA f32 tiles in batches of 4 (as at 671cb57) instead of 6.
# host-o (671cb57), host-l (run 4's final), host-w1 (host-l with batches of 4 for RGB/RGBA f32),
# host-w2 (run 5's host-z with batches of 4 for RGB/RGBA f32), alternating, three rounds; then
# verify and memcheck of RGB/RGBA f32 on host-w1 and host-w2.
set -u
source bench/results/session10-2026-11-24/common.sh gpu65  # the preamble: log, unpack target/gpu65
cd /tmp
COLF="--sizes 2048x2048,8192x8192 --filters 3,5,7,9 --dtypes f32 --channels 3,4 --variants fast,fast-4x2 --runs 20"
for round in 1 2 3; do
  for b in host-o host-l host-w1 host-w2; do
    timeout 60 /tmp/bin/$b bench $COLF --out /tmp/r/COLF-$b-$round > /tmp/r/COLF-$b-$round.txt 2>&1; echo "COLF $b round $round exit $?"
  done
done; el
for b in host-w1 host-w2; do
  timeout 100 /tmp/bin/$b verify --variants fast,fast-4x2 --channels 3,4 --dtypes f32 > /tmp/r/verify-$b.log 2>&1; echo "verify $b exit $? | $(tail -1 /tmp/r/verify-$b.log)"
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 10 /tmp/bin/$b verify --sizes 7x5,257x129,528x268 --variants fast,fast-4x2 \
    --filters 3,7,9 --channels 3,4 --dtypes f32 --borders zero,reflect,valid > /tmp/r/san-memcheck-$b.log 2>&1
  echo "memcheck $b exit $? | $(grep -E 'SUMMARY' /tmp/r/san-memcheck-$b.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-memcheck-$b.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
