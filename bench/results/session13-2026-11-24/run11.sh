#!/usr/bin/env bash
# Device run 11 (session 13): run 10's kernels (host; the right-edge strip unrolled under every
# border; ptxas now gives the gray radius-1 entry 48 registers, radius 2 80) against run 5's
# (host-a, d645fe4's kernels: 56 and 88), alternating, three rounds: stream `u8` 8192² and 2048²,
# k=3,5, gray, RGB and RGBA.
set -u
source bench/results/session10-2026-11-24/common.sh gpu84  # the preamble: log, unpack target/gpu84
cd /tmp
for round in 1 2 3; do
  for b in host-a host; do
    timeout 100 /tmp/bin/$b bench --sizes 8192x8192,2048x2048 --filters 3,5 --dtypes u8 --channels 1,3,4 --variants stream --runs 30 \
      --out /tmp/r/s-$b-$round > /tmp/r/s-$b-$round.txt 2>&1; echo "$b $round exit $?"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
