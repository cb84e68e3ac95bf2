#!/usr/bin/env bash
# Device run 3 of the tensor kernel: GPU tests, sanitizer on its own case set, bench against fast, ncu.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host gpu-tests; do gunzip -c target/gpu3/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cd /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== tensor GPU tests"
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests tensor --test-threads=8 > /tmp/r/gpu-tests-tensor.log 2>&1; echo "exit $?"
grep -E "^test |^test result|panicked" /tmp/r/gpu-tests-tensor.log | head -40; el
echo "== verify tensor, fast u8 (default ladder)"
timeout 120 $H verify --variants tensor,fast --dtypes u8 > /tmp/r/verify.log 2>&1; echo "exit $?"; tail -5 /tmp/r/verify.log; el
echo "== bench"
timeout 150 $H bench --sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --channels 1 --variants fast,fast-4x2,tensor --runs 20 --out /tmp/r/bench-gray > /tmp/r/bench-gray.txt 2>&1; echo "exit $?"
grep -E "tensor|fast" /tmp/r/bench-gray.txt | head -40; el
timeout 120 $H bench --sizes 8192x8192 --filters 3,9 --dtypes u8 --channels 3,4 --variants fast,tensor --runs 10 --out /tmp/r/bench-color > /tmp/r/bench-color.txt 2>&1; echo "exit $?"
grep -E "tensor|fast" /tmp/r/bench-color.txt | head -20; el
echo "== sanitizer on the tensor case set"
for tool in memcheck racecheck initcheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify --sizes 528x268,31x17 --variants tensor --filters 3,9 --borders zero,reflect,valid --channels 1,4 --dtypes u8 --seed 11 > /tmp/r/san-$tool.log 2>&1; echo "$tool exit $?"; grep -E "SUMMARY|passed" /tmp/r/san-$tool.log | tail -2
done; el
echo "== ncu"
for r in 1 4; do k=$((2*r+1))
  timeout 100 ncu --set full -k regex:conv_tensor_u8_r$r --launch-skip 3 -c 1 $H bench --sizes 8192x8192 --filters $k --dtypes u8 --variants tensor --runs 5 --out /tmp/r/ncu-b > /tmp/r/ncu-r$r.txt 2>&1; echo "ncu r$r exit $?"
done
grep -E "Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Issue Slots Busy|Tensor" /tmp/r/ncu-r4.txt | head -20; el
tar czf $OUT/results.tgz -C /tmp r
