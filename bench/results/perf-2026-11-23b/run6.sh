#!/usr/bin/env bash
# Device run 6: one-sample loads back on I2F; GPU tests; integer rows before/after.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host host-before gpu-tests; do gunzip -c target/gpu3/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host; OLD=/tmp/bin/host-before
cd /tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V=naive,constant,readonly,texture,tiled,tiled-output-16x16,tiled-output-32x16,tiled-output-32x32,tiled-cache,separable,separable-fused,fast,fast-4x2
A="--sizes 2048x2048,8192x8192 --filters 3,5,9,17 --dtypes u8,u16 --variants $V --runs 20"
echo "== before"; timeout 90 $OLD bench $A --out /tmp/r/int-before > /dev/null 2>&1; echo "exit $?"; el
echo "== after"; timeout 90 $H bench $A --out /tmp/r/int-after > /dev/null 2>&1; echo "exit $?"; el
echo "== GPU tests"
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests --test-threads=16 > /tmp/r/gpu-tests.log 2>&1; echo "exit $?"
grep -E "^test result|FAILED|panicked" /tmp/r/gpu-tests.log | head -12; el
tar czf $OUT/results.tgz -C /tmp r
