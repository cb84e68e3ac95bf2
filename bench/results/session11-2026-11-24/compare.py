# Compare two binaries of one device run: compare.py RUNDIR SET BASE NEW (SET-BASE-N/bench.csv against
# SET-NEW-N/bench.csv, median over rounds, warm rows); prints rows over 2.5% slower and a summary.
import csv,sys,glob,statistics as st,math
d,s,base,new=sys.argv[1:5]
def load(n):
    out={}
    for f in sorted(glob.glob(f"{d}/{s}-{n}-[0-9]*/bench.csv")):
        for r in csv.DictReader(open(f)):
            if r['cache']!='warm': continue
            out.setdefault((r['size'],r['dtype'],r['channels'],r['k'],r['variant']),[]).append(float(r['median ms']))
    return out
o=load(base); n=load(new)
rs={k:st.median(n[k])/st.median(o[k]) for k in o if k in n}
for k,v in sorted(rs.items(), key=lambda x:-x[1]):
    if v>1.025: print('  SLOWER',' '.join(k),'%.4f -> %.4f  %.3f'%(st.median(o[k]),st.median(n[k]),v))
print(s,base,'->',new,'n=%d min %.3f max %.3f geomean %.3f'%(len(rs),min(rs.values()),max(rs.values()),math.exp(sum(map(math.log,rs.values()))/len(rs))))
