#!/usr/bin/env bash
# Device call 4: run 3 reached its 600 s limit in racecheck, before packing its results. On the
# same (still warm) machine: pack run 3's /tmp/r, then racecheck, synccheck and initcheck on the
# interleaved cases with the run 3 binary.
ls /tmp/r | head -50 | tr '\n' ' '; tar czf $OUT/results.tgz -C /tmp r; H=/tmp/bin/host; A="--sizes 12x5,528x268 --variants fast,fast-4x2 --filters 1,3,9 --borders zero,reflect,valid --channels 3,4 --dtypes f32,u8"; for tool in racecheck synccheck initcheck; do timeout 130 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r2-san-$tool.log 2>&1; echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r2-san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r2-san-$tool.log | tail -1)"; cp /tmp/r2-san-$tool.log $OUT/; done
