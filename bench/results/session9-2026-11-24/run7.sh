#!/usr/bin/env bash
# Device run 7: run 1's CUDA C++ prototype of a warp-streaming u8 kernel (scratch file
# target/proto/proto.cu = proto.cu here), now timed as `host bench` and the peers time (one event pair
# per launch, behind a GPU-side wait, median of 20), beside `host bench` of main (56bd27c).
set -u
source bench/results/session9-2026-11-24/common.sh gpu40
(cd target/proto && nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/bin/proto proto.cu 2>&1 | grep -E "error" | head -20); el
timeout 200 /tmp/bin/proto > /tmp/r/proto.txt 2>&1; echo "proto exit $?"; cat /tmp/r/proto.txt; el
for round in 1 2; do
timeout 100 $H bench --sizes 8192x8192,2048x2048 --filters 3,5 --dtypes u8 --variants fast,tensor --runs 20 > /tmp/r/u8-$round.txt 2>&1; echo "u8 exit $?"; grep warm /tmp/r/u8-$round.txt | awk '!s[$0]++' | head -8
done; el
tar czf $OUT/results.tgz -C /tmp r
