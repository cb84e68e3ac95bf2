#!/usr/bin/env bash
# Device run 4 (session 14): which launch shape of the peer's k_fast is fastest at 1024² and
# 2048² (an experiment on a copy of peers.cu, `exp`, with six more (PX, PY, BY) configurations
# beside g_fast_px4py2 and px4py4), three rounds, with main's `host bench` beside it. `exp` is
# peers.cu with these lines added to FAST_CONFIGS (name, PX, PY, BY), built as peers is:
#   X(g_fast_px4py1, 4, 1, 8) X(g_fast_px4py2b4, 4, 2, 4) X(g_fast_px4py1b16, 4, 1, 16)
#   X(g_fast_px4py2b16, 4, 2, 16) X(g_fast_px4py4b4, 4, 4, 4) X(g_fast_px8py1, 8, 1, 8)
set -u
source bench/results/session10-2026-11-24/common.sh gpu88  # the preamble: log, unpack target/gpu88
cd /tmp
for round in 1 2 3; do
  timeout 200 /tmp/bin/exp --sizes 1024,2048 --filters 3,5,7,9,17 --variants g_fast --no-cold --csv /tmp/r/exp-$round.csv > /tmp/r/exp-$round.txt 2>&1; echo "exp $round exit $?"
  timeout 200 $H bench --sizes 1024x1024,2048x2048 --filters 3,5,7,9,17 --dtypes f32 --variants fast,fast-4x2 --runs 30 --peers /tmp/r/exp-$round.csv --out /tmp/r/b-$round > /tmp/r/b-$round.txt 2>&1; echo "bench $round exit $?"
done; el
python3 - <<'PY'
import csv, collections, statistics
t = collections.defaultdict(list)
for r in (1, 2, 3):
    for row in csv.DictReader(open(f'/tmp/r/exp-{r}.csv')):
        if row['variant'].startswith('g_fast'):
            t[(int(row['width']), int(row['k']), row['variant'])].append(float(row['median_ms']))
for (w, k, v), x in sorted(t.items()):
    print(f"{w} k={k} {v:20s} {statistics.median(x)*1000:8.2f} us  {' '.join(f'{y*1000:.2f}' for y in x)}")
PY
tar czf $OUT/results.tgz -C /tmp r
