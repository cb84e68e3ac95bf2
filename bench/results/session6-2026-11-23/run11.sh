#!/usr/bin/env bash
# Device run 11 (sixth session, final `fast.rs`): tiles wholly inside load a fixed vector column
# per thread, rows a constant step apart; `fast` up to radius 4 in 32 registers. Old (d6c68b0)
# against new, alternating; the peers comparison; `fast*` GPU tests, verify and the sanitizers
# on `fast` and `fast-4x2`.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host host-old gpu-tests; do gunzip -c target/gpu19/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
H=/tmp/bin/host
cp -r target/peers /tmp/peers; chmod -R u+w /tmp/peers
(cd /tmp/peers && nvcc -O3 -arch=sm_90 -std=c++17 -Xcompiler -fopenmp -o peers peers.cu -lgomp > /tmp/r/nvcc.log 2>&1; echo "nvcc exit $?" >> /tmp/r/nvcc.log) &
NVCC=$!
cd /tmp
F32="--sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,13,17 --dtypes f32 --variants fast,fast-4x2 --runs 30"
U8="--sizes 2048x2048,8192x8192 --filters 3,5,9 --dtypes u8,u16 --variants fast,fast-4x2 --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 120 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b-$round > /tmp/r/f32-$b-$round.txt 2>&1; echo "f32 $b round $round exit $?"
    timeout 60 /tmp/bin/$b bench $U8 --out /tmp/r/int-$b-$round > /tmp/r/int-$b-$round.txt 2>&1; echo "u8,u16 $b round $round exit $?"
  done
done; el
wait $NVCC; tail -1 /tmp/r/nvcc.log
timeout 150 /tmp/peers/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.txt 2>&1; echo "peers exit $?"
timeout 200 $H bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 \
  --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers.csv --out /tmp/r/bench > /tmp/r/bench.txt 2>&1; echo "bench exit $?"
sed -n '/ours \/ g_fast/,/geometric/p' /tmp/r/bench.txt; el
timeout 120 $H bench --sizes 8192x8192 --filters 3,5,7,9 --dtypes u8 --variants fast,fast-4x2,tensor --runs 20 --out /tmp/r/bench-u8 > /tmp/r/bench-u8.txt 2>&1; echo "bench u8 exit $?"
grep -E "^8192x.* warm" /tmp/r/bench-u8.txt | awk '{print $4, $5, $7}' | tr '\n' ';'; echo; el
CONV_REQUIRE_GPU=1 timeout 150 /tmp/bin/gpu-tests fast --test-threads=8 > /tmp/r/gpu-tests-fast.log 2>&1; echo "gpu tests fast* exit $?"
grep -E "^test result|panicked|FAILED" /tmp/r/gpu-tests-fast.log | head -5; el
PIDS=""
for d in f32 u8 u16; do
  timeout 300 $H verify --variants fast,fast-4x2 --dtypes $d > /tmp/r/verify-fast-$d.log 2>&1 &
  PIDS="$PIDS $!"
done
for p in $PIDS; do wait $p; echo "verify exit $?"; done
for d in f32 u8 u16; do echo "$d: $(tail -1 /tmp/r/verify-fast-$d.log)"; done; el
A="--sizes 1x1,7x5,257x129,528x268 --variants fast,fast-4x2 --filters 1,3,7,17 --borders zero,reflect,valid --channels 1,4 --dtypes f32,u8"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 10 $H verify $A > /tmp/r/san-$tool.log 2>&1
  echo "$tool exit $? | $(grep -E 'SUMMARY' /tmp/r/san-$tool.log | tail -1) | $(grep -E ' passed, ' /tmp/r/san-$tool.log | tail -1)"
done; el
tar czf $OUT/results.tgz -C /tmp r
