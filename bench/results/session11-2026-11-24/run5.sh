#!/usr/bin/env bash
# Device run 5 (session 11): RGB/RGBA f32 loads. host-o (671cb57), host-l (run 4's final),
# host-y (RGB/RGBA f32 edge tiles vector by vector again), host-z (host-y, and RGB/RGBA f32 inner
# tiles in a loop of their own), alternating, three rounds.
set -u
source bench/results/session10-2026-11-24/common.sh gpu64  # the preamble: log, unpack target/gpu64
cd /tmp
COLF="--sizes 2048x2048,8192x8192 --filters 3,5,7,9 --dtypes f32 --channels 3,4 --variants fast,fast-4x2 --runs 20"
for round in 1 2 3; do
  for b in host-o host-l host-y host-z; do
    timeout 60 /tmp/bin/$b bench $COLF --out /tmp/r/COLF-$b-$round > /tmp/r/COLF-$b-$round.txt 2>&1; echo "COLF $b round $round exit $?"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
