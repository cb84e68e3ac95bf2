#!/usr/bin/env bash
# Device run 10: register limits for tensor r2 (48: 5 blocks an SM) and r4 (64: 4 blocks, 8 bytes
# of spill) against the run-9 binary, same call, two interleaved rounds.
set -u
exec > >(tee $OUT/log) 2>&1
mkdir -p /tmp/bin /tmp/r
for f in host host-base; do gunzip -c target/gpu10/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
cd /tmp
A="--sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --channels 1 --runs 20"
for round in 1 2; do for b in host host-base; do
  timeout 100 /tmp/bin/$b bench $A --variants tensor --out /tmp/r/bench-$b-$round > /tmp/r/bench-$b-$round.txt 2>&1; echo "$b round $round exit $?"
  grep -E "^8192x8192 +u8.*tensor|^2048x2048 +u8.*tensor +warm" /tmp/r/bench-$b-$round.txt | head -8
done; done
timeout 100 /tmp/bin/host verify --variants tensor --dtypes u8 > /tmp/r/verify.log 2>&1; echo "verify exit $?"; tail -1 /tmp/r/verify.log
tar czf $OUT/results.tgz -C /tmp r
