#!/usr/bin/env bash
# Device run 4 (session 11): the final kernels (host-l: run 2's host-x plus `.maxnreg 36` for the
# RGBA entries that spill at 32). RGB/RGBA k=7 across the session's builds (host-o 671cb57,
# host-h d50137d, run 1's host-b and host-c, host-l), alternating, three rounds; the per-sample
# tables (f32 and u8, 1/3/4 channels) twice; RGBA verify, memcheck and the `fast` GPU tests.
set -u
source bench/results/session10-2026-11-24/common.sh gpu63  # the preamble: log, unpack target/gpu63
H=/tmp/bin/host-l; cd /tmp
COL7="--sizes 2048x2048,8192x8192 --filters 7 --dtypes f32,u8 --channels 3,4 --variants fast,fast-4x2 --runs 20"
for round in 1 2 3; do
  for b in host-o host-h host-b host-c host-l; do
    timeout 60 /tmp/bin/$b bench $COL7 --out /tmp/r/COL7-$b-$round > /tmp/r/COL7-$b-$round.txt 2>&1; echo "COL7 $b round $round exit $?"
  done
done; el
for round in 1 2; do
  timeout 150 $H bench --sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes f32 --channels 1,3,4 \
    --variants fast,fast-4x2,tensor-f32 --runs 20 --out /tmp/r/colour-f32-$round > /tmp/r/colour-f32-$round.txt 2>&1; echo "colour f32 $round exit $?"
  timeout 150 $H bench --sizes 2048x2048,8192x8192 --filters 3,5,7,9,17 --dtypes u8 --channels 1,3,4 \
    --variants fast,fast-4x2,tensor --runs 20 --out /tmp/r/colour-u8-$round > /tmp/r/colour-u8-$round.txt 2>&1; echo "colour u8 $round exit $?"
done; el
timeout 200 $H verify --variants fast,fast-4x2 --channels 4 --dtypes f32,u8,u16 > /tmp/r/verify-rgba.log 2>&1; echo "verify RGBA exit $? | $(tail -1 /tmp/r/verify-rgba.log)"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 10 $H verify --sizes 7x5,257x129,528x268 --variants fast,fast-4x2 \
  --filters 3,9 --channels 4 --dtypes f32,u8,u16 --borders zero,reflect,valid > /tmp/r/san-memcheck-rgba.log 2>&1
echo "memcheck exit $? | $(grep -E 'SUMMARY' /tmp/r/san-memcheck-rgba.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-memcheck-rgba.log | tail -1)"; el
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests fast --test-threads=8 > /tmp/r/gpu-tests-fast.log 2>&1; echo "gpu tests fast* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-fast.log | head -5; el
tar czf $OUT/results.tgz -C /tmp r
