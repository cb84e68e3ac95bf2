#!/usr/bin/env bash
# Device run 8: f16 kernel with the window loop unrolled (gpu8) against the int8 kernel of run 5
# (gpu5), same call; GPU tests of gpu8.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r
gunzip -c target/gpu8/host.gz > /tmp/bin/host; gunzip -c target/gpu8/gpu-tests.gz > /tmp/bin/gpu-tests; gunzip -c target/gpu5/host.gz > /tmp/bin/host-int8; chmod +x /tmp/bin/*
cd /tmp
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests tensor --test-threads=8 > /tmp/r/gpu-tests-tensor.log 2>&1; echo "tests exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-tensor.log | head -5; el
A="--sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --channels 1 --runs 20"
for round in 1 2; do for b in host host-int8; do
  timeout 100 /tmp/bin/$b bench $A --variants tensor --out /tmp/r/bench-$b-$round > /tmp/r/bench-$b-$round.txt 2>&1; echo "$b round $round exit $?"
  grep -E "^8192x8192 +u8.*tensor|^2048x2048 +u8.*tensor +warm" /tmp/r/bench-$b-$round.txt | head -8
done; done; el
tar czf $OUT/results.tgz -C /tmp r
