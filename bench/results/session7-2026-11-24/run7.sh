#!/usr/bin/env bash
# Device run 7: `tensor` colour tiles inside loaded in pairs of 4-pixel groups, RGBA rows of whole
# vectors as one 16-byte load per group. Old (d1c3896) against new
# bench over 1, 3 and 4 channels, alternating; `tensor` GPU tests, verify and the sanitizers.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host host-old gpu-tests; do gunzip -c target/gpu26/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cd /tmp
U8="--sizes 2048x2048,8192x8192 --filters 3,5,7,9 --dtypes u8 --channels 1,3,4 --variants fast,fast-4x2,tensor --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 150 /tmp/bin/$b bench $U8 --out /tmp/r/u8-$b-$round > /tmp/r/u8-$b-$round.txt 2>&1; echo "u8 $b round $round exit $?"
  done
done; el
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests tensor --test-threads=8 > /tmp/r/gpu-tests-tensor.log 2>&1; echo "gpu tests tensor* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-tensor.log | head -8; el
timeout 150 $H verify --variants tensor --dtypes u8 --channels 3,4 --sizes 12x5,528x268,1024x260 --filters 1,3,5,7,9 \
  > /tmp/r/verify-tensor.log 2>&1; echo "verify exit $? | $(tail -1 /tmp/r/verify-tensor.log)"; el
A="--sizes 528x268 --variants tensor --filters 3,9 --borders zero,reflect,valid --channels 3,4 --dtypes u8"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
