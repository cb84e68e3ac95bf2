#!/usr/bin/env bash
# Device run 4 (session 12): the candidate (host: colour blocks of three channels staging their
# outputs; gray `tensor-f32` limits at radius 5-12) against 7f6ea4c (host-o): every GPU test,
# verify of tensor-f32, `tensor-f32` at k 3-31 alternating (two rounds), and the per-sample
# table (f32, 1/3/4 channels, fast/fast-4x2/tensor-f32) of host, two rounds.
set -u
source bench/results/session10-2026-11-24/common.sh gpu73  # the preamble: log, unpack target/gpu73
cd /tmp
CONV_REQUIRE_GPU=1 timeout 300 /tmp/bin/gpu-tests --test-threads=8 > /tmp/r/gpu-tests.log 2>&1; echo "gpu tests exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests.log | head -5; el
timeout 200 $H verify --variants tensor-f32 --dtypes f32 > /tmp/r/verify.log 2>&1; echo "verify exit $? | $(grep -E ' passed' /tmp/r/verify.log | tail -1)"; el
for round in 1 2; do
  for b in host-o host; do
    timeout 120 /tmp/bin/$b bench --sizes 2048x2048,8192x8192 --filters 3,5,7,9,17,21,25,31 --dtypes f32 --channels 1,3,4 \
      --variants tensor-f32 --runs 20 --out /tmp/r/split-$b-$round > /tmp/r/split-$b-$round.txt 2>&1; echo "split $b $round exit $?"
  done
done; el
for round in 1 2; do
  timeout 150 $H bench --sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --channels 1,3,4 \
    --variants fast,fast-4x2,tensor-f32 --runs 20 --out /tmp/r/colour-f32-host-$round > /tmp/r/colour-f32-host-$round.txt 2>&1; echo "colour f32 host $round exit $?"
done; el
tar czf $OUT/results.tgz -C /tmp r
