#!/usr/bin/env bash
# Device run 4: 128x128 tiles (2 bands a warp) against 128x256 (4 bands); GPU tests; ncu.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host host-b4 gpu-tests; do gunzip -c target/gpu4/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cd /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== tensor GPU tests"
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests tensor --test-threads=8 > /tmp/r/gpu-tests-tensor.log 2>&1; echo "exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-tensor.log | head -10; el
A="--sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --channels 1 --runs 20"
for round in 1 2; do for b in host host-b4; do
  timeout 100 /tmp/bin/$b bench $A --variants fast,tensor --out /tmp/r/bench-$b-$round > /tmp/r/bench-$b-$round.txt 2>&1; echo "$b round $round exit $?"
  grep -E "^8192x8192 +u8.*tensor|^2048x2048 +u8.*tensor +warm" /tmp/r/bench-$b-$round.txt | head -8
done; done; el
echo "== ncu"
for r in 1 4; do k=$((2*r+1))
  timeout 100 ncu --set full --print-details all -k regex:conv_tensor_u8_r$r --launch-skip 3 -c 1 $H bench --sizes 8192x8192 --filters $k --dtypes u8 --variants tensor --runs 5 --out /tmp/r/ncu-b > /tmp/r/ncu-r$r.txt 2>&1; echo "ncu r$r exit $?"
  grep -E "Duration|Issue Slots Busy|Achieved Occupancy|DRAM Throughput|Executed Instructions  " /tmp/r/ncu-r$r.txt | head -6
done; el
tar czf $OUT/results.tgz -C /tmp r
