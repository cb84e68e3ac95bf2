#!/usr/bin/env bash
# Device run 4: ncu of `tensor-f32` RGB at 8192² (k=3, 17): run 3's cluster kernels (host)
# beside the previous commit's (host-old), to see what limits them.
set -u
source bench/results/session9-2026-11-24/common.sh gpu42
cd /tmp
M=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,sm__sass_inst_executed_op_shared_st.sum
for spec in "host c3 3" "host c3 17" "host-old c3 3" "host f32_r1 3"; do
  set -- $spec
  ch=3; [ $2 = f32_r1 ] && ch=1
  timeout 120 ncu --kernel-name regex:conv_tensor_split_$2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --metrics $M \
    /tmp/bin/$1 bench --sizes 8192x8192 --filters $3 --dtypes f32 --channels $ch --variants tensor-f32 --runs 1 > /tmp/r/ncu-$1-$2-k$3.txt 2>&1
  echo "ncu $spec exit $?"
  grep -E "Duration|L2 Cache Throughput|DRAM Throughput|Achieved Occ|Stall|lts__|dram__|inst_executed|Cluster" /tmp/r/ncu-$1-$2-k$3.txt | head -30
done; el
tar czf $OUT/results.tgz -C /tmp r
