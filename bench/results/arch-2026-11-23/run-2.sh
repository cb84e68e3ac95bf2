#!/usr/bin/env bash
# Issue 13 device run 2: bench before/after (bench.csv only), sanitize (the other tools), verify.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin; for f in host host-before; do gunzip -c target/gpu2/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host; OLD=/tmp/bin/host-before
cd /tmp
V=naive,constant,readonly,texture,tiled,tiled-output-16x16,tiled-output-32x16,tiled-output-32x32,tiled-cache,separable,separable-fused,fast,fast-4x2
A="--sizes 2048x2048,8192x8192 --filters 5,17 --dtypes f32,u8 --variants $V --runs 20"
timeout 60 $OLD bench $A --out /tmp/b1 > /dev/null 2>&1; echo "before exit $?"; cp /tmp/b1/bench.csv $OUT/before.csv; el
timeout 60 $H bench $A --out /tmp/a1 > /dev/null 2>&1; echo "after exit $?"; cp /tmp/a1/bench.csv $OUT/after.csv; el
echo "== sanitize synccheck,initcheck,racecheck"
PATH=$PATH:/usr/local/cuda/bin timeout 230 $H sanitize --tools synccheck,initcheck,racecheck 2>&1 | grep -E "PASS|FAIL|error" | head -12; el
echo "== verify (standard ladder, every variant)"
timeout 290 $H verify > /tmp/verify.log 2>&1; echo "verify exit $?"; grep -E "^GPU|passed|^FAIL" /tmp/verify.log | head -5; el
