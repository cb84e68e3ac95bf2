"""Goal 1 over several rounds: ours / best g_fast per case from `host bench --peers` ratio files.

usage: peers_rounds.py peers-ratio.csv [...]: per size and k, each round's ratio, their median,
and the geometric mean of the medians over issue 12's ten cases (2048², 8192²) and all cases.
"""
import csv, sys, statistics, collections, math
rows = collections.defaultdict(list)
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        rows[(r['size'], int(r['k']))].append(float(r['ours / g_fast']))
med = {}
for (size, k), v in sorted(rows.items(), key=lambda x: (int(x[0][0].split('x')[0]), x[0][1])):
    med[(size, k)] = statistics.median(v)
    print(f"{size} k={k}: " + " ".join(f"{x:.3f}" for x in v) + f" | median {med[(size, k)]:.3f}")
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
ten = [m for (s, k), m in med.items() if s in ('2048x2048', '8192x8192')]
print(f"geomean of medians: ten cases {geo(ten):.3f}, all {len(med)} {geo(list(med.values())):.3f}")
