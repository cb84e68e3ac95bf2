"""Per-sample time of RGB/RGBA against gray from `host bench` CSV files.

usage: per_sample.py a.csv [b.csv ...]: for each size, sample type and k, the median over the files
of each warm row's median ms, the fastest variant per channel count, and (time / channels) / gray.
"""
import csv, sys, collections, statistics
rows=collections.defaultdict(list)
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        if r['cache']!='warm': continue
        rows[(r['size'],r['dtype'],int(r['channels']),int(r['k']),r['variant'])].append(float(r['median ms']))
t={k:statistics.median(v) for k,v in rows.items()}
sizes=sorted({k[0] for k in t}); dts=sorted({k[1] for k in t}); ks=sorted({k[3] for k in t}); vs=sorted({k[4] for k in t})
for s in sizes:
  for dt in dts:
    for k in ks:
      best={c:min((t[(s,dt,c,k,v)],v) for v in vs if (s,dt,c,k,v) in t) for c in (1,3,4) if any((s,dt,c,k,v) in t for v in vs)}
      if 1 not in best: continue
      line=f"{s} {dt} k={k}: gray {best[1][0]:.4f} ({best[1][1]})"
      for c in (3,4):
        if c in best: line+=f" | C{c} {best[c][0]:.4f} ({best[c][1]}) per-sample x{best[c][0]/c/best[1][0]:.2f}"
      print(line)
