#!/usr/bin/env bash
# Device run 11: the last filter row by an m16n8k16 MMA (host-k16) and radius 2 capped at 48
# registers (host-r2) against the run-9 binary (host-base), same call, three interleaved rounds.
set -u
exec > >(tee $OUT/log) 2>&1
mkdir -p /tmp/bin /tmp/r
for f in host-k16 host-r2 host-base; do gunzip -c target/gpu11/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
cd /tmp
A="--sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --channels 1 --runs 20"
for round in 1 2 3; do for b in host-k16 host-r2 host-base; do
  timeout 100 /tmp/bin/$b bench $A --variants tensor --out /tmp/r/bench-$b-$round > /tmp/r/bench-$b-$round.txt 2>&1; echo "$b round $round exit $?"
  grep -E "^8192x8192 +u8.*tensor|^2048x2048 +u8.*tensor +warm" /tmp/r/bench-$b-$round.txt | awk '{print $1, $4, $7, $8}' | tr '\n' ';'; echo
done; done
timeout 100 /tmp/bin/host-k16 verify --variants tensor --dtypes u8 > /tmp/r/verify.log 2>&1; echo "verify k16 exit $?"; tail -1 /tmp/r/verify.log
tar czf $OUT/results.tgz -C /tmp r
