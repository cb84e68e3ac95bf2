# `tensor-f32` rows of two binaries of one device run: split_table.py RUNDIR SET BASE NEW
# (SET-BASE-N/bench.csv against SET-NEW-N/bench.csv, median over rounds, warm rows): per size,
# channels and k the old and new ms, new / old, and each binary's per-sample time against its
# own gray row.
import csv,glob,statistics as st,sys
d,s,a,b=sys.argv[1:5]
def load(n):
    out={}
    for f in sorted(glob.glob(f"{d}/{s}-{n}-[0-9]*/bench.csv")):
        for r in csv.DictReader(open(f)):
            if r['cache']!='warm' or r['variant']!='tensor-f32': continue
            out.setdefault((r['size'],int(r['channels']),int(r['k'])),[]).append(float(r['median ms']))
    return {k:st.median(v) for k,v in out.items()}
o=load(a); n=load(b)
for k in sorted(o): print(k, '%.4f %.4f %.3f  per-sample/gray old %.3f new %.3f'%(o[k],n[k],n[k]/o[k], o[k]/k[1]/o[(k[0],1,k[2])], n[k]/k[1]/n[(k[0],1,k[2])]))
