#!/usr/bin/env bash
# Device run 4 (sixth session, binary of run 3): the GPU tests run 3 left (its 300 s limit),
# `host verify` of both tensor-core variants on the standard ladder, and the four
# compute-sanitizer tools on their case sets.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host gpu-tests; do gunzip -c target/gpu15/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cd /tmp
CONV_REQUIRE_GPU=1 timeout 120 /tmp/bin/gpu-tests tiled_output_32 --test-threads=8 > /tmp/r/gpu-tests-rest.log 2>&1; echo "gpu tests (tiled_output_32*) exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-rest.log | head -5; el
for v in tensor:u8 tensor-f32:f32; do
  timeout 150 $H verify --variants ${v%%:*} --dtypes ${v##*:} > /tmp/r/verify-${v%%:*}.log 2>&1; echo "verify ${v%%:*} exit $?"; tail -2 /tmp/r/verify-${v%%:*}.log
done; el
T="--sizes 528x268 --variants tensor --filters 3,9 --borders zero,reflect,valid --channels 1,4 --dtypes u8 --seed 11"
S="--sizes 528x268 --variants tensor-f32 --filters 3,17,31 --borders zero,reflect,valid --channels 1,4 --dtypes f32 --seed 11"
for tool in memcheck racecheck synccheck initcheck; do
  for set in T S; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify ${!set} > /tmp/r/san-$tool-$set.log 2>&1
    echo "$tool $set exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool-$set.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool-$set.log | tail -1)"
  done
done; el
tar czf $OUT/results.tgz -C /tmp r
