#!/usr/bin/env bash
# Device run 1: a CUDA C++ prototype of a warp-streaming kernel (rows in registers, no shared
# memory; target/proto/proto.cu, an earlier form of proto.cu here) beside the current kernels.
set -u
source bench/results/session9-2026-11-24/common.sh gpu40
(cd target/proto && nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/bin/proto proto.cu 2>&1 | grep -v "set but never used" | head -20); el
timeout 200 /tmp/bin/proto > /tmp/r/proto.txt 2>&1; echo "proto exit $?"; cat /tmp/r/proto.txt; el
timeout 100 $H bench --sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --variants fast,fast-4x2,tensor --runs 20 > /tmp/r/u8.txt 2>&1; echo "u8 exit $?"; grep warm /tmp/r/u8.txt | head -40; el
timeout 100 $H bench --sizes 2048x2048,1024x1024 --filters 3,5,7,9 --dtypes f32 --variants fast,fast-4x2,tensor-f32 --runs 20 > /tmp/r/f32.txt 2>&1; echo "f32 exit $?"; grep warm /tmp/r/f32.txt | head -40; el
tar czf $OUT/results.tgz -C /tmp r
