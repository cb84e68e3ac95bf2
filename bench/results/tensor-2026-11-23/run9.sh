#!/usr/bin/env bash
# Device run 9 (final): every GPU test, verify and the sanitizers on the tensor case set, the
# bench table (gray, RGB, RGBA; fast, fast-4x2, tensor), and what --variant auto picks.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host gpu-tests; do gunzip -c target/gpu9/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cd /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== all GPU tests"
CONV_REQUIRE_GPU=1 timeout 200 /tmp/bin/gpu-tests --test-threads=16 > /tmp/r/gpu-tests.log 2>&1; echo "exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests.log | head -10; el
echo "== verify tensor"
timeout 100 $H verify --variants tensor --dtypes u8 > /tmp/r/verify.log 2>&1; echo "exit $?"; tail -1 /tmp/r/verify.log
echo "== sanitizers on the tensor case set (host sanitize's third run)"
for tool in memcheck racecheck initcheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify --sizes 528x268 --variants tensor --filters 3,9 --borders zero,reflect,valid --channels 1,4 --dtypes u8 --seed 11 > /tmp/r/san-$tool.log 2>&1; echo "$tool exit $?"; grep -E "SUMMARY|passed" /tmp/r/san-$tool.log | tail -2
done; el
echo "== bench"
timeout 150 $H bench --sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --channels 1,3,4 --variants fast,fast-4x2,tensor --runs 20 --out /tmp/r/bench > /tmp/r/bench.txt 2>&1; echo "exit $?"
grep -E "warm" /tmp/r/bench.txt | head -80; el
echo "== --variant auto"
python3 -c "import numpy as np, cv2; cv2.imwrite('/tmp/gray.png', np.random.default_rng(1).integers(0,256,(4096,4096),dtype=np.uint8))"
n=0; for f in "emboss --mask 7" "sharpen --mask 9" "sharpen --mask 3"; do n=$((n+1))
  CONV_CACHE_DIR=/tmp/cache-$n timeout 60 $H -i /tmp/gray.png -o /tmp/out-$n.png --filter $f --variant auto --verbose > /tmp/r/auto-$n.txt 2>&1; echo "$f exit $?"
  tail -3 /tmp/r/auto-$n.txt
done; el
tar czf $OUT/results.tgz -C /tmp r
