#!/usr/bin/env bash
# Device run 7 (session 12): racecheck, synccheck and initcheck on `tensor-f32` with the final
# kernels (run 6's binary; run 6's racecheck ran out of its 120 s).
set -u
source bench/results/session10-2026-11-24/common.sh gpu75  # the preamble: log, unpack target/gpu75
cd /tmp
A="--sizes 7x5,257x129,528x268 --variants tensor-f32 --filters 3,9,25,27 --channels 1,3,4 --dtypes f32 --borders zero,reflect,valid"
for tool in racecheck synccheck initcheck; do
  timeout 190 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed' /tmp/r/san-$tool.log | tail -1)"; el
done
tar czf $OUT/results.tgz -C /tmp r
