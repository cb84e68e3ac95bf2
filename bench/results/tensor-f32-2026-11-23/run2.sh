#!/usr/bin/env bash
# Device run 2 (tensor-f32: A quads built once per chunk, no kept rows, 68 registers): tests, bench, ncu.

set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host gpu-tests; do gunzip -c target/gpuf2/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cd /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests tensor --test-threads=8 > /tmp/r/gpu-tests-tensor.log 2>&1; echo "tests exit $?"
grep -E "^test result|panicked|FAILED|out of tolerance" /tmp/r/gpu-tests-tensor.log | head -12; el
timeout 150 $H bench --sizes 8192x8192,2048x2048 --filters 3,5,9,17,31 --dtypes f32 --variants fast,fast-4x2,tensor-f32 --runs 20 --out /tmp/r/bench > /tmp/r/bench.txt 2>&1; echo "bench exit $?"
grep -E "warm" /tmp/r/bench.txt | grep -E "^\| (8192|2048)x" | awk -F'|' '{print $2,$5,$6,$8}' ; el
timeout 120 ncu --kernel-name regex:conv_tensor_split_f32_r8 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum $H bench --sizes 8192x8192 --filters 17 --dtypes f32 --variants tensor-f32 --runs 1 > /tmp/r/ncu-k17.txt 2>&1; echo "ncu exit $?"
grep -E "Duration|Throughput|hmma|inst_executed|shared|Issue|Achieved Occupancy|Registers|Warp Cycles" /tmp/r/ncu-k17.txt | head -30; el
tar czf $OUT/results.tgz -C /tmp r
