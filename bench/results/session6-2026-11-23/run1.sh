#!/usr/bin/env bash
# Device run 1 (sixth session): old (efdda40) against new `tensor` u8 and `tensor-f32` kernels,
# the peers comparison with `tensor-f32` among the candidates, ncu of the u8 tensor kernels.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; for f in host host-old; do gunzip -c target/gpu13/$f.gz > /tmp/bin/$f; done; chmod +x /tmp/bin/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cp -r target/peers /tmp/peers; chmod -R u+w /tmp/peers
(cd /tmp/peers && nvcc -O3 -arch=sm_90 -std=c++17 -Xcompiler -fopenmp -o peers peers.cu -lgomp > /tmp/r/nvcc.log 2>&1; echo "nvcc exit $?" >> /tmp/r/nvcc.log) &
NVCC=$!
cd /tmp
U8="--sizes 8192x8192,2048x2048 --filters 3,5,7,9 --dtypes u8 --variants tensor --runs 20"
F32="--sizes 8192x8192 --filters 9,17,31 --dtypes f32 --variants tensor-f32 --runs 20"
for round in 1 2; do
  for b in host-old host; do
    timeout 90 /tmp/bin/$b bench $U8 --out /tmp/r/u8-$b-$round > /tmp/r/u8-$b-$round.txt 2>&1
    echo "u8 $b round $round: $(grep -E '^(8192|2048)x.* warm' /tmp/r/u8-$b-$round.txt | awk '{print $1" k"$4" "$7}' | tr '\n' ';')"
  done
done; el
for b in host-old host; do
  timeout 90 /tmp/bin/$b bench $F32 --out /tmp/r/f32-$b > /tmp/r/f32-$b.txt 2>&1
  echo "f32 $b: $(grep -E '^8192x.* warm' /tmp/r/f32-$b.txt | awk '{print $1" k"$4" "$7}' | tr '\n' ';')"
done; el
wait $NVCC; cat /tmp/r/nvcc.log | tail -2; el
timeout 150 /tmp/peers/peers --sizes 1024,2048,4096,8192 --filters 3,5,7,9,17 --variants g_fast,copy --no-cold --csv /tmp/r/peers.csv > /tmp/r/peers.txt 2>&1; echo "peers exit $?"; el
timeout 200 /tmp/bin/host bench --sizes 1024x1024,2048x2048,4096x4096,8192x8192 --filters 3,5,7,9,17 --dtypes f32 \
  --variants fast,fast-4x2,tensor-f32 --runs 30 --peers /tmp/r/peers.csv --out /tmp/r/bench > /tmp/r/bench.txt 2>&1; echo "bench exit $?"
sed -n '/ours/,$p' /tmp/r/bench.txt | head -30; el
for r in 1 4; do k=$((2*r+1))
  timeout 100 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis \
    --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis --section InstructionStats \
    -k regex:conv_tensor_u8_r$r --launch-skip 3 -c 1 /tmp/bin/host bench --sizes 8192x8192 --filters $k --dtypes u8 \
    --variants tensor --runs 5 --out /tmp/r/ncu-b > /tmp/r/ncu-u8-r$r.txt 2>&1; echo "ncu r$r exit $?"
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occ|Compute \(SM\) Throughput|DRAM Throughput|Issue Slots Busy|Executed Ipc A|No Eligible|Block Limit Reg" /tmp/r/ncu-u8-r$r.txt | head -14
done; el
tar czf $OUT/results.tgz -C /tmp r
