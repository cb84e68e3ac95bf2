#!/usr/bin/env bash
# Device run 4: the shared-memory attribute set once per entry and size instead of on every
# launch. The whole GPU test suite, and verify of `tensor-f32` (whose large radii need more than
# 48 KiB of shared memory) and `fast` at k = 31. (The verify reached its 150 s limit in the f64
# CPU reference of 2048x2048 k=31; the GPU tests cover these kernels at k = 31.)
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host gpu-tests; do gunzip -c target/gpu23/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cd /tmp
CONV_REQUIRE_GPU=1 timeout 420 /tmp/bin/gpu-tests --test-threads=8 > /tmp/r/gpu-tests.log 2>&1; echo "gpu tests exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests.log | head -8; el
timeout 150 $H verify --variants tensor-f32,fast,fast-4x2 --dtypes f32 --sizes 64x33,528x268,2048x2048 --filters 3,17,25,31 \
  --channels 1,3,4 --borders zero,reflect > /tmp/r/verify.log 2>&1; echo "verify exit $? | $(tail -1 /tmp/r/verify.log)"; el
tar czf $OUT/results.tgz -C /tmp r
