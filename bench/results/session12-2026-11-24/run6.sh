#!/usr/bin/env bash
# Device run 6 (session 12): the final kernels (host; colour blocks of three channels limited to
# 80 registers): the tensor_f32 GPU tests, memcheck and racecheck on tensor-f32, `tensor-f32`
# (1/3/4 channels, k 3-31) against 7f6ea4c (host-o) alternating, three rounds, and the per-sample
# table (f32, 1/3/4 channels, fast/fast-4x2/tensor-f32) of host, two rounds.
set -u
source bench/results/session10-2026-11-24/common.sh gpu75  # the preamble: log, unpack target/gpu75
cd /tmp
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests tensor_f32 --test-threads=8 > /tmp/r/gpu-tests-tensor-f32.log 2>&1; echo "gpu tests tensor_f32* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-tensor-f32.log | head -5; el
A="--sizes 7x5,257x129,528x268 --variants tensor-f32 --filters 3,9,25,27 --channels 1,3,4 --dtypes f32 --borders zero,reflect,valid"
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed' /tmp/r/san-$tool.log | tail -1)"
done; el
for round in 1 2 3; do
  for b in host-o host; do
    timeout 100 /tmp/bin/$b bench --sizes 2048x2048,8192x8192 --filters 3,5,7,9,17,25,31 --dtypes f32 --channels 1,3,4 \
      --variants tensor-f32 --runs 20 --out /tmp/r/split-$b-$round > /tmp/r/split-$b-$round.txt 2>&1; echo "split $b $round exit $?"
  done
done; el
for round in 1 2; do
  timeout 150 $H bench --sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --channels 1,3,4 \
    --variants fast,fast-4x2,tensor-f32 --runs 20 --out /tmp/r/colour-f32-host-$round > /tmp/r/colour-f32-host-$round.txt 2>&1; echo "colour f32 host $round exit $?"
done; el
tar czf $OUT/results.tgz -C /tmp r
