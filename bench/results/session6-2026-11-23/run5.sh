#!/usr/bin/env bash
# Device run 5 (sixth session): ncu of `fast-4x2` against the peer's g_fast kernel at the sizes
# where the peer is ahead (1024² k=3 and 9, 2048² k=5): instructions, cycles, stalls.
set -u
exec > >(tee $OUT/log) 2>&1
mkdir -p /tmp/bin /tmp/r; gunzip -c target/gpu15/host.gz > /tmp/bin/host; chmod +x /tmp/bin/host
cp -r target/peers /tmp/peers; chmod -R u+w /tmp/peers
(cd /tmp/peers && nvcc -O3 -arch=sm_90 -std=c++17 -Xcompiler -fopenmp -o peers peers.cu -lgomp > /tmp/r/nvcc.log 2>&1; echo "nvcc exit $?" >> /tmp/r/nvcc.log)
tail -1 /tmp/r/nvcc.log
cd /tmp
N="ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats --section InstructionStats --metrics sm__cycles_active.max,sm__cycles_active.avg,smsp__inst_executed.sum,gpu__time_duration.sum"
G="Duration|Elapsed Cycles|SM Active Cycles|Executed Instructions  |Issue Slots Busy|No Eligible|Achieved Occupancy|Registers Per|Grid Size|Dynamic Shared|Static Shared|Warp Cycles Per Issued|sm__cycles_active|smsp__inst_executed.sum|gpu__time_duration"
for c in "1024 3 px4py2 r1" "1024 9 px4py2 r4" "2048 5 px4py4 r2"; do set -- $c
  echo "== ${1}² k=$2: ours fast-4x2"
  timeout 100 $N -k regex:conv_fast_4x2_f32_$4 --launch-skip 5 -c 1 /tmp/bin/host bench --sizes ${1}x${1} --filters $2 --dtypes f32 --variants fast-4x2 --runs 5 --out /tmp/r/b > /tmp/r/ncu-ours-$1-$2.txt 2>&1; echo "exit $?"
  grep -E "$G" /tmp/r/ncu-ours-$1-$2.txt | sed 's/  */ /g'
  echo "== ${1}² k=$2: peer g_fast_$3"
  timeout 100 $N -k regex:k_fast --launch-skip 5 -c 1 /tmp/peers/peers --sizes $1 --filters $2 --variants g_fast_$3 --no-cold > /tmp/r/ncu-peer-$1-$2.txt 2>&1; echo "exit $?"
  grep -E "$G" /tmp/r/ncu-peer-$1-$2.txt | sed 's/  */ /g'
done
tar czf $OUT/results.tgz -C /tmp r
