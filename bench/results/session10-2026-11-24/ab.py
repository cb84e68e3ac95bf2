# Old/new ratio of `host bench` CSV files of one device run: ab.py RUNDIR PREFIX NEW [FILTER]
# (PREFIX-host-old-N/bench.csv against PREFIX-NEW-N/bench.csv, median over rounds, warm rows).
import csv,sys,glob,statistics as st,math
d,pre,name=sys.argv[1],sys.argv[2],sys.argv[3]
def load(n):
    out={}
    for f in sorted(glob.glob(f"{d}/{pre}-{n}-[0-9]*/bench.csv")):
        for r in csv.DictReader(open(f)):
            if r['cache']!='warm': continue
            out.setdefault((r['size'],r['dtype'],r['channels'],r['k'],r['variant']),[]).append(float(r['median ms']))
    return out
o=load('host-old'); n=load(name); rs={}
for k in o:
    if k in n: rs[k]=st.median(n[k])/st.median(o[k])
flt=sys.argv[4] if len(sys.argv)>4 else ''
sel={k:v for k,v in rs.items() if all(x in ' '.join(k) for x in flt.split(','))}
print(pre, flt, 'n=%d min %.3f max %.3f geomean %.3f'%(len(sel),min(sel.values()),max(sel.values()),math.exp(sum(map(math.log,sel.values()))/len(sel))))
