#!/usr/bin/env bash
# Device run 7: each 8-column block of A read from shared memory once (ldmatrix.x2, right half kept as the next left half).
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host gpu-tests; do gunzip -c target/gpu7/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cd /tmp
echo "== tensor GPU tests"
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests tensor --test-threads=8 > /tmp/r/gpu-tests-tensor.log 2>&1; echo "exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-tensor.log | head -10; el
timeout 100 $H verify --variants tensor --dtypes u8 > /tmp/r/verify.log 2>&1; echo "verify exit $?"; tail -1 /tmp/r/verify.log
timeout 100 $H bench --sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --channels 1 --runs 20 --variants fast,tensor --out /tmp/r/bench > /tmp/r/bench.txt 2>&1; echo "bench exit $?"
grep -E "^8192x8192 +u8.*tensor|^2048x2048 +u8.*tensor +warm" /tmp/r/bench.txt | head -8; el
echo "== sanitizers"
for tool in memcheck racecheck initcheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify --sizes 528x268,31x17 --variants tensor --filters 3,9 --borders zero,reflect,valid --channels 1,4 --dtypes u8 --seed 11 > /tmp/r/san-$tool.log 2>&1; echo "$tool exit $?"; grep -E "SUMMARY|passed" /tmp/r/san-$tool.log | tail -2
done; el
echo "== ncu"
for r in 1 4; do k=$((2*r+1))
  timeout 100 ncu --set full --import-source yes -o /tmp/r/ncu-r$r -k regex:conv_tensor_u8_r$r --launch-skip 3 -c 1 $H bench --sizes 8192x8192 --filters $k --dtypes u8 --variants tensor --runs 5 --out /tmp/r/ncu-b > /tmp/r/ncu-r$r.log 2>&1; echo "ncu r$r exit $?"
  ncu -i /tmp/r/ncu-r$r.ncu-rep --page source --csv --print-source sass > /tmp/r/src-r$r.csv 2>/tmp/r/src-r$r.err; echo "src exit $? $(wc -l < /tmp/r/src-r$r.csv) lines"; head -c 300 /tmp/r/src-r$r.err
  ncu -i /tmp/r/ncu-r$r.ncu-rep --page details --print-details all > /tmp/r/ncu-r$r.txt 2>&1
  grep -E "Duration|Issue Slots Busy|Achieved Occupancy|DRAM Throughput|Executed Instructions  " /tmp/r/ncu-r$r.txt | head -6
done; el
tar czf $OUT/results.tgz -C /tmp r
