#!/usr/bin/env bash
# Device run 6 (final tensor-f32 kernel, binary of run 5): host verify on its case set, and memcheck/initcheck on it.
set -u
exec > >(tee $OUT/log) 2>&1
mkdir -p /tmp/bin; gunzip -c target/gpuf5/host.gz > /tmp/bin/host; chmod +x /tmp/bin/host
A="--sizes 528x268 --variants tensor-f32 --filters 3,17,31 --borders zero,reflect,valid --channels 1,4 --dtypes f32 --seed 11"
timeout 120 /tmp/bin/host verify $A 2>&1 | tail -3
for tool in memcheck initcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 5 /tmp/bin/host verify $A > /tmp/san-$tool.log 2>&1; echo "$tool exit $?"; grep -E "SUMMARY" /tmp/san-$tool.log | tail -1
done
timeout 150 /tmp/bin/host verify --variants tensor-f32 --dtypes f32 2>&1 | tail -2
