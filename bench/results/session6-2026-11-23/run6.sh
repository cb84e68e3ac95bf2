#!/usr/bin/env bash
# Device run 6 (sixth session): where `fast-4x2`'s instructions go at 1024² k=3 and 2048² k=5
# (ncu source page: executed instructions per SASS instruction).
set -u
exec > >(tee $OUT/log) 2>&1
mkdir -p /tmp/bin /tmp/r; gunzip -c target/gpu15/host.gz > /tmp/bin/host; chmod +x /tmp/bin/host
cd /tmp
for c in "1024 3 r1" "2048 5 r2"; do set -- $c
  timeout 120 ncu --section SourceCounters -k regex:conv_fast_4x2_f32_$3 --launch-skip 5 -c 1 -o /tmp/r/src-$1-$2 \
    /tmp/bin/host bench --sizes ${1}x${1} --filters $2 --dtypes f32 --variants fast-4x2 --runs 5 --out /tmp/r/b > /tmp/r/ncu-src-$1-$2.log 2>&1; echo "ncu exit $?"
  timeout 120 ncu --import /tmp/r/src-$1-$2.ncu-rep --page source --print-source sass --csv > /tmp/r/src-$1-$2.csv 2>&1; echo "import exit $? $(wc -l < /tmp/r/src-$1-$2.csv) lines"
done
head -3 /tmp/r/src-1024-3.csv | cut -c1-400
tar czf $OUT/results.tgz -C /tmp/r src-1024-3.csv src-2048-5.csv ncu-src-1024-3.log
