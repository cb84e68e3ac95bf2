#!/usr/bin/env bash
# Device run 12 (final kernel, 7a51688): tensor's GPU tests, the sanitizers on its case set, and
# the bench table (gray, RGB, RGBA; fast, fast-4x2, tensor).
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host gpu-tests; do gunzip -c target/gpu12/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cd /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
CONV_REQUIRE_GPU=1 timeout 100 /tmp/bin/gpu-tests tensor --test-threads=8 > /tmp/r/gpu-tests-tensor.log 2>&1; echo "tests exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-tensor.log | head -5; el
for tool in memcheck racecheck initcheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify --sizes 528x268 --variants tensor --filters 3,9 --borders zero,reflect,valid --channels 1,4 --dtypes u8 --seed 11 > /tmp/r/san-$tool.log 2>&1; echo "$tool exit $?"; grep -E "SUMMARY|passed" /tmp/r/san-$tool.log | tail -2
done; el
timeout 120 $H bench --sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --channels 1,3,4 --variants fast,fast-4x2,tensor --runs 20 --out /tmp/r/bench > /tmp/r/bench.txt 2>&1; echo "bench exit $?"
grep -E "warm" /tmp/r/bench.txt | grep -E "^(8192|2048)x" | awk '{print $1, $3, $4, $5, $7}' | tr '\n' ';'; echo; el
tar czf $OUT/results.tgz -C /tmp r
