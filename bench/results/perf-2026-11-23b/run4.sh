#!/usr/bin/env bash
# Device run 4: host verify (standard ladder) and the whole sanitizer suite on the final kernels, side by side.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; gunzip -c target/gpu3/host.gz > /tmp/bin/host; chmod +x /tmp/bin/host
H=/tmp/bin/host; export PATH=$PATH:/usr/local/cuda/bin
cd /tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( timeout 560 $H verify > /tmp/r/verify.log 2>&1; echo "verify exit $? at $(( $(date +%s) - T0 )) s" >> /tmp/r/verify.log ) & P1=$!
( timeout 560 $H sanitize --tools racecheck --sizes 1023x769 > /tmp/r/race-large.log 2>&1; echo "exit $? at $(( $(date +%s) - T0 )) s" >> /tmp/r/race-large.log ) & P2=$!
( timeout 560 $H sanitize --tools memcheck,synccheck,initcheck > /tmp/r/san.log 2>&1; echo "exit $? at $(( $(date +%s) - T0 )) s" >> /tmp/r/san.log
  timeout 480 $H sanitize --tools racecheck --sizes 1x1,7x5,257x129 > /tmp/r/race-small.log 2>&1; echo "exit $? at $(( $(date +%s) - T0 )) s" >> /tmp/r/race-small.log ) & P3=$!
wait $P1 $P2 $P3
el
tail -4 /tmp/r/verify.log; grep -E "PASS|FAIL|exit" /tmp/r/san.log /tmp/r/race-small.log /tmp/r/race-large.log
tar czf $OUT/results.tgz -C /tmp r
