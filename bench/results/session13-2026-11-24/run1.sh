#!/usr/bin/env bash
# Device run 1 (session 13): the new `stream` kernel (8-bit gray rows through registers):
# `host verify` over every border, layout and awkward size, the stream GPU tests, then `u8`
# 8192² and 2048² k=3,5 for stream, tensor and fast, two rounds, beside session 9's CUDA C++
# prototype (proto.cu, built with nvcc 13.0 here).
set -u
source bench/results/session10-2026-11-24/common.sh gpu76  # the preamble: log, unpack target/gpu76
cd /tmp
timeout 120 $H verify --variants stream --dtypes u8 --sizes 1x1,7x5,8x8,16x3,264x40,257x129,528x268,2056x9 \
  --filters 1,3,5 --borders zero,replicate,reflect,wrap,valid --channels 1,3,4 > /tmp/r/verify.log 2>&1
echo "verify exit $?"; grep -E "FAIL|passed|failed" /tmp/r/verify.log | tail -5; el
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests stream --test-threads=8 > /tmp/r/gpu-tests-stream.log 2>&1; echo "gpu tests stream exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-stream.log | head -5; el
for round in 1 2; do
  timeout 100 $H bench --sizes 8192x8192,2048x2048 --filters 3,5 --dtypes u8 --variants stream,tensor,fast --runs 30 \
    --out /tmp/r/u8-$round > /tmp/r/u8-$round.txt 2>&1; echo "u8 bench $round exit $?"
  grep warm /tmp/r/u8-$round.txt
done; el
timeout 120 /tmp/bin/proto > /tmp/r/proto.txt 2>&1; echo "proto exit $?"; cat /tmp/r/proto.txt; el
tar czf $OUT/results.tgz -C /tmp r
