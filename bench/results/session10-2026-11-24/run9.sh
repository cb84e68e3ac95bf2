#!/usr/bin/env bash
# Device run 9 (session 10): the whole GPU test suite on the final kernels (d50137d), in two halves
# so each stays within the call's time limit.
set -u
source bench/results/session10-2026-11-24/common.sh gpu57
cd /tmp
CONV_REQUIRE_GPU=1 timeout 280 /tmp/bin/gpu-tests --skip tiled_output --test-threads=8 > /tmp/r/gpu-tests-a.log 2>&1; echo "gpu tests (all but tiled_output*) exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-a.log | head -5; el
CONV_REQUIRE_GPU=1 timeout 250 /tmp/bin/gpu-tests tiled_output --test-threads=8 > /tmp/r/gpu-tests-b.log 2>&1; echo "gpu tests tiled_output* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-b.log | head -5; el
tar czf $OUT/results.tgz -C /tmp r
