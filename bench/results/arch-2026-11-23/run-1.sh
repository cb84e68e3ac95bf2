#!/usr/bin/env bash
# Issue 13 device run: info, GPU tests, verify, sanitize, bench before (063b72c) vs after.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin; for f in host host-before gpu-tests; do gunzip -c target/gpu2/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host; OLD=/tmp/bin/host-before
cd /tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== host info"; $H info | head -12; el
V=naive,constant,readonly,texture,tiled,tiled-output-16x16,tiled-output-32x16,tiled-output-32x32,tiled-cache,separable,separable-fused,fast,fast-4x2
A="--sizes 2048x2048,8192x8192 --filters 5,17 --dtypes f32,u8 --variants $V --runs 20"
echo "== bench before (063b72c)"; timeout 120 $OLD bench $A --out $OUT/before > /tmp/before.log 2>&1; echo "exit $?"; el
echo "== bench after"; timeout 120 $H bench $A --out $OUT/after > /tmp/after.log 2>&1; echo "exit $?"; el
echo "== GPU tests (tests/gpu.rs, 195 generated + coverage)"
CONV_REQUIRE_GPU=1 timeout 170 /tmp/bin/gpu-tests --test-threads=16 2>&1 | grep -E "^test result|FAILED|panicked|failures" | head -20; echo "exit ${PIPESTATUS[0]}"; el
echo "== verify (standard ladder, every variant)"
timeout 120 $H verify 2>&1 | grep -E "^GPU|passed|FAIL" | head -5; el
echo "== sanitize"
PATH=$PATH:/usr/local/cuda/bin timeout 150 $H sanitize 2>&1 | tail -9; el
if [ $(( $(date +%s) - T0 )) -lt 420 ]; then
  echo "== bench before again"; timeout 60 $OLD bench $A --out $OUT/before2 > /dev/null 2>&1; echo "exit $?"; el
  echo "== bench after again"; timeout 60 $H bench $A --out $OUT/after2 > /dev/null 2>&1; echo "exit $?"; el
fi
